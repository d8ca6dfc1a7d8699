// Every REST operation answers within its deadline, whatever a raw client of the session's
// connectUrl did to the session's browser before: real server on loopback, real Chromium, a raw
// WebSocket client speaking CDP as any other program would.

import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { HostedApi } from '../../src/hosted/client/api.js';
import type { HostedServer } from '../../src/hosted/server/http.js';
import { startFixtureServers, type FixtureServers } from '../fixtures/server.js';
import { TimeoutError } from '../../src/index.js';
import { HOSTED_TEST_ENV } from '../helpers.js';
import { startTestHostedServer } from '../support/hosted.js';

const KEY = 'deadline-test-key-8b1c';
let server: HostedServer;
let fixtures: FixtureServers;

beforeAll(async () => {
  [server, fixtures] = await Promise.all([startTestHostedServer({ ...HOSTED_TEST_ENV, HOSTED_API_KEYS: KEY }), startFixtureServers()]);
});
afterAll(async () => {
  await Promise.all([server?.close(), fixtures?.close()]);
});

interface Reply {
  result?: Record<string, unknown>;
  error?: { message: string };
}

/** A raw CDP client on connectUrl: sends each command and resolves with its reply. */
async function rawClient(connectUrl: string) {
  const socket = new WebSocket(connectUrl);
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  let next = 0;
  const waiting = new Map<number, (reply: Reply) => void>();
  socket.on('message', (data: Buffer) => {
    const message = JSON.parse(data.toString()) as Reply & { id?: number };
    if (message.id !== undefined) waiting.get(message.id)?.(message);
  });
  const send = (method: string, params: Record<string, unknown> = {}, sessionId?: string) => {
    const id = ++next;
    socket.send(JSON.stringify({ id, method, params, sessionId }));
    return new Promise<Reply>((resolve) => waiting.set(id, resolve));
  };
  return { socket, send };
}

let held = 0;

/** A session whose only page a raw client left navigating to a URL that never answers, its socket destroyed under it. */
async function heldSession(api: HostedApi): Promise<string> {
  const session = await api.createSession({ projectId: 'p' });
  const raw = await rawClient(session.connectUrl);
  const { result: targets } = await raw.send('Target.getTargets');
  const page = (targets!.targetInfos as Array<{ targetId: string; type: string }>).find((each) => each.type === 'page')!;
  const { result: attached } = await raw.send('Target.attachToTarget', { targetId: page.targetId, flatten: true });
  // Chrome answers Page.navigate once the site does, which this one never does: the site's receipt of it is what is awaited.
  const url = fixtures.a.url(`hang?held=${++held}`);
  void raw.send('Page.navigate', { url }, attached!.sessionId as string);
  await vi.waitFor(() => expect(fixtures.a.requests.some((request) => url.endsWith(request.replace(/^[^/]*/, '')))).toBe(true), {
    timeout: 10_000,
    interval: 20,
  });
  raw.socket.terminate();
  return session.id;
}

/** An operation's outcome and how long the client waited for it. */
async function timed(api: HostedApi, id: string, name: 'navigate' | 'act', body: unknown) {
  const started = Date.now();
  const outcome = await api.operation(id, name, body, { bypassCache: true, timeoutMs: 30_000, onLog: () => undefined }).then(
    ({ data }) => ({ data, error: undefined }),
    (error: unknown) => ({ data: undefined, error }),
  );
  return { ...outcome, ms: Date.now() - started };
}

/** Room for the answer to travel back from the server's deadline on a loaded machine. */
const MARGIN_MS = 3000;

describe('a REST operation after a raw client left a navigation that never commits', () => {
  it('navigate stops the held navigation and loads its URL within its deadline', async () => {
    const api = new HostedApi(server.url, KEY, 60_000);
    const id = await heldSession(api);
    const navigate = await timed(api, id, 'navigate', { url: fixtures.a.url('act.html'), timeoutMs: 10_000 });
    expect(navigate.error).toBeUndefined();
    expect(navigate.data).toEqual({ url: fixtures.a.url('act.html') });
    expect(navigate.ms).toBeLessThan(10_000 + MARGIN_MS);
    // To a URL that never answers: a TimeoutError at the deadline, not silence.
    const hanging = await timed(api, id, 'navigate', { url: fixtures.a.url('hang'), timeoutMs: 3000 });
    expect(hanging.error).toBeInstanceOf(TimeoutError);
    expect(hanging.ms).toBeLessThan(3000 + MARGIN_MS);
    await api.releaseSession(id);
  }, 60_000);

  it('act answers a TimeoutError that says why within its deadline, and works once navigate moved the page on', async () => {
    const api = new HostedApi(server.url, KEY, 60_000);
    const id = await heldSession(api);
    const action = { selector: "xpath=//button[@id='top']", method: 'click' };
    const held = await timed(api, id, 'act', { action, timeout: 3000 });
    expect(held.error).toBeInstanceOf(TimeoutError);
    expect((held.error as Error).message).toMatch(/A navigation of the page has not committed.*Navigate the page elsewhere/);
    expect(held.ms).toBeLessThan(3000 + MARGIN_MS);
    const navigate = await timed(api, id, 'navigate', { url: fixtures.a.url('act.html'), timeoutMs: 10_000 });
    expect(navigate.data).toEqual({ url: fixtures.a.url('act.html') });
    const act = await timed(api, id, 'act', { action, timeout: 10_000 });
    expect(act.data).toMatchObject({ success: true });
    await api.releaseSession(id);
  }, 60_000);
});
