import type { Protocol } from 'devtools-protocol';
import {
  ContentFrameNotFoundError,
  ElementNotFoundError,
  SdkEvalError,
  SdkIframeError,
  SelectorSyntaxError,
  XPathResolutionError,
} from '../errors.js';
import { callFunction, describeException, isContextGone } from './evaluate.js';
import { registerClosedShadowRoots } from './shadow.js';
import type { Frame, World } from './frame.js';

/** An element found by a selector: the frame it lives in and a handle in our isolated world. */
export interface ResolvedElement {
  frame: Frame;
  world: World;
  objectId: string;
}

const MAX_FRAME_HOPS = 32;

/** Lets go of an element's handle, without waiting (its target may be gone already). */
export function releaseElement(element: ResolvedElement): void {
  void element.world.session.sendQuiet('Runtime.releaseObject', { objectId: element.objectId });
}

export function isXPath(selector: string): boolean {
  return /^(xpath=|\/|\(|\.\.?\/)/.test(selector.trim());
}

/** What selectors need of a page (page.ts's Page has it). */
export interface LocatorPage {
  /** Deadline of a single operation unless it gives its own. */
  readonly defaultTimeoutMs: number;
  mainFrame(): Frame;
}

/**
 * Resolves a selector from the page's main frame. XPath and CSS both cross iframes (an XPath that
 * steps past an iframe into `html`, or CSS parts joined by ` >> `), and `//` searches the composed
 * tree, closed shadow roots included. Each frame does its own part in its own process.
 */
export async function resolveSelector(page: LocatorPage, selector: string, timeoutMs: number): Promise<ResolvedElement> {
  const xpath = isXPath(selector);
  let frame = page.mainFrame();
  let rest = selector.trim();
  for (let hop = 0; hop <= MAX_FRAME_HOPS; hop++) {
    const outcome = await resolveInFrame(frame, rest, timeoutMs);
    if (typeof outcome !== 'string') return outcome;
    if (outcome.startsWith('syntax:')) {
      throw new SelectorSyntaxError(`The selector "${selector}" is not valid: ${outcome.slice(7)}`, selector);
    }
    if (outcome === 'none') {
      const where = frame === page.mainFrame() ? 'the page' : `the frame ${frame.url()}`;
      const message = `No element matches ${xpath ? 'the XPath' : 'the selector'} "${rest}" in ${where}${rest !== selector ? ` (from "${selector}")` : ''}. Check it against the current page; the element may not exist yet.`;
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

async function resolveInFrame(frame: Frame, selector: string, timeoutMs: number): Promise<ResolvedElement | string> {
  const run = async () => {
    const { world, result } = await callEngine(frame, timeoutMs, 'function (s) { return this.resolve(s); }', [
      { value: selector },
    ]);
    if (result.subtype === 'node' && result.objectId) return { frame, world, objectId: result.objectId };
    return String(result.value);
  };
  const first = await run();
  if (first !== 'none') return first;
  // Page script cannot see closed shadow roots; the DevTools DOM can. Learn them, and try again
  // if there were any we did not know.
  const learned = await registerClosedShadowRoots(frame, timeoutMs);
  return learned > 0 ? run() : first;
}

/** The frame an engine's "hop:" answer continues in: the content frame of the iframe it stopped at. */
export async function contentFrameOfHop(frame: Frame, selector: string, timeoutMs: number): Promise<Frame> {
  const { world, result } = await callEngine(frame, timeoutMs, 'function () { return this.takeHop(); }', []);
  if (!result.objectId) throw new SdkEvalError(`The selector engine lost the iframe of "${selector}".`);
  const { node } = await world.session.send('DOM.describeNode', { objectId: result.objectId }, { timeoutMs });
  void world.session.sendQuiet('Runtime.releaseObject', { objectId: result.objectId });
  if (!node.frameId) {
    throw new ContentFrameNotFoundError(
      `The selector "${selector}" continues inside a <${node.localName}> that has no content frame (not loaded, or not an iframe).`,
    );
  }
  const child = frame.page.frameById(node.frameId);
  if (!child || child.isDetached()) {
    throw new SdkIframeError(`The iframe on the path of "${selector}" has a frame (${node.frameId}) that is not attached to this page.`);
  }
  return child;
}

/**
 * A selector bound to a page; it is resolved anew on each use, so it follows the page as it changes.
 * Functions given to `evaluate` run in an isolated world: they see the DOM, not the page's globals.
 */
export class Locator {
  constructor(
    private readonly page: LocatorPage,
    readonly selector: string,
  ) {}

  /** @internal Resolves to an element handle; the caller must release it. */
  resolve(timeoutMs = this.page.defaultTimeoutMs): Promise<ResolvedElement> {
    return resolveSelector(this.page, this.selector, timeoutMs);
  }

  /** Runs `fn(element, arg)` on the matched element and returns its JSON-serialisable result. */
  async evaluate<Result, Arg = undefined>(fn: (element: Element, arg: Arg) => Result | Promise<Result>, arg?: Arg): Promise<Result> {
    const element = await this.resolve();
    const { session } = element.world;
    try {
      return await callFunction<Result>(session, { objectId: element.objectId }, fn, [{ objectId: element.objectId }, { value: arg }], {
        timeoutMs: this.page.defaultTimeoutMs,
        what: `on "${this.selector}"`,
      });
    } finally {
      releaseElement(element);
    }
  }

  textContent(): Promise<string> {
    return this.evaluate((element) => element.textContent ?? '');
  }

  getAttribute(name: string): Promise<string | null> {
    return this.evaluate((element, attribute) => element.getAttribute(attribute), name);
  }

  /** The frame the element lives in (useful after crossing iframes). */
  async frame(): Promise<Frame> {
    const element = await this.resolve();
    releaseElement(element);
    return element.frame;
  }
}
