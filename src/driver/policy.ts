// domainPolicy on the local driver. Every session Tendril adopts (pages, popups, out-of-process
// iframes, workers) gets the Fetch domain at its Request stage before its target runs, so each
// request of every frame is answered here: continued when the policy allows its host, failed when
// not. A refused navigation of a page's main frame fails as `Aborted`, which commits no error page:
// the page stays on what it showed. Other refused requests (subresources, iframes) fail as
// `BlockedByClient`. WebSockets never reach Fetch: per-URL network emulation takes them offline
// (not a shared worker's: Chrome 156 holds it to no rule, nor to Network.setBlockedURLs).
// A Context without a policy has no guard at all, so costs nothing.

import type { Protocol } from 'devtools-protocol';
import type { CdpSession } from '../cdp/session.js';
import type { DomainPolicyError } from '../errors.js';
import type { Logger } from '../logger.js';
import { domainPolicyError, refusedHost, type CheckedPolicy } from '../util/domainPolicy.js';
import { Emitter } from '../util/emitter.js';
import { redactUrl } from '../util/redact.js';
import { enableNetwork } from './network.js';

/** What the domainPolicy guard needs of a page (page.ts's Page has it). */
export interface GuardedPage {
  readonly session: CdpSession;
  /** The page's target id. */
  readonly id: string;
  /** The page that opened this one (a popup), when there is one. */
  readonly openerId?: string;
  readonly guard: DomainGuard | undefined;
  readonly frameManager: { readonly mainFrame?: { url(): string } };
  isClosed(): boolean;
  close(): Promise<void>;
}

/** A request of a page's main frame for a new document: allowed (continued) or refused. */
export interface Decision {
  /** The page (its target id) whose main frame asked. */
  targetId: string;
  /** The page that opened it, when it is a popup. */
  openerId: string | undefined;
  url: string;
  /** The refused host; undefined when the request was allowed. */
  refused: string | undefined;
  /** A popup closed because its first document was refused: settles once it is gone from context.pages(). */
  closed?: Promise<void>;
}

type GuardEvents = {
  /** A main-frame document request of some page was decided. */
  decision: Decision;
  /** A page opened another (a popup, target=_blank, window.open). */
  popup: { targetId: string; openerId: string };
};

/** Refused URLs remembered per page, so a request the page repeats is logged once. */
const LOGGED_PER_PAGE = 200;
/**
 * After an action: how long a page may take to start a navigation the action caused (a script
 * that navigates on the next task), and how long a popup it opened may take to ask for its first
 * document. A navigation that starts later is still refused, only not reported by that action.
 */
const ACTION_GRACE_MS = 50;
const POPUP_WAIT_MS = 3000;
/** The longest an action waits for a navigation it started to commit or be refused. */
const ACTION_NAVIGATION_MAX_MS = 10_000;

export class DomainGuard extends Emitter<GuardEvents> {
  readonly #logged = new WeakMap<object, Set<string>>();
  #socketRules: Protocol.Network.NetworkConditions[];
  /** The sessions under this guard that are still attached. */
  readonly #sessions = new Set<CdpSession>();

  #policy: CheckedPolicy;

  constructor(
    policy: CheckedPolicy,
    private readonly logger: Logger,
  ) {
    super();
    this.#policy = policy;
    this.#socketRules = socketRules(policy);
  }

  /** The policy requests are judged by. */
  get policy(): CheckedPolicy {
    return this.#policy;
  }

  /** Whether `session` is under this guard already. */
  guards(session: CdpSession): boolean {
    return this.#sessions.has(session);
  }

  /**
   * Judges every request from now on by `policy` (setDomainPolicy); `{}` lets every one through.
   * The WebSocket rules of every guarded session are replaced.
   */
  async setPolicy(policy: CheckedPolicy): Promise<void> {
    this.#policy = policy;
    this.#socketRules = socketRules(policy);
    const matchedNetworkConditions = this.#socketRules;
    await Promise.all(
      [...this.#sessions].map((session) => session.sendQuiet('Network.emulateNetworkConditionsByRule', { matchedNetworkConditions })),
    );
  }

  /** The error for `url` when the policy refuses it, before anything is sent; undefined when allowed. */
  refusal(url: string, what = 'Navigation'): DomainPolicyError | undefined {
    const host = refusedHost(this.policy, url);
    return host === undefined ? undefined : domainPolicyError(this.policy, url, host, what);
  }

  /**
   * Puts a session under the policy. The returned command must go out before the target is resumed
   * (Runtime.runIfWaitingForDebugger), so not one request of its start escapes. `page` is the page
   * the session belongs to (its own or one of its out-of-process iframes); none for a worker of the
   * browser's own (a service worker, a shared worker).
   */
  guard(session: CdpSession, page: GuardedPage | undefined): Promise<unknown> {
    this.#sessions.add(session);
    session.on('detached', () => this.#sessions.delete(session));
    session.on('Fetch.requestPaused', (event) => this.#paused(session, event, page));
    // Seen only where the Network domain is on (an out-of-process iframe or a worker, a page after
    // its first goto or act): the socket itself is refused by the rules below either way.
    session.on('Network.webSocketCreated', (event) => {
      const host = refusedHost(this.policy, event.url);
      if (host !== undefined)
        this.#log(page ?? session, 'WebSocket refused by the domainPolicy', host, event.url, {
          frameId: undefined,
          resourceType: 'WebSocket',
        });
    });
    return Promise.all([
      session.send('Fetch.enable', { patterns: [{ urlPattern: '*', requestStage: 'Request' }] }),
      // Chrome 156 applies these to the sockets of a page and of its in-process frames as they are;
      // an out-of-process iframe's sockets (and a dedicated worker's in it) only once the Network
      // domain is on in that session, so it is turned on there (bodies not kept). A page's own
      // session does without: its Network events would cost a message per request for nothing.
      // A target that refuses the rules is logged, and left to run.
      session
        .send('Network.emulateNetworkConditionsByRule', { matchedNetworkConditions: this.#socketRules })
        .catch((error: Error) =>
          this.logger.debug('policy', 'WebSocket rules could not be set on a target', { type: session.targetType, error: error.message }),
        ),
      session === page?.session ? undefined : enableNetwork(session),
    ]);
  }

  #paused(session: CdpSession, event: Protocol.Fetch.RequestPausedEvent, page: GuardedPage | undefined): void {
    const url = event.request.url + (event.request.urlFragment ?? '');
    const host = refusedHost(this.policy, url);
    // The page's own main frame (whose id is the page's target id) asking for a new document.
    const mainFrame = page !== undefined && event.resourceType === 'Document' && event.frameId === page.id;
    // A popup whose first document is refused would stay an empty tab nobody asked for: it is closed.
    const closing = host !== undefined && mainFrame && page.openerId !== undefined && neverLoaded(page);
    // Answered without waiting: the deadline is the connection's, and a target that went away
    // meanwhile has nothing left to answer (sendQuiet swallows that).
    if (host === undefined) {
      void session.sendQuiet('Fetch.continueRequest', { requestId: event.requestId });
    } else {
      // Aborted ends a navigation without an error page: the page keeps its document.
      void session.sendQuiet('Fetch.failRequest', { requestId: event.requestId, errorReason: mainFrame ? 'Aborted' : 'BlockedByClient' });
      const what = closing
        ? 'A popup’s first page was refused by the domainPolicy; the popup is closed'
        : mainFrame
          ? 'Navigation refused by the domainPolicy; the page stays where it was'
          : 'Request refused by the domainPolicy';
      this.#log(page ?? session, what, host, url, event);
    }
    if (!mainFrame) return;
    const closed = closing ? page.close().catch(() => undefined) : undefined;
    this.emit('decision', { targetId: page.id, openerId: page.openerId, url, refused: host, closed });
  }

  #log(owner: object, what: string, host: string, url: string, event: { frameId: string | undefined; resourceType: string }): void {
    let seen = this.#logged.get(owner);
    if (!seen) this.#logged.set(owner, (seen = new Set()));
    // A page that retries a refused request in a loop is told about once (while the set stays small).
    if (seen.has(url)) return;
    if (seen.size >= LOGGED_PER_PAGE) seen.clear();
    seen.add(url);
    this.logger.info('policy', what, { host, url: redactUrl(url), frame: event.frameId, type: event.resourceType });
  }

  /**
   * Watches what an action on `page` leads to: a navigation of its main frame or a popup it opens
   * that the policy refuses. Start it before the action; call `outcome()` once the action's input
   * went through.
   */
  watchAction(page: GuardedPage): ActionWatch {
    return new ActionWatch(this, page);
  }
}

/**
 * Runs an action on `page` (`run`) and, under a domainPolicy, fails with DomainPolicyError when it
 * led to a refused navigation of the page or of a popup it opened. Without a policy it only runs it.
 */
export async function watchedAction<T>(page: GuardedPage, timeoutMs: number, run: () => Promise<T>): Promise<T> {
  const watch = page.guard?.watchAction(page);
  if (!watch) return run();
  const started = Date.now();
  let result: T;
  try {
    result = await run();
  } catch (error) {
    watch.dispose();
    throw error;
  }
  await watch.outcome(Math.max(1, timeoutMs - (Date.now() - started)));
  return result;
}

/**
 * WebSockets never reach the Fetch domain. Chrome's per-URL network emulation does apply to them:
 * a socket to a refused host meets an offline network. The first rule that matches wins, so the
 * blocked hosts come first, then the allowed ones, then (with an allow list) every other host.
 */
function socketRules(policy: CheckedPolicy): Protocol.Network.NetworkConditions[] {
  const rule = (pattern: string | undefined, offline: boolean): Protocol.Network.NetworkConditions => ({
    urlPattern: `ws{s}?://${pattern === undefined ? '*' : hostPattern(pattern)}:*/*`,
    latency: 0,
    downloadThroughput: -1,
    uploadThroughput: -1,
    offline,
  });
  const rules = (policy.block ?? []).map((pattern) => rule(pattern, true));
  if (policy.allow) rules.push(...policy.allow.map((pattern) => rule(pattern, false)), rule(undefined, true));
  return rules;
}

/** A checked host pattern as a URLPattern hostname: `*.example.org` is the host and its subdomains. */
function hostPattern(pattern: string): string {
  const wildcard = pattern.startsWith('*.');
  // Characters with a meaning in URLPattern syntax (an IPv6 address has colons) are escaped.
  const host = (wildcard ? pattern.slice(2) : pattern).replace(/[\\:*(){}+?]/g, (char) => `\\${char}`);
  return wildcard ? `{*.}?${host}` : host;
}

/** The page's main frame has shown nothing yet but its initial empty document. */
function neverLoaded(page: GuardedPage): boolean {
  const url = page.frameManager.mainFrame?.url() ?? '';
  return url === '' || url === 'about:blank';
}

/**
 * What one action caused, as far as the policy goes. The page says when its main frame is asked to
 * navigate (Page.frameRequestedNavigation: a link, a form, a script), and the browser when a popup
 * appears; each such navigation is followed until it commits or is refused, so act() can fail with
 * the host instead of reporting a success the page never saw.
 */
export class ActionWatch {
  #refused: Decision | undefined;
  /** The main frame was asked to navigate, and has neither committed nor been refused since. */
  #navigating = false;
  /** Popups the action opened that have not asked for their first document yet, with when they appeared. */
  readonly #popups = new Map<string, number>();
  /** Popups the page asked for (a target=_blank link) and popups that appeared: more asked than appeared is one still coming. */
  #popupsAsked = 0;
  #popupsSeen = 0;
  readonly #offs: Array<() => void> = [];
  #wake: (() => void) | undefined;

  constructor(
    private readonly guard: DomainGuard,
    private readonly page: GuardedPage,
  ) {
    const mainId = page.id;
    const session = page.session;
    this.#offs.push(
      guard.on('decision', (decision) => {
        if (decision.targetId === mainId) {
          if (decision.refused !== undefined) {
            this.#refused ??= decision;
            this.#navigating = false;
          }
        } else if (decision.openerId === mainId) {
          if (decision.refused !== undefined) this.#refused ??= decision;
          this.#popups.delete(decision.targetId);
        } else {
          return;
        }
        this.#changed();
      }),
      guard.on('popup', ({ targetId, openerId }) => {
        if (openerId !== mainId) return;
        this.#popupsSeen++;
        this.#popups.set(targetId, Date.now());
        this.#changed();
      }),
      session.on('Page.frameRequestedNavigation', (event) => {
        if (event.frameId !== mainId || !/^(https?|wss?|ftp):/i.test(event.url)) return;
        if (event.disposition === 'currentTab') this.#navigating = true;
        else if (event.disposition === 'newTab' || event.disposition === 'newWindow') this.#popupsAsked++;
        this.#changed();
      }),
      session.on('Page.frameNavigated', (event) => {
        if (event.frame.id === mainId) this.#settled();
      }),
      session.on('Page.navigatedWithinDocument', (event) => {
        if (event.frameId === mainId) this.#settled();
      }),
      session.on('Page.frameStoppedLoading', (event) => {
        if (event.frameId === mainId) this.#settled();
      }),
    );
  }

  #settled(): void {
    this.#navigating = false;
    this.#changed();
  }

  #changed(): void {
    this.#wake?.();
  }

  /**
   * Resolves once what the action started is decided; rejects with DomainPolicyError when the
   * policy refused a navigation of the page or of a popup the action opened. Never waits past
   * `timeoutMs`. Always stops watching.
   */
  async outcome(timeoutMs: number): Promise<void> {
    try {
      // A round trip through the page's renderer (its main thread, running no script): what the page
      // announced while it handled the input (a navigation it asked for) arrives before the answer.
      await this.page.session.send('Runtime.getIsolateId', undefined, { timeoutMs: Math.min(timeoutMs, 2000) }).catch(() => undefined);
      const started = Date.now();
      const until = started + Math.min(timeoutMs, ACTION_NAVIGATION_MAX_MS);
      // Since when nothing has been pending: a page that keeps firing events (a SPA changing its
      // URL) does not hold the action, only a navigation or a popup still undecided does.
      let idleSince: number | undefined;
      for (;;) {
        if (this.#refused) {
          // The popup is gone from context.pages() by the time the caller hears of it.
          await this.#refused.closed;
          throw this.#error(this.#refused);
        }
        const now = Date.now();
        for (const [id, since] of this.#popups) if (now - since > POPUP_WAIT_MS) this.#popups.delete(id);
        const popupComing = this.#popupsAsked > this.#popupsSeen && now - started <= POPUP_WAIT_MS;
        const pending = (this.#navigating && !this.page.isClosed()) || this.#popups.size > 0 || popupComing;
        idleSince = pending ? undefined : (idleSince ?? now);
        if (idleSince !== undefined && now - idleSince >= ACTION_GRACE_MS) return;
        if (now >= until) return;
        const wait = idleSince === undefined ? Math.min(until - now, 250) : ACTION_GRACE_MS - (now - idleSince);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.max(1, wait));
          this.#wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.#wake = undefined;
      }
    } finally {
      this.dispose();
    }
  }

  #error(decision: Decision): DomainPolicyError {
    const popup = decision.targetId !== this.page.id;
    return domainPolicyError(
      this.guard.policy,
      decision.url,
      decision.refused!,
      popup ? 'A popup the action opened' : 'A navigation the action started',
    );
  }

  dispose(): void {
    for (const off of this.#offs.splice(0)) off();
    this.#wake = undefined;
  }
}

/**
 * A target that is not a page (a worker, a service worker) is let run and left alone. Under a
 * domainPolicy it stays attached instead, with its requests guarded like a page's: a worker's own
 * fetches would otherwise escape the policy.
 */
export function releaseTarget(parent: CdpSession, session: CdpSession, guard: DomainGuard | undefined): void {
  const kind = session.targetType;
  if (guard && (kind === 'worker' || kind === 'shared_worker' || kind === 'service_worker')) {
    void guard.guard(session, undefined).catch(() => undefined);
    void session.sendQuiet('Runtime.runIfWaitingForDebugger');
    return;
  }
  // Detached only once it runs: a service worker detached from while still paused stays paused,
  // and the page's navigator.serviceWorker.ready never resolves.
  void session
    .sendQuiet('Runtime.runIfWaitingForDebugger')
    .then(() => parent.sendQuiet('Target.detachFromTarget', { sessionId: session.id }));
}
