// What one job did in a recycled browser context that clearing must undo or cannot: the origins it
// touched (whose storage is cleared before the next job), and whether its requests met HTTP auth
// (Chrome's auth cache cannot be cleared over CDP, so such a context is replaced instead).
//
// Storage belongs to documents and workers, so the origins are theirs, from three sources, since
// none sees everything: the browser's target events (every page, out-of-process frame and worker of
// the context, with each URL it navigates to), the frames' navigations (same-process frames of
// another origin among them), and the document requests of the job's pages and their
// out-of-process frames (a frame's navigation that a redirect took elsewhere). A third-party frame's storage is under its origin and the page's
// site: the storage key of each document a frame commits is asked for as it commits, and once more,
// of every frame still there, when the job ends (an out-of-process frame may commit before its
// session reports navigations). Such frames are the only ones whose storage is partitioned (under
// site isolation every cross-site frame is out of process): one whose key was never read leaves
// storage that clearing cannot name, so the watch is then not `complete`. HTTP auth
// shows as a 401/407 challenge that reached the page, or as credentials in a request's URL (a
// navigation's, or an XHR's user and password, which DevTools shows there): Chrome answers the
// challenge with those by itself, and neither the challenge nor the header it sends is reported.

import type { Protocol } from 'devtools-protocol';
import type { CdpSession } from '../cdp/session.js';
import { enableNetwork } from '../driver/network.js';
import { withDeadline } from '../util/time.js';

/** How long the end of a job may spend asking its frames' storage keys. */
const KEYS_TIMEOUT_MS = 5000;

const AUTH_CHALLENGE = /^(www|proxy)-authenticate$/i;
const AUTH_ANSWER = /^(proxy-)?authorization$/i;

function hasCredentials(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.username !== '' || parsed.password !== '';
  } catch {
    return false;
  }
}

function originOf(url: string | undefined): string | undefined {
  if (!url || !/^https?:/i.test(url)) return undefined;
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

export class JobWatch {
  readonly origins = new Set<string>();
  /**
   * The storage keys of the documents the job's frames committed: a third-party frame's storage
   * is kept under its origin and the page's site, and clearing its origin alone leaves that.
   */
  readonly storageKeys = new Set<string>();
  readonly #asking = new Set<Promise<void>>();
  /** A request of the job met HTTP auth: a 401/407 challenge, credentials sent, or Fetch.authRequired. */
  authSeen = false;
  readonly #off: Array<() => void> = [];
  readonly #watched = new WeakSet<CdpSession>();
  /** Every session watched, to ask their frames' storage keys at the end. */
  readonly #sessions: CdpSession[] = [];
  /** Out-of-process frames (their sessions) whose storage key is not known yet. */
  readonly #unkeyed = new Set<CdpSession>();

  /** Watches the browser's targets of `browserContextId` (target discovery must be on: see discoverTargets). */
  constructor(root: CdpSession, browserContextId: string) {
    const onTarget = ({ targetInfo }: { targetInfo: Protocol.Target.TargetInfo }) => {
      if (targetInfo.browserContextId === browserContextId) this.#add(targetInfo.url);
    };
    this.#off.push(root.on('Target.targetCreated', onTarget), root.on('Target.targetInfoChanged', onTarget));
  }

  /** Watches a page's session and, as they attach, its out-of-process frames' and workers'. */
  session(session: CdpSession): Promise<void> {
    if (this.#watched.has(session)) return Promise.resolve();
    this.#watched.add(session);
    this.#sessions.push(session);
    const headers = (given: Protocol.Network.Headers | undefined, pattern: RegExp) =>
      Object.keys(given ?? {}).some((name) => pattern.test(name));
    const challenged = (status: number, given: Protocol.Network.Headers | undefined) =>
      (status === 401 || status === 407) && headers(given, AUTH_CHALLENGE);
    this.#off.push(
      session.on('Network.requestWillBeSent', (event: Protocol.Network.RequestWillBeSentEvent) => {
        // Storage is a document's or a worker's: the origins of other requests hold none (their
        // cookies and cached responses are cleared for the whole context).
        if (event.type === 'Document') this.#add(event.request.url);
        // Credentials in the URL (a navigation's, or an XHR's user and password, which DevTools
        // shows there): Chrome answers the challenge with them unseen, and caches them.
        if (hasCredentials(event.request.url)) this.authSeen = true;
        if (event.redirectResponse && challenged(event.redirectResponse.status, event.redirectResponse.headers)) this.authSeen = true;
      }),
      session.on('Network.responseReceived', (event: Protocol.Network.ResponseReceivedEvent) => {
        if (challenged(event.response.status, event.response.headers)) this.authSeen = true;
      }),
      // The raw exchanges, where a challenge may show that responseReceived does not report.
      session.on('Network.responseReceivedExtraInfo', (event: Protocol.Network.ResponseReceivedExtraInfoEvent) => {
        if (challenged(event.statusCode, event.headers)) this.authSeen = true;
      }),
      session.on('Network.requestWillBeSentExtraInfo', (event: Protocol.Network.RequestWillBeSentExtraInfoEvent) => {
        if (headers(event.headers, AUTH_ANSWER)) this.authSeen = true;
      }),
      session.on('Fetch.authRequired', () => (this.authSeen = true)),
      session.on('Page.frameNavigated', (event: Protocol.Page.FrameNavigatedEvent) => {
        this.#add(event.frame.url);
        this.#askKey(session, event.frame.id);
      }),
      session.on('Target.attachedToTarget', (event: Protocol.Target.AttachedToTargetEvent) => {
        this.#add(event.targetInfo.url);
        const child = session.childSession(event.sessionId);
        // Sent as it attaches, before the frame's owner lets it run: its first request is seen.
        if (child && event.targetInfo.type === 'iframe') {
          this.#unkeyed.add(child);
          void this.session(child);
        }
      }),
    );
    return enableNetwork(session);
  }

  /**
   * Every out-of-process frame's storage key was read: clearing can reach all the job left. When
   * not, a recycled context is replaced rather than cleared.
   */
  get complete(): boolean {
    return this.#unkeyed.size === 0;
  }

  /** Stops watching, once the storage keys of every frame still there are known. */
  async stop(): Promise<void> {
    for (const off of this.#off.splice(0)) off();
    const live = this.#sessions.filter((session) => !session.detached);
    await withDeadline(
      Promise.all(
        live.map(async (session) => {
          const { frameTree } = await session.send('Page.getFrameTree', undefined, { timeoutMs: KEYS_TIMEOUT_MS });
          const ids: string[] = [];
          const visit = (tree: Protocol.Page.FrameTree) => (ids.push(tree.frame.id), tree.childFrames?.forEach(visit));
          visit(frameTree);
          for (const id of ids) this.#askKey(session, id);
        }),
      ).catch(() => undefined),
      KEYS_TIMEOUT_MS,
      "Reading the job's storage keys",
    ).catch(() => undefined);
    await Promise.all(this.#asking);
  }

  #askKey(session: CdpSession, frameId: string): void {
    const asked = session
      .send('Storage.getStorageKey', { frameId }, { timeoutMs: KEYS_TIMEOUT_MS })
      .then(
        ({ storageKey }) => {
          this.storageKeys.add(storageKey);
          this.#unkeyed.delete(session);
        },
        () => undefined, // gone already, or its frame is another session's: that one asks
      )
      .finally(() => this.#asking.delete(asked));
    this.#asking.add(asked);
  }

  #add(url: string | undefined): void {
    const origin = originOf(url);
    if (origin) this.origins.add(origin);
  }
}

const discovering = new WeakMap<CdpSession, Promise<void>>();

/** Target discovery on, once per browser: it only adds events, which nothing else of ours listens to. */
export function discoverTargets(root: CdpSession): Promise<void> {
  let on = discovering.get(root);
  if (!on) {
    on = root.send('Target.setDiscoverTargets', { discover: true }).then(() => undefined);
    on.catch(() => discovering.delete(root));
    discovering.set(root, on);
  }
  return on;
}
