// The page's LocatorDriver (locatorApi.ts): resolving a locator's target and doing its actions with
// the element actions every other caller uses (elementActions.ts, input.ts). Made by the context
// for each page (page.ts cannot import this module: the element actions need the whole Page).

import type { HighlightOptions } from '../types.js';
import { sleep } from '../util/time.js';
import { clickElement, fillElement, hoverElement, scrollElement, typeIntoElement } from './elementActions.js';
import { callFunction } from './evaluate.js';
import { setInputFiles } from './fileInput.js';
import type { Frame, ResolvedElement } from './frame.js';
import { clickablePoint, notActionable, ownerChain, tap, toBox, toTopPage, type Box } from './input.js';
import { onEngine } from './pointerCheck.js';
import { contentFrameOf, countSelector, releaseElement, resolveSelector } from './locator.js';
import type { LocatorDriver, LocatorTarget } from './locatorApi.js';
import type { Page } from './page.js';

export function createLocatorDriver(page: Page): LocatorDriver<Frame, ResolvedElement> {
  const enter = async (from: Frame | undefined, frames: readonly string[], timeoutMs: number): Promise<Frame> => {
    let frame = from ?? page.mainFrame();
    for (const selector of frames) {
      const owner = await resolveSelector(page, selector, timeoutMs, { from: frame });
      frame = await contentFrameOf(owner, `The frame selector "${selector}" points`, timeoutMs);
    }
    return frame;
  };
  const start = (target: LocatorTarget<Frame>, timeoutMs: number) =>
    target.frames.length ? enter(target.frame, target.frames, timeoutMs) : Promise.resolve(target.frame);
  // Page-side helpers act for the user (a click event, files put in an input): as a user's gesture.
  const helper = <Result>(element: ResolvedElement, name: string, args: unknown[], timeoutMs: number): Promise<Result> =>
    onEngine<Result>(
      element,
      name,
      args.map((value) => ({ value })),
      timeoutMs,
      true,
    );
  return {
    get defaultTimeoutMs() {
      return page.defaultTimeoutMs;
    },
    get instrumentation() {
      return page.instrumentation;
    },
    mainFrame: () => page.mainFrame(),
    enter,
    resolve: async (target, timeoutMs) =>
      resolveSelector(page, target.selector, timeoutMs, { from: await start(target, timeoutMs), nth: target.nth }),
    count: async (target, timeoutMs) => countSelector(page, target.selector, timeoutMs, await start(target, timeoutMs)),
    release: releaseElement,
    frameOf: (element) => element.frame,
    evaluate: (element, fn, arg, timeoutMs) =>
      callFunction(element.world.session, { objectId: element.objectId }, fn, [{ objectId: element.objectId }, { value: arg }], {
        timeoutMs,
        what: 'on the element',
      }),
    helper,
    click: (element, button, clickCount, timeoutMs) => clickElement(page, element, timeoutMs, clickCount, button),
    tap: async (element, timeoutMs) => tap(page, await clickablePoint(element, timeoutMs), timeoutMs),
    hover: (element, timeoutMs) => hoverElement(page, element, timeoutMs),
    fill: (element, value, timeoutMs) => fillElement(page, element, value, timeoutMs),
    type: (element, text, delayMs, timeoutMs) => typeIntoElement(page, element, text, timeoutMs, delayMs),
    scrollTo: (element, fraction, timeoutMs) => scrollElement(element, { to: fraction }, timeoutMs),
    centroid: async (element, timeoutMs) => {
      const { x, y } = await clickablePoint(element, timeoutMs);
      return { x: Math.round(x), y: Math.round(y) };
    },
    locationOf: async (target, timeoutMs) => {
      const element = await resolveSelector(page, target.selector, timeoutMs, { from: await start(target, timeoutMs), nth: target.nth });
      try {
        return await borderBox(element, timeoutMs);
      } finally {
        releaseElement(element);
      }
    },
    backendNodeId: async (element, timeoutMs) =>
      (await element.world.session.send('DOM.describeNode', { objectId: element.objectId }, { timeoutMs })).node.backendNodeId,
    highlight: (element, options, timeoutMs) => highlight(element, options, timeoutMs),
    setInputFiles: (element, files, timeoutMs) => setInputFiles(element, files, page.remoteBrowser, helper, timeoutMs),
  };
}

/**
 * The element's border box in the top page's viewport, as it is (no scrolling): DOM.getBoxModel
 * answers in the viewport of the frame's local root, so each out-of-process frame above adds its
 * <iframe>'s content box, measured in its own.
 */
async function borderBox(element: ResolvedElement, timeoutMs: number): Promise<Box> {
  const { model } = await element.world.session
    .send('DOM.getBoxModel', { objectId: element.objectId }, { timeoutMs })
    .catch(notActionable('Cannot measure the element: it has no layout box', '.'));
  const box = toBox(model.border);
  await toTopPage(box, await ownerChain(element.frame, timeoutMs), timeoutMs);
  return box;
}

/** Chrome's own highlight (the Overlay domain, as DevTools draws it) over the element, for a while. */
async function highlight(element: ResolvedElement, options: HighlightOptions, timeoutMs: number): Promise<void> {
  const session = element.world.session;
  const { node } = await session.send('DOM.describeNode', { objectId: element.objectId }, { timeoutMs });
  // The Overlay domain draws only with the DOM domain on.
  const release = await session.hold('DOM', timeoutMs);
  try {
    await session.send('Overlay.enable', undefined, { timeoutMs });
    const highlightConfig = {
      borderColor: options.borderColor ?? { r: 255, g: 0, b: 0, a: 0.9 },
      contentColor: options.contentColor ?? { r: 255, g: 200, b: 0, a: 0.2 },
    };
    await session.send('Overlay.highlightNode', { backendNodeId: node.backendNodeId, highlightConfig }, { timeoutMs });
    // 0 leaves it drawn (until the next highlight, or the page's next navigation), as Stagehand does,
    // and so keeps its hold on the DOM agent, which the drawing needs.
    if (options.durationMs === 0) return;
    await sleep(options.durationMs ?? 800);
    await session.send('Overlay.hideHighlight', undefined, { timeoutMs });
  } catch (error) {
    void session.sendQuiet('Overlay.disable');
    release();
    throw error;
  }
  void session.sendQuiet('Overlay.disable');
  release();
}
