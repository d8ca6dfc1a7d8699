// Navigations of a page: goto, going back, and the waits for a document's load that they share.
// How long the default goto waits is the heart of it: long enough that a page is read whole, never
// so long that one tracker that does not answer fails an agent.

import {
  ConnectionClosedError,
  DomainPolicyError,
  HOSTED_REFUSAL,
  InvalidOptionError,
  NavigationError,
  ProtocolError,
  TargetClosedError,
  TimeoutError,
  UrlNotAllowedError,
} from '../errors.js';
import type { CdpSession } from '../cdp/session.js';
import type { Logger } from '../logger.js';
import type { GotoOptions, WaitUntil } from '../types.js';
import { withDeadline } from '../util/time.js';
import { evaluateInContext } from './evaluate.js';
import type { Frame } from './frame.js';
import type { NavigatedDocument, QuietWindows } from './lifecycle.js';
import type { FrameManager } from './frameManager.js';
import { enableNetwork } from './network.js';
import type { Decision, DomainGuard } from './policy.js';
import type { DocumentResponses, NavigationResponse } from './response.js';
import { tunnelHint, upstreamFailure } from './upstream.js';

const DEFAULT_NAVIGATION_TIMEOUT_MS = 30_000;
/**
 * Once the document is interactive, the default goto() waits for `load` as long as the page makes
 * progress (a frame appears, goes, commits a document, starts or stops loading, or fires
 * DOMContentLoaded or load) and stops after LOAD_GRACE_MS in all, or without progress for
 * LOAD_QUIET_MS while a frame's document is on its way, LOAD_SUBRESOURCE_QUIET_MS once every
 * document is parsed. A tracker or ad frame that never answers, or an image that fails and is asked
 * for again forever, holds `load` for good; an agent should not fail on, nor wait for, a page that a
 * person would already be reading, and a page still bringing in its frames on a busy machine is
 * still read whole.
 */
export const LOAD_QUIET_MS = 3000;
export const LOAD_SUBRESOURCE_QUIET_MS = 500;
export const LOAD_GRACE_MS = 15_000;
const QUIET: QuietWindows = { documentsMs: LOAD_QUIET_MS, subresourcesMs: LOAD_SUBRESOURCE_QUIET_MS };
/** Frames whose reader a navigation prepares while it waits for `load` (see #prepareReader). */
const PREPARED_FRAMES = 20;
/** How long goto() waits for a hosted proxy's own error page before it raises the error it reports. */
const UPSTREAM_PAGE_MS = 5000;
const PREPARE_TIMEOUT_MS = 10_000;
/** How long gotoStatus() gives the page to say its status, once it has waited for the document. */
const STATUS_READ_MS = 5000;
const WAIT_UNTIL: readonly WaitUntil[] = ['commit', 'domcontentloaded', 'load', 'networkidle'];

/** What navigations need of a page (page.ts's Page has it). */
export interface NavigatingPage {
  readonly session: CdpSession;
  /** The page's target id. */
  readonly id: string;
  readonly guard: DomainGuard | undefined;
  readonly frameManager: FrameManager;
  readonly logger: Logger;
  mainFrame(): Frame;
  frames(): Frame[];
  isClosed(): boolean;
  assertOpen(what: string): void;
  /**
   * A navigation the network fails (a host that does not resolve, a refused port) resolves null on
   * Chrome's error page rather than throwing NavigationError: Stagehand 3's way (its entry's pages
   * say so); Tendril's pages throw.
   */
  readonly errorPageOnFailure?: boolean;
}

export class Navigation {
  constructor(
    private readonly page: NavigatingPage,
    private readonly responses: DocumentResponses,
  ) {}

  /**
   * Navigates and resolves with the main document's response (null when nothing was fetched: a
   * fragment change, about:blank).
   *
   * With `waitUntil` it waits strictly for that state of the page and of every frame in it that
   * committed a document (out-of-process ones included; a frame that failed or never answered does
   * not count), and fails with TimeoutError after `timeoutMs`. Without it, it waits for the main
   * document's DOMContentLoaded, then for `load` while the page makes progress (see LOAD_QUIET_MS),
   * and logs what was still loading then: one tracker that never answers does not fail the navigation.
   */
  async goto(url: string, options: GotoOptions = {}): Promise<NavigationResponse | null> {
    const loaderId = await this.#navigate(url, options, true);
    return loaderId ? this.responses.responseOf(loaderId) : null;
  }

  /**
   * goto() for a caller that needs only the HTTP status of the document it lands on (a batch job):
   * the same checks and waits, without the Network domain. Chrome then reports none of the page's
   * requests (about 75 events on a corpus article): 3–16% less Chromium CPU a job in the runs of
   * 2026-12-02 (scripts/bench/batch-cpu.ts, fresh against fresh-goto). The status is the one the
   * page itself sees (Navigation Timing's responseStatus); 0 when nothing was fetched over HTTP
   * (about:blank, data:, a fragment) or the document was replaced before it could be asked.
   *
   * Behind a hosted server's egress proxy (ContextOptions.egressProxy) it is goto(): only the
   * headers tell the proxy's own error pages from a site's (upstream.ts).
   */
  async gotoStatus(url: string, options: GotoOptions, egressProxy: boolean): Promise<{ status(): number; url(): string }> {
    const status = egressProxy ? ((await this.goto(url, options))?.status() ?? 0) : await this.#statusOf(url, options);
    // In a response's shape (its status, the URL reached): traces and spans show it as goto's.
    return { status: () => status, url: () => this.page.mainFrame().url() };
  }

  async #statusOf(url: string, options: GotoOptions): Promise<number> {
    const { timeoutMs } = checkLoadOptions(options.waitUntil, options.timeoutMs, 'goto');
    const started = Date.now();
    const loaderId = await this.#navigate(url, options, false);
    const frame = this.page.mainFrame();
    // Not of HTTP (data:, file:, Chrome's error page): no status, as goto() has no response for them.
    if (!loaderId || frame.committedLoaderId !== loaderId || !/^https?:/i.test(frame.url())) return 0;
    const left = () => (timeoutMs === 0 ? STATUS_READ_MS : Math.max(1, Math.min(STATUS_READ_MS, timeoutMs - (Date.now() - started))));
    try {
      // Our isolated world: a page cannot change what performance answers there.
      const world = await frame.waitForWorld('isolated', left());
      const status = await evaluateInContext(world.session, world.contextId, documentStatus, undefined, left);
      return frame.committedLoaderId === loaderId && typeof status === 'number' ? status : 0;
    } catch (error) {
      if (error instanceof ConnectionClosedError || error instanceof TargetClosedError) throw error;
      // The document went meanwhile (it replaced itself): its status is not known.
      return 0;
    }
  }

  /** goto()'s navigation and waits; resolves with the new document's loader, null when nothing loads. */
  async #navigate(url: string, options: GotoOptions, network: boolean): Promise<string | null> {
    this.page.assertOpen('goto()');
    const { waitUntil, timeoutMs } = checkLoadOptions(options.waitUntil, options.timeoutMs, 'goto');
    if (typeof url !== 'string' || !url.trim())
      throw new InvalidOptionError('goto(url) needs a URL string, such as "https://example.org".');
    const guard = this.page.guard;
    // A host the policy refuses is refused here, before anything is sent.
    const refused = guard?.refusal(url);
    if (refused) throw refused;
    const started = Date.now();
    const frame = this.page.mainFrame();
    // A redirect to a refused host is refused by the guard while Page.navigate is pending; the
    // navigation then fails as aborted, and this says why.
    let redirect: Decision | undefined;
    const offRefusals = guard?.on('decision', (decision) => {
      if (decision.targetId === this.page.id && decision.refused !== undefined) redirect ??= decision;
    });
    const refusedRedirect = (): DomainPolicyError | undefined =>
      redirect && guard?.refusal(redirect.url, `Navigation to ${url} was redirected; the redirect`);
    // Awaited (a round trip on a page's first goto only): the session would run it before the
    // navigation anyway, but a document that lands in a new renderer process before that process has
    // the domain on is one whose body Chrome does not keep (response.body(), src/stagehand/response.ts).
    if (network) await enableNetwork(this.page.session);
    const before = frame.committedLoaderId;
    const result = await this.page.session
      .send('Page.navigate', { url, frameId: frame.id }, { timeoutMs })
      .catch((error: Error) => {
        // A browser or tab that went away is that, not a navigation problem.
        if (error instanceof ConnectionClosedError || error instanceof TargetClosedError) throw error;
        const policy = refusedRedirect();
        if (policy) throw policy;
        if (error instanceof TimeoutError) {
          // The navigation is still pending, and Chrome holds back what we send to the page's
          // renderer until it is over: end it, so the page keeps working on what it shows.
          void this.page.session.sendQuiet('Page.stopLoading');
          throw new TimeoutError(`Navigation to ${url} timed out after ${timeoutMs} ms: the server has not answered.`, timeoutMs);
        }
        // A hosted server's connectUrl refuses a URL that is not of the web, and says why.
        const refused = error.message.indexOf(HOSTED_REFUSAL);
        if (error instanceof ProtocolError && refused >= 0)
          throw new UrlNotAllowedError(error.message.slice(refused + HOSTED_REFUSAL.length).trim(), url);
        throw new NavigationError(`Navigation to ${url} failed: ${error.message}`, url);
      })
      .finally(() => offRefusals?.());
    if (result.errorText) {
      const policy = refusedRedirect();
      if (policy) throw policy;
      // Otherwise Chrome's error page is waited for as any document, and has no response: null.
      if (!this.page.errorPageOnFailure)
        throw new NavigationError(
          `Navigation to ${url} failed: ${result.errorText}${tunnelHint(result.errorText)}. Check the URL and that the server is reachable.`,
          url,
        );
    }
    if (!result.loaderId) return null; // Same-document navigation (a fragment change), javascript: URLs: nothing loads.
    const remaining = () => (timeoutMs === 0 ? 0 : Math.max(1, timeoutMs - (Date.now() - started)));
    const upstream = () => upstreamFailure(this.responses.responseOf(result.loaderId!), url);
    const failed = upstream();
    if (failed) {
      // The proxy's page replaces the document all the same: wait until it is in, so that what the
      // caller reads after the error is that page, not the one before it (or an empty one).
      const wait = () => (timeoutMs === 0 ? UPSTREAM_PAGE_MS : Math.min(remaining(), UPSTREAM_PAGE_MS));
      await this.#waitFor({ loaderId: result.loaderId, before }, 'domcontentloaded', wait, url).catch(() => undefined);
      throw failed;
    }
    const offPrepare = waitUntil === 'commit' || waitUntil === 'domcontentloaded' ? undefined : this.#prepareReader(frame, result.loaderId);
    try {
      await this.#waitFor({ loaderId: result.loaderId, before }, waitUntil, remaining, url);
    } finally {
      offPrepare?.();
    }
    const late = upstream();
    if (late) throw late;
    return result.loaderId;
  }

  /**
   * While a navigation waits for `load`, gets that frame's
   * isolated world and selector engine ready (the main frame's and those of the frames in it, up to
   * PREPARED_FRAMES), so the read or action that usually follows a goto does not pay for them after
   * `load`, when the renderer is busiest. Best effort: a document replaced meanwhile just makes the
   * next use create them again, and a failure here is the next use's to report.
   */
  #prepareReader(frame: Frame, loaderId: string): () => void {
    const prepared = new Set<string>();
    const offs: Array<() => void> = [];
    const check = (f: Frame) => {
      // Frames of the document being replaced are not worth it: they go with it.
      if (prepared.size >= PREPARED_FRAMES || f.isDetached() || frame.committedLoaderId !== loaderId) return;
      // Chrome's error page is never read, but its parent's read passes its element all the same.
      const errorPage = f.showsErrorPage();
      if (f !== frame && !f.hasDocument && !errorPage) return;
      // From the commit on, not from DOMContentLoaded: a frame that commits late (an out-of-process
      // iframe, typically) is otherwise interactive only just before the page's `load`.
      if (!f.committedLoaderId || f.loaderId !== f.committedLoaderId) return;
      const key = `${f.id} ${f.committedLoaderId}`;
      if (prepared.has(key)) return;
      prepared.add(key);
      if (!errorPage) f.engine(PREPARE_TIMEOUT_MS).catch(() => undefined);
      // And the handle a read of its parent passes for its element.
      f.ownerHandle(PREPARE_TIMEOUT_MS).catch(() => undefined);
    };
    const watch = (f: Frame) => {
      offs.push(f.changed.on('change', () => check(f)));
      check(f);
    };
    for (const f of this.page.frames()) watch(f);
    offs.push(this.page.frameManager.onNewFrame(watch));
    return () => {
      for (const off of offs) off();
    };
  }

  /** The default goto's bounded wait for `load` once the document is interactive. */
  async #loadGrace(frame: Frame, navigated: NavigatedDocument, remaining: number, url: string): Promise<void> {
    const graceMs = remaining === 0 ? LOAD_GRACE_MS : Math.min(LOAD_GRACE_MS, remaining);
    const started = Date.now();
    let reached: boolean;
    try {
      reached = await this.page.frameManager.waitForLifecycle(frame, navigated, 'load', graceMs, url, QUIET);
    } catch (error) {
      if (!(error instanceof TimeoutError)) throw error;
      reached = false;
    }
    if (reached) return;
    this.page.logger.info('driver', 'Navigated; parts of the page were still loading, reading it as it is', {
      url,
      waitedMs: Date.now() - started,
      stillLoading: this.page.frameManager.stillLoading(frame, 'load').slice(0, 10),
      // Empty when every frame's document was in and parsed, and only subresources held `load`.
      documentsOnTheirWay: this.page.frameManager.pendingDocuments(frame, 10),
    });
  }

  /**
   * Waits until the current document of the page (and every frame in it that committed a
   * document) reached `state`. Useful for popups and for navigations the page started itself.
   */
  async waitForLoadState(state: WaitUntil = 'load', options: { timeoutMs?: number } = {}): Promise<void> {
    this.page.assertOpen('waitForLoadState()');
    const { waitUntil, timeoutMs } = checkLoadOptions(state, options?.timeoutMs, 'waitForLoadState');
    const frame = this.page.mainFrame();
    await this.page.frameManager.waitForLifecycle(frame, undefined, waitUntil ?? 'load', timeoutMs, frame.url() || 'the current document');
  }

  /**
   * Goes `step` entries through the page's history (-1 back, 1 forward), as the browser's buttons
   * do. With `waitUntil` it waits for that state, as goto() does with it; without, as the default
   * goto() does. Resolves with the document's response, as goto() does; null, doing nothing, when
   * there is no such entry, and null when nothing was fetched (the back-forward cache, a fragment).
   */
  async traverse(step: -1 | 1, options: GotoOptions = {}): Promise<NavigationResponse | null> {
    const what = step < 0 ? 'goBack' : 'goForward';
    this.page.assertOpen(`${what}()`);
    const { waitUntil, timeoutMs } = checkLoadOptions(options?.waitUntil, options?.timeoutMs, what);
    const started = Date.now();
    const remaining = () => (timeoutMs === 0 ? 0 : Math.max(1, timeoutMs - (Date.now() - started)));
    const { currentIndex, entries } = await this.page.session.send('Page.getNavigationHistory', undefined, { timeoutMs: remaining() });
    const entry = entries[currentIndex + step];
    if (!entry) return null;
    const navigated = await this.#commit(
      () => this.page.session.send('Page.navigateToHistoryEntry', { entryId: entry.id }, { timeoutMs: remaining() }),
      remaining,
      entry.url,
      what,
    );
    if (navigated === undefined) return null;
    // From the back-forward cache: loaded already; its frames are being read again.
    const restored = this.page.frameManager.restored;
    if (restored?.loaderId === navigated.loaderId) {
      await withDeadline(restored.frames, remaining(), `Going to ${entry.url}`);
      return null;
    }
    await this.#waitFor(navigated, waitUntil, remaining, entry.url);
    return this.responses.responseOf(navigated.loaderId);
  }

  /** Reloads the page and waits as traverse() does; resolves with the new document's response. */
  async reload(options: GotoOptions & { ignoreCache?: boolean } = {}): Promise<NavigationResponse | null> {
    this.page.assertOpen('reload()');
    const { waitUntil, timeoutMs } = checkLoadOptions(options?.waitUntil, options?.timeoutMs, 'reload');
    if (options?.ignoreCache !== undefined && typeof options.ignoreCache !== 'boolean')
      throw new InvalidOptionError('reload: `ignoreCache` must be true or false.');
    const started = Date.now();
    const remaining = () => (timeoutMs === 0 ? 0 : Math.max(1, timeoutMs - (Date.now() - started)));
    const url = this.page.mainFrame().url();
    const navigated = await this.#commit(
      () => this.page.session.send('Page.reload', { ignoreCache: options?.ignoreCache ?? false }, { timeoutMs: remaining() }),
      remaining,
      url,
      'reload',
    );
    if (navigated === undefined) return null;
    await this.#waitFor(navigated, waitUntil, remaining, url);
    return this.responses.responseOf(navigated.loaderId);
  }

  /**
   * Sends `command` and resolves once the main frame committed another document, or undefined when
   * Chrome reports a move within the same document (a fragment, pushState).
   */
  async #commit(
    command: () => Promise<unknown>,
    remaining: () => number,
    url: string,
    what: string,
  ): Promise<NavigatedDocument | undefined> {
    const frame = this.page.mainFrame();
    const before = frame.committedLoaderId;
    // Not awaited: the session runs it before the command, which is all the response needs.
    void enableNetwork(this.page.session);
    const offs: Array<() => void> = [];
    let sameDocument = false;
    const moved = new Promise<void>((resolve) => {
      offs.push(
        frame.changed.on('change', () => {
          if (this.page.isClosed() || frame.committedLoaderId !== before) resolve();
        }),
        this.page.session.on('Page.navigatedWithinDocument', (event) => {
          if (event.frameId !== frame.id) return;
          sameDocument = true;
          resolve();
        }),
      );
    });
    try {
      await command();
      await withDeadline(moved, remaining(), `${what}() to ${url}`);
    } finally {
      for (const off of offs) off();
    }
    this.page.assertOpen(`${what}()`);
    return sameDocument && frame.committedLoaderId === before ? undefined : { loaderId: frame.committedLoaderId, before };
  }

  /** With `waitUntil`, strictly that state; without, as the default goto() waits. */
  async #waitFor(navigated: NavigatedDocument, waitUntil: WaitUntil | undefined, remaining: () => number, url: string): Promise<void> {
    const frame = this.page.mainFrame();
    if (waitUntil) return void (await this.page.frameManager.waitForLifecycle(frame, navigated, waitUntil, remaining(), url));
    await this.page.frameManager.waitForLifecycle(frame, navigated, 'domcontentloaded', remaining(), url);
    await this.#loadGrace(frame, navigated, remaining(), url);
  }
}

/** Checks waitUntil and timeoutMs as extract() checks its options: at once, naming the field. 0 ms is no limit. */
function checkLoadOptions(waitUntil: unknown, timeoutMs: unknown, method: string): { waitUntil: WaitUntil | undefined; timeoutMs: number } {
  if (waitUntil !== undefined && !WAIT_UNTIL.includes(waitUntil as WaitUntil)) {
    throw new InvalidOptionError(
      `${method}: \`waitUntil\` must be one of ${WAIT_UNTIL.map((each) => `"${each}"`).join(', ')}, not ${JSON.stringify(waitUntil)}.`,
    );
  }
  if (timeoutMs !== undefined && (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs < 0)) {
    throw new InvalidOptionError(
      `${method}: \`timeoutMs\` must be a number of milliseconds, 0 for no limit, not ${typeof timeoutMs === 'string' ? JSON.stringify(timeoutMs) : String(timeoutMs)}.`,
    );
  }
  return { waitUntil: waitUntil as WaitUntil | undefined, timeoutMs: (timeoutMs as number | undefined) ?? DEFAULT_NAVIGATION_TIMEOUT_MS };
}

/** Runs in the page: the HTTP status of its document's response, as Navigation Timing has it (0: none). */
function documentStatus(): number {
  const entry = performance.getEntriesByType('navigation')[0] as (PerformanceEntry & { responseStatus?: number }) | undefined;
  return entry?.responseStatus ?? 0;
}
