// Clients the hosted server refuses before it has read their body (a wrong key, an unknown session,
// a body over the size limit): over keep-alive connections, sending megabytes in chunks without
// waiting, they must still read the status and the JSON error, never EPIPE or ECONNRESET; the
// server must not read an endless refused body; and it stays usable. Real server on loopback.

import { randomUUID } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBody, HEADERS } from '../../protocol/index.js';
import type { HostedServer } from '../../src/hosted/server/http.js';
import { HOSTED_TEST_ENV } from '../helpers.js';
import { startTestHostedServer } from '../support/hosted.js';

const KEY = 'abuse-test-key-5d2e';
const WRONG_KEY = 'not-a-key-of-this-server';
/** Above the server's 5 MiB body limit, so the same body is also the over-the-limit case. */
const BODY_BYTES = 6 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 'a');
const REPEATS = 20;
/** Longest one exchange may take before it counts as hung. */
const EXCHANGE_DEADLINE_MS = 10_000;

let server: HostedServer;

beforeAll(async () => {
  server = await startTestHostedServer({ ...HOSTED_TEST_ENV, HOSTED_API_KEYS: KEY, MAX_SESSIONS: '1' });
});
afterAll(async () => {
  await server?.close();
});

interface Case {
  name: string;
  path: () => string;
  key: string;
  status: number;
  code: ErrorBody['error']['code'];
}

const CASES: Case[] = [
  { name: 'a wrong API key', path: () => '/v1/sessions', key: WRONG_KEY, status: 401, code: 'unauthorized' },
  { name: 'an unknown session', path: () => `/v1/sessions/${randomUUID()}/extract`, key: KEY, status: 404, code: 'not_found' },
  { name: 'a body over the size limit', path: () => '/v1/sessions', key: KEY, status: 400, code: 'bad_request' },
];

interface Outcome {
  status: number;
  /** The response's Connection header. */
  connection: string | undefined;
  /** The whole response body arrived. */
  complete: boolean;
  text: string;
  /** Error codes (or messages) the client saw on its request or socket. */
  errors: string[];
}

const errorName = (error: Error) => (error as NodeJS.ErrnoException).code ?? error.message;

function expectError(outcome: Outcome, c: Case): void {
  expect(outcome.errors).toEqual([]);
  expect(outcome.complete).toBe(true);
  expect(outcome.status).toBe(c.status);
  // The server said it will not read the rest: a keep-alive client must not reuse the connection.
  expect(outcome.connection).toBe('close');
  const body = ErrorBody.parse(JSON.parse(outcome.text));
  expect(body.error.code).toBe(c.code);
  expect(body.error.message).not.toContain(WRONG_KEY);
}

/** One POST through a keep-alive http.Agent, the body written in chunks without waiting for them. */
function postThroughAgent(agent: http.Agent, c: Case): Promise<Outcome> {
  return new Promise((resolve) => {
    const outcome: Outcome = { status: 0, connection: undefined, complete: false, text: '', errors: [] };
    const req = http.request(new URL(c.path(), server.url), {
      method: 'POST',
      agent,
      headers: { [HEADERS.apiKey]: c.key, 'content-type': 'application/json', 'content-length': BODY_BYTES },
    });
    const deadline = setTimeout(() => {
      outcome.errors.push('deadline');
      req.destroy();
    }, EXCHANGE_DEADLINE_MS);
    req.on('response', (res) => {
      outcome.status = res.statusCode ?? 0;
      outcome.connection = res.headers.connection;
      res.setEncoding('utf8');
      res.on('data', (text: string) => (outcome.text += text));
      res.on('end', () => (outcome.complete = true));
      res.on('error', (error) => outcome.errors.push(errorName(error)));
    });
    req.on('error', (error) => outcome.errors.push(errorName(error)));
    req.on('close', () => {
      clearTimeout(deadline);
      resolve(outcome);
    });
    for (let sent = 0; sent < BODY_BYTES; sent += CHUNK.length) req.write(CHUNK);
    req.end();
  });
}

/** Status, headers and body of an HTTP/1.1 response with a Content-Length, once all of it is in `data`. */
function parseResponse(data: Buffer): Omit<Outcome, 'errors'> | undefined {
  const end = data.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const head = data.subarray(0, end).toString('latin1').split('\r\n');
  const headers = new Map(
    head.slice(1).map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  const length = Number(headers.get('content-length'));
  // Only the first response counts: whatever follows it is not part of its answer.
  const body = data.subarray(end + 4);
  return {
    status: Number(head[0]!.split(' ')[1]),
    connection: headers.get('connection'),
    complete: body.length >= length,
    text: body.subarray(0, length).toString('utf8'),
  };
}

/**
 * One POST on a raw keep-alive socket. `declared` is the Content-Length it announces (chunked when
 * undefined); it writes `send` bytes, either all at once without waiting (`paced` false) or paced by
 * 'drain' until the server stops taking them. Resolves once the socket has closed; `serverEnded`
 * says the server closed its side in order (FIN) rather than only resetting or timing out.
 */
function postRaw(
  c: Case,
  options: { declared?: number; send: number; paced: boolean },
): Promise<Outcome & { written: number; serverEnded: boolean }> {
  return new Promise((resolve) => {
    // Half-open allowed: the client goes on writing after the server's FIN, as a careless client would.
    const socket = net.connect({ port: Number(new URL(server.url).port), host: '127.0.0.1', allowHalfOpen: options.paced });
    const received: Buffer[] = [];
    const errors: string[] = [];
    let written = 0;
    let serverEnded = false;
    const deadline = setTimeout(() => {
      errors.push('deadline');
      socket.destroy();
    }, EXCHANGE_DEADLINE_MS);
    socket.on('data', (data: Buffer) => received.push(data));
    socket.on('end', () => (serverEnded = true));
    socket.on('error', (error) => errors.push(errorName(error)));
    socket.on('close', () => {
      clearTimeout(deadline);
      const parsed = parseResponse(Buffer.concat(received)) ?? { status: 0, connection: undefined, complete: false, text: '' };
      resolve({ ...parsed, errors, written, serverEnded });
    });
    const chunked = options.declared === undefined;
    socket.write(
      `POST ${c.path()} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n${HEADERS.apiKey}: ${c.key}\r\n` +
        `Content-Type: application/json\r\n${chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${options.declared}`}\r\n\r\n`,
    );
    const piece = chunked ? Buffer.concat([Buffer.from(`${CHUNK.length.toString(16)}\r\n`), CHUNK, Buffer.from('\r\n')]) : CHUNK;
    if (!options.paced) {
      for (; written < options.send; written += CHUNK.length) socket.write(piece);
      if (chunked) socket.write('0\r\n\r\n');
      // A keep-alive client does not end its side: it waits for the answer, and for the server's.
      return;
    }
    const pump = () => {
      while (written < options.send && !socket.destroyed) {
        written += CHUNK.length;
        if (!socket.write(piece)) return void socket.once('drain', pump);
      }
      if (!socket.destroyed) socket.end();
    };
    pump();
  });
}

describe('early answers to large bodies the server did not read', () => {
  it.each(CASES)('reach a keep-alive http.Agent client intact: $name', async (c) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (let i = 0; i < REPEATS; i++) expectError(await postThroughAgent(agent, c), c);
    } finally {
      agent.destroy();
    }
  });

  it.each(CASES)('reach a raw keep-alive socket sending a chunked body intact: $name', async (c) => {
    for (let i = 0; i < REPEATS; i++) {
      const outcome = await postRaw(c, { send: BODY_BYTES, paced: false });
      expectError(outcome, c);
      expect(outcome.serverEnded).toBe(true);
    }
  });

  it.each(CASES)('stop the server reading a refused body after a bounded amount: $name', async (c) => {
    // It announces a gigabyte and would send 64 MiB; the server must drop it well before that,
    // after the client had the answer.
    const limit = 64 * 1024 * 1024;
    const outcome = await postRaw(c, { declared: 1024 ** 3, send: limit, paced: true });
    expect(outcome.status).toBe(c.status);
    expect(outcome.complete).toBe(true);
    expect(ErrorBody.parse(JSON.parse(outcome.text)).error.code).toBe(c.code);
    expect(outcome.errors).not.toContain('deadline');
    // It closed its side right after the answer, then stopped taking the body.
    expect(outcome.serverEnded).toBe(true);
    expect(outcome.written).toBeLessThan(limit);
  });

  it('leaves the server usable: a session with the right key starts and is released', async () => {
    const headers = { [HEADERS.apiKey]: KEY, 'content-type': 'application/json' };
    const created = await fetch(`${server.url}/v1/sessions`, { method: 'POST', headers, body: JSON.stringify({ projectId: 'abuse' }) });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    expect(server.sessions.activeCount).toBe(1);
    const released = await fetch(`${server.url}/v1/sessions/${id}`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ status: 'REQUEST_RELEASE' }),
    });
    expect(released.status).toBe(200);
    expect(server.sessions.activeCount).toBe(0);
  });
});
