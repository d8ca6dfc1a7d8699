// Other clients sharing one Connection: the connectURL() bridge gives Playwright or Puppeteer a
// browser session of their own on it (browser/cdpBridge.ts), and the hosted server's guard asks the
// browser on their behalf. Their sessions and answers are routed here, kept away from ours. Only
// Node code uses this (the bridge serves a WebSocket), so the extension bundle carries none of it.
import type { Connection, RawMessage } from './connection.js';

/** Another client on the connection: the messages of the sessions it opened go to it untouched. */
export interface ConnectionTap {
  deliver(message: RawMessage): void;
}

/** The taps of one connection. */
export class Taps {
  readonly #claimed = new Map<string, ConnectionTap>();
  readonly #pending = new Map<number, (reply: RawMessage) => void>();

  constructor(private readonly connection: Connection) {
    connection.intercept = (message) => this.#intercept(message);
    // Taps hear of it through 'disconnected' and end their own connections, which fails their
    // pending commands the way a closed browser should.
    connection.on('disconnected', () => {
      this.#pending.clear();
      this.#claimed.clear();
    });
  }

  /** Routes a session's events (and those of sessions it attaches to) to `tap` from now on. */
  claim(sessionId: string, tap: ConnectionTap): void {
    this.#claimed.set(sessionId, tap);
  }

  /** The tap a session belongs to, if a tap's. */
  tapOf(sessionId: string): ConnectionTap | undefined {
    return this.#claimed.get(sessionId);
  }

  /** Forgets every session `tap` had claimed. */
  releaseTap(tap: ConnectionTap): string[] {
    const released: string[] = [];
    for (const [sessionId, owner] of this.#claimed) {
      if (owner !== tap) continue;
      this.#claimed.delete(sessionId);
      released.push(sessionId);
    }
    return released;
  }

  /**
   * Sends a tap's command as it is (its own session and parameters); `onReply` gets the raw answer.
   * False when the connection is closed: the tap's own connection should end the same way.
   */
  sendRaw(message: { method: string; params?: unknown; sessionId?: string }, onReply: (reply: RawMessage) => void): boolean {
    const out: Omit<RawMessage, 'id'> = { method: message.method, params: message.params ?? {} };
    if (message.sessionId) out.sessionId = message.sessionId;
    return this.connection.sendWithNextId(out, (id) => this.#pending.set(id, onReply));
  }

  /** Takes the answers to the taps' commands and the events of their sessions. */
  #intercept(message: RawMessage): boolean {
    if (message.id !== undefined) {
      const forTap = this.#pending.get(message.id);
      if (!forTap) return false;
      this.#pending.delete(message.id);
      forTap(message);
      return true;
    }
    const tap = this.#claimed.get(message.sessionId ?? '');
    if (!tap) return false;
    // A session the tap attached to is the tap's too; ours never hear of it.
    const params = message.params as { sessionId?: string } | undefined;
    if (message.method === 'Target.attachedToTarget' && params?.sessionId) this.#claimed.set(params.sessionId, tap);
    if (message.method === 'Target.detachedFromTarget' && params?.sessionId) this.#claimed.delete(params.sessionId);
    tap.deliver(message);
    return true;
  }
}

const taps = new WeakMap<Connection, Taps>();

/** The taps of `connection`, made on first use. */
export function tapsOf(connection: Connection): Taps {
  let found = taps.get(connection);
  if (!found) taps.set(connection, (found = new Taps(connection)));
  return found;
}
