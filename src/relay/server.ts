// `tendril relay`: a WebSocket relay between CDP clients anywhere and the tabs a user shares from
// the Tendril extension, so the user's everyday browser needs no debugging port. The relay only
// authenticates and forwards: the extension answers the browser-level commands (see
// src/relay/extensionSide.ts), and CDP text passes through untouched.

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { InvalidOptionError } from '../errors.js';
import type { Logger } from '../logger.js';
import { CLIENT_PATH, CLOSE_ENDED, EXTENSION_PATH, parseEnvelope, type ExtensionToRelay, type RelayToExtension } from './protocol.js';

export interface RelayOptions {
  /** Where to listen. Default 127.0.0.1: anyone who can reach the port and has a token drives the tabs. */
  host?: string;
  /** Default 0: any free port. */
  port?: number;
  /** The extension's token; default: random. At least 24 characters. */
  extensionToken?: string;
  /** The clients' token; default: random. At least 24 characters. */
  clientToken?: string;
  /** How often the relay pings the extension, which keeps its service worker alive. Default 20 s. */
  pingIntervalMs?: number;
  logger?: Logger;
}

export interface Relay {
  /** ws://…/extension?token=…: what the user gives the extension. A secret. */
  readonly extensionUrl: string;
  /** ws://…/devtools/browser?token=…: the `cdpUrl` for Tendril and other CDP clients. A secret. */
  readonly cdpUrl: string;
  readonly port: number;
  /** Closes every socket and stops listening. */
  close(): Promise<void>;
}

/** DevTools messages (screenshots, whole page texts) can be far larger than ws's default cap. */
const MAX_MESSAGE_BYTES = 1024 * 1024 * 1024;
const MIN_TOKEN_LENGTH = 24;
const DEFAULT_PING_MS = 20_000;

export async function startRelay(options: RelayOptions = {}): Promise<Relay> {
  const host = options.host ?? '127.0.0.1';
  const extensionToken = token(options.extensionToken, 'extensionToken');
  const clientToken = token(options.clientToken, 'clientToken');
  if (extensionToken === clientToken)
    throw new InvalidOptionError('The relay needs two different tokens: one for the extension, one for clients.');
  const logger = options.logger;
  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES, perMessageDeflate: false });
  const http = createServer((_req, res) => res.writeHead(401, { 'content-length': '0', connection: 'close' }).end());
  const state = new RelayState(logger, options.pingIntervalMs ?? DEFAULT_PING_MS);

  http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const { path, given } = splitUrl(req.url);
    const role =
      path === EXTENSION_PATH && same(given, extensionToken)
        ? 'extension'
        : path === CLIENT_PATH && same(given, clientToken)
          ? 'client'
          : undefined;
    // Anything else gets 401 and nothing more: no hint of which part was wrong.
    if (!role) return refuse(socket, 401);
    if (role === 'client') {
      const busy = state.clientRefusal();
      if (busy) return refuse(socket, busy.status, busy.text);
    }
    sockets.handleUpgrade(req, socket, head, (ws) => (role === 'extension' ? state.extension(ws, req) : state.client(ws, req)));
  });

  await new Promise<void>((resolve, reject) => {
    http.once('error', (error) =>
      reject(new InvalidOptionError(`The relay cannot listen on ${host}:${options.port ?? 0}: ${error.message}`)),
    );
    http.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = http.address() as AddressInfo;
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  const base = `ws://${shownHost}:${port}`;
  logger?.info('relay', 'Relay listening', { host, port });
  return {
    extensionUrl: `${base}${EXTENSION_PATH}?token=${extensionToken}`,
    cdpUrl: `${base}${CLIENT_PATH}?token=${clientToken}`,
    port,
    close: async () => {
      state.close();
      for (const ws of sockets.clients) ws.terminate();
      sockets.close();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/**
 * One extension and one client at a time: chrome.debugger lets an extension attach a tab once, so
 * two clients could not both have the shared tabs. A newer extension connection replaces the older
 * one (a restarted service worker reconnects before the old socket is known to be dead).
 */
class RelayState {
  #extension: WebSocket | undefined;
  #client: { ws: WebSocket; id: number } | undefined;
  #nextClient = 1;
  #ping: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly logger: Logger | undefined,
    private readonly pingMs: number,
  ) {}

  clientRefusal(): { status: number; text: string } | undefined {
    if (!this.#extension) {
      return {
        status: 503,
        text: 'No Tendril extension is connected to this relay. Open the extension, give it the relay address and connect it, then retry.',
      };
    }
    if (this.#client)
      return { status: 409, text: 'Another client is driving the shared tabs through this relay; it must disconnect first.' };
    return undefined;
  }

  extension(ws: WebSocket, req: IncomingMessage): void {
    const previous = this.#extension;
    this.#extension = ws;
    if (previous) {
      this.logger?.info('relay', 'A new extension connection replaces the previous one');
      previous.close(1000, 'replaced by a newer extension connection');
      this.#endClient('the extension reconnected; connect again');
    }
    this.logger?.info('relay', 'Extension connected', { from: req.socket.remoteAddress });
    clearInterval(this.#ping);
    this.#ping = setInterval(() => this.#toExtension({ type: 'ping' }), this.pingMs);
    this.#ping.unref?.();
    ws.on('message', (data, isBinary) => {
      if (isBinary || ws !== this.#extension) return;
      const envelope = parseEnvelope<ExtensionToRelay>(data.toString());
      if (!envelope) return;
      const client = this.#client;
      if (envelope.type === 'cdp' && client && envelope.client === client.id) client.ws.send(envelope.message);
      else if (envelope.type === 'end' && client && envelope.client === client.id) this.#endClient(envelope.reason);
    });
    ws.on('close', () => {
      if (ws !== this.#extension) return;
      this.#extension = undefined;
      clearInterval(this.#ping);
      this.logger?.info('relay', 'Extension disconnected');
      this.#endClient('the extension disconnected from the relay');
    });
    ws.on('error', () => undefined); // 'close' follows and says it.
  }

  client(ws: WebSocket, req: IncomingMessage): void {
    const id = this.#nextClient++;
    this.#client = { ws, id };
    this.logger?.info('relay', 'Client connected', { from: req.socket.remoteAddress, client: id });
    this.#toExtension({ type: 'client', client: id });
    ws.on('message', (data, isBinary) => {
      if (this.#client?.id !== id) return;
      this.#toExtension({ type: 'cdp', client: id, message: isBinary ? new TextDecoder().decode(data as Buffer) : data.toString() });
    });
    ws.on('close', () => {
      if (this.#client?.id !== id) return;
      this.#client = undefined;
      this.logger?.info('relay', 'Client disconnected', { client: id });
      this.#toExtension({ type: 'client-gone', client: id });
    });
    ws.on('error', () => undefined);
  }

  close(): void {
    clearInterval(this.#ping);
  }

  #endClient(reason: string): void {
    const client = this.#client;
    if (!client) return;
    this.#client = undefined;
    // A close reason must fit in 123 bytes.
    client.ws.close(CLOSE_ENDED, reason.slice(0, 120));
  }

  #toExtension(message: RelayToExtension): void {
    if (this.#extension?.readyState === 1) this.#extension.send(JSON.stringify(message));
  }
}

function token(given: string | undefined, name: string): string {
  if (given === undefined) return randomBytes(24).toString('base64url');
  if (typeof given !== 'string' || given.length < MIN_TOKEN_LENGTH || !/^[A-Za-z0-9_-]+$/.test(given)) {
    throw new InvalidOptionError(`The relay's ${name} must be at least ${MIN_TOKEN_LENGTH} characters of A-Z, a-z, 0-9, "-" and "_".`);
  }
  return given;
}

function splitUrl(raw: string | undefined): { path: string; given: string } {
  try {
    const url = new URL(raw ?? '/', 'http://relay');
    return { path: url.pathname, given: url.searchParams.get('token') ?? '' };
  } catch {
    return { path: '', given: '' };
  }
}

/** Compared as digests, so neither the length nor the content of a wrong token shows in the timing. */
function same(given: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

const STATUS_TEXT: Record<number, string> = { 401: 'Unauthorized', 409: 'Conflict', 503: 'Service Unavailable' };

function refuse(socket: Duplex, status: number, body = ''): void {
  if (!socket.writable) return void socket.destroy();
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  // A peer that never reads must not hold the socket.
  setTimeout(() => socket.destroy(), 1000).unref();
}
