// Streamable HTTP for `tendril mcp --port`: Node's http server in front of the SDK's web-standard
// handler (Request in, Response out), with the checks that handler leaves to its host: the bearer
// token, and on loopback the Host and Origin headers (a web page the user visits must not reach a
// browser-driving server on localhost through DNS rebinding). A 2025-era client gets an MCP session
// (legacyHttp.ts); a 2026-07-28 request is served alone, by the SDK's handler. Both are told who
// calls (`authInfo.clientId`): the token's holder, or anyone when there is no token.

import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createMcpHandler,
  hostHeaderValidationResponse,
  isLegacyRequest,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
  type AuthInfo,
  type McpServerFactory,
} from '@modelcontextprotocol/server';
import { LegacySessions, type SessionHooks } from './legacyHttp.js';

/** The path clients connect to, as MCP clients expect it. */
export const MCP_PATH = '/mcp';
/** Requests carry JSON-RPC messages; a tool call's arguments are small. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface HttpOptions {
  port: number;
  host: string;
  /** Loopback addresses get Host and Origin checks; others cannot know their public names. */
  loopback: boolean;
  /** When set, every request must carry `Authorization: Bearer <token>`. */
  token: string | undefined;
  onError: (error: Error) => void;
  /** Told when a 2025-era client's MCP session begins and ends. */
  sessions: SessionHooks;
}

export interface McpHttpServer {
  url: string;
  /** Lets a 2025-era client's MCP session go: its next request is answered 404. */
  endSession(id: string): Promise<void>;
  close(): Promise<void>;
}

export async function serveHttp(factory: McpServerFactory, options: HttpOptions): Promise<McpHttpServer> {
  const handler = createMcpHandler(factory, { legacy: 'reject', onerror: options.onError, maxRequestBodySize: MAX_BODY_BYTES });
  const legacy = new LegacySessions(factory, options.sessions, { maxRequestBodySize: MAX_BODY_BYTES, onError: options.onError });
  const expected = options.token === undefined ? undefined : digest(options.token);
  // The one principal there is: one token, one holder. Never the token itself.
  const authInfo: AuthInfo = { token: '', clientId: expected ? 'token' : 'anonymous', scopes: [] };
  const server = createServer((req, res) => {
    serve(req, res).catch((error: Error) => {
      options.onError(error);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' }).end('Internal server error\n');
      else res.destroy();
    });
  });

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // The token first: without it, nothing else is looked at or said.
    if (expected && !authorized(req.headers.authorization, expected)) {
      res.writeHead(401, { 'www-authenticate': 'Bearer', 'content-type': 'text/plain' }).end('Unauthorized\n');
      return;
    }
    const base = `http://${req.headers.host ?? 'localhost'}`;
    const url = URL.canParse(req.url ?? '/', base) ? new URL(req.url ?? '/', base) : undefined;
    if (!url) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('Bad request\n');
      return;
    }
    if (url.pathname !== MCP_PATH) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`Not found: the MCP endpoint is ${MCP_PATH}\n`);
      return;
    }
    const aborted = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) aborted.abort();
    });
    const request = await toRequest(req, url, aborted.signal);
    if (!request) {
      res.writeHead(413, { 'content-type': 'text/plain' }).end('Request body too large\n');
      return;
    }
    const rejected = options.loopback
      ? (hostHeaderValidationResponse(request, localhostAllowedHostnames()) ?? originValidationResponse(request, localhostAllowedOrigins()))
      : undefined;
    if (rejected) return send(rejected, res, aborted.signal);
    const era = (await isLegacyRequest(request, undefined, { maxRequestBodySize: MAX_BODY_BYTES })) ? legacy : undefined;
    await send(era ? await era.handle(request, authInfo) : await handler.fetch(request, { authInfo }), res, aborted.signal);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}${MCP_PATH}`,
    endSession: (id) => legacy.end(id),
    close: () => closeServer(server, () => Promise.all([legacy.closeAll(), handler.close()]).then(() => undefined)),
  };
}

/** Compares digests, so the time taken says nothing about the token, not even its length. */
function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

function authorized(header: string | undefined, expected: Buffer): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return timingSafeEqual(digest(match?.[1] ?? ''), expected) && match !== null;
}

/** The web-standard request; undefined when its body is over MAX_BODY_BYTES. */
async function toRequest(req: IncomingMessage, url: URL, signal: AbortSignal): Promise<Request | undefined> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const each of value) headers.append(name, each);
    else if (value !== undefined) headers.set(name, value);
  }
  const method = req.method ?? 'GET';
  let body: Uint8Array<ArrayBuffer> | undefined;
  if (method !== 'GET' && method !== 'HEAD') {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY_BYTES) return undefined;
      chunks.push(chunk as Buffer);
    }
    body = new Uint8Array(Buffer.concat(chunks));
  }
  return new Request(url, { method, headers, body, signal });
}

/** Writes the Response out, streaming its body (Server-Sent Events stay open as long as it does). */
async function send(response: Response, res: ServerResponse, signal: AbortSignal): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(response.status, headers);
  if (!response.body) return void res.end();
  const reader = response.body.getReader();
  const stop = () => void reader.cancel().catch(() => undefined);
  signal.addEventListener('abort', stop, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
    res.end();
  } finally {
    signal.removeEventListener('abort', stop);
  }
}

async function closeServer(server: Server, closeHandler: () => Promise<void>): Promise<void> {
  await closeHandler().catch(() => undefined);
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    // Open event streams would hold close() forever.
    server.closeAllConnections();
  });
}
