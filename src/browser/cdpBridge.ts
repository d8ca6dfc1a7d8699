// sdk.connectURL(): lets Playwright (connectOverCDP) and Puppeteer (connect) drive the browser this
// Sdk holds, which may have no WebSocket endpoint at all (we launch Chrome over a pipe). A WebSocket
// server on loopback, at a path holding a random token, gives each client a browser session of its
// own on our connection (Target.attachToBrowserTarget): its own targets, auto-attach and events,
// which the connection routes to it and keeps away from ours.

import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Connection, RawMessage } from '../cdp/connection.js';
import { tapsOf, type ConnectionTap } from '../cdp/taps.js';
import type { Logger } from '../logger.js';

export class CdpBridge {
  private constructor(
    private readonly http: Server,
    private readonly server: WebSocketServer,
    /** ws://127.0.0.1:<port>/devtools/browser/<token>: a secret, never logged. */
    readonly url: string,
  ) {}

  static async start(connection: Connection, logger: Logger): Promise<CdpBridge> {
    const token = randomBytes(24).toString('hex');
    const expected = Buffer.from(`/devtools/browser/${token}`);
    const http = createServer((_req, res) => res.writeHead(404).end());
    const server = new WebSocketServer({
      server: http,
      maxPayload: 1024 * 1024 * 1024,
      // Without the token there is no upgrade: another local process cannot drive the browser.
      verifyClient: ({ req }: { req: IncomingMessage }) => {
        const path = Buffer.from((req.url ?? '').split('?')[0] ?? '');
        return path.length === expected.length && timingSafeEqual(path, expected);
      },
    });
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(0, '127.0.0.1', () => resolve());
    });
    // The server alone must not keep a program alive that forgot close().
    http.unref();
    server.on('connection', (socket) => serveClient(connection, socket, logger));
    const { port } = http.address() as AddressInfo;
    return new CdpBridge(http, server, `ws://127.0.0.1:${port}/devtools/browser/${token}`);
  }

  close(): Promise<void> {
    for (const client of this.server.clients) client.terminate();
    this.server.close();
    return new Promise((resolve) => this.http.close(() => resolve()));
  }
}

/** A command a guarded client sent, as the guard sees it. */
export interface GuardedCommand {
  method: string;
  params: Record<string, unknown>;
  /** The session it goes to: the one the client named, or the client's browser session. */
  sessionId: string;
  /** Whether that session is the client's own (its browser session, or one it attached to). */
  ownSession: boolean;
}

/**
 * What a guard decides for a command: refuse it (the client gets a CDP error with this message), or
 * forward it, with `params` in place of the client's when given. `afterReply` runs on a successful
 * answer before the client gets it, so a command the client sends next comes after what it does;
 * a message it returns replaces the answer with an error.
 */
export type Verdict =
  | { refuse: string }
  | { refuse?: undefined; params?: Record<string, unknown>; afterReply?: (result: Record<string, unknown>) => Promise<string | undefined> };

/** Consulted for every command of a client before it reaches the browser (the hosted server's). */
export interface BridgeGuard {
  check(command: GuardedCommand): Verdict | Promise<Verdict>;
  /** The client left (its browser session is being detached, which may undo settings it made). */
  closed?(): void;
}

interface ClientMessage {
  id: number;
  method: string;
  params?: unknown;
  sessionId?: string;
}

/**
 * Gives one WebSocket client a browser session of its own on `connection` (see above). With a
 * guard, each command is judged first; commands still reach the browser in the order sent, also
 * while a guard's check waits on the browser.
 */
export function serveClient(connection: Connection, socket: WebSocket, logger: Logger, guard?: BridgeGuard): void {
  const taps = tapsOf(connection);
  let browserSession: string | undefined;
  const queued: string[] = [];
  /** Set while a command waits on an asynchronous check: later ones wait behind it. */
  let backlog: Promise<void> | undefined;
  const send = (message: RawMessage) => {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
  };
  const tap: ConnectionTap = {
    deliver(message) {
      // The client's browser session is, to the client, the connection itself: no session id.
      if (message.sessionId === browserSession) delete message.sessionId;
      send(message);
    },
  };
  const answer = (message: ClientMessage, body: Pick<RawMessage, 'result' | 'error'>) => {
    const out: RawMessage = { id: message.id, ...body };
    if (message.sessionId) out.sessionId = message.sessionId;
    send(out);
  };
  const refuse = (message: ClientMessage, text: string) => answer(message, { error: { code: -32000, message: text } });
  const forward = (
    message: ClientMessage,
    params: unknown,
    afterReply?: (result: Record<string, unknown>) => Promise<string | undefined>,
  ) => {
    const sent = taps.sendRaw({ method: message.method, params, sessionId: message.sessionId ?? browserSession }, (reply) => {
      if (reply.error) return answer(message, { error: reply.error });
      const result = (reply.result ?? {}) as Record<string, unknown>;
      if (!afterReply) return answer(message, { result });
      afterReply(result).then(
        (error) => (error ? refuse(message, error) : answer(message, { result })),
        (error: Error) => refuse(message, error.message),
      );
    });
    if (!sent) socket.close(1011, 'the browser is gone');
  };
  const decide = (message: ClientMessage, verdict: Verdict) => {
    // A client that left while its command was being checked has no use for it any more.
    if (socket.readyState !== socket.OPEN) return;
    if (verdict.refuse !== undefined) return refuse(message, verdict.refuse);
    forward(message, verdict.params ?? message.params, verdict.afterReply);
  };
  /** Forwards or judges one message; a promise when the guard's check is asynchronous. */
  const handle = (text: string): Promise<void> | undefined => {
    let message: ClientMessage;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (typeof message.id !== 'number' || typeof message.method !== 'string') return;
    if (!guard) return void forward(message, message.params);
    const sessionId = message.sessionId ?? browserSession!;
    const params =
      message.params !== null && typeof message.params === 'object' && !Array.isArray(message.params)
        ? (message.params as Record<string, unknown>)
        : {};
    const ownSession = message.sessionId === undefined || (typeof sessionId === 'string' && taps.tapOf(sessionId) === tap);
    const failed = (error: unknown) =>
      refuse(message, `${message.method} could not be checked by the hosted server: ${(error as Error)?.message ?? error}`);
    let verdict: Verdict | Promise<Verdict>;
    try {
      verdict = guard.check({ method: message.method, params, sessionId, ownSession });
    } catch (error) {
      return void failed(error);
    }
    if (!(verdict instanceof Promise)) return void decide(message, verdict);
    return verdict.then((settled) => decide(message, settled), failed);
  };
  const settled = (work: Promise<void>) =>
    work.catch((error: Error) => logger.error('bridge', `A client command was lost in its check: ${error.message}`));
  const receive = (text: string) => {
    if (!backlog) {
      const pending = handle(text);
      if (!pending) return;
      backlog = settled(pending);
    } else {
      backlog = settled(backlog.then(() => handle(text)));
    }
    const mine = backlog;
    void mine.finally(() => {
      if (backlog === mine) backlog = undefined;
    });
  };
  socket.on('message', (data) => {
    const text = data.toString();
    if (browserSession) receive(text);
    else queued.push(text);
  });
  // When the browser goes, so does every client's connection: their commands could only fail.
  const offDisconnect = connection.on('disconnected', (reason) => socket.close(1011, `the browser is gone: ${reason}`.slice(0, 120)));
  socket.on('close', () => {
    offDisconnect();
    const sessions = taps.releaseTap(tap);
    if (browserSession) void connection.rootSession.sendQuiet('Target.detachFromTarget', { sessionId: browserSession });
    guard?.closed?.();
    logger.debug('bridge', 'A client of connectURL() left', { sessions: sessions.length });
  });
  connection.rootSession
    .send('Target.attachToBrowserTarget')
    .then(({ sessionId }) => {
      browserSession = sessionId;
      taps.claim(sessionId, tap);
      logger.debug('bridge', 'A client connected through connectURL()');
      for (const text of queued.splice(0)) receive(text);
    })
    .catch((error: Error) => {
      logger.error('bridge', `Could not open a browser session for a connectURL() client: ${error.message}`);
      socket.close(1011, 'no browser session');
    });
}
