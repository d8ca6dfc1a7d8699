import type { CdpSession } from '../cdp/session.js';
import { InvalidOptionError, PageClosedError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { GotoOptions, Viewport, WaitUntil } from '../types.js';
import { Emitter } from '../util/emitter.js';
import { withDeadline } from '../util/time.js';
import { tracedGoto } from '../util/tracing.js';
import type { Dialog } from './dialog.js';
import type { Download } from './download.js';
import type { PageFunction } from './evaluate.js';
import type { Frame } from './frame.js';
import { FrameManager } from './frameManager.js';
import { initScriptSource, type InitScript, type ReadTextFile } from './initScripts.js';
import { Locator } from './locator.js';
import { Navigation } from './navigation.js';
import type { DomainGuard } from './policy.js';
import { DocumentResponses, type NavigationResponse } from './response.js';
import { captureScreenshot } from './screenshot.js';
import { addInitScript, checkHeaders, setExtraHeaders, SessionExtras } from './sessionExtras.js';

/** How long a page may take to go after Target.closeTarget before it is asked again (see close). */
const CLOSE_AGAIN_MS = 500;

/** What a page announces: dialogs it opens, files it downloads, and its end (closed, crashed, or detached). */
export type PageEvents = {
  dialog: Dialog;
  download: Download<Page>;
  close: undefined;
};

/** What a page needs of the context that holds it (context.ts's Context has it). */
export interface PageHost {
  /** See ContextOptions.closedRootWatch. */
  readonly closedRootWatch: string | undefined;
  /** See ContextOptions.reader. */
  readonly reader: string;
  /** The domainPolicy guard; undefined when there is no policy. */
  readonly guard: DomainGuard | undefined;
  /** The init scripts and headers of every page (context.addInitScript, context.setExtraHTTPHeaders). */
  readonly extras: SessionExtras;
  /** See ContextOptions.readFile. */
  readonly readFile: ReadTextFile | undefined;
  closeTarget(targetId: string): Promise<void>;
  forgetPage(page: Page): void;
}

/** A top-level page (tab or popup) and everything in it. */
export class Page extends Emitter<PageEvents> {
  /** @internal */ readonly frameManager: FrameManager;
  #closed = false;
  #closedWaiters = new Set<() => void>();
  readonly #navigation: Navigation;
  readonly #extras = new SessionExtras();

  /** @internal */
  constructor(
    private readonly context: PageHost,
    /** @internal */ readonly session: CdpSession,
    readonly targetId: string,
    /** @internal */ readonly viewport: Viewport | undefined,
    /** @internal */ readonly logger: Logger,
    /** @internal Deadline of a single operation (evaluate, selector) unless it gives its own. */
    readonly defaultTimeoutMs: number,
    /** @internal The page that opened this one (a popup), when there is one. */
    readonly openerId?: string,
  ) {
    super();
    this.frameManager = new FrameManager(this, logger);
    this.#navigation = new Navigation(this, new DocumentResponses(session));
  }

  /** @internal */
  async init(): Promise<void> {
    await this.frameManager.adoptSession(this.session);
  }

  /** @internal See ContextOptions.closedRootWatch. */
  get closedRootWatch(): string | undefined {
    return this.context.closedRootWatch;
  }

  /** @internal See ContextOptions.reader. */
  get reader(): string {
    return this.context.reader;
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
    return this.mainFrame().evaluate(fn, arg);
  }

  /**
   * Adds a script (a function called with `arg`, its source, or `{ path }` or `{ content }` of a
   * file) that runs in every document this page makes from now on, in each of its frames
   * (out-of-process ones too), before the document's own scripts. The current documents do not run it.
   */
  async addInitScript<Arg>(script: InitScript<Arg>, arg?: Arg): Promise<void> {
    this.assertOpen('addInitScript()');
    await addInitScript(this.#extras, await initScriptSource(script, arg, 'page.addInitScript', this.context.readFile), [this]);
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
    return tracedGoto(this, url, options?.waitUntil, () => this.#navigation.goto(url, options));
  }

  /**
   * Waits until the current document of the page (and every frame in it that committed a
   * document) reached `state`. Useful for popups and for navigations the page started itself.
   */
  waitForLoadState(state: WaitUntil = 'load', options: { timeoutMs?: number } = {}): Promise<void> {
    return this.#navigation.waitForLoadState(state, options);
  }

  /**
   * Goes one entry back in the page's history, as the browser's Back button does, and waits as the
   * default goto() does. Resolves false, doing nothing, when there is no earlier entry.
   */
  goBack(options: { timeoutMs?: number } = {}): Promise<boolean> {
    return this.#navigation.goBack(options);
  }

  /**
   * A PNG of what the viewport shows, or with `selector` (XPath or CSS, through iframes and shadow
   * roots) of that element, scrolled into view, as far as the viewport shows it.
   */
  async screenshot(options: { selector?: string; timeoutMs?: number } = {}): Promise<Uint8Array> {
    this.assertOpen('screenshot()');
    const { selector, timeoutMs = this.defaultTimeoutMs } = options;
    if (selector !== undefined && (typeof selector !== 'string' || !selector.trim())) {
      throw new InvalidOptionError('screenshot: `selector` must be a non-empty XPath or CSS selector string.');
    }
    if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
      throw new InvalidOptionError(`screenshot: \`timeoutMs\` must be a positive number of milliseconds, not ${String(timeoutMs)}.`);
    }
    return captureScreenshot(this, selector, timeoutMs);
  }

  /** Finds an element by XPath or CSS, through iframes and shadow roots (see Locator). */
  locator(selector: string): Locator {
    return new Locator(this, selector);
  }

  isClosed(): boolean {
    return this.#closed;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    const closed = new Promise<void>((resolve) => this.#closedWaiters.add(resolve));
    await this.context.closeTarget(this.targetId);
    // Chrome can answer Target.closeTarget with success and still drop the close, when it meets a
    // navigation's commit that gives the main frame a new host (crbug.com/536385539): the tab lives
    // on and never detaches. A page that reloads itself meets it often. Asking again closes it;
    // asking a target that is already closing does nothing.
    const again = setInterval(() => void this.context.closeTarget(this.targetId).catch(() => undefined), CLOSE_AGAIN_MS);
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
