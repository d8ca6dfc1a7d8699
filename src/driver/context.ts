import type { Protocol } from 'devtools-protocol';
import type { BrowserHandle } from '../browser/browser.js';
import type { CdpSession } from '../cdp/session.js';
import { ContextClosedError, InvalidOptionError, PageClosedError, PageNotFoundError, SdkStateError } from '../errors.js';
import type { Logger } from '../logger.js';
import type {
  ClearCookieOptions,
  Cookie,
  CookieParam,
  DomainPolicy,
  NewContextOptions,
  StagehandDomainPolicy,
  StorageState,
  Tracing,
} from '../types.js';
import { Instrumentation } from '../util/instrumentation.js';
import { Emitter } from '../util/emitter.js';
import { deferred, withDeadline, type Deferred } from '../util/time.js';
import { ActivePages } from './activePage.js';
import { addCookies, clearCookies, readCookies, type CookieJar } from './cookies.js';
import type { FolderKeeper } from './downloadKeeper.js';
import { initScriptSource, type InitScript } from './initScripts.js';
import { createBrowserContext, disposeBrowserContext, isolatedDownloads, startIsolated } from './isolation.js';
import type { Frame, ResolvedElement } from './frame.js';
import type { LocatorDriver } from './locatorApi.js';
import { createLocatorDriver } from './locatorDriver.js';
import { Page } from './page.js';
import { openTab } from './newTab.js';
import { DomainGuard, releaseTarget } from './policy.js';
import { applyPolicy, checkPolicyChange, stagehandPolicy } from './policyChange.js';
import { addInitScript, checkHeaders, setExtraHeaders, SessionExtras } from './sessionExtras.js';
import { milliseconds } from '../util/checks.js';
import { noTracing, type ContextOptions } from './contextOptions.js';
import type { StorageKeeper } from './storageState.js';

/** How long awaitActivePage() waits for a page on its way, unless told (Stagehand's default). */
const AWAIT_ACTIVE_PAGE_MS = 2000;

/**
 * The pages of the browser; emits 'page' for each new one (tabs, popups). Every page, popup and
 * out-of-process iframe is attached through Target.setAutoAttach (flat sessions, paused on start),
 * and prepared before it runs a line of script.
 */
export class Context extends Emitter<{ page: Page }> {
  #pages: Page[] = [];
  #preparing = new Map<string, Promise<Page | undefined>>();
  #awaited = new Map<string, Deferred<Page | undefined>>();
  #keeper: FolderKeeper | undefined;
  readonly #active = new ActivePages<Page>();
  /** Created with the first policy (the options' or setDomainPolicy's); it enforces one while #policyOn. */
  #guard: DomainGuard | undefined;
  #policyOn: boolean;
  /** The isolated contexts made from this one (newContext), by browser context id. */
  readonly #isolated = new Map<string, Context>();
  #offAttached: (() => void) | undefined;
  #closed = false;
  readonly #storage: StorageKeeper | undefined;
  /** @internal The init scripts and extra headers of every page (sessionExtras.ts). */
  readonly extras = new SessionExtras();
  /** @internal The seam this context's calls and its pages' pass (util/instrumentation.ts). */
  readonly instrumentation = new Instrumentation();
  #tracing: Tracing | undefined;

  /** Records a trace of this context's calls for Playwright's trace viewer (docs/tracing.md). */
  get tracing(): Tracing {
    this.#tracing ??= this.options.tracing?.(this.instrumentation, this) ?? noTracing;
    return this.#tracing;
  }
  /** @internal See PageHost.remoteBrowser. */
  get remoteBrowser(): boolean {
    return this.browser.kind !== 'launched';
  }

  /** @internal See PageHost.locatorDriverFor. */
  locatorDriverFor(page: Page): LocatorDriver<Frame, ResolvedElement> {
    return createLocatorDriver(page);
  }

  /** @internal Enforces the domainPolicy on every session of this context; undefined without one. */
  get guard(): DomainGuard | undefined {
    return this.#policyOn ? this.#guard : undefined;
  }

  /** @internal */
  constructor(
    protected readonly browser: BrowserHandle,
    private readonly logger: Logger,
    /** @internal What its opener gave it (PageHost.options). */ readonly options: ContextOptions,
    private readonly parent?: Context,
  ) {
    super();
    this.#guard = options.policy ? new DomainGuard(options.policy, logger) : undefined;
    this.#policyOn = this.#guard !== undefined;
    this.#storage = options.storage && new options.storage(this, browser.connection.rootSession, options, logger);
  }

  /** @internal Attaches to the pages that exist and to every one that appears later. */
  async start(): Promise<void> {
    const root = this.browser.connection.rootSession;
    this.#offAttached = root.on('Target.attachedToTarget', (event) => this.#onAttached(root, event));
    const downloads = this.options.downloads;
    const isolated = this.options.browserContextId;
    // The browser session's auto-attach (set by the Sdk's Context) reaches this context's targets too.
    if (isolated !== undefined) return isolatedDownloads(root, downloads, isolated, this.logger);
    // The watch goes first: on a shared browser it asks which tabs are free before we hold them all.
    [this.#keeper] = await Promise.all([
      downloads?.watch(
        root,
        downloads,
        { pages: () => [...this.#pages, ...[...this.#isolated.values()].flatMap((each) => each.pages())] },
        this.logger,
      ),
      root.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true }),
    ]);
    // Chrome announces the targets that already exist before it answers the command above.
    await Promise.all(this.#preparing.values());
  }

  /** Open pages, in the order they were attached; index 0 is the first page. */
  pages(): Page[] {
    return [...this.#pages];
  }

  /**
   * The page extract, act and observe use when none is given: the one opened (a new tab, a popup) or
   * chosen with setActivePage most recently, that is still open.
   */
  activePage(): Page | undefined {
    return this.#active.current();
  }

  /** Makes `page` the active page, and brings its tab to the front. */
  setActivePage(page: Page): void {
    if (!(page instanceof Page))
      throw new InvalidOptionError('setActivePage(page): pass a page of this context (context.pages(), context.newPage()).');
    if (!this.#pages.includes(page)) {
      if (page.isClosed()) throw new PageClosedError('setActivePage(page): this page is closed; pick one of context.pages().');
      throw new InvalidOptionError('setActivePage(page): this page belongs to another context.');
    }
    this.#active.activate(page);
    void page.session.sendQuiet('Page.bringToFront');
  }

  /**
   * The active page, once a page that is on its way (a popup a page just asked for, a tab being
   * attached) has appeared, or `timeoutMs` (default 2000) is over. Throws PageNotFoundError when no
   * page is open by then.
   */
  async awaitActivePage(timeoutMs = AWAIT_ACTIVE_PAGE_MS): Promise<Page> {
    milliseconds(timeoutMs, 'awaitActivePage(timeoutMs)');
    const page = await this.#active.await(timeoutMs, () => this.#preparing.size > 0);
    if (!page) throw new PageNotFoundError('awaitActivePage: no page is open; open one with context.newPage().');
    return page;
  }

  /**
   * Adds a script (a function called with `arg`, its source, or `{ path }` or `{ content }` of a
   * file) that runs in every document of every page from now on, existing pages and those opened
   * later, in each of their frames (out-of-process ones too), before the document's own scripts.
   */
  async addInitScript<Arg>(script: InitScript<Arg>, arg?: Arg): Promise<void> {
    await addInitScript(this.extras, await initScriptSource(script, arg, 'context.addInitScript', this.options.readFile), this.pages());
  }

  /** Sends these headers with every request of every page and frame, now and later; replaces the previous ones. */
  async setExtraHTTPHeaders(headers: Record<string, string>): Promise<void> {
    await setExtraHeaders(this.extras, checkHeaders(headers, 'context.setExtraHTTPHeaders'), this.pages());
  }

  /** The browser's cookies; with `urls`, only those the browser would send to one of them. */
  cookies(urls?: string | string[]): Promise<Cookie[]> {
    return readCookies(this.#storageSession(), urls);
  }

  /** Sets cookies, each with a `url`, or a `domain` and a `path`. */
  addCookies(cookies: CookieParam[]): Promise<void> {
    return addCookies(this.#storageSession(), cookies);
  }

  /** Removes every cookie, or those matching each field of `filter` (a string exactly, or a RegExp). */
  clearCookies(filter?: ClearCookieOptions): Promise<void> {
    return clearCookies(this.#storageSession(), filter);
  }

  /** Every cookie, and the localStorage of each origin the pages have been on: Playwright's storageState shape (docs/browsers.md). */
  storageState(): Promise<StorageState> {
    return this.setStorageState(undefined, true) as Promise<StorageState>;
  }
  /** @internal Puts a storage state in (an object, or a JSON file's path; undefined: none), or with `read`, reads it. */
  async setStorageState(state: unknown, read?: boolean): Promise<StorageState | void> {
    if (state === undefined && !read) return;
    if (!this.#storage) throw new SdkStateError('Storage states are not in tendril/extension.');
    return read ? this.#storage.read() : this.#storage.apply(state);
  }

  /** The domainPolicy in force, in Stagehand's form; null for none. */
  getDomainPolicy(): StagehandDomainPolicy | null {
    return stagehandPolicy(this.guard?.policy);
  }

  /**
   * Sets the domainPolicy of every page and frame from now on, `{ allowedDomains, blockedDomains }`
   * or `{ allow, block }`; null lifts it. Requests already under way are not called back.
   */
  async setDomainPolicy(policy: StagehandDomainPolicy | DomainPolicy | null): Promise<void> {
    const checked = checkPolicyChange(policy);
    this.#policyOn = checked !== undefined;
    if (checked) this.#guard ??= new DomainGuard(checked, this.logger);
    if (this.#guard) await applyPolicy(this.#guard, checked ?? {}, checked ? this.pages() : []);
  }

  /**
   * A new browser context, isolated from the others: own cookies, storage, cache and pages (none open), with `storageState` if given, and this context's domainPolicy. See sdk.newContext().
   */
  async newContext(options?: NewContextOptions): Promise<Context> {
    if (this.parent) return this.parent.newContext(options);
    const root = this.browser.connection.rootSession;
    const browserContextId = await createBrowserContext(root);
    const policy = this.guard?.policy;
    // Of this context's class: the Stagehand entry's isolated contexts are StagehandContexts too.
    const context = new (this.constructor as typeof Context)(
      this.browser,
      this.logger,
      { ...this.options, browserContextId, policy },
      this,
    );
    // Known before any of its targets can attach, so that this Context leaves them alone.
    this.#isolated.set(browserContextId, context);
    await startIsolated(context, options?.storageState);
    return context;
  }

  /** @internal Whether `page` is open in this context or in one made from it. */
  holds(page: Page): boolean {
    return this.#pages.includes(page) || [...this.#isolated.values()].some((each) => each.holds(page));
  }

  /**
   * An isolated context (newContext) is disposed: its pages close and its cookies, storage and cache
   * are gone. The Sdk's own context ends the hold on the browser (see sdk.close(), which also does
   * this): a browser we launched is closed.
   */
  async close(): Promise<void> {
    const isolated = this.options.browserContextId;
    if (isolated === undefined) return this.browser.close();
    if (this.#closed) return;
    this.#closed = true;
    this.#offAttached?.();
    await disposeBrowserContext(this.browser.connection.rootSession, isolated);
    if (this.parent) this.parent.#isolated.delete(isolated);
    // Chrome has closed them; their sessions' detach may still be on its way.
    for (const page of this.pages()) page.markClosed();
  }

  #assertOpen(what: string): void {
    if (this.#closed) throw new ContextClosedError(`${what}: this context is closed; open another with sdk.newContext().`);
  }

  /**
   * Storage.* reaches every cookie of the default browser context from a page's session, also where
   * there is no browser session (an extension); the browser's own session serves when no page is
   * open, and always for an isolated context, which a page's session would not reach.
   */
  #storageSession(): CookieJar {
    const { browserContextId } = this.options;
    const page = browserContextId === undefined ? (this.activePage() ?? this.#pages[0]) : undefined;
    if (page) return { session: page.session };
    return { session: this.browser.connection.rootSession, browser: true, browserContextId };
  }

  /** Opens a new tab and resolves once it is ready to use. */
  newPage(url = 'about:blank'): Promise<Page> {
    return this.instrumentation.run(
      () => ({ api: 'BrowserContext.newPage', title: `newPage ${url}`, params: { url } }),
      () => this.#newPage(url),
    );
  }

  async #newPage(url: string): Promise<Page> {
    this.#assertOpen('newPage()');
    const refused = this.guard?.refusal(url);
    if (refused) throw refused;
    const opened = await openTab(this.browser.connection.rootSession, url, this.options, this.extras, (targetId) => {
      this.#keeper?.claim(targetId);
      return this.#pageFor(targetId);
    });
    return opened;
  }

  /**
   * @internal The page of a tab (its target id, which is also its main frame's id), waiting up to
   * `timeoutMs` while it is still being attached; undefined when the browser has no such tab, or
   * it does not become ready in time. Another client may just have opened it.
   */
  async pageOfTarget(targetId: string, timeoutMs: number): Promise<Page | undefined> {
    const known = this.#pages.find((each) => each.id === targetId);
    if (known) return known;
    const { targetInfos } = await this.browser.connection.rootSession.send('Target.getTargets');
    if (!targetInfos.some((info) => info.targetId === targetId && info.type === 'page' && this.#takes(info.browserContextId)))
      return undefined;
    return withDeadline(this.#pageFor(targetId), timeoutMs, 'Waiting for the page to attach').catch(() => undefined);
  }

  /** @internal */
  async closeTarget(targetId: string): Promise<void> {
    await this.browser.connection.rootSession.send('Target.closeTarget', { targetId });
  }

  /** @internal */
  forgetPage(page: Page): void {
    this.#pages = this.#pages.filter((each) => each !== page);
    this.#active.forget(page);
  }

  #pageFor(targetId: string): Promise<Page | undefined> {
    const preparing = this.#preparing.get(targetId);
    if (preparing) return preparing;
    const page = this.#pages.find((each) => each.id === targetId);
    if (page) return Promise.resolve(page);
    let waiter = this.#awaited.get(targetId);
    if (!waiter) this.#awaited.set(targetId, (waiter = deferred()));
    return waiter.promise;
  }

  /** Whether targets of this browser context are this Context's: its own, or any but the isolated ones. */
  #takes(browserContextId: string | undefined): boolean {
    const isolated = this.options.browserContextId;
    if (isolated !== undefined) return browserContextId === isolated;
    return browserContextId === undefined || !this.#isolated.has(browserContextId);
  }

  #onAttached(parent: CdpSession, event: Protocol.Target.AttachedToTargetEvent): void {
    const session = parent.childSession(event.sessionId);
    if (!session) return;
    const { targetId, type, url } = event.targetInfo;
    // Another Context's: it handles the target (resumes it, or keeps it) itself.
    if (!this.#takes(event.targetInfo.browserContextId)) return;
    // A browser session is a connectURL() client's (see browser/cdpBridge.ts): not ours to detach; a hidden page is our storage's.
    if (type === 'browser' || this.#storage?.hidden.has(targetId)) return;
    if (type !== 'page') {
      releaseTarget(parent, session, this.guard);
      return;
    }
    const openerId = event.targetInfo.openerId;
    if (openerId) this.guard?.emit('popup', { targetId, openerId });
    const page = new (this.options.pageClass ?? Page)(
      this,
      session,
      targetId,
      this.options.viewport,
      this.logger,
      this.options.timeoutMs,
      openerId,
    );
    // The page asks for a popup before the popup is attached: awaitActivePage waits for it.
    session.on('Page.windowOpen', () => this.#active.opening());
    const prepared = page
      .init()
      .then(() => {
        if (page.isClosed()) return undefined;
        this.#pages.push(page);
        this.#active.activate(page, true);
        this.logger.debug('driver', 'Page attached', { url });
        this.emit('page', page);
        return page;
      })
      .catch((error: Error) => {
        // A tab that closes while we prepare it is not an error of anybody's.
        this.logger.debug('driver', 'A page went away while being prepared', { error: error.message });
        void session.sendQuiet('Runtime.runIfWaitingForDebugger');
        return undefined;
      })
      .finally(() => {
        this.#preparing.delete(targetId);
        this.#active.settled();
      });
    this.#preparing.set(targetId, prepared);
    void prepared.then((ready) => {
      this.#awaited.get(targetId)?.resolve(ready);
      this.#awaited.delete(targetId);
    });
  }
}
