// Screenshots: by default what the viewport shows; one element scrolled into view (`selector`); a
// part of the page (`clip`), or all of it (`fullPage`); a frame as the page shows it. Only a capture
// beyond the viewport asks Chrome to paint past it (captureBeyondViewport), since that lays the page
// out again at another size for the moment of the capture.

import type { CdpSession } from '../cdp/session.js';
import { ElementNotActionableError, InvalidOptionError } from '../errors.js';
import type { FrameScreenshotOptions, ScreenshotOptions } from '../types.js';
import { withDeadline } from '../util/time.js';
import type { Frame } from './frame.js';
import { visibleBox, type Box } from './input.js';
import { releaseElement } from './locator.js';
import { applyEffects, undoAll, type EffectsPage } from './screenshotEffects.js';
import { checkFrameScreenshotOptions, checkScreenshotOptions, type CheckedScreenshot } from './screenshotOptions.js';

/** What a screenshot needs of a page (page.ts's Page has it). */
export interface ScreenshotPage extends EffectsPage {
  readonly defaultTimeoutMs: number;
  mainFrame(): Frame;
}

interface Clip extends Box {
  scale: number;
}

export async function captureScreenshot(page: ScreenshotPage, options: ScreenshotOptions | undefined): Promise<Uint8Array> {
  const checked = checkScreenshotOptions(options, page.defaultTimeoutMs);
  return finish(
    await withDeadline(
      capture(page, checked, () => pageRegion(page, checked)),
      checked.timeoutMs,
      'Taking the screenshot',
    ),
    checked,
  );
}

/** The main frame as page.screenshot() takes it; another frame as the page shows it (scrolled into view). */
export async function captureFrame(page: ScreenshotPage, frame: Frame, options: FrameScreenshotOptions | undefined): Promise<Uint8Array> {
  const checked = checkFrameScreenshotOptions(options, page.defaultTimeoutMs);
  if (frame.parent && checked.fullPage)
    throw new InvalidOptionError(
      'frame.screenshot: `fullPage` is for the main frame; for an iframe, leave it out to capture the frame as the page shows it.',
    );
  const region = () => (frame.parent ? frameRegion(page, frame, checked) : pageRegion(page, checked));
  return withDeadline(capture(page, checked, region), checked.timeoutMs, 'Taking the screenshot of the frame');
}

/** The part of the page to capture, in the document's CSS pixels; undefined for the viewport. */
type Region = { box: Box; beyond: boolean } | undefined;

async function capture(page: ScreenshotPage, options: CheckedScreenshot, region: () => Promise<Region>): Promise<Uint8Array> {
  // The caller's deadline is withDeadline's; each command has at least the usual one, so that what
  // was changed in the page is known, and taken back, also after a short deadline passed.
  const timeoutMs = Math.max(options.timeoutMs, page.defaultTimeoutMs);
  const undo = await applyEffects(page, options, timeoutMs);
  try {
    const area = await region();
    const factor =
      options.scale === 'css'
        ? 1 / (await page.mainFrame().evaluate<number>('devicePixelRatio'))
        : options.scale === 'device'
          ? 1
          : options.scale;
    let clip: Clip | undefined = area && { ...area.box, scale: factor };
    if (!clip && factor !== 1) clip = { ...(await viewport(page.session, timeoutMs)), scale: factor };
    const { data } = await page.session.send(
      'Page.captureScreenshot',
      { format: options.format, quality: options.quality, ...(clip && { clip }), captureBeyondViewport: area?.beyond ?? false },
      { timeoutMs },
    );
    return decodeBase64(data);
  } finally {
    await undoAll(undo);
  }
}

/** The viewport, in the document's CSS pixels. */
async function viewport(session: CdpSession, timeoutMs: number): Promise<Box> {
  const { cssVisualViewport: view } = await session.send('Page.getLayoutMetrics', undefined, { timeoutMs });
  return { x: view.pageX, y: view.pageY, width: view.clientWidth, height: view.clientHeight };
}

async function pageRegion(page: ScreenshotPage, options: CheckedScreenshot): Promise<Region> {
  const { selector } = options;
  const timeoutMs = Math.max(options.timeoutMs, page.defaultTimeoutMs);
  if (selector !== undefined) return { box: await elementBox(page, selector, timeoutMs), beyond: false };
  if (options.fullPage) {
    const { cssContentSize: size } = await page.session.send('Page.getLayoutMetrics', undefined, { timeoutMs });
    return { box: { x: 0, y: 0, width: Math.ceil(size.width), height: Math.ceil(size.height) }, beyond: true };
  }
  if (!options.clip) return undefined;
  const view = await viewport(page.session, timeoutMs);
  const { x, y, width, height } = options.clip;
  return {
    box: { x, y, width, height },
    beyond: x < view.x || y < view.y || x + width > view.x + view.width || y + height > view.y + view.height,
  };
}

/** The part of the element inside the viewport, in the document's coordinates. */
async function elementBox(page: ScreenshotPage, selector: string, timeoutMs: number): Promise<Box> {
  const element = await page.locator(selector).resolve(timeoutMs);
  try {
    const box = await visibleBox(element, timeoutMs).catch((error: Error) => {
      throw error instanceof ElementNotActionableError
        ? new ElementNotActionableError(`"${selector}" cannot be captured: ${error.message}.`)
        : error;
    });
    return inView(
      await viewport(page.session, timeoutMs),
      box,
      `"${selector}" cannot be captured: no part of it is in the viewport, even scrolled into view.`,
    );
  } finally {
    releaseElement(element);
  }
}

/** The frame's viewport (its <iframe>'s content box) as the page shows it, scrolled into view; `clip` is within it. */
async function frameRegion(page: ScreenshotPage, frame: Frame, options: CheckedScreenshot): Promise<Region> {
  const timeoutMs = Math.max(options.timeoutMs, page.defaultTimeoutMs);
  const parent = frame.parent!;
  const [objectId, engine, owner] = await Promise.all([
    frame.ownerHandle(timeoutMs),
    parent.engine(timeoutMs),
    frame.ownerElementId(timeoutMs),
  ]);
  if (!objectId || owner === null) throw new ElementNotActionableError(`The frame ${frame.url()} has no <iframe> in the page to capture.`);
  const border = await visibleBox({ frame: parent, world: engine.world, objectId }, timeoutMs);
  const { model } = await parent.session.send('DOM.getBoxModel', { backendNodeId: owner }, { timeoutMs });
  let box: Box = {
    x: border.x + model.content[0]! - model.border[0]!,
    y: border.y + model.content[1]! - model.border[1]!,
    width: model.content[2]! - model.content[0]!,
    height: model.content[5]! - model.content[1]!,
  };
  if (options.clip) {
    const { x, y, width, height } = options.clip;
    const left = Math.max(box.x, box.x + x);
    const top = Math.max(box.y, box.y + y);
    box = {
      x: left,
      y: top,
      width: Math.min(box.x + box.width, box.x + x + width) - left,
      height: Math.min(box.y + box.height, box.y + y + height) - top,
    };
  }
  return {
    box: inView(
      await viewport(page.session, timeoutMs),
      box,
      `The frame ${frame.url()} cannot be captured: no part of it${options.clip ? ' in `clip`' : ''} is in the viewport.`,
    ),
    beyond: false,
  };
}

/** `box` (viewport coordinates) cut to the viewport, in the document's coordinates. */
function inView(view: Box, box: Box, nothing: string): Box {
  const left = Math.max(box.x, 0);
  const top = Math.max(box.y, 0);
  const right = Math.min(box.x + box.width, view.width);
  const bottom = Math.min(box.y + box.height, view.height);
  if (right - left < 1 || bottom - top < 1) throw new ElementNotActionableError(nothing);
  return { x: left + view.x, y: top + view.y, width: right - left, height: bottom - top };
}

/** Writes the picture to `path` when asked (Node only), then hands it back. */
async function finish(bytes: Uint8Array, options: CheckedScreenshot): Promise<Uint8Array> {
  if (options.path) await writeFile(options.path, bytes);
  return bytes;
}

async function writeFile(path: string, bytes: Uint8Array): Promise<void> {
  // Named through a variable, so that no bundler takes Node's file system into an extension's bundle.
  const fsName = 'node:fs/promises';
  let fs: { writeFile(path: string, data: Uint8Array): Promise<void> };
  try {
    fs = (await import(/* @vite-ignore */ fsName)) as typeof fs;
  } catch {
    throw new InvalidOptionError(
      'screenshot: `path` writes a file, which needs Node.js; here, leave it out and use the bytes screenshot() returns.',
    );
  }
  await fs.writeFile(path, bytes);
}

function decodeBase64(data: string): Uint8Array {
  // Buffer where there is one (Node); atob in edge runtimes.
  if (typeof Buffer !== 'undefined') return Buffer.from(data, 'base64');
  return Uint8Array.from(atob(data), (char) => char.charCodeAt(0));
}
