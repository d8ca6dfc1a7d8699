// Instances sharing one Redis (a real redis-server), each request sent straight to the instance the
// test picks: a full instance passes a new session to one with room, any instance answers for any
// session, a drained or restarted owner's session is lost at once; and sessions nobody uses end.

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { HEADERS } from '../../protocol/index.js';
import { HostedApi } from '../../src/hosted/client/api.js';
import { FORWARDED_TO } from '../../src/hosted/server/forward.js';
import type { HostedServer } from '../../src/hosted/server/http.js';
import { HostedServiceError, Sdk } from '../../src/index.js';
import type { LogLine } from '../../src/types.js';
import { HOSTED_TEST_ENV } from '../helpers.js';
import { startTestHostedServer } from '../support/hosted.js';
import { freePort, startRedis, type RedisServer } from '../support/redis.js';

const KEY = 'registry-test-key';
let redis: RedisServer;
const servers: HostedServer[] = [];

const start = (env: Record<string, string>) =>
  startTestHostedServer({ ...HOSTED_TEST_ENV, HOSTED_API_KEYS: KEY, HOSTED_SIGNING_SECRET: 'registry-test-secret', ...env }).then(
    (server) => (servers.push(server), server),
  );

const send = (server: HostedServer, method: string, path: string, headers: Record<string, string> = {}) =>
  fetch(server.url + path, {
    method,
    headers: { [HEADERS.apiKey]: KEY, 'content-type': 'application/json', ...headers },
    body: method === 'POST' ? '{"status":"REQUEST_RELEASE"}' : undefined,
  });

beforeAll(async () => {
  redis = await startRedis(await freePort());
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await redis?.stop();
});

describe('instances sharing a Redis', () => {
  let a: HostedServer;
  let b: HostedServer;
  beforeAll(async () => {
    [a, b] = await Promise.all([1, 2].map(() => start({ REDIS_URL: `redis://127.0.0.1:${redis.port}`, MAX_SESSIONS: '1' })));
  });

  it('hold one session each when every request goes to one of them: a full instance passes the next to the other', async () => {
    const api = new HostedApi(a.url, KEY, 60_000);
    const first = await api.createSession({ projectId: 'p' });
    const second = await api.createSession({ projectId: 'p' });
    expect([a.sessions.has(first.id), b.sessions.has(second.id)]).toEqual([true, true]);
    // Both full: the third is refused, with a time to try again (a client that waits 3 s has no room
    // to ask again after Retry-After, so the refusal reaches it as it is).
    const refused = await new HostedApi(a.url, KEY, 3_000).createSession({ projectId: 'p' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(HostedServiceError);
    expect((refused as HostedServiceError).status).toBe(429);
    // Either instance answers for either session, and releases it where it runs.
    expect((await new HostedApi(b.url, KEY, 10_000).getSession(first.id)).status).toBe('RUNNING');
    await api.releaseSession(second.id);
    expect(b.sessions.get(second.id).status).toBe('COMPLETED');
    await api.releaseSession(first.id);
    expect([a.sessions.activeCount, b.sessions.activeCount]).toEqual([0, 0]);
  });

  it('say a session is lost, at once, when the process that owned it is gone', async () => {
    // A request meant for another process at this address: the owner was restarted.
    const restarted = await send(a, 'GET', '/v1/sessions/some-session', { [FORWARDED_TO]: 'an-older-process' });
    expect(restarted.status).toBe(410);
    expect(((await restarted.json()) as { error: { code: string } }).error.code).toBe('browser_gone');

    // a is full, so a client of a gets its session on b, and drives it through a.
    const filler = await new HostedApi(a.url, KEY, 60_000).createSession({ projectId: 'p' });
    const lines: LogLine[] = [];
    const sdk = new Sdk({
      env: 'HOSTED',
      apiKey: KEY,
      projectId: 'p',
      hostedApiUrl: a.url,
      verbose: 1,
      disablePino: true,
      logger: (line) => lines.push(line),
    });
    await sdk.init();
    const session = await new HostedApi(a.url, KEY, 10_000).getSession(
      lines.find((line) => line.message === 'Hosted session created')!.auxiliary!.session as string,
    );
    expect(b.sessions.has(session.id)).toBe(true);
    await sdk.context.pages()[0]!.goto('about:blank');
    // Drained: its heartbeat goes first, so the others know at once, not when it would have expired.
    await b.close();
    const lost = await new HostedApi(a.url, KEY, 10_000).getSession(session.id).catch((error: unknown) => error);
    expect(lost).toBeInstanceOf(HostedServiceError);
    expect([(lost as HostedServiceError).status, (lost as HostedServiceError).code]).toEqual([410, 'browser_gone']);
    expect((lost as Error).message).toMatch(/is lost: the server instance that ran it stopped/);
    // Its connectUrl too (signed by b, valid on a): refused as gone, not as unknown.
    const upgrade = await new Promise<number>((resolve) => {
      const socket = new WebSocket(session.connectUrl.replace(b.url.replace(/^http/, 'ws'), a.url.replace(/^http/, 'ws')));
      socket.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      socket.on('open', () => (socket.close(), resolve(101)));
    });
    expect(upgrade).toBe(410);
    // Its release answers 410 as well, which a client's close() takes as done: nothing is left to release.
    await expect(new HostedApi(a.url, KEY, 10_000).releaseSession(session.id)).rejects.toMatchObject({ status: 410 });
    await sdk.close();
    expect(lines.filter((line) => line.level === 0)).toEqual([]);
    await new HostedApi(a.url, KEY, 10_000).releaseSession(filler.id);
  });

  it('register their sessions again when Redis comes back empty, so that every instance still finds them', async () => {
    // b was drained above: a second instance for this one.
    const c = await start({ REDIS_URL: `redis://127.0.0.1:${redis.port}` });
    const own = await new HostedApi(a.url, KEY, 60_000).createSession({ projectId: 'p' });
    const sessionKey = `tendril:cluster:session:${own.id}`;
    const act = () =>
      new HostedApi(c.url, KEY, 10_000).operation(
        own.id,
        'act',
        { action: { selector: 'xpath=/html/body', method: 'click' } },
        {
          bypassCache: true,
          timeoutMs: 10_000,
          onLog: () => undefined,
        },
      );
    // Through c, which finds a as the owner in Redis and forwards.
    expect(((await act()).data as { success: boolean }).success).toBe(true);
    // Redis loses everything: stopped and started again, empty, on the same port.
    const port = redis.port;
    await redis.stop();
    redis = await startRedis(port);
    expect(await redis.cli('EXISTS', sessionKey)).toBe('0');
    // a reconnects, finds its heartbeat gone, and writes its sessions' owner keys again.
    await vi.waitFor(async () => expect(await redis.cli('GET', sessionKey)).not.toBe(''), { timeout: 15_000, interval: 50 });
    expect(((await act()).data as { success: boolean }).success).toBe(true);
    await new HostedApi(c.url, KEY, 10_000).releaseSession(own.id);
    expect(a.sessions.get(own.id).status).toBe('COMPLETED');
    await c.close();
  });

  it('answer for their own sessions while Redis is down, and 503 with Retry-After, within a deadline, for the others', async () => {
    const own = await new HostedApi(a.url, KEY, 60_000).createSession({ projectId: 'p' });
    await redis.stop();
    const started = Date.now();
    const other = await send(a, 'GET', '/v1/sessions/held-elsewhere');
    expect(other.status).toBe(503);
    expect(Number(other.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await other.json()) as { error: { message: string } }).error.message).toMatch(
      /cannot find which instance holds session held-elsewhere/,
    );
    // The registry's own deadline (2 s), not a hang.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((await new HostedApi(a.url, KEY, 10_000).getSession(own.id)).status).toBe('RUNNING');
    await new HostedApi(a.url, KEY, 10_000).releaseSession(own.id);
  });
});

describe('a session nobody uses', () => {
  let server: HostedServer;
  beforeAll(async () => {
    // Long enough for a client to attach after its session's creation on a loaded machine.
    server = await start({ HOSTED_IDLE_TIMEOUT_MS: '5000', MAX_SESSIONS: '5' });
  });

  it('ends when no client attaches, or once its client left without releasing it; an attached client or keepAlive keeps it', async () => {
    const api = new HostedApi(server.url, KEY, 60_000);
    const sdk = new Sdk({ env: 'HOSTED', apiKey: KEY, projectId: 'p', hostedApiUrl: server.url, verbose: 0, disablePino: true });
    await sdk.init();
    const [kept] = server.sessions.runningIds();
    const keptAlive = await api.createSession({ projectId: 'p', keepAlive: true });
    const unused = await api.createSession({ projectId: 'p' });
    // A client that attaches, then leaves without a release (it crashed, or its release was lost).
    const left = await api.createSession({ projectId: 'p' });
    const socket = new WebSocket(left.connectUrl);
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    socket.terminate();

    await vi.waitFor(() => expect(server.sessions.get(unused.id).status).toBe('TIMED_OUT'), { timeout: 30_000, interval: 50 });
    await vi.waitFor(() => expect(server.sessions.get(left.id).status).toBe('TIMED_OUT'), { timeout: 30_000, interval: 50 });
    // Created before those two, so idle for longer than they were: still running, attached or kept alive.
    expect(server.sessions.get(kept!).status).toBe('RUNNING');
    expect(server.sessions.get(keptAlive.id).status).toBe('RUNNING');
    expect((await sdk.extract()).pageText).toBeDefined();
    await sdk.close();
    await api.releaseSession(keptAlive.id);
    expect(server.sessions.activeCount).toBe(0);
  }, 90_000);

  it('is reported by the client when its release cannot be made', async () => {
    const lines: LogLine[] = [];
    const sdk = new Sdk({
      env: 'HOSTED',
      apiKey: KEY,
      projectId: 'p',
      hostedApiUrl: server.url,
      verbose: 0,
      disablePino: true,
      logger: (line) => lines.push(line),
    });
    await sdk.init();
    const [id] = server.sessions.runningIds();
    await server.close();
    // Tried again (the service may be between instances), then said, with the session's id.
    await sdk.close();
    expect(lines.filter((line) => line.level === 0).map((line) => line.message)).toEqual([
      expect.stringContaining(`Could not release hosted session ${id}`),
    ]);
  });
});
