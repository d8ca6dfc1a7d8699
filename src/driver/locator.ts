import type { Protocol } from 'devtools-protocol';
import {
  ContentFrameNotFoundError,
  ElementIdNotFoundError,
  ElementNotFoundError,
  SdkEvalError,
  SdkIframeError,
  SelectorSyntaxError,
  XPathResolutionError,
} from '../errors.js';
import { describeException, isContextGone } from './evaluate.js';
import { frameOfNumber, parseRef, type RefPage } from './refs.js';
import { registerClosedShadowRoots } from './shadow.js';
import type { Frame, ResolvedElement, World } from './frame.js';
import type { FrameLocator as FrameLocatorOf, Locator as LocatorOf } from './locatorApi.js';

export type { ResolvedElement } from './frame.js';
/** What page.locator(), page.deepLocator() and frame.locator() return (see locatorApi.ts). */
export type Locator = LocatorOf<Frame, ResolvedElement>;
/** What page.frameLocator() returns. */
export type FrameLocator = FrameLocatorOf<Frame, ResolvedElement>;

const MAX_FRAME_HOPS = 32;

/** Lets go of an element's handle, without waiting (its target may be gone already). */
export function releaseElement(element: ResolvedElement): void {
  void element.world.session.sendQuiet('Runtime.releaseObject', { objectId: element.objectId });
}

export function isXPath(selector: string): boolean {
  return /^(xpath=|\/|\(|\.\.?\/)/.test(selector.trim());
}

/** What selectors need of a page (page.ts's Page has it). */
export interface LocatorPage extends RefPage {
  /** Deadline of a single operation unless it gives its own. */
  readonly defaultTimeoutMs: number;
}

/** Where a selector starts, and which of its matches is wanted. */
export interface SelectorScope {
  /** The frame the selector starts in; the page's main frame when not given. */
  from?: Frame;
  /** The match wanted, counting from 0 in the order count() counts them; the first when not given. */
  nth?: number;
}

/**
 * Resolves a selector from the page's main frame (or `scope.from`). XPath and CSS both cross
 * iframes (an XPath that steps past an iframe into `html`, or CSS parts joined by ` >> `), and `//`
 * searches the composed tree, closed shadow roots included. Each frame does its own part in its own
 * process.
 */
export async function resolveSelector(
  page: LocatorPage,
  selector: string,
  timeoutMs: number,
  scope: SelectorScope = {},
): Promise<ResolvedElement> {
  const nth = scope.nth ?? 0;
  return follow(page, selector, scope.from, timeoutMs, nth, (frame, rest) => resolveInFrame(frame, rest, nth, timeoutMs));
}

/** How many elements the selector matches, in the frame its last part is resolved in. */
export function countSelector(page: LocatorPage, selector: string, timeoutMs: number, from?: Frame): Promise<number> {
  // An id whose frame is gone has no element to count.
  const ref = parseRef(selector);
  if (ref && !frameOfNumber(page, ref[0])) return Promise.resolve(0);
  return follow(page, selector, from, timeoutMs, 0, async (frame, rest) => {
    await learnClosedRoots(frame, timeoutMs);
    const { result } = await callEngine(frame, timeoutMs, 'function (s) { return this.countMatches(s); }', [{ value: rest }]);
    return typeof result.value === 'number' ? result.value : String(result.value);
  });
}

/** Walks the selector's hops from frame to frame; `step` does the part in each frame. */
async function follow<Found>(
  page: LocatorPage,
  selector: string,
  from: Frame | undefined,
  timeoutMs: number,
  nth: number,
  step: (frame: Frame, rest: string) => Promise<Found | string>,
): Promise<Found> {
  const xpath = isXPath(selector);
  let frame = from ?? page.mainFrame();
  let rest = selector.trim();
  // An id of the page text names its frame itself, and its element there.
  const ref = parseRef(rest);
  if (ref) {
    const found = frameOfNumber(page, ref[0]);
    const outcome = found ? await step(found, `ref=${ref[1]}`) : 'none';
    if (typeof outcome !== 'string') return outcome;
    const id = ref[0] ? `[${ref[0]}-${ref[1]}]` : `[${ref[1]}]`;
    throw new ElementIdNotFoundError(
      `${id} is not an element of this page now: no read gave that id, or its element is gone since (removed, its document replaced, ` +
        'its frame gone). Read the page again (extract(), or page_text over MCP) and use an id from that read.',
      id,
    );
  }
  for (let hop = 0; hop <= MAX_FRAME_HOPS; hop++) {
    // A closed page says so where the frame is used; a frame detached from a live page, here.
    if (frame.isDetached() && !frame.page.isClosed()) {
      throw new SdkIframeError(
        `The frame ${frame.url() || frame.id} that "${selector}" is looked up in was detached; take a new one from page.frames().`,
      );
    }
    const outcome = await step(frame, rest);
    if (typeof outcome !== 'string') return outcome;
    if (outcome.startsWith('syntax:')) {
      throw new SelectorSyntaxError(`The selector "${selector}" is not valid: ${outcome.slice(7)}`, selector);
    }
    if (outcome === 'none') {
      const where = frame === page.mainFrame() ? 'the page' : `the frame ${frame.url()}`;
      const which = nth > 0 ? ` as its match nth(${nth}) (counting from 0)` : '';
      const message = `No element matches ${xpath ? 'the XPath' : 'the selector'} "${rest}"${which} in ${where}${rest !== selector ? ` (from "${selector}")` : ''}. Check it against the current page; the element may not exist yet.`;
      throw xpath ? new XPathResolutionError(message, selector) : new ElementNotFoundError(message, selector);
    }
    // "hop:<rest>": continue inside the iframe the engine stopped at.
    rest = outcome.slice(4);
    frame = await contentFrameOfHop(frame, selector, timeoutMs);
  }
  throw new SdkIframeError(`The selector "${selector}" crosses more than ${MAX_FRAME_HOPS} frames.`);
}

async function callEngine(
  frame: Frame,
  timeoutMs: number,
  declaration: string,
  args: Protocol.Runtime.CallArgument[],
): Promise<{ world: World; result: Protocol.Runtime.RemoteObject }> {
  let engine = await frame.engine(timeoutMs);
  const call = () =>
    engine.world.session.send(
      'Runtime.callFunctionOn',
      { functionDeclaration: declaration, objectId: engine.objectId, arguments: args, returnByValue: false },
      { timeoutMs },
    );
  const response = await call().catch(async (error: unknown) => {
    // The document was replaced since the engine was injected: inject into the new one, once.
    if (!isContextGone(error)) throw error;
    frame.forgetWorld(engine.world);
    engine = await frame.engine(timeoutMs);
    return call();
  });
  if (response.exceptionDetails) {
    throw new SdkEvalError(`The selector engine failed in frame ${frame.url()}: ${describeException(response.exceptionDetails)}`);
  }
  return { world: engine.world, result: response.result };
}

async function resolveInFrame(frame: Frame, selector: string, nth: number, timeoutMs: number): Promise<ResolvedElement | string> {
  const run = async () => {
    const { world, result } = await callEngine(frame, timeoutMs, 'function (s, n) { return this.resolve(s, n); }', [
      { value: selector },
      { value: nth },
    ]);
    if (result.subtype === 'node' && result.objectId) return { frame, world, objectId: result.objectId };
    return String(result.value);
  };
  // Past the first match, the order counts: every match must be known before one is picked.
  if (nth > 0) {
    await learnClosedRoots(frame, timeoutMs);
    return run();
  }
  const first = await run();
  if (first !== 'none' || selector.startsWith('ref=')) return first;
  // Page script cannot see closed shadow roots; the DevTools DOM can. Learn them, and try again
  // if there were any we did not know.
  const learned = await registerClosedShadowRoots(frame, timeoutMs);
  return learned > 0 ? run() : first;
}

/**
 * Before counting matches: registers the document's closed shadow roots, unless the closed-root
 * watch says there is none, or none since the last scan. A document it does not watch (older than
 * our session) is scanned each time.
 */
async function learnClosedRoots(frame: Frame, timeoutMs: number): Promise<void> {
  const watched = frame.mainWorld?.closedRoots;
  const reported = watched ? watched.attached + watched.declarative : 0;
  if (watched && (reported === 0 || watched.scannedAt === reported)) return;
  await registerClosedShadowRoots(frame, timeoutMs);
  if (watched) watched.scannedAt = reported;
}

/** The frame an engine's "hop:" answer continues in: the content frame of the iframe it stopped at. */
export async function contentFrameOfHop(frame: Frame, selector: string, timeoutMs: number): Promise<Frame> {
  const { world, result } = await callEngine(frame, timeoutMs, 'function () { return this.takeHop(); }', []);
  if (!result.objectId) throw new SdkEvalError(`The selector engine lost the iframe of "${selector}".`);
  return contentFrameOf({ frame, world, objectId: result.objectId }, `The selector "${selector}" continues`, timeoutMs);
}

/**
 * The frame an <iframe> or <frame> element shows; `what` starts the error that says it is none.
 * Lets go of the element's handle.
 */
export async function contentFrameOf(element: ResolvedElement, what: string, timeoutMs: number): Promise<Frame> {
  const { world, frame } = element;
  let node: Protocol.DOM.Node;
  try {
    ({ node } = await world.session.send('DOM.describeNode', { objectId: element.objectId }, { timeoutMs }));
  } finally {
    releaseElement(element);
  }
  if (!node.frameId) {
    throw new ContentFrameNotFoundError(`${what} inside a <${node.localName}> that has no content frame (not loaded, or not an iframe).`);
  }
  const child = frame.page.frameById(node.frameId);
  if (!child || child.isDetached()) {
    throw new SdkIframeError(`${what} inside an iframe whose frame (${node.frameId}) is not attached to this page.`);
  }
  return child;
}
