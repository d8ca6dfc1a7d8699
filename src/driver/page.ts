import type { CdpSession } from '../cdp/session.js';
import { ConnectionClosedError, NavigationError, PageClosedError, TargetClosedError, TimeoutError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { GotoOptions, Viewport, WaitUntil } from '../types.js';
import { withDeadline } from '../util/time.js';
import type { Context } from './context.js';
import type { PageFunction } from './evaluate.js';
import type { Frame } from './frame.js';
import { FrameManager } from './frameManager.js';
import { Locator } from './locator.js';

const DEFAULT_NAVIGATION_TIMEOUT_MS = 30_000;

/** A top-level page (tab or popup) and everything in it. */
export class Page {
  /** @internal */ readonly frameManager: FrameManager;
  #closed = false;
  #closedWaiters = new Set<() => void>();

  /** @internal */
  constructor(
    private readonly context: Context,
    /** @internal */ readonly session: CdpSession,
    readonly targetId: string,
    /** @internal */ readonly viewport: Viewport | undefined,
    logger: Logger,
    /** @internal Deadline of a single operation (evaluate, selector) unless it gives its own. */
    readonly defaultTimeoutMs: number,
  ) {
    this.frameManager = new FrameManager(this, logger);
  }

  /** @internal */
  async init(): Promise<void> {
    await this.frameManager.adoptSession(this.session);
  }

  mainFrame(): Frame {
    return this.frameManager.mainFrame;
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
   * Navigates and waits until the page and every frame in it, out-of-process ones included,
   * reached `waitUntil` (default `load`).
   */
  async goto(url: string, options: GotoOptions = {}): Promise<void> {
    this.#assertOpen();
    const waitUntil = options.waitUntil ?? 'load';
    const timeoutMs = options.timeoutMs ?? DEFAULT_NAVIGATION_TIMEOUT_MS;
    const started = Date.now();
    const frame = this.mainFrame();
    const result = await this.session
      .send('Page.navigate', { url, frameId: frame.id }, { timeoutMs })
      .catch((error: Error) => {
        // A browser or tab that went away is that, not a navigation problem.
        if (error instanceof ConnectionClosedError || error instanceof TargetClosedError) throw error;
        if (error instanceof TimeoutError) {
          throw new TimeoutError(`Navigation to ${url} timed out after ${timeoutMs} ms: the server has not answered.`, timeoutMs);
        }
        throw new NavigationError(`Navigation to ${url} failed: ${error.message}`, url);
      });
    if (result.errorText) {
      throw new NavigationError(`Navigation to ${url} failed: ${result.errorText}. Check the URL and that the server is reachable.`, url);
    }
    if (!result.loaderId) return; // Same-document navigation (a fragment change): nothing loads.
    const remaining = Math.max(1, timeoutMs - (Date.now() - started));
    await this.frameManager.waitForLifecycle(frame, result.loaderId, waitUntil, remaining, url);
  }

  /**
   * Waits until the current document of the page (and every frame in it that started loading)
   * reached `state`. Useful for popups and for navigations the page started itself.
   */
  async waitForLoadState(state: WaitUntil = 'load', options: { timeoutMs?: number } = {}): Promise<void> {
    this.#assertOpen();
    const frame = this.mainFrame();
    const timeoutMs = options.timeoutMs ?? DEFAULT_NAVIGATION_TIMEOUT_MS;
    await this.frameManager.waitForLifecycle(frame, undefined, state, timeoutMs, frame.url() || 'the current document');
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
    await withDeadline(closed, this.defaultTimeoutMs, 'Closing the page');
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
  }

  #assertOpen(): void {
    if (this.#closed) throw new PageClosedError('This page is closed. Open another with sdk.context.newPage().');
  }
}
