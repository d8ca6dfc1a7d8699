// sdk.connectURL(): lets Playwright (connectOverCDP) and Puppeteer (connect) drive the browser this
// Sdk holds, which may have no WebSocket endpoint at all (we launch Chrome over a pipe). A WebSocket
// server on loopback, at a path holding a random token, gives each client a browser session of its
// own on our connection (Target.attachToBrowserTarget): its own targets, auto-attach and events,
// which the connection routes to it and keeps away from ours.

import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Connection, ConnectionTap, RawMessage } from '../cdp/connection.js';
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

/** Gives one WebSocket client a browser session of its own on `connection` (see above). */
export function serveClient(connection: Connection, socket: WebSocket, logger: Logger): void {
  let browserSession: string | undefined;
  const queued: string[] = [];
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
  const forward = (text: string) => {
    let message: { id?: number; method?: string; params?: unknown; sessionId?: string };
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (typeof message.id !== 'number' || typeof message.method !== 'string') return;
    const clientSession = message.sessionId;
    const sent = connection.sendRaw({ method: message.method, params: message.params, sessionId: clientSession ?? browserSession }, (reply) => {
      const out: RawMessage = { id: message.id };
      if (reply.error) out.error = reply.error;
      else out.result = reply.result ?? {};
      if (clientSession) out.sessionId = clientSession;
      send(out);
    });
    if (!sent) socket.close(1011, 'the browser is gone');
  };
  socket.on('message', (data) => {
    const text = data.toString();
    if (browserSession) forward(text);
    else queued.push(text);
  });
  // When the browser goes, so does every client's connection: their commands could only fail.
  const offDisconnect = connection.on('disconnected', (reason) => socket.close(1011, `the browser is gone: ${reason}`.slice(0, 120)));
  socket.on('close', () => {
    offDisconnect();
    const sessions = connection.releaseTap(tap);
    if (browserSession) void connection.rootSession.sendQuiet('Target.detachFromTarget', { sessionId: browserSession });
    logger.debug('bridge', 'A client of connectURL() left', { sessions: sessions.length });
  });
  connection.rootSession
    .send('Target.attachToBrowserTarget')
    .then(({ sessionId }) => {
      browserSession = sessionId;
      connection.claim(sessionId, tap);
      logger.debug('bridge', 'A client connected through connectURL()');
      for (const text of queued.splice(0)) forward(text);
    })
    .catch((error: Error) => {
      logger.error('bridge', `Could not open a browser session for a connectURL() client: ${error.message}`);
      socket.close(1011, 'no browser session');
    });
}
