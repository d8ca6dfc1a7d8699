import type { Protocol } from 'devtools-protocol';
import type { CdpSession } from '../cdp/session.js';
import { PageClosedError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { FrameScreenshotOptions, GotoOptions, ScreenshotOptions, Viewport, WaitUntil } from '../types.js';
import { Emitter } from '../util/emitter.js';
import { withDeadline } from '../util/time.js';
import type { Instrumentation } from '../util/instrumentation.js';
import type { Dialog } from './dialog.js';
import type { Download } from './download.js';
import type { PageFunction } from './evaluate.js';
import type { Frame, ResolvedElement } from './frame.js';
import { FrameManager } from './frameManager.js';
import { initScriptSource, type InitScript, type ReadTextFile } from './initScripts.js';
import type { FrameLocator, Locator } from './locator.js';
import { deepTarget, FrameLocator as FrameLocatorOf, locatorOn, type LocatorDriver } from './locatorApi.js';
import { Navigation } from './navigation.js';
import type { DomainGuard } from './policy.js';
import { DocumentResponses, type NavigationResponse } from './response.js';
import { ConsoleMessage } from './console.js';
import { clickAt, dragAt, hoverAt, scrollAt, tapAt, type DragOptions, type MouseButton } from './pageInput.js';
import { keyPress, typeText } from './pageKeys.js';
import { checkPageEvent, sendCommand, setViewport, targetIdOf, type TargetId } from './pageSession.js';
import { waitForSelector, waitForTimeout, type WaitForSelectorOptions } from './pageWaits.js';
import { captureFrame, captureScreenshot } from './screenshot.js';
import { addInitScript, checkHeaders, setExtraHeaders, SessionExtras } from './sessionExtras.js';

/** How long a page may take to go after Target.closeTarget before it is asked again (see close). */
const CLOSE_AGAIN_MS = 500;

/** What a page announces: dialogs it opens, files it downloads, its console's messages, and its end (closed, crashed, or detached). */
export type PageEvents = {
  dialog: Dialog;
  download: Download<Page>;
  console: ConsoleMessage<Page>;
  close: undefined;
};

/** What a page needs of the context that holds it (context.ts's Context has it). */
export interface PageHost {
  /** What its opener gave the context (ContextOptions' fields of the same names). */
  readonly options: { reader: string; closedRootWatch?: string; readFile?: ReadTextFile; egressProxy?: boolean };
  /** The seam of the context's calls (util/instrumentation.ts). */
  readonly instrumentation: Instrumentation;
  /** The domainPolicy guard; undefined when there is no policy. */
  readonly guard: DomainGuard | undefined;
  /** The init scripts and headers of every page (context.addInitScript, context.setExtraHTTPHeaders). */
  readonly extras: SessionExtras;
  /** We attached to the browser rather than launched it: it may run on another machine. */
  readonly remoteBrowser: boolean;
  closeTarget(targetId: string): Promise<void>;
  forgetPage(page: Page): void;
  /** What the page's locators run on (locatorDriver.ts, which needs the whole Page). */
  locatorDriverFor(page: Page): LocatorDriver<Frame, ResolvedElement>;
}

/** A top-level page (tab or popup) and everything in it. */
export class Page extends Emitter<PageEvents> {
  /** @internal */ readonly frameManager: FrameManager;
  /** @internal */ readonly locatorDriver: LocatorDriver<Frame, ResolvedElement>;
  #closed = false;
  #closedWaiters = new Set<() => void>();
  readonly #navigation: Navigation;
  readonly #extras = new SessionExtras();
  /** See TargetId. */
  readonly targetId: TargetId;

  /** @internal */
  constructor(
    private readonly context: PageHost,
    /** @internal */ readonly session: CdpSession,
    /** @internal The target's id, which is also its main frame's id. */ readonly id: string,
    /** @internal */ readonly viewport: Viewport | undefined,
    /** @internal */ readonly logger: Logger,
    /** @internal Deadline of a single operation (evaluate, selector) unless it gives its own. */
    readonly defaultTimeoutMs: number,
    /** @internal The page that opened this one (a popup), when there is one. */
    readonly openerId?: string,
  ) {
    super();
    this.targetId = targetIdOf(id);
    this.frameManager = new FrameManager(this, logger);
    this.locatorDriver = context.locatorDriverFor(this);
    this.#navigation = new Navigation(this, new DocumentResponses(session, this));
  }

  /** @internal The seam this page's calls pass: its context's. */
  get instrumentation(): Instrumentation {
    return this.context.instrumentation;
  }

  /** One public call through the seam, titled by its method and first argument ("goto https://…"). */
  #call<T>(method: string, params: Record<string, unknown>, work: () => Promise<T>): Promise<T> {
    return this.context.instrumentation.run(() => {
      const first = Object.values(params)[0];
      return { api: `Page.${method}`, title: typeof first === 'string' ? `${method} ${first}` : method, params, page: this };
    }, work);
  }

  /** @internal */
  async init(): Promise<void> {
    await this.frameManager.adoptSession(this.session);
  }

  /** @internal See ContextOptions.closedRootWatch. */
  get closedRootWatch(): string | undefined {
    return this.context.options.closedRootWatch;
  }

  /** @internal See ContextOptions.reader. */
  get reader(): string {
    return this.context.options.reader;
  }

  /** @internal See PageHost.remoteBrowser. */
  get remoteBrowser(): boolean {
    return this.context.remoteBrowser;
  }

  /** @internal For frame.waitForLoadState(). */
  async waitForFrameState(frame: Frame, state: WaitUntil, timeoutMs: number): Promise<void> {
    await this.frameManager.waitForLifecycle(frame, undefined, state, timeoutMs, frame.url() || 'the frame');
  }

  /** @internal The context's domainPolicy guard; undefined when there is no policy. */
  get guard(): DomainGuard | undefined {
    return this.context.guard;
  }

  mainFrame(): Frame {
    return this.frameManager.mainFrame;
  }

  /** @internal Any frame of the page, by id. */
  frameById(frameId: string): Frame | undefined {
    return this.frameManager.frame(frameId);
  }

  /** Every frame of the page in tree order, main frame first, out-of-process iframes included. */
  frames(): Frame[] {
    return this.frameManager.allFrames();
  }

  url(): string {
    return this.mainFrame().url();
  }

  async title(): Promise<string> {
    return this.mainFrame().evaluate<string>('document.title');
  }

  /** Runs `fn(arg)` (or evaluates an expression) in the main frame's page world. */
  evaluate<Result, Arg = undefined>(fn: PageFunction<Arg, Result>, arg?: Arg): Promise<Result> {
    return this.#call('evaluate', { expression: String(fn), arg }, () => this.mainFrame().evaluate(fn, arg));
  }

  /**
   * Adds a script (a function called with `arg`, its source, or `{ path }` or `{ content }` of a
   * file) that runs in every document this page makes from now on, in each of its frames
   * (out-of-process ones too), before the document's own scripts. The current documents do not run it.
   */
  async addInitScript<Arg>(script: InitScript<Arg>, arg?: Arg): Promise<void> {
    this.assertOpen('addInitScript()');
    await addInitScript(this.#extras, await initScriptSource(script, arg, 'page.addInitScript', this.context.options.readFile), [this]);
  }

  /**
   * Sends these headers with every request of this page and its frames (out-of-process ones too),
   * on top of the context's (a page's header wins over the context's of the same name). Replaces
   * what this page set before; `{}` takes them away.
   */
  async setExtraHTTPHeaders(headers: Record<string, string>): Promise<void> {
    this.assertOpen('setExtraHTTPHeaders()');
    await setExtraHeaders(this.#extras, checkHeaders(headers, 'page.setExtraHTTPHeaders'), [this]);
  }

  /** @internal The init scripts and headers this page's sessions get: the context's, then its own. */
  extras(): readonly SessionExtras[] {
    return [this.context.extras, this.#extras];
  }

  /**
   * Navigates and resolves with the main document's response (null when nothing was fetched: a
   * fragment change, about:blank). See navigation.ts for how long it waits.
   */
  goto(url: string, options: GotoOptions = {}): Promise<NavigationResponse | null> {
    return this.#call('goto', { url, waitUntil: options?.waitUntil }, () => this.#navigation.goto(url, options));
  }

  /** @internal goto() for a caller that needs only the document's HTTP status (0: none known), at less cost. */
  async gotoStatus(url: string, options: GotoOptions = {}): Promise<number> {
    const egressProxy = this.context.options.egressProxy === true;
    return (
      await this.#call('goto', { url, waitUntil: options?.waitUntil }, () => this.#navigation.gotoStatus(url, options, egressProxy))
    ).status();
  }

  /**
   * Waits until the current document of the page (and every frame in it that committed a
   * document) reached `state`. Useful for popups and for navigations the page started itself.
   * The deadline is `{ timeoutMs }`, or a number (Stagehand's form).
   */
  waitForLoadState(state: WaitUntil = 'load', options: { timeoutMs?: number } | number = {}): Promise<void> {
    return this.#navigation.waitForLoadState(state, typeof options === 'number' ? { timeoutMs: options } : options);
  }

  /**
   * Goes one entry back in the page's history, as the browser's Back button does, and waits as
   * goto() does (the default wait, or `waitUntil`). Resolves with the document's response, as
   * goto() does; null when there is no earlier entry (nothing is done) or nothing was fetched (a page
   * from the back-forward cache, a fragment).
   */
  goBack(options?: GotoOptions): Promise<NavigationResponse | null> {
    return this.#call('goBack', { ...options }, () => this.#navigation.traverse(-1, options));
  }

  /** Goes one entry forward in the page's history; waits and resolves as goBack() does. */
  goForward(options?: GotoOptions): Promise<NavigationResponse | null> {
    return this.#call('goForward', { ...options }, () => this.#navigation.traverse(1, options));
  }

  /** Loads the page's document again, and waits as goBack() does; resolves with its response. */
  reload(options: { waitUntil?: WaitUntil; timeoutMs?: number; ignoreCache?: boolean } = {}): Promise<NavigationResponse | null> {
    return this.#call('reload', { ...options }, () => this.#navigation.reload(options));
  }

  /**
   * A picture of what the viewport shows (PNG unless told), of one element (`selector`, XPath or
   * CSS through iframes and shadow roots, scrolled into view), of a `clip`, or of the `fullPage`;
   * Stagehand's other options as ScreenshotOptions says. Rejects bad combinations (InvalidOptionError).
   */
  screenshot(options?: ScreenshotOptions): Promise<Uint8Array> {
    return this.#call('screenshot', { ...options }, async () => {
      this.assertOpen('screenshot()');
      return captureScreenshot(this, options);
    });
  }

  /** @internal For frame.screenshot(). */
  async screenshotFrame(frame: Frame, options?: FrameScreenshotOptions): Promise<Uint8Array> {
    this.assertOpen('frame.screenshot()');
    return captureFrame(this, frame, options);
  }

  /** Clicks at (x, y) of the viewport (CSS pixels), no scrolling; with `returnXpath`, resolves with the XPath of what was there, else ''. */
  click(x: number, y: number, options?: { button?: MouseButton; clickCount?: number; returnXpath?: boolean }): Promise<string> {
    return clickAt(this, x, y, options);
  }

  /** Taps (x, y) of the viewport with a finger, for pages that listen for touch; resolves as click() does. */
  tap(x: number, y: number, options?: { returnXpath?: boolean }): Promise<string> {
    return tapAt(this, x, y, options);
  }

  /** Moves the mouse to (x, y) of the viewport; resolves as click() does. */
  hover(x: number, y: number, options?: { returnXpath?: boolean }): Promise<string> {
    return hoverAt(this, x, y, options);
  }

  /** Turns the mouse wheel by (deltaX, deltaY) with the pointer at (x, y); resolves as click() does. */
  scroll(x: number, y: number, deltaX: number, deltaY: number, options?: { returnXpath?: boolean }): Promise<string> {
    return scrollAt(this, x, y, deltaX, deltaY, options);
  }

  /** Drags with the mouse from one point of the viewport to another; with `returnXpath`, resolves with what was at each. */
  dragAndDrop(fromX: number, fromY: number, toX: number, toY: number, options?: DragOptions): Promise<[string, string]> {
    return dragAt(this, fromX, fromY, toX, toY, options);
  }

  /** Types into whatever has focus, a key press per character (see pageKeys.ts). */
  type(text: string, options?: { delay?: number; withMistakes?: boolean }): Promise<void> {
    return typeText(this, text, options);
  }

  /** Presses a key or a chord ("Enter", "Shift+Tab", "Cmd+A") in whatever has focus. */
  keyPress(key: string, options?: { delay?: number }): Promise<void> {
    return keyPress(this, key, options);
  }

  waitForTimeout(ms: number): Promise<void> {
    return waitForTimeout(ms);
  }

  /** Resolves true once `selector` (XPath or CSS, ` >> ` into iframes) is in `state` (default "visible"); TimeoutError after `timeout` (30000). */
  waitForSelector(selector: string, options?: WaitForSelectorOptions): Promise<boolean> {
    return waitForSelector(this, selector, options);
  }

  /** Sets the viewport to `width` x `height` CSS pixels (and `deviceScaleFactor`, default 1). */
  async setViewportSize(width: number, height: number, options?: { deviceScaleFactor?: number }): Promise<void> {
    this.assertOpen('setViewportSize()');
    await setViewport(this.session, width, height, options, this.defaultTimeoutMs);
  }

  /** Sends a DevTools Protocol command on this page's own session and resolves with its result (ProtocolError when Chrome refuses it). */
  async sendCDP<T = unknown>(method: string, params?: object): Promise<T> {
    this.assertOpen('sendCDP()');
    return sendCommand<T>(this.session, method, params, this.defaultTimeoutMs);
  }

  /** The main frame's id. */
  mainFrameId(): string {
    return this.mainFrame().id;
  }

  /**
   * Listens to an event ("console" too); returns the function that stops listening, as `off` does.
   * (The Stagehand entry's pages give the page back for "console", as Stagehand's do.)
   */
  override on<K extends keyof PageEvents>(event: K, handler: (payload: PageEvents[K]) => void): () => void {
    checkPageEvent(event);
    return super.on(event, handler);
  }

  override once<K extends keyof PageEvents>(event: K, handler: (payload: PageEvents[K]) => void): () => void {
    checkPageEvent(event);
    // Not Emitter's once: it would call a subclass's on(), which may give the page back.
    const off = super.on(event, ((payload: PageEvents[K]) => {
      off();
      handler(payload);
    }) as never);
    return off;
  }

  override off<K extends keyof PageEvents>(event: K, handler: (payload: PageEvents[K]) => void): this {
    super.off(event, handler);
    return this;
  }

  /** @internal A console API call in one of the page's frames (frameManager.ts). */
  consoleCalled(event: Protocol.Runtime.ConsoleAPICalledEvent): void {
    if (!this.listenerCount('console')) return;
    try {
      this.emit('console', new ConsoleMessage(event, this));
    } catch (error) {
      this.logger.error('driver', 'A page.on("console") listener threw', { error: (error as Error).message });
    }
  }

  /** Finds an element by XPath, CSS or text=, through iframes and shadow roots (see Locator). */
  locator(selector: string): Locator {
    return locatorOn(this.locatorDriver, { frames: [], selector });
  }

  /** Elements inside the iframe that `selector` finds (chain `.frameLocator()` for nested ones). */
  frameLocator(selector: string): FrameLocator {
    return new FrameLocatorOf(this.locatorDriver, [selector]);
  }

  /** A locator whose ` >> `-joined parts before the last are iframes to enter, as Stagehand's deepLocator. */
  deepLocator(selector: string): Locator {
    return locatorOn(this.locatorDriver, deepTarget(selector));
  }

  isClosed(): boolean {
    return this.#closed;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    return this.#call('close', {}, () => this.#close());
  }

  async #close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.#closedWaiters.add(resolve));
    await this.context.closeTarget(this.id);
    // Chrome can answer Target.closeTarget with success and still drop the close, when it meets a
    // navigation's commit that gives the main frame a new host (crbug.com/536385539): the tab lives
    // on and never detaches. A page that reloads itself meets it often. Asking again closes it;
    // asking a target that is already closing does nothing.
    const again = setInterval(() => void this.context.closeTarget(this.id).catch(() => undefined), CLOSE_AGAIN_MS);
    try {
      await withDeadline(closed, this.defaultTimeoutMs, 'Closing the page');
    } finally {
      clearInterval(again);
    }
  }

  /** @internal */
  markClosed(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const frame of this.frameManager.frames.values()) {
      frame.detached = true;
      frame.changed.emit('change', undefined);
    }
    for (const resolve of this.#closedWaiters) resolve();
    this.context.forgetPage(this);
    this.emit('close', undefined);
    this.removeAllListeners();
  }

  /** @internal Throws PageClosedError (or ConnectionClosedError) once the page (or browser) is gone. */
  assertOpen(what: string): void {
    // A page that closed because the whole browser went away says that, not "open another page".
    this.session.assertConnected(what);
    if (this.#closed) throw new PageClosedError('This page is closed. Open another with sdk.context.newPage().');
  }
}
