// The hosted server's HTTP face: REST for sessions, the WebSocket upgrade behind each connectUrl,
// and one error shape, { error: { code, message } }, for everything that goes wrong.

import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer } from 'ws';
import { CreateSessionRequest, HEADERS, MODEL_PATH, UpdateSessionRequest, type ErrorBody } from '../../../protocol/index.js';
import { HostedServiceError, InvalidOptionError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { HostedServerConfig } from './config.js';
import { AdBlocker } from './adblock.js';
import { openResultCache } from './cache.js';
import { ClusterRouter } from './cluster.js';
import { answerModelRequest } from './model.js';
import { checkModelEndpoint } from './modelEndpoint.js';
import { NetworkRules } from './networks.js';
import { isOperation, runOperation } from './operations.js';
import { arrivedAfterClose, header, parse, prepareAnswer, readJson, RunOnce } from './request.js';
import { maxWait } from './admission.js';
import { apiError, SessionManager } from './sessions.js';
import { codeOf, toWire, type WireError } from '../../wireErrors.js';
import { isKnownKey, verifyToken } from './tokens.js';
import { loadTracing, traced, withIncomingTrace } from '../../util/tracing.js';

export interface HostedServer {
  /** http://host:port the server listens on. */
  url: string;
  sessions: SessionManager;
  /** Stops accepting, ends every session (closing its browser), and closes the server. */
  close(): Promise<void>;
}

export async function startHostedServer(config: HostedServerConfig, logger: Logger): Promise<HostedServer> {
  // Spans for each operation, continuing the client's trace, when the process has OpenTelemetry.
  await loadTracing();
  const routing = config.chromeArgs.find((arg) =>
    /^--(proxy-server|proxy-pac-url|proxy-bypass-list|no-proxy-server|proxy-auto-detect)\b/.test(arg),
  );
  if (routing) {
    throw new InvalidOptionError(
      `CHROME_ARGS has ${routing.split('=')[0]}: the server routes every session through an egress proxy of its own, which keeps sessions ` +
        'off loopback and private networks and applies blockAds and domainPolicy. Leave proxy flags out of CHROME_ARGS; to open networks, use HOSTED_ALLOW_NETWORKS.',
    );
  }
  // A wrong REDIS_URL stops the server here, at start, rather than turning every request into a miss.
  const cache = await openResultCache(config, logger);
  // A list named by BLOCK_LIST_FILE must load (a typo should stop the server); without one, the
  // tracker database or the built-in list serves, and should even those fail, only blockAds sessions are refused.
  const adBlocker = await AdBlocker.start(config.blockListFile, logger).catch(async (error: Error) => {
    if (config.blockListFile) {
      await cache.close();
      throw error;
    }
    logger.info('hosted', `Sessions asking for blockAds will be refused: ${error.message}`);
    return error;
  });
  const sessions = new SessionManager(config, logger, adBlocker);
  const runOnce = new RunOnce();
  const sockets = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 * 1024 });
  let baseUrl = '';
  /** With a Redis: the other instances, to find a session's owner and room for a new one. */
  let cluster: ClusterRouter | undefined;
  const server = http.createServer((req, res) => {
    // Pipelined behind an answer that closes the connection: not served (nor destroyed, which could
    // cut that answer short); its body is dropped like the rest while the connection winds down.
    if (arrivedAfterClose(req)) return void req.resume();
    handle(req, res).catch((error: unknown) => sendError(req, res, error, logger));
  });

  const modelRules = new NetworkRules(config.allowNetworks);
  /** A request body that may name a model: one this server may not call is refused before any work. */
  const readBody = async (req: IncomingMessage): Promise<unknown> => {
    const body = await readJson(req);
    await checkModelEndpoint((body as { model?: unknown } | null)?.model, modelRules);
    return body;
  };
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://x');
    // For container health checks and load balancers: no key needed, and nothing in it is secret.
    if (url.pathname === '/healthz' && req.method === 'GET') {
      return sendJson(req, res, 200, { ok: true, sessions: sessions.activeCount, maxSessions: config.maxSessions });
    }
    const parts = url.pathname.split('/').filter(Boolean);
    const modelRoute = url.pathname === MODEL_PATH;
    if (!modelRoute && (parts[0] !== 'v1' || parts[1] !== 'sessions'))
      throw apiError('not_found', `No route ${req.method} ${url.pathname}.`);
    if (!isKnownKey(config.apiKeys, header(req, HEADERS.apiKey))) {
      throw apiError('unauthorized', `Missing or unknown API key: send a key this server accepts in the ${HEADERS.apiKey} header.`);
    }
    if (modelRoute) {
      if (req.method !== 'POST') throw apiError('not_found', `No route ${req.method} ${url.pathname}.`);
      const body = await readBody(req);
      const reply = await serverSpan(req, 'model', MODEL_PATH, () => answerModelRequest(req, body)).catch((error: unknown) => {
        throw asWireError(error);
      });
      return sendJson(req, res, 200, reply);
    }
    const [, , id, action] = parts;
    const publicBase = config.publicUrl ?? baseUrl;
    // Another instance's session goes there (or is answered as lost), before its body is read.
    if (id && cluster && (await cluster.route(id, req, res))) return;
    if (!id && req.method === 'POST') {
      if (cluster && (await cluster.routeCreate(req, res, config.maxSessions))) return;
      const body = parse(CreateSessionRequest, await readJson(req));
      const gone = new AbortController();
      res.once('close', () => gone.abort());
      const budgetMs = maxWait(req);
      // Answered within what the client waits, a start still under way then included (a session
      // started for nobody is ended, as for a client that gave up while its browser started).
      const record = await sessions.admission.withinBudget(
        sessions.create(body, { budgetMs, signal: gone.signal }),
        budgetMs,
        (late) => void sessions.release(late.id),
      );
      if (gone.signal.aborted) return void (await sessions.release(record.id));
      await cluster?.claim(record);
      return sendJson(req, res, 201, sessions.toWire(record, publicBase));
    }
    if (id && !action && req.method === 'GET') return sendJson(req, res, 200, sessions.toWire(sessions.get(id), publicBase));
    if (id && !action && req.method === 'POST') {
      parse(UpdateSessionRequest, await readJson(req));
      return sendJson(req, res, 200, sessions.toWire(await sessions.release(id), publicBase));
    }
    if (id && isOperation(action) && req.method === 'POST') {
      const record = sessions.running(id);
      const requestId = header(req, HEADERS.requestId);
      if (requestId && !runOnce.first(requestId))
        throw apiError('conflict', `The operation with ${HEADERS.requestId} ${requestId} was run already; it is not run twice.`);
      // A running operation keeps the session from ending as idle.
      const free = record.idle?.hold();
      try {
        const body = await readBody(req);
        return await serverSpan(req, action, `/v1/sessions/{id}/${action}`, () =>
          runOperation(action, record, body, req, res, cache, logger),
        );
      } finally {
        free?.();
      }
    }
    throw apiError('not_found', `No route ${req.method} ${url.pathname}.`);
  };

  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const match = /^\/v1\/sessions\/([^/]+)\/cdp$/.exec(url.pathname);
    const id = match?.[1];
    // The token alone authorises the socket: it names one session and expires with it.
    if (!id || !verifyToken(config.signingSecret, url.searchParams.get('token') ?? '', id)) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\n');
      return;
    }
    if (cluster && !sessions.has(id)) {
      void cluster.routeUpgrade(id, req, socket, head).then(
        (routed) => routed || socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n'),
        () => socket.destroy(),
      );
      return;
    }
    try {
      sessions.running(id);
    } catch {
      socket.end('HTTP/1.1 410 Gone\r\nConnection: close\r\n\r\n');
      return;
    }
    sockets.handleUpgrade(req, socket, head, (ws) => {
      try {
        sessions.serveCdp(id, ws);
      } catch {
        ws.close(1011, 'session ended');
      }
    });
  });

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve());
    });
  } catch (error) {
    await cache.close();
    throw new InvalidOptionError(`The hosted server cannot listen on ${config.host}:${config.port}: ${(error as Error).message}`);
  }
  const { port } = server.address() as AddressInfo;
  baseUrl = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  try {
    cluster = await ClusterRouter.start(config, sessions, port, logger);
  } catch (error) {
    server.close();
    await cache.close();
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    url: baseUrl,
    sessions,
    close: () =>
      (closing ??= (async () => {
        server.close();
        // First out of the registry, so that the others stop sending this instance anything.
        await cluster?.close();
        for (const client of sockets.clients) client.terminate();
        await sessions.closeAll();
        server.closeAllConnections();
        sockets.close();
        await cache.close();
      })()),
  };
}

/**
 * Ends the server gracefully on SIGTERM or SIGINT: stop accepting, end every session (closing its
 * browser), then exit. A second signal while that runs exits at once. Returns a function that
 * removes the handlers.
 */
export function closeOnSignals(server: HostedServer, logger: Logger): () => void {
  const signals = ['SIGTERM', 'SIGINT'] as const;
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.error('hosted', `${signal} again: exiting without waiting for the sessions to end`);
      process.exit(1);
    }
    stopping = true;
    logger.info('hosted', `${signal}: no new requests; ending ${server.sessions.activeCount} session(s)`);
    const deadline = setTimeout(() => {
      logger.error('hosted', 'Sessions did not end within 20 s; exiting anyway');
      process.exit(1);
    }, 20_000);
    deadline.unref();
    void server.close().then(
      () => {
        logger.info('hosted', 'Stopped');
        process.exit(0);
      },
      (error: Error) => {
        logger.error('hosted', `Stopping failed: ${error.message}`);
        process.exit(1);
      },
    );
  };
  for (const signal of signals) process.on(signal, onSignal);
  return () => {
    for (const signal of signals) process.off(signal, onSignal);
  };
}

/**
 * Every answer but an operation's event stream (which starts only once the body was read) goes
 * out here, so prepareAnswer sees each one that may come before the body was read.
 */
function sendJson(req: IncomingMessage, res: ServerResponse, status: number, body: unknown): void {
  prepareAnswer(req, res);
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}

/** One server span for a POST, continuing the client's trace when it sent one and this process traces. */
function serverSpan<T>(req: IncomingMessage, operation: string, path: string, work: () => Promise<T>): Promise<T> {
  const attributes = { 'http.request.method': 'POST', 'url.path': path, 'tendril.operation': operation };
  return withIncomingTrace(req.headers, () => traced(`tendril.server.${operation}`, attributes, work, 'server'));
}

/**
 * An error of the caller's request or of its model (a bad model name, a provider's refusal, the
 * deadline) as the protocol says it, with the client's error class; anything else stays internal.
 */
function asWireError(error: unknown): unknown {
  const { code } = codeOf(error);
  if (code === 'internal' || error instanceof HostedServiceError) return error;
  return Object.assign(apiError(code, (error as Error).message), { wire: toWire(error) });
}

function sendError(req: IncomingMessage, res: ServerResponse, error: unknown, logger: Logger): void {
  const known = error instanceof HostedServiceError;
  if (!known) logger.error('hosted', `Request failed: ${(error as Error)?.message ?? String(error)}`);
  const body: ErrorBody = {
    error: {
      code: (known ? error.code : 'internal') as ErrorBody['error']['code'],
      message: known ? error.message : 'The server failed while handling the request; see its log.',
    },
  };
  const wire = (error as { wire?: WireError }).wire;
  if (known && wire) body.error = wire;
  if (res.headersSent) return void res.end();
  if (known && error.retryAfterSeconds) res.setHeader('retry-after', String(error.retryAfterSeconds));
  sendJson(req, res, known ? error.status : 500, body);
}
