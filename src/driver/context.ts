import type { Protocol } from 'devtools-protocol';
import type { BrowserHandle } from '../browser/browser.js';
import type { CdpSession } from '../cdp/session.js';
import { SdkError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Viewport } from '../types.js';
import type { CheckedPolicy } from '../util/domainPolicy.js';
import { Emitter } from '../util/emitter.js';
import { deferred, withDeadline, type Deferred } from '../util/time.js';
import type { DownloadPlace, watchDownloads } from './download.js';
import type { FolderKeeper } from './downloadKeeper.js';
import { Page } from './page.js';
import { DomainGuard, releaseTarget } from './policy.js';

export interface ContextOptions {
  viewport?: Viewport;
  timeoutMs: number;
  /**
   * Where downloads go: a folder, or `{ folder: undefined }` for the browser's own choice (reported
   * all the same), and the watcher that reports them: given by the opener, so that a build whose
   * browser cannot report downloads (an extension: Browser.* is refused through chrome.debugger)
   * carries none of it. Absent: downloads are none of this context's business (a hosted browser).
   */
  downloads?: DownloadPlace & { watch: typeof watchDownloads };
  /** The hosts pages may reach (checked); absent: every host, and no cost at all. */
  policy?: CheckedPolicy;
  /**
   * The closed-root watch's page script (src/injected/watch), added to every document the pages
   * make: given by the Node opener. Absent (the extension's build): closed roots are found by
   * scanning, as in documents older than the session.
   */
  closedRootWatch?: string;
  /**
   * An expression installed beside each frame's selector engine, as its `read`: the snapshot
   * layer's page script (READER_SOURCE), given by whoever opens the context since the driver does
   * not know that layer. Compiled when a navigation prepares the frame, not by the first read after
   * `load`, and sent once per document rather than with every read.
   */
  reader: string;
}

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
  /** @internal See ContextOptions.closedRootWatch. */
  get closedRootWatch(): string | undefined {
    return this.options.closedRootWatch;
  }

  /** @internal See ContextOptions.reader. */
  get reader(): string {
    return this.options.reader;
  }

  /** @internal Enforces the domainPolicy on every session of this context; undefined without one. */
  readonly guard: DomainGuard | undefined;

  /** @internal */
  constructor(
    private readonly browser: BrowserHandle,
    private readonly logger: Logger,
    private readonly options: ContextOptions,
  ) {
    super();
    this.guard = options.policy ? new DomainGuard(options.policy, logger) : undefined;
  }

  /** @internal Attaches to the pages that exist and to every one that appears later. */
  async start(): Promise<void> {
    const root = this.browser.connection.rootSession;
    root.on('Target.attachedToTarget', (event) => this.#onAttached(root, event));
    const downloads = this.options.downloads;
    // The watch goes first: on a shared browser it asks which tabs are free before we hold them all.
    [this.#keeper] = await Promise.all([
      downloads?.watch(root, downloads, this, this.logger),
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
   * The page calls act on when none is given: the one opened most recently (a new tab or a popup)
   * that is still open.
   */
  activePage(): Page | undefined {
    return this.#pages[this.#pages.length - 1];
  }

  /** Opens a new tab and resolves once it is ready to use. */
  async newPage(url = 'about:blank'): Promise<Page> {
    const refused = this.guard?.refusal(url);
    if (refused) throw refused;
    const { targetId } = await this.browser.connection.rootSession.send('Target.createTarget', { url });
    this.#keeper?.claim(targetId);
    const page = await withDeadline(this.#pageFor(targetId), this.options.timeoutMs, 'Opening a new page');
    if (!page) throw new SdkError(`The new page (${targetId}) closed before it was ready.`);
    return page;
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
    if (!targetInfos.some((info) => info.targetId === targetId && info.type === 'page')) return undefined;
    return withDeadline(this.#pageFor(targetId), timeoutMs, 'Waiting for the page to attach').catch(() => undefined);
  }

  /** @internal */
  async closeTarget(targetId: string): Promise<void> {
    await this.browser.connection.rootSession.send('Target.closeTarget', { targetId });
  }

  /** @internal */
  forgetPage(page: Page): void {
    this.#pages = this.#pages.filter((each) => each !== page);
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

  #onAttached(parent: CdpSession, event: Protocol.Target.AttachedToTargetEvent): void {
    const session = parent.childSession(event.sessionId);
    if (!session) return;
    const { targetId, type, url } = event.targetInfo;
    // A browser session is a connectURL() client's (see browser/cdpBridge.ts): not ours to detach.
    if (type === 'browser') return;
    if (type !== 'page') {
      releaseTarget(parent, session, this.guard);
      return;
    }
    const openerId = event.targetInfo.openerId;
    if (openerId) this.guard?.emit('popup', { targetId, openerId });
    const page = new Page(this, session, targetId, this.options.viewport, this.logger, this.options.timeoutMs, openerId);
    const prepared = page
      .init()
      .then(() => {
        if (page.isClosed()) return undefined;
        this.#pages.push(page);
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
      });
    this.#preparing.set(targetId, prepared);
    void prepared.then((ready) => {
      this.#awaited.get(targetId)?.resolve(ready);
      this.#awaited.delete(targetId);
    });
  }
}
