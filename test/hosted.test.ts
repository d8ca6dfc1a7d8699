// The hosted server and the env: "HOSTED" client, end to end and all real: the server on loopback
// launching real Chromium per session, the client attaching through connectUrl.

import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEADERS } from '../protocol/index.js';
import { HostedApi } from '../src/browser/hosted.js';
import { readServerConfig } from '../src/hosted/server/config.js';
import { startHostedServer, type HostedServer } from '../src/hosted/server/http.js';
import { ConnectionClosedError, HostedServiceError, Sdk, TargetClosedError } from '../src/index.js';
import { Logger } from '../src/logger.js';
import { startFixtureServers, type FixtureServers } from './fixtures/server.js';
import { CHROME, processAlive, TEST_ARGS } from './helpers.js';

const KEY = 'hosted-test-key-1f3a';
let server: HostedServer;
let fixtures: FixtureServers;

async function startServer(maxSessions: number): Promise<HostedServer> {
  const config = readServerConfig({
    PORT: '0',
    HOSTED_API_KEYS: `other-key,${KEY}`,
    MAX_SESSIONS: String(maxSessions),
    CHROME_PATH: CHROME,
    CHROME_ARGS: TEST_ARGS.join(' '),
  });
  return startHostedServer(config, new Logger({ verbose: 0, disablePino: true }));
}

const clientOptions = () => ({ env: 'HOSTED' as const, apiKey: KEY, projectId: 'proj-1', hostedApiUrl: server.url, verbose: 0 as const, disablePino: true });

/** Status of a WebSocket upgrade to `url`: 101 when it opened. */
function upgradeStatus(url: string): Promise<number> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url);
    socket.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    socket.on('open', () => {
      resolve(101);
      socket.close();
    });
    socket.on('error', () => undefined);
  });
}

beforeAll(async () => {
  [server, fixtures] = await Promise.all([startServer(5), startFixtureServers()]);
});
afterAll(async () => {
  await server?.close();
  await fixtures?.close();
});

describe('env "HOSTED"', () => {
  it('creates a session, drives its browser like a local one, and releases it on close', async () => {
    const sdk = new Sdk(clientOptions());
    await sdk.init();
    const page = sdk.context.pages()[0]!;
    await page.goto(fixtures.a.url('act.html'));
    const { pageText } = await sdk.extract();
    // Out-of-process iframes and closed shadow roots work through the service like locally.
    expect(pageText).toContain('button: Shadow button');
    expect(pageText).toMatch(/\[2-\d+\] button: Frame button/);
    expect(server.sessions.activeCount).toBe(1);
    await sdk.close();
    expect(server.sessions.activeCount).toBe(0);
  });

  it('turns a refused API key into a 401 HostedServiceError at init()', async () => {
    const sdk = new Sdk({ ...clientOptions(), apiKey: 'wrong-key' });
    const error = await sdk.init().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HostedServiceError);
    expect((error as HostedServiceError).status).toBe(401);
    expect((error as Error).message).toMatch(/HOSTED_API_KEY/);
    expect((error as Error).message).not.toContain('wrong-key');
    await sdk.close();
  });

  it('a connectUrl token opens its own session only', async () => {
    const api = new HostedApi(server.url, KEY, 30_000);
    const [a, b] = await Promise.all([api.createSession({ projectId: 'p' }), api.createSession({ projectId: 'p' })]);
    try {
      expect(await upgradeStatus(a.connectUrl)).toBe(101);
      const tokenOfA = new URL(a.connectUrl).searchParams.get('token')!;
      const bWithTokenOfA = `${new URL(b.connectUrl).origin.replace('http', 'ws')}/v1/sessions/${b.id}/cdp?token=${encodeURIComponent(tokenOfA)}`;
      expect(await upgradeStatus(bWithTokenOfA)).toBe(401);
      expect(await upgradeStatus(b.connectUrl.replace(/token=[^&]+/, 'token=forged.1.x'))).toBe(401);
    } finally {
      await Promise.all([api.releaseSession(a.id), api.releaseSession(b.id)]);
    }
    // A released session's URL no longer opens anything.
    expect(await upgradeStatus(a.connectUrl)).toBe(410);
  });

  it('a session whose browser dies ends with a clear error, and the server goes on serving', async () => {
    const sdk = new Sdk(clientOptions());
    await sdk.init();
    const [id] = server.sessions.runningIds();
    const pid = server.sessions.get(id!).browser!.pid!;
    process.kill(pid, 'SIGKILL');
    const error = await sdk.context.pages()[0]!.goto(fixtures.a.url('act.html')).catch((e: unknown) => e);
    expect(error instanceof ConnectionClosedError || error instanceof TargetClosedError, String(error)).toBe(true);
    await expect.poll(() => server.sessions.get(id!).status).toBe('ERROR');
    await sdk.close();
    const again = new Sdk(clientOptions());
    await again.init();
    await again.context.pages()[0]!.goto(fixtures.a.url('act.html'));
    expect((await again.extract()).pageText).toContain('Top button');
    await again.close();
  });
});

describe('the hosted server', () => {
  it('answers 20 concurrent session requests with 5 sessions and 15 429s, and leaves no Chromium behind', async () => {
    const api = new HostedApi(server.url, KEY, 60_000);
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => api.createSession({ projectId: 'p' })));
    const created = outcomes.filter((outcome) => outcome.status === 'fulfilled').map((outcome) => (outcome as PromiseFulfilledResult<{ id: string }>).value);
    const refused = outcomes.filter((outcome) => outcome.status === 'rejected').map((outcome) => (outcome as PromiseRejectedResult).reason as HostedServiceError);
    expect(created).toHaveLength(5);
    expect(refused).toHaveLength(15);
    for (const error of refused) {
      expect(error).toBeInstanceOf(HostedServiceError);
      expect(error.status).toBe(429);
      expect(error.retryAfterSeconds).toBeGreaterThan(0);
    }
    const pids = created.map((session) => server.sessions.get(session.id).browser!.pid!);
    expect(pids.every(processAlive)).toBe(true);
    await Promise.all(created.map((session) => api.releaseSession(session.id)));
    expect(pids.filter(processAlive)).toEqual([]);
    expect(server.sessions.activeCount).toBe(0);
  });

  it('answers malformed JSON, invalid bodies, unknown sessions and unknown routes with JSON 4xx errors', async () => {
    const send = (method: string, path: string, body?: string, key = KEY) =>
      fetch(server.url + path, { method, headers: { [HEADERS.apiKey]: key, 'content-type': 'application/json' }, body });
    const cases: Array<[Response, number, string]> = [
      [await send('POST', '/v1/sessions', '{"projectId":'), 400, 'bad_request'],
      [await send('POST', '/v1/sessions', '{"projectId":"p","browserSettings":{"viewport":{"width":1}}}'), 400, 'bad_request'],
      [await send('GET', '/v1/sessions/no-such-session'), 404, 'not_found'],
      [await send('POST', '/v1/sessions/no-such-session', '{"status":"REQUEST_RELEASE"}'), 404, 'not_found'],
      [await send('GET', '/v2/elsewhere'), 404, 'not_found'],
      [await send('GET', '/v1/sessions/x', undefined, 'nope'), 401, 'unauthorized'],
    ];
    for (const [response, status, code] of cases) {
      expect(response.status).toBe(status);
      expect(response.headers.get('content-type')).toBe('application/json');
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe(code);
      expect(body.error.message.length).toBeGreaterThan(10);
    }
  });
});
