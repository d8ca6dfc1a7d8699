// Reading a request: its headers, its JSON body (bounded), and that body checked by a protocol
// schema, each failure a 400 that says what is wrong; and what becomes of a body the server
// answered without reading.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { z } from 'zod/v4';
import { apiError } from './sessions.js';

const MAX_BODY_BYTES = 5 * 1024 * 1024;
/** An unread body declared no longer than this is read to its end and dropped; the connection stays open. */
const DRAIN_BYTES = 1024 * 1024;
/**
 * After an answer that closes the connection, what the server still reads (and drops) of the
 * body, and for how long, before it lets go of the socket. Many clients write their whole body
 * before they read: up to these bounds they get the answer, not a reset. Past them a client is
 * streaming into a refused request, and the server stops paying for it.
 */
const LINGER_BYTES = 16 * 1024 * 1024;
const LINGER_MS = 10_000;

/** Connections whose last answer said Connection: close: anything further on them is not served. */
const closing = new WeakSet<Socket>();

export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The JSON body, read to its end; over MAX_BODY_BYTES it stops reading and throws (the rest is left to prepareAnswer). */
export function readJson(req: IncomingMessage): Promise<unknown> {
  const tooLarge = () => apiError('bad_request', `The request body is larger than ${MAX_BODY_BYTES} bytes.`);
  if (Number(header(req, 'content-length')) > MAX_BODY_BYTES) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    // Not `for await`: leaving it early destroys the request, and with it the socket the answer needs.
    const stop = () => {
      req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      req.pause();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      chunks.push(chunk);
      if (size <= MAX_BODY_BYTES) return;
      stop();
      reject(tooLarge());
    };
    const onEnd = () => {
      stop();
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        resolve(text ? JSON.parse(text) : {});
      } catch (error) {
        reject(apiError('bad_request', `The request body is not JSON: ${(error as Error).message}`));
      }
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    const onClose = () => onError(new Error('The client closed the connection before the end of the request body.'));
    req.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

export function parse<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues.slice(0, 5).map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`);
  throw apiError('bad_request', `The request body is not valid: ${issues.join('; ')}.`);
}

/**
 * Call before writing any answer. An answer may come before the body was read (a wrong key, an
 * unknown session, a body over the limit), while the client is still sending it. Left to itself,
 * Node either reads all the rest, without bound, on the server's time, or (after a partial read)
 * closes the socket while data still arrives, which makes the kernel send a reset that can reach
 * the client before it has read the answer: EPIPE or ECONNRESET instead of the JSON error.
 *
 * So: a body declared at most DRAIN_BYTES long is read to its end and dropped, and the connection
 * stays open (bounded by the declared length, and cheaper than a new connection). Anything larger,
 * or of unknown length, gets `Connection: close`; once the answer is written the server closes its
 * side (the client sees the answer, then the end) but goes on reading and dropping what still
 * arrives, up to LINGER_BYTES or LINGER_MS, so that closing does not reset the connection under a
 * client that is still writing. Draining alone could not do: past any bound it must close anyway.
 */
export function prepareAnswer(req: IncomingMessage, res: ServerResponse): void {
  if (req.complete) return;
  const chunked = req.headers['transfer-encoding'] !== undefined;
  const declared = Number(header(req, 'content-length') ?? 0);
  if (!chunked && !(declared > 0)) return;
  const socket = req.socket;
  if (chunked || declared > DRAIN_BYTES) {
    res.setHeader('connection', 'close');
    closing.add(socket);
  }
  // Read here, not left to Node: readJson may have paused a request it stopped reading, and a body
  // Node drains itself never shows its bytes, which the bound needs to count.
  let dropped = 0;
  req.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > LINGER_BYTES) socket.destroy();
  });
  req.resume();
  // Node ends a connection that closes after this answer (ours above, or one the client asked to
  // close) with socket.destroySoon(): a full close as soon as the answer is flushed, the very reset
  // this avoids. For this one socket, linger instead.
  socket.destroySoon = () => linger(socket);
}

/** A request on a connection whose previous answer said it closes; RFC 9112 §9.6 says not to serve it. */
export function arrivedAfterClose(req: IncomingMessage): boolean {
  return closing.has(req.socket);
}

/** Half-closes once the answer is out; the body goes on being read (and dropped) until the client closes or a bound is hit. */
function linger(socket: Socket): void {
  socket.end();
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}

/** How long an operation's request id is remembered: longer than a balancer takes to try another instance. */
const RUN_ONCE_MS = 10 * 60_000;
const RUN_ONCE_MAX = 10_000;

/**
 * The request ids (HEADERS.requestId) of the operations this instance ran lately. A balancer that
 * found an instance silent (stopped, not dead) gives the request to another; when the stopped one
 * wakes it still reads its copy, and would pass it on to the session's instance, which must not
 * run it twice.
 */
export class RunOnce {
  readonly #seen = new Map<string, number>();

  /** True the first time `id` is seen (within RUN_ONCE_MS), false after. */
  first(id: string): boolean {
    const now = Date.now();
    for (const [known, at] of this.#seen) {
      if (now - at < RUN_ONCE_MS && this.#seen.size <= RUN_ONCE_MAX) break;
      this.#seen.delete(known);
    }
    if (this.#seen.has(id)) return false;
    this.#seen.set(id, now);
    return true;
  }
}
