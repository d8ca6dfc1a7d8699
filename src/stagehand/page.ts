// The page and context the Stagehand entry's callers get: Tendril's own classes with what Stagehand
// 3 programs read that Tendril's pages do not have or do otherwise. The entry hands these classes to
// the core (sdkCore's SdkEntry.classes), so tendril/extension, which never imports this file,
// carries none of it.

import type { Protocol } from 'devtools-protocol';
import type { CdpSession } from '../cdp/session.js';
import { Context } from '../driver/context.js';
import type { Frame, ResolvedElement } from '../driver/frame.js';
import type { FrameLocator } from '../driver/locator.js';
import type { Locator, LocatorDriver, LocatorTarget } from '../driver/locatorApi.js';
import { Page, type PageEvents } from '../driver/page.js';
import type { ConsoleMessage } from '../driver/console.js';
import type { NavigationResponse } from '../driver/response.js';
import { ElementNotFoundError, InvalidOptionError } from '../errors.js';
import type { GotoOptions, NewContextOptions, WaitUntil } from '../types.js';
import { ContextClipboard, type BrowserClipboard } from './clipboard.js';
import { enableCursorOverlay } from './cursor.js';
import {
  allFrameIds,
  frameForId,
  frameTreeByMainFrameId,
  fullFrameTree,
  ordinalOf,
  protocolFrameTree,
  waitForMainLoadState,
  type StagehandLoadState,
} from './frameRegistry.js';
import { StagehandElementNotFoundError } from './errors.js';
import { StagehandLocator } from './resolveNode.js';
import { StagehandResponse } from './response.js';
import { snapshotOf, type PageSnapshotOptions, type SnapshotResult } from './snapshot.js';
import {
  invokeWebMCPTool,
  listWebMCPTools,
  type WebMCPListToolsOptions,
  type WebMCPTool,
  type WebMCPToolInvocation,
  type WebMCPToolInvocationOptions,
} from './webmcp.js';

/** A frameLocator() of a Stagehand's page, whose locators are StagehandLocators. */
export interface StagehandFrameLocator extends FrameLocator {
  frameLocator(selector: string): StagehandFrameLocator;
  locator(selector: string): StagehandLocator;
}

export class StagehandPage extends Page {
  /** As Tendril's page, except that "console" gives the page back, for chaining (Stagehand's shape). */
  override on(event: 'console', listener: (message: ConsoleMessage<Page>) => void): this;
  override on<K extends keyof PageEvents>(event: K, handler: (payload: PageEvents[K]) => void): () => void;
  override on<K extends keyof PageEvents>(event: K, handler: (payload: PageEvents[K]) => void): this | (() => void) {
    const off = super.on(event, handler);
    return event === 'console' ? this : off;
  }

  override once(event: 'console', listener: (message: ConsoleMessage<Page>) => void): this;
  override once<K extends keyof PageEvents>(event: K, handler: (payload: PageEvents[K]) => void): () => void;
  override once<K extends keyof PageEvents>(event: K, handler: (payload: PageEvents[K]) => void): this | (() => void) {
    const off = super.once(event, handler);
    return event === 'console' ? this : off;
  }

  // Its locators are StagehandLocators (StagehandContext's locator driver makes them): the types say so.
  override locator(selector: string): StagehandLocator {
    return super.locator(selector) as StagehandLocator;
  }

  override deepLocator(selector: string): StagehandLocator {
    return super.deepLocator(selector) as StagehandLocator;
  }

  override frameLocator(selector: string): StagehandFrameLocator {
    return super.frameLocator(selector) as StagehandFrameLocator;
  }

  /** @internal What goto(), reload() and the history moves resolve with: Stagehand's Response (DocumentResponses). */
  get responseClass(): typeof NavigationResponse {
    return StagehandResponse;
  }

  // Which the types say.
  override goto(url: string, options?: GotoOptions): Promise<StagehandResponse | null> {
    return super.goto(url, options) as Promise<StagehandResponse | null>;
  }

  override reload(options?: { waitUntil?: WaitUntil; timeoutMs?: number; ignoreCache?: boolean }): Promise<StagehandResponse | null> {
    return super.reload(options) as Promise<StagehandResponse | null>;
  }

  override goBack(options?: GotoOptions): Promise<StagehandResponse | null> {
    return super.goBack(options) as Promise<StagehandResponse | null>;
  }

  override goForward(options?: GotoOptions): Promise<StagehandResponse | null> {
    return super.goForward(options) as Promise<StagehandResponse | null>;
  }

  /** @internal As in Stagehand 3: goto() to a host the network cannot reach resolves null on Chrome's error page. */
  get errorPageOnFailure(): boolean {
    return true;
  }

  /** Draws an arrow where the pointer input goes, from now on and after navigations (cursor.ts). Calling it again changes nothing. */
  enableCursorOverlay(): Promise<void> {
    return enableCursorOverlay(this);
  }

  /**
   * The page as text with the XPath of each line's element and the URL of each link, keyed by the
   * ids the text shows. Its ids are also what act({ elementId }) takes, each for as long as its element is there.
   */
  snapshot(options?: PageSnapshotOptions): Promise<SnapshotResult> {
    return snapshotOf(this, options);
  }

  /** The frame of this page with this id (any depth, out-of-process ones included); InvalidOptionError for an id the page does not have. */
  frameForId(frameId: string): Frame {
    return frameForId(this, frameId);
  }

  /** Every frame of the page as a DevTools Protocol FrameTree, out-of-process iframes included, in document order. */
  getFullFrameTree(): Protocol.Page.FrameTree {
    return fullFrameTree(this);
  }

  /** The FrameTree under the frame with this id (the main frame's: the whole page). */
  asProtocolFrameTree(rootMainFrameId: string): Protocol.Page.FrameTree {
    return protocolFrameTree(this, rootMainFrameId);
  }

  /** Every frame's id, in tree order, main frame first. */
  listAllFrameIds(): string[] {
    return allFrameIds(this);
  }

  /** The frame's number: the F of the `[F-N]` ids a read of the page now gives its elements (0: the main frame). */
  getOrdinal(frameId: string): number {
    return ordinalOf(this, frameId);
  }

  /** Waits until the main frame's document reached `state` (at once when it has); TimeoutError after `timeoutMs` (15000). */
  waitForMainLoadState(state: StagehandLoadState, timeoutMs?: number): Promise<void> {
    return waitForMainLoadState(this, state, timeoutMs);
  }

  /** The WebMCP tools the page's frames registered (out-of-process ones too), as Chrome reports them now. */
  listWebMCPTools(options?: WebMCPListToolsOptions): Promise<WebMCPTool[]> {
    return listWebMCPTools(this, options);
  }

  /** Calls a WebMCP tool of the page; `frameId` picks the frame when more than one registered the name. */
  invokeWebMCPTool(toolName: string, input: Record<string, unknown>, options?: WebMCPToolInvocationOptions): Promise<WebMCPToolInvocation> {
    return invokeWebMCPTool(this, toolName, input, options);
  }

  /**
   * The page's DevTools session (private in Stagehand's types, reached by its JavaScript users):
   * `send(method, params)`, `on(event, handler)`, `off(event, handler)`.
   */
  get mainSession(): CdpSession {
    return this.session;
  }
}

/** The browser's DevTools connection as Stagehand 3's `context.conn` has it. */
export interface StagehandConnection {
  /** Sends a command to the browser, or with `sessionId` to that session of it. */
  send(method: string, params?: object, sessionId?: string): Promise<unknown>;
  /** Listens to a browser-level event; returns a function that stops it (Stagehand's returns nothing). */
  on(event: string, handler: (params: unknown) => void): () => void;
  off(event: string, handler: (params: unknown) => void): void;
}

export class StagehandContext extends Context {
  #clipboard: ContextClipboard | undefined;

  /** @internal Its pages are StagehandPages. */
  constructor(...[browser, logger, options, parent]: ConstructorParameters<typeof Context>) {
    super(browser, logger, { ...options, pageClass: StagehandPage }, parent);
  }

  // Its pages are StagehandPages, and the contexts made from it StagehandContexts: the types say so.
  override pages(): StagehandPage[] {
    return super.pages() as StagehandPage[];
  }

  override activePage(): StagehandPage | undefined {
    return super.activePage() as StagehandPage | undefined;
  }

  override awaitActivePage(timeoutMs?: number): Promise<StagehandPage> {
    return super.awaitActivePage(timeoutMs) as Promise<StagehandPage>;
  }

  override newPage(url?: string): Promise<StagehandPage> {
    return super.newPage(url) as Promise<StagehandPage>;
  }

  override newContext(options?: NewContextOptions): Promise<StagehandContext> {
    return super.newContext(options) as Promise<StagehandContext>;
  }

  /**
   * @internal Locators as Tendril's, except that an iframe a frameLocator() (or a deepLocator's hop)
   * names and the page does not have fails in Stagehand 3's words, which its programs match.
   */
  override locatorDriverFor(page: Page): LocatorDriver<Frame, ResolvedElement> {
    const driver = super.locatorDriverFor(page);
    const missingFrame = (frames: readonly string[]) => (error: unknown) => {
      if (error instanceof ElementNotFoundError && frames.includes(error.selector))
        throw new StagehandElementNotFoundError([error.selector]);
      throw error;
    };
    const wrapped: LocatorDriver<Frame, ResolvedElement> = Object.create(driver);
    wrapped.Locator = StagehandLocator as typeof Locator;
    wrapped.enter = (from, frames, timeoutMs) => driver.enter(from, frames, timeoutMs).catch(missingFrame(frames));
    wrapped.resolve = (target: LocatorTarget<Frame>, timeoutMs) => driver.resolve(target, timeoutMs).catch(missingFrame(target.frames));
    wrapped.count = (target: LocatorTarget<Frame>, timeoutMs) => driver.count(target, timeoutMs).catch(missingFrame(target.frames));
    wrapped.locationOf = (target: LocatorTarget<Frame>, timeoutMs) =>
      driver.locationOf(target, timeoutMs).catch(missingFrame(target.frames));
    return wrapped;
  }

  /** The full frame tree of the page whose main frame has this id; PageNotFoundError when no page of the context has it. */
  getFullFrameTreeByMainFrameId(rootMainFrameId: string): Promise<Protocol.Page.FrameTree> {
    return frameTreeByMainFrameId(this, rootMainFrameId);
  }

  /** The browser's clipboard, through this context's pages (Stagehand's context.clipboard). */
  get clipboard(): BrowserClipboard {
    return (this.#clipboard ??= new ContextClipboard(this));
  }

  /** The browser's DevTools connection (Stagehand 3's `context.conn`). */
  get conn(): StagehandConnection {
    const connection = this.browser.connection;
    const root = connection.rootSession as unknown as {
      send(method: string, params?: object): Promise<unknown>;
      on(event: string, handler: (params: unknown) => void): () => void;
      off(event: string, handler: (params: unknown) => void): void;
    };
    return {
      send: (method, params, sessionId) => {
        const session = sessionId ? connection.session(sessionId) : root;
        return session
          ? (session as typeof root).send(method, params)
          : Promise.reject(
              new InvalidOptionError(
                `conn.send(method, params, sessionId): ${sessionId} is no session of this browser (a page's is page.mainSession.id).`,
              ),
            );
      },
      on: (event, handler) => root.on(event, handler),
      off: (event, handler) => root.off(event, handler),
    };
  }
}
