// Passing a request on to the instance that owns its session, over that instance's internal URL:
// REST requests (their event streams included) and the connectUrl WebSocket. A forwarded request
// carries everything the client sent (its API key, its connectUrl token), so the owner checks it
// again: forwarding grants nothing that reaching the owner directly would not. It also names the
// instance it is meant for, so that a request never goes round twice, and one that reaches a new
// process at a dead owner's address is told the session is lost rather than that it never existed.

import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import type { InstanceInfo } from './registry.js';
import { apiError } from './sessions.js';

/** The instance id a forwarded request is meant for. */
export const FORWARDED_TO = 'x-tendril-forwarded-to';

/** Deadline to connect to the owner (the answer takes what the operation takes: a browser's launch, a model call). */
const CONNECT_TIMEOUT_MS = 5000;

/** Headers of one hop only (RFC 9110 §7.6.1), never passed on. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'proxy-authorization',
  'proxy-authenticate',
]);

export function sessionLost(id: string, why: string): Error {
  return apiError('browser_gone', `Session ${id} is lost: ${why}. Its browser went with it; create a new session.`);
}

function requestTo(target: InstanceInfo, req: IncomingMessage, headers: http.OutgoingHttpHeaders): http.ClientRequest {
  const url = new URL(req.url ?? '/', target.url);
  const client = url.protocol === 'https:' ? https : http;
  // Each forwarded request on its own connection: an owner that dies takes only its own requests along.
  const out = client.request(url, { method: req.method, headers: { ...headers, [FORWARDED_TO]: target.id }, agent: false });
  const timer = setTimeout(() => out.destroy(new Error(`no connection within ${CONNECT_TIMEOUT_MS} ms`)), CONNECT_TIMEOUT_MS);
  out.once('socket', (socket) => socket.once('connect', () => clearTimeout(timer)));
  out.once('close', () => clearTimeout(timer));
  return out;
}

function passedHeaders(headers: http.IncomingHttpHeaders, keep: string[] = []): http.OutgoingHttpHeaders {
  const out: http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined && (!HOP_BY_HOP.has(name) || keep.includes(name)) && name !== FORWARDED_TO) out[name] = value;
  return out;
}

/**
 * Forwards a REST request and streams the owner's answer back. Rejects with the network's error,
 * before any answer went out, when the owner cannot be reached.
 */
export function forwardRequest(req: IncomingMessage, res: ServerResponse, target: InstanceInfo): Promise<void> {
  return new Promise((resolve, reject) => {
    const out = requestTo(target, req, passedHeaders(req.headers));
    out.on('response', (answer) => {
      res.writeHead(answer.statusCode ?? 502, passedHeaders(answer.headers));
      // An event stream goes out as it comes.
      res.flushHeaders();
      answer.pipe(res);
      answer.on('error', () => res.destroy());
      answer.on('end', () => resolve());
    });
    out.on('error', (error) => {
      if (res.headersSent) {
        res.destroy();
        resolve();
      } else {
        reject(error);
      }
    });
    // A client that leaves takes its forwarded request along.
    res.on('close', () => {
      if (!res.writableFinished) out.destroy();
      resolve();
    });
    req.pipe(out);
  });
}

/**
 * Forwards a WebSocket upgrade: once the owner accepts it, its answer goes to the client and the
 * two sockets are joined; a refusal is passed on as it came, and an owner that does not answer is a
 * lost session (410).
 */
export function forwardUpgrade(req: IncomingMessage, socket: Socket, head: Buffer, target: InstanceInfo): void {
  const out = requestTo(target, req, passedHeaders(req.headers, ['connection', 'upgrade']));
  const refuse = (status: string) => {
    if (socket.writable) socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`);
  };
  out.on('upgrade', (answer, upstream: Socket, upstreamHead: Buffer) => {
    if (socket.destroyed) return void upstream.destroy();
    const lines = [`HTTP/1.1 101 ${answer.statusMessage || 'Switching Protocols'}`];
    for (let i = 0; i < answer.rawHeaders.length; i += 2) lines.push(`${answer.rawHeaders[i]}: ${answer.rawHeaders[i + 1]}`);
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (upstreamHead.length) socket.write(upstreamHead);
    if (head.length) upstream.write(head);
    upstream.setNoDelay(true);
    socket.setNoDelay(true);
    upstream.pipe(socket).pipe(upstream);
    // Either side ending or failing ends the other: the client then sees its connection close.
    const end = () => {
      upstream.destroy();
      socket.destroy();
    };
    upstream.on('close', end).on('error', end);
    socket.on('close', end).on('error', end);
  });
  out.on('response', (answer) => {
    answer.resume();
    refuse(`${answer.statusCode} ${answer.statusMessage ?? ''}`.trim());
  });
  out.on('error', () => refuse('410 Gone'));
  // A client that leaves before the owner answered takes the forwarded upgrade along.
  const abandon = () => out.destroy();
  socket.once('error', abandon).once('close', abandon);
  out.once('upgrade', () => socket.off('error', abandon).off('close', abandon));
  out.end();
}
