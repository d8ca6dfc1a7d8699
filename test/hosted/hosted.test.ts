// The hosted server and the env: "HOSTED" client, end to end and all real: the server on loopback
// launching real Chromium per session, the client attaching through connectUrl.

import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEADERS } from '../../protocol/index.js';
import { HostedApi } from '../../src/hosted/client/api.js';
import type { HostedServer } from '../../src/hosted/server/http.js';
import { ActionFailedError, ConnectionClosedError, HostedServiceError, Sdk, TargetClosedError } from '../../src/index.js';
import { z } from 'zod';
import { startFixtureServers, type FixtureServers } from '../fixtures/server.js';
import { processAlive, HOSTED_TEST_ENV } from '../helpers.js';
import { startDnsServer, TEST_HOSTS, type DnsServer } from '../support/dns-server.js';
import { startFakeModel, type FakeModel, type FakeRequest } from '../support/fake-model.js';
import { startTestHostedServer } from '../support/hosted.js';
import { SchemaValidationError } from '../../src/index.js';

const KEY = 'hosted-test-key-1f3a';
let server: HostedServer;
let fixtures: FixtureServers;
let fake: FakeModel;
let dns: DnsServer;
const MODEL_KEY = 'sk-hosted-model-77c1';

async function startServer(maxSessions: number): Promise<HostedServer> {
  return startTestHostedServer({
    ...HOSTED_TEST_ENV,
    HOSTED_API_KEYS: `other-key,${KEY}`,
    MAX_SESSIONS: String(maxSessions),
    // Two made-up hosts on loopback: one on the ad block list, one not.
    HOSTED_DNS_SERVERS: dns.address,
  });
}

const clientOptions = () => ({
  env: 'HOSTED' as const,
  apiKey: KEY,
  projectId: 'proj-1',
  hostedApiUrl: server.url,
  verbose: 0 as const,
  disablePino: true,
});

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
  dns = await startDnsServer(TEST_HOSTS);
  [server, fixtures, fake] = await Promise.all([startServer(5), startFixtureServers(), startFakeModel()]);
});
afterAll(async () => {
  await server?.close();
  await Promise.all([fixtures?.close(), fake?.close(), dns?.close()]);
});

/** One POST /v1/sessions, its error as the client raises it. */
async function createOnce(api: HostedApi): Promise<{ id: string }> {
  const response = await fetch(`${api.baseUrl}/v1/sessions`, {
    method: 'POST',
    headers: { [HEADERS.apiKey]: KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ projectId: 'p' }),
  });
  const body = (await response.json()) as { id: string; error?: { code: string; message: string } };
  if (response.ok) return body;
  throw new HostedServiceError(
    body.error!.message,
    response.status,
    body.error!.code,
    Number(response.headers.get('retry-after')) || undefined,
  );
}

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
    // Ids are this Sdk's: the service, which reads the page in a world of its own, is sent the XPath
    // of the element behind one, out-of-process iframe and closed shadow root included.
    const oop = /\[(2-\d+)\] button: Frame button/.exec(pageText)![1]!;
    const done = await sdk.act({ elementId: oop });
    expect(done.actions[0]!.selector).toMatch(/^xpath=\/html\[1\]\/body\[1\]\/iframe\[2\]\/html\[1\]\/body\[1\]\/button\[1\]$/);
    expect(await page.frames()[2]!.evaluate(() => document.getElementById('frame-state')!.textContent)).toBe('frame clicked 1');
    await sdk.act({ elementId: /\[(\d+)\] button: Shadow button/.exec(pageText)![1]! });
    expect(await page.evaluate(() => document.getElementById('closed-host')!.dataset.state)).toBe('shadow clicked');
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
    const error = await sdk.context
      .pages()[0]!
      .goto(fixtures.a.url('act.html'))
      .catch((e: unknown) => e);
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
  it('blocks ad and tracker hosts for blockAds sessions only, in the page and its out-of-process frames', async () => {
    const run = async (blockAds: boolean) => {
      const sdk = new Sdk({ ...clientOptions(), hostedSessionCreateParams: { browserSettings: { blockAds } } });
      try {
        await sdk.init();
        const page = sdk.context.pages()[0]!;
        await page.goto(fixtures.a.url('ads.html'));
        return await page.evaluate('window.done');
      } finally {
        await sdk.close();
      }
    };
    expect(await run(true)).toEqual(['ad blocked', 'own loaded', 'frame ad blocked']);
    expect(await run(false)).toEqual(['ad loaded', 'own loaded', 'frame ad loaded']);
  });

  it('answers 20 concurrent session requests with 5 sessions and 15 429s, and leaves no Chromium behind', async () => {
    const api = new HostedApi(server.url, KEY, 60_000);
    // Asked once each (the client's createSession would ask the refused ones again, within its deadline).
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => createOnce(api)));
    const created = outcomes
      .filter((outcome) => outcome.status === 'fulfilled')
      .map((outcome) => (outcome as PromiseFulfilledResult<{ id: string }>).value);
    const refused = outcomes
      .filter((outcome) => outcome.status === 'rejected')
      .map((outcome) => (outcome as PromiseRejectedResult).reason as HostedServiceError);
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

describe('server-side extract and its cache', () => {
  const model = () => ({ modelName: 'openai/gpt-4.1-mini', apiKey: MODEL_KEY, baseURL: fake.url });
  const linkId = (request: FakeRequest, name: string) => new RegExp(`\\[((?:\\d+-)?\\d+)\\] link: ${name}`).exec(request.user)![1]!;

  it('answers MISS, then HIT without asking the model again, and MISS once the page changed', async () => {
    fake.reset();
    fake.script((request) =>
      request.schema && JSON.stringify(request.schema).includes('"link"')
        ? { json: { title: 'Tendril Shop', link: linkId(request, 'Details of Widget A') } }
        : { json: { extraction: 'three widgets' } },
    );
    const sdk = new Sdk({ ...clientOptions(), model: model() });
    try {
      await sdk.init();
      const page = sdk.context.pages()[0]!;
      await page.goto(fixtures.a.url('extract-shop.html'));
      expect(await sdk.extract('How many widgets?')).toEqual({ extraction: 'three widgets', cacheStatus: 'MISS' });
      // The server's model request counts in the client's metrics, as a local one does.
      const counted = { operations: 1, modelCalls: 1, promptTokens: fake.requests[0]!.promptTokens };
      expect(sdk.metrics.extract).toMatchObject(counted);
      expect(sdk.metrics.extract.completionTokens).toBeGreaterThan(0);
      expect(await sdk.extract('How many widgets?')).toEqual({ extraction: 'three widgets', cacheStatus: 'HIT' });
      expect(fake.requests).toHaveLength(1);
      // A HIT asked no model: nothing more is counted.
      expect(sdk.metrics.extract).toMatchObject(counted);
      // The key reached the model from the server, and only through its header.
      expect(fake.requests[0]!.headers.authorization).toBe(`Bearer ${MODEL_KEY}`);

      const schema = z.object({ title: z.string(), link: z.string().url() });
      const first = await sdk.extract('Title and first link', schema);
      expect(first).toEqual({ title: 'Tendril Shop', link: `${fixtures.a.origin}/products/widget-a?ref=list`, cacheStatus: 'MISS' });
      expect(await sdk.extract('Title and first link', schema)).toMatchObject({ cacheStatus: 'HIT' });
      expect(fake.requests).toHaveLength(2);

      await page.evaluate(() => {
        document.querySelector('p')!.textContent = 'Closed on Sundays.';
      });
      expect(await sdk.extract('Title and first link', schema)).toMatchObject({ cacheStatus: 'MISS' });
      expect(fake.requests).toHaveLength(3);

      // serverCache: false for one call: no cache, no cacheStatus.
      const fresh = await sdk.extract('Title and first link', schema, { serverCache: false });
      expect(fresh).toEqual({ title: 'Tendril Shop', link: `${fixtures.a.origin}/products/widget-a?ref=list` });
      expect(fake.requests).toHaveLength(4);
    } finally {
      await sdk.close();
    }
  });

  it('with serverCache: false on the constructor, never uses the cache nor says cacheStatus', async () => {
    fake.reset();
    fake.script(() => ({ json: { extraction: 'x' } }));
    const sdk = new Sdk({ ...clientOptions(), model: model(), serverCache: false });
    try {
      await sdk.init();
      await sdk.context.pages()[0]!.goto(fixtures.a.url('extract-shop.html'));
      expect(await sdk.extract('Anything?')).toEqual({ extraction: 'x' });
      expect(await sdk.extract('Anything?')).toEqual({ extraction: 'x' });
      expect(fake.requests).toHaveLength(2);
    } finally {
      await sdk.close();
    }
  });

  it('raises the same errors as locally, and refuses an invalid schema with a 4xx JSON error', async () => {
    fake.reset();
    fake.script(() => ({ json: { title: 'T', link: 'https://invented.example/' } }));
    const sdk = new Sdk({ ...clientOptions(), model: model() });
    try {
      await sdk.init();
      await sdk.context.pages()[0]!.goto(fixtures.a.url('extract-shop.html'));
      const error = await sdk.extract('Title and link', z.object({ title: z.string(), link: z.string().url() })).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SchemaValidationError);
      expect((error as Error).message).toMatch(/not on the page/);
      const id = server.sessions.runningIds()[0]!;
      const response = await fetch(`${server.url}/v1/sessions/${id}/extract`, {
        method: 'POST',
        headers: { [HEADERS.apiKey]: KEY, [HEADERS.modelApiKey]: MODEL_KEY, 'content-type': 'application/json' },
        body: JSON.stringify({
          instruction: 'x',
          model: 'openai/gpt-4.1-mini',
          schema: { type: 'object', properties: { when: { type: 'date' } } },
        }),
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/"date"/);
    } finally {
      await sdk.close();
    }
  });
});

describe('server-side act, observe and navigate', () => {
  const model = () => ({ modelName: 'openai/gpt-4.1-mini', apiKey: MODEL_KEY, baseURL: fake.url });
  const idOf = (request: FakeRequest, role: string, name: string) => {
    const match = new RegExp(`\\[((?:\\d+-)?\\d+)\\] ${role}: ${name}`).exec(request.user);
    if (!match) throw new Error(`no ${role} "${name}" in the prompt`);
    return match[1]!;
  };
  const choose =
    (role: string, name: string, method: string, args: string[] = []) =>
    (request: FakeRequest) => ({
      json: { elementId: idOf(request, role, name), method, arguments: args, description: `${method} ${name}` },
    });
  const state = (page: { evaluate(fn: string): Promise<unknown> }) => page.evaluate(`document.getElementById('top-state').textContent`);

  it('acts on the server, replays a cached action for the same page, and keeps variables out of model and cache', async () => {
    fake.reset();
    const sdk = new Sdk({ ...clientOptions(), model: model() });
    try {
      await sdk.init();
      const page = sdk.context.pages()[0]!;
      await page.goto(fixtures.a.url('act.html'));
      fake.script(choose('button', 'Top button', 'click'));
      const result = await sdk.act('click the top button');
      expect(result).toMatchObject({
        success: true,
        actions: [{ method: 'click', selector: expect.stringMatching(/^xpath=\/html\/body\//) }],
      });
      expect(await state(page)).toBe('top clicked 1');
      expect(fake.requests).toHaveLength(1);
      expect(fake.requests[0]!.headers.authorization).toBe(`Bearer ${MODEL_KEY}`);
      const counted = { operations: 1, modelCalls: 1, promptTokens: fake.requests[0]!.promptTokens };
      expect(sdk.metrics.act).toMatchObject(counted);

      // The same page again: the server performs the action it chose before, without the model.
      await page.goto(fixtures.a.url('act.html'));
      expect(await sdk.act('click the top button')).toMatchObject({ success: true, message: expect.stringMatching(/from the cache/) });
      expect(await state(page)).toBe('top clicked 1');
      expect(fake.requests).toHaveLength(1);
      expect(sdk.metrics.act).toMatchObject(counted);
      // ...unless the call bypasses the cache.
      await sdk.act('click the top button', { serverCache: false });
      expect(await state(page)).toBe('top clicked 2');
      expect(fake.requests).toHaveLength(2);
      // Without the cache the answer still says what the model used.
      expect(sdk.metrics.act).toMatchObject({
        operations: 2,
        modelCalls: 2,
        promptTokens: counted.promptTokens + fake.requests[1]!.promptTokens,
      });

      fake.script(choose('textbox', 'Name', 'fill', ['%who%']));
      await page.goto(fixtures.a.url('act.html'));
      const filled = await sdk.act('write the name', { variables: { who: 'Ada Lovelace' } });
      expect(filled.actions[0]!.arguments).toEqual(['%who%']);
      expect(await page.evaluate(`document.getElementById('name').value`)).toBe('Ada Lovelace');
      await page.goto(fixtures.a.url('act.html'));
      // Replayed from the cache with other values: the placeholder was cached, not the value.
      await sdk.act('write the name', { variables: { who: 'Grace Hopper' } });
      expect(await page.evaluate(`document.getElementById('name').value`)).toBe('Grace Hopper');
      expect(fake.requests).toHaveLength(3);
      expect(JSON.stringify(fake.requests.map((request) => request.body))).not.toMatch(/Ada|Grace/);
    } finally {
      await sdk.close();
    }
  });

  it('observes on the server, replays an observed action there without a model, and fails like locally', async () => {
    fake.reset();
    const sdk = new Sdk({ ...clientOptions(), model: model() });
    try {
      await sdk.init();
      const page = sdk.context.pages()[0]!;
      await page.goto(fixtures.a.url('act.html'));
      fake.script((request) => ({
        json: {
          elements: [{ elementId: idOf(request, 'button', 'Top button'), description: 'the top button', method: 'click', arguments: [] }],
        },
      }));
      const observed = await sdk.observe('buttons to click');
      expect(observed).toEqual([
        { selector: expect.stringMatching(/^xpath=/), description: 'the top button', method: 'click', arguments: [] },
      ]);
      expect(await sdk.observe('buttons to click')).toEqual(observed);
      expect(fake.requests).toHaveLength(1);

      expect(await sdk.act(observed[0]!)).toMatchObject({ success: true });
      expect(await state(page)).toBe('top clicked 1');
      expect(fake.requests).toHaveLength(1);

      // The model names an element that is not there, twice: the server's ActionFailedError, here.
      fake.script(() => ({ json: { elementId: '0-99999', method: 'click', arguments: [], description: 'nothing' } }));
      const error = await sdk.act('click the missing button', { serverCache: false }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ActionFailedError);
      expect(fake.requests).toHaveLength(3);
      // The session is still usable.
      expect(await sdk.act(observed[0]!)).toMatchObject({ success: true });
      expect(await state(page)).toBe('top clicked 2');
    } finally {
      await sdk.close();
    }
  });

  it('navigates a session page over REST, answering the URL it reached as the stream result', async () => {
    const sdk = new Sdk(clientOptions());
    try {
      await sdk.init();
      const page = sdk.context.pages()[0]!;
      expect(server.sessions.runningIds()).toHaveLength(1);
      const id = server.sessions.runningIds()[0]!;
      const response = await fetch(`${server.url}/v1/sessions/${id}/navigate`, {
        method: 'POST',
        headers: { [HEADERS.apiKey]: KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ url: fixtures.b.url('act.html'), pageId: page.targetId }),
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/event-stream');
      const events = (await response.text())
        .split('\n\n')
        .filter(Boolean)
        .map((block) => JSON.parse(block.replace(/^data: /, '')));
      expect(events.at(-1)).toEqual({ type: 'result', data: { url: fixtures.b.url('act.html') } });
      expect(page.url()).toBe(fixtures.b.url('act.html'));

      const bad = await fetch(`${server.url}/v1/sessions/${id}/navigate`, {
        method: 'POST',
        headers: { [HEADERS.apiKey]: KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ url: 42 }),
      });
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { error: { code: string } }).error.code).toBe('bad_request');
    } finally {
      await sdk.close();
    }
  });
});
