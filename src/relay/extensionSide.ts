// The extension's side of `tendril relay`: it connects out to the relay, and for each client the
// relay announces it attaches the tabs the user shares and runs the client's CDP over them through
// an ExtensionTransport, which answers the browser-level commands chrome.debugger refuses.
// No Node built-ins: this runs in an MV3 service worker.

import { ExtensionTransport, type ChromeDebuggerApi, type ChromeTabsApi } from '../cdp/extensionTransport.js';
import { InvalidOptionError } from '../errors.js';
import { redactUrl } from '../util/redact.js';
import { parseEnvelope, type ExtensionToRelay, type RelayToExtension } from './protocol.js';

interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: (() => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
}

export interface RelayBridgeOptions {
  /** `chrome.debugger`. */
  debugger: ChromeDebuggerApi;
  /** `chrome.tabs`: clients open and close tabs through it. */
  tabs: ChromeTabsApi;
  /** The WebSocket class; default: the platform's. */
  WebSocket?: new (
    url: string,
  ) => SocketLike;
  /** Deadline of connecting and of each attach. Default 10 s. */
  timeoutMs?: number;
  /** Hears each change of state, to show it to the user. */
  onChange?: (status: RelayStatus) => void;
}

export interface RelayStatus {
  connection: 'disconnected' | 'connecting' | 'connected';
  /** Whether a client is driving the shared tabs now. */
  driven: boolean;
  /** The shared tabs (the ones a client gets), tabs a client opened included. */
  shared: number[];
  /** The last thing that went wrong, in words. */
  error?: string;
}

interface ClientSession {
  client: number;
  transport: ExtensionTransport;
  /** The client's messages wait here until the shared tabs are attached. */
  queue: string[] | undefined;
}

const OPEN = 1;
const DEFAULT_TIMEOUT_MS = 10_000;

export class RelayBridge {
  #socket: SocketLike | undefined;
  #connecting = false;
  #shared = new Set<number>();
  #session: ClientSession | undefined;
  #error: string | undefined;
  readonly #timeoutMs: number;

  constructor(private readonly options: RelayBridgeOptions) {
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  status(): RelayStatus {
    const shared = new Set(this.#shared);
    for (const tabId of this.#session?.transport.tabIds() ?? []) shared.add(tabId);
    const connection = this.#socket?.readyState === OPEN ? 'connected' : this.#connecting ? 'connecting' : 'disconnected';
    const status: RelayStatus = { connection, driven: this.#session !== undefined, shared: [...shared] };
    if (this.#error) status.error = this.#error;
    return status;
  }

  /** Connects to the relay at `url` (what `tendril relay` printed for the extension). */
  async connect(url: string): Promise<void> {
    if (!/^wss?:\/\/[^/]+\/extension\?token=[A-Za-z0-9_-]+$/.test(url)) {
      throw new InvalidOptionError(
        'That is not a relay address for the extension: `tendril relay` prints one like ws://127.0.0.1:9333/extension?token=….',
      );
    }
    this.disconnect();
    const Socket = this.options.WebSocket ?? (globalThis as { WebSocket?: new (url: string) => SocketLike }).WebSocket;
    if (!Socket) throw new InvalidOptionError('This runtime has no WebSocket.');
    const socket = new Socket(url);
    this.#socket = socket;
    this.#connecting = true;
    this.#error = undefined;
    this.#changed();
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no answer within ${this.#timeoutMs} ms`)), this.#timeoutMs);
        socket.onopen = () => {
          clearTimeout(timer);
          resolve();
        };
        // The browser tells a refused upgrade only as a close: a wrong token reads the same.
        socket.onclose = () => {
          clearTimeout(timer);
          reject(new Error('the relay refused the connection or is not running (a wrong or old token is refused)'));
        };
        socket.onerror = () => undefined;
      });
    } catch (error) {
      if (this.#socket === socket) this.#socket = undefined;
      socket.onopen = socket.onclose = null;
      socket.close();
      this.#error = `Could not connect to the relay at ${redactUrl(url)}: ${(error as Error).message}.`;
      throw new Error(this.#error);
    } finally {
      this.#connecting = false;
      this.#changed();
    }
    socket.onmessage = (event) => {
      if (this.#socket === socket && typeof event.data === 'string') this.#onRelay(event.data);
    };
    socket.onclose = (event) => {
      if (this.#socket !== socket) return;
      this.#socket = undefined;
      this.#endSession();
      this.#error = `The relay connection closed (code ${event.code}${event.reason ? `, ${event.reason}` : ''}).`;
      this.#changed();
    };
  }

  /** Leaves the relay; a client driving the tabs loses them, and the tabs stay open. */
  disconnect(): void {
    const socket = this.#socket;
    this.#socket = undefined;
    this.#endSession();
    if (socket) {
      socket.onclose = socket.onmessage = null;
      socket.close(1000, 'the user disconnected the extension');
    }
    this.#changed();
  }

  /** Shares a tab: the client driving the tabs (now or later) gets it as a page target. */
  async share(tabId: number): Promise<void> {
    this.#shared.add(tabId);
    const session = this.#session;
    try {
      if (session) await session.transport.attachTab(tabId);
    } catch (error) {
      this.#shared.delete(tabId);
      this.#error = (error as Error).message;
      throw error;
    } finally {
      this.#changed();
    }
  }

  /** Stops sharing a tab: a client driving it sees its target detach; the tab stays open. */
  async unshare(tabId: number): Promise<void> {
    this.#shared.delete(tabId);
    await this.#session?.transport.detachTab(tabId, 'the user stopped sharing this tab');
    this.#changed();
  }

  #onRelay(text: string): void {
    const message = parseEnvelope<RelayToExtension>(text);
    if (!message) return;
    switch (message.type) {
      case 'ping':
        return this.#send({ type: 'pong' });
      case 'client':
        return void this.#startSession(message.client);
      case 'client-gone':
        if (this.#session?.client === message.client) this.#endSession();
        return this.#changed();
      case 'cdp': {
        const session = this.#session;
        if (session?.client !== message.client) return;
        if (session.queue) session.queue.push(message.message);
        else session.transport.send(message.message);
      }
    }
  }

  async #startSession(client: number): Promise<void> {
    this.#endSession();
    const transport = new ExtensionTransport(this.options.debugger, {
      tabs: this.options.tabs,
      timeoutMs: this.#timeoutMs,
      // Closed, or the user cancelled debugging from the infobar: that tab is no longer shared.
      onTabDetached: (tabId) => {
        this.#shared.delete(tabId);
        this.#changed();
      },
    });
    const session: ClientSession = { client, transport, queue: [] };
    this.#session = session;
    transport.onmessage = (cdp) => {
      if (this.#session === session) this.#send({ type: 'cdp', client, message: cdp });
    };
    this.#changed();
    // The client's first commands ask which targets exist: the shared tabs must be attached first.
    const problems: string[] = [];
    await Promise.all(
      [...this.#shared].map((tabId) =>
        transport.attachTab(tabId).catch((error: Error) => {
          this.#shared.delete(tabId);
          problems.push(error.message);
        }),
      ),
    );
    if (problems.length > 0) this.#error = problems.join(' ');
    if (this.#session !== session) return;
    const queued = session.queue ?? [];
    session.queue = undefined;
    for (const cdp of queued) transport.send(cdp);
    this.#changed();
  }

  #endSession(): void {
    const session = this.#session;
    if (!session) return;
    this.#session = undefined;
    // Tabs the client opened stay shared for the next one.
    for (const tabId of session.transport.tabIds()) this.#shared.add(tabId);
    session.transport.close();
  }

  #send(message: ExtensionToRelay): void {
    if (this.#socket?.readyState === OPEN) this.#socket.send(JSON.stringify(message));
  }

  #changed(): void {
    this.options.onChange?.(this.status());
  }
}
