import { BrowserConnectError, ConnectionClosedError } from '../errors.js';
import { withDeadline } from '../util/time.js';
import {
  detachReason,
  errorText,
  protocolError,
  rootError,
  type ChromeDebuggerApi,
  type ChromeTabsApi,
  type DebuggerSource,
} from './chromeDebugger.js';
import type { Transport } from './transport.js';

export type { ChromeDebuggerApi, ChromeTabsApi, DebuggerSource };

export interface ExtensionTransportOptions {
  /** `chrome.tabs`: lets the root session open and close tabs (Context.newPage, Page.close). */
  tabs?: ChromeTabsApi;
  /** Deadline of chrome.debugger.attach and of the calls made to answer root commands. */
  timeoutMs?: number;
  /** Hears of each tab this transport loses, whatever the cause (closed, cancelled, chrome://). */
  onTabDetached?: (tabId: number, reason: string) => void;
}

interface TargetInfo {
  targetId: string;
  type: string;
  title: string;
  url: string;
  attached: boolean;
  canAccessOpener: boolean;
}

interface Tab {
  tabId: number;
  sessionId: string;
  targetInfo: TargetInfo;
}

interface Message {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: { code: number; message: string; data?: string };
  sessionId?: string;
}

/** Chrome's answer to a message for a session it does not know. */
const NO_SESSION = -32001;
const DEFAULT_TIMEOUT_MS = 10_000;
/** Chrome's words for a command whose tab or frame session went away under it. */
const DETACHED = /Detached while handling command|Debugger is not attached|No tab with given id|No target with given id/i;
/** Prefix of the session ids standing for whole tabs; Chrome's own are 32 hex digits, never this. */
const TAB_SESSION_PREFIX = 'tab-session-';

/**
 * The DevTools Protocol over `chrome.debugger`, for code running in an extension's service worker.
 *
 * chrome.debugger gives a session per tab and no browser session: `Target.getTargets`,
 * `Target.attachToTarget` and every `Browser.*` command are refused. So the Connection's root
 * session is emulated here: each attached tab is presented as a page target that the root session
 * auto-attached to, under a made-up session id mapped to `{ tabId }`; the out-of-process iframes
 * inside it (from `Target.setAutoAttach { flatten: true }` sent to the tab) keep their real session
 * ids, sent as `{ tabId, sessionId }`. Root commands that a browser session would answer are
 * answered from what the transport knows (and `chrome.tabs`); the rest fail with a clear error.
 * A tab lost for any reason (closed, debugging cancelled in the infobar, navigated to a page
 * extensions may not debug) reads as `Target.detachedFromTarget` of its session, and of its
 * children's before that.
 */
export class ExtensionTransport implements Transport {
  onmessage?: (message: string) => void;
  onclose?: (reason: string) => void;
  #closed = false;
  #tabs = new Map<number, Tab>();
  #tabOfSession = new Map<string, number>();
  #attaching = new Map<number, Promise<string>>();
  /** Child (OOPIF) session → [its tab, the session that announced it]. */
  #children = new Map<string, { tabId: number; parent: string }>();
  #autoAttach = false;
  #discover = false;
  readonly #timeoutMs: number;

  constructor(
    private readonly api: ChromeDebuggerApi,
    private readonly options: ExtensionTransportOptions = {},
  ) {
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    api.onEvent.addListener(this.#onEvent);
    api.onDetach.addListener(this.#onDetach);
  }

  /** The tabs attached now. */
  tabIds(): number[] {
    return [...this.#tabs.keys()];
  }

  /** The session id standing for a tab, once attached. */
  sessionOfTab(tabId: number): string | undefined {
    return this.#tabs.get(tabId)?.sessionId;
  }

  /**
   * Attaches chrome.debugger to a tab and announces it as a page target on the root session (once
   * the root session asked for auto-attach). Resolves with the tab's session id.
   */
  attachTab(tabId: number): Promise<string> {
    const known = this.#tabs.get(tabId);
    if (known) return Promise.resolve(known.sessionId);
    // A second attach while the first is under way would be refused by Chrome: it shares the first.
    let attaching = this.#attaching.get(tabId);
    if (!attaching) {
      attaching = this.#attach(tabId).finally(() => this.#attaching.delete(tabId));
      this.#attaching.set(tabId, attaching);
    }
    return attaching;
  }

  async #attach(tabId: number): Promise<string> {
    if (this.#closed) throw new ConnectionClosedError(`Cannot attach to tab ${tabId}: the extension transport is closed.`);
    try {
      await withDeadline(this.api.attach({ tabId }, '1.3'), this.#timeoutMs, `Attaching the debugger to tab ${tabId}`);
    } catch (error) {
      throw new BrowserConnectError(
        `Cannot attach the debugger to tab ${tabId}: ${errorText(error)}. chrome:// pages, the Chrome Web Store, other ` +
          "extensions' pages and tabs DevTools holds cannot be debugged by an extension: pick a tab with a web page.",
        { cause: error },
      );
    }
    let targetInfo: TargetInfo;
    try {
      targetInfo = await withDeadline(this.#targetInfoOf(tabId), this.#timeoutMs, `Reading tab ${tabId}'s target`);
    } catch (error) {
      await this.#letGo(tabId);
      throw new BrowserConnectError(`Attached to tab ${tabId} but could not read its target: ${errorText(error)}.`, { cause: error });
    }
    if (this.#closed) {
      await this.#letGo(tabId);
      throw new ConnectionClosedError(`Cannot attach to tab ${tabId}: the extension transport was closed meanwhile.`);
    }
    const tab: Tab = { tabId, sessionId: `${TAB_SESSION_PREFIX}${tabId}`, targetInfo };
    this.#tabs.set(tabId, tab);
    this.#tabOfSession.set(tab.sessionId, tabId);
    if (this.#discover) this.#emit({ method: 'Target.targetCreated', params: { targetInfo } });
    if (this.#autoAttach) this.#announce(tab);
    return tab.sessionId;
  }

  /** Detaches from a tab and leaves it open; its sessions read as detached, for `reason` if given. */
  async detachTab(tabId: number, reason = 'the extension detached from the tab'): Promise<void> {
    if (!this.#tabs.has(tabId)) return;
    this.#dropTab(tabId, reason);
    await this.#letGo(tabId);
  }

  send(text: string): void {
    if (this.#closed) return;
    let message: Message;
    try {
      message = JSON.parse(text) as Message;
    } catch {
      return;
    }
    const { id, method, sessionId } = message;
    if (id === undefined || !method) return;
    const params = message.params ?? {};
    if (!sessionId) {
      // Answered (and its events sent) after send() returns, as a real transport would: the
      // Connection's listeners may send commands of their own in reply.
      queueMicrotask(() => void this.#root(id, method, params));
      return;
    }
    const tabId = this.#tabOfSession.get(sessionId);
    const child = this.#children.get(sessionId);
    if (tabId === undefined && !child) {
      const error = { code: NO_SESSION, message: `Session with given id not found (${sessionId}).` };
      queueMicrotask(() => this.#reply(id, sessionId, undefined, error));
      return;
    }
    const target: DebuggerSource = tabId !== undefined ? { tabId } : { tabId: child!.tabId, sessionId };
    this.api.sendCommand(target, method, params).then(
      (result) => this.#reply(id, sessionId, result ?? {}),
      (error: unknown) => {
        const answer = protocolError(error);
        if (answer.message === 'Not allowed') answer.message = `Not allowed: chrome.debugger refuses ${method} to extensions`;
        if (!DETACHED.test(answer.message)) return this.#reply(id, sessionId, undefined, answer);
        void this.#settleDetached(target.tabId!).then(() => this.#reply(id, sessionId, undefined, answer));
      },
    );
  }

  /**
   * A command that failed because its tab or frame went away is answered only once that is known
   * everywhere: Chrome answers it before onDetach (or the child's Target.detachedFromTarget) is
   * heard, and the session's detach, not a protocol error, is what callers expect of a closed
   * target. One chrome.debugger round trip lets those events arrive first; a tab that is still
   * ours but no longer attached is dropped here.
   */
  async #settleDetached(tabId: number): Promise<void> {
    const targets = await withDeadline(this.api.getTargets(), this.#timeoutMs, 'Listing debugger targets').catch(() => undefined);
    const tab = this.#tabs.get(tabId);
    if (!targets || !tab) return;
    const now = targets.find((each) => each.id === tab.targetInfo.targetId);
    if (!now || now.attached === false) this.#dropTab(tabId, 'the tab went away');
  }

  /** Detaches from every tab (leaving them open) and ends the transport. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.api.onEvent.removeListener(this.#onEvent);
    this.api.onDetach.removeListener(this.#onDetach);
    for (const tabId of this.#tabs.keys()) void this.#letGo(tabId);
    this.#tabs.clear();
    this.#tabOfSession.clear();
    this.#children.clear();
    this.onclose?.('the extension transport was closed');
  }

  /** The browser session's commands, as far as an extension can have them. */
  async #root(id: number, method: string, params: Record<string, unknown>): Promise<void> {
    try {
      const result = await withDeadline(this.#rootCommand(method, params), this.#timeoutMs, method);
      this.#reply(id, undefined, result);
    } catch (error) {
      this.#reply(id, undefined, undefined, protocolError(error));
    }
  }

  async #rootCommand(method: string, params: Record<string, unknown>): Promise<unknown> {
    switch (method) {
      case 'Browser.getVersion': {
        const userAgent = (globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent ?? '';
        const product = /(?:HeadlessChrome|Chrome|Chromium)\/[\d.]+/.exec(userAgent)?.[0] ?? 'Chrome';
        return { protocolVersion: '1.3', product, revision: '', userAgent, jsVersion: '' };
      }
      case 'Target.setAutoAttach': {
        const was = this.#autoAttach;
        this.#autoAttach = params.autoAttach === true;
        // As Chrome does, the targets that exist are announced before the command is answered.
        if (this.#autoAttach && !was) for (const tab of this.#tabs.values()) this.#announce(tab);
        return {};
      }
      case 'Target.setDiscoverTargets': {
        const was = this.#discover;
        this.#discover = params.discover === true;
        if (this.#discover && !was) {
          for (const tab of this.#tabs.values()) this.#emit({ method: 'Target.targetCreated', params: { targetInfo: tab.targetInfo } });
        }
        return {};
      }
      case 'Target.getTargets':
        return { targetInfos: await this.#currentInfos() };
      case 'Target.getTargetInfo': {
        const info = (await this.#currentInfos()).find((each) => each.targetId === params.targetId);
        if (!info) throw rootError(`No attached tab has target id ${String(params.targetId)}.`);
        return { targetInfo: info };
      }
      case 'Target.getBrowserContexts':
        return { browserContextIds: [] };
      case 'Target.createTarget': {
        const tabs = this.#needTabs(method);
        const url = typeof params.url === 'string' && params.url ? params.url : 'about:blank';
        const created = await tabs.create({ url, active: params.background !== true });
        if (created.id === undefined) throw rootError('chrome.tabs.create gave no tab id.');
        await this.attachTab(created.id);
        return { targetId: this.#tabs.get(created.id)!.targetInfo.targetId };
      }
      case 'Target.closeTarget': {
        const tabs = this.#needTabs(method);
        const tab = this.#tabByTarget(params.targetId);
        await tabs.remove(tab.tabId);
        return { success: true };
      }
      case 'Target.detachFromTarget': {
        const tabId = typeof params.sessionId === 'string' ? this.#tabOfSession.get(params.sessionId) : undefined;
        if (tabId === undefined) throw rootError(`No attached tab has session id ${String(params.sessionId)}.`);
        await this.detachTab(tabId);
        return {};
      }
      default:
        throw rootError(
          `${method} is not available to an extension: chrome.debugger has tab sessions only, no browser session. ` +
            'Send page commands to a tab session.',
        );
    }
  }

  #needTabs(method: string): ChromeTabsApi {
    if (!this.options.tabs) throw rootError(`${method} needs chrome.tabs: pass it as the transport's \`tabs\` option.`);
    return this.options.tabs;
  }

  #tabByTarget(targetId: unknown): Tab {
    for (const tab of this.#tabs.values()) if (tab.targetInfo.targetId === targetId) return tab;
    throw rootError(`No attached tab has target id ${String(targetId)}.`);
  }

  async #targetInfoOf(tabId: number): Promise<TargetInfo> {
    const target = (await this.api.getTargets()).find((each) => each.tabId === tabId && each.type === 'page');
    if (!target) throw new Error('chrome.debugger.getTargets does not list it');
    return { targetId: target.id, type: 'page', title: target.title, url: target.url, attached: true, canAccessOpener: false };
  }

  /** Our tabs' target infos with their current URL and title (a browser session would give those). */
  async #currentInfos(): Promise<TargetInfo[]> {
    const targets = await this.api.getTargets();
    const infos: TargetInfo[] = [];
    for (const tab of this.#tabs.values()) {
      const now = targets.find((each) => each.id === tab.targetInfo.targetId);
      if (now) tab.targetInfo = { ...tab.targetInfo, title: now.title, url: now.url };
      infos.push(tab.targetInfo);
    }
    return infos;
  }

  #announce(tab: Tab): void {
    this.#emit({
      method: 'Target.attachedToTarget',
      params: { sessionId: tab.sessionId, targetInfo: tab.targetInfo, waitingForDebugger: false },
    });
  }

  #onEvent = (source: DebuggerSource, method: string, params?: object): void => {
    if (this.#closed || source.tabId === undefined) return;
    const tab = this.#tabs.get(source.tabId);
    if (!tab) return;
    const sessionId = source.sessionId ?? tab.sessionId;
    const event = (params ?? {}) as { sessionId?: string };
    // Children are known before the event is heard, so commands sent in reply to it find them.
    if (method === 'Target.attachedToTarget' && event.sessionId) {
      this.#children.set(event.sessionId, { tabId: tab.tabId, parent: sessionId });
    }
    this.#emit({ method, params: params as Record<string, unknown>, sessionId });
    if (method === 'Target.detachedFromTarget' && event.sessionId) this.#children.delete(event.sessionId);
  };

  #onDetach = (source: DebuggerSource, reason: string): void => {
    if (this.#closed || source.tabId === undefined || !this.#tabs.has(source.tabId)) return;
    this.#dropTab(source.tabId, detachReason(reason));
  };

  #dropTab(tabId: number, reason: string): void {
    const tab = this.#tabs.get(tabId);
    if (!tab) return;
    this.#tabs.delete(tabId);
    this.#tabOfSession.delete(tab.sessionId);
    // Innermost first, so no session outlives the one that announced it.
    const children = [...this.#children].filter(([, child]) => child.tabId === tabId).reverse();
    for (const [sessionId, child] of children) {
      this.#children.delete(sessionId);
      this.#emit({ method: 'Target.detachedFromTarget', params: { sessionId }, sessionId: child.parent });
    }
    // As Chrome does when it ends a session, the reason first: clients show it in their errors.
    this.#emit({ method: 'Inspector.detached', params: { reason }, sessionId: tab.sessionId });
    this.#emit({ method: 'Target.detachedFromTarget', params: { sessionId: tab.sessionId, targetId: tab.targetInfo.targetId } });
    if (this.#discover) this.#emit({ method: 'Target.targetDestroyed', params: { targetId: tab.targetInfo.targetId } });
    this.options.onTabDetached?.(tabId, reason);
  }

  /** Detaches chrome.debugger from a tab, whether or not it still can (the tab may be gone). */
  #letGo(tabId: number): Promise<unknown> {
    return this.api.detach({ tabId }).catch(() => undefined);
  }

  #reply(id: number, sessionId: string | undefined, result?: unknown, error?: Message['error']): void {
    const message: Message = error ? { id, error } : { id, result };
    if (sessionId) message.sessionId = sessionId;
    this.#emit(message);
  }

  #emit(message: Message): void {
    if (this.#closed) return;
    this.onmessage?.(JSON.stringify(message));
  }
}
