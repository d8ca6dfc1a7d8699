// The reference serverless function (examples/serverless), end to end and all real: the local hosted
// server with real Chromium, the fake model server, and the function served by
// `npm run serve:function` in a child process: /api/run as the Node.js runtime runs it, and
// /api/run-edge inside Vercel's edge-runtime.

import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostedServer } from '../../src/hosted/server/http.js';
import { startFixtureServers, type FixtureServers } from '../fixtures/server.js';
import { HOSTED_TEST_ENV } from '../helpers.js';
import { runScript, waitForLine } from '../support/child.js';
import { startFakeModel, type FakeModel, type FakeRequest } from '../support/fake-model.js';
import { startTestHostedServer } from '../support/hosted.js';

const KEY = 'function-test-key';
const CRON_SECRET = 'cron-secret-2b7d';
let hosted: HostedServer;
let fixtures: FixtureServers;
let fake: FakeModel;
const children: ChildProcess[] = [];

/** Starts `npm run serve:function`'s script with `env` and resolves with its URL. */
async function serveFunction(env: Record<string, string>): Promise<string> {
  const started = runScript('scripts/serve-function.ts', [], { PORT: '0', ...env });
  children.push(started.child);
  const [, url] = await waitForLine(started, /listening on (http:\/\/\S+)/);
  return url!;
}

const functionEnv = (extra: Record<string, string> = {}) => ({
  HOSTED_API_KEY: KEY,
  HOSTED_PROJECT_ID: 'proj-fn',
  HOSTED_API_URL: hosted.url,
  MODEL_API_KEY: 'sk-function-test',
  MODEL_BASE_URL: fake.url,
  MODEL_NAME: 'openai/gpt-4.1-mini',
  TARGET_URL: fixtures.a.url('act.html'),
  ACT_INSTRUCTION: 'click the top button',
  EXTRACT_INSTRUCTION: 'What does the line under the top button say?',
  ...extra,
});

/** The model: picks the top button for act, and for extract reads the state line from the prompt. */
function script(request: FakeRequest) {
  if (JSON.stringify(request.schema).includes('elementId')) {
    return {
      json: {
        elementId: /\[((?:\d+-)?\d+)\] button: Top button/.exec(request.user)![1],
        method: 'click',
        arguments: [],
        description: 'the top button',
      },
    };
  }
  return { json: { value: /top clicked \d+|top idle/.exec(request.user)?.[0] ?? 'not found' } };
}

async function call(
  url: string,
  init: RequestInit = {},
): Promise<{ status: number; body: { ok: boolean; data?: unknown; error?: string } }> {
  const response = await fetch(url, { method: 'POST', ...init });
  return { status: response.status, body: (await response.json()) as { ok: boolean; data?: unknown; error?: string } };
}

beforeAll(async () => {
  [fixtures, fake] = await Promise.all([startFixtureServers(), startFakeModel()]);
  hosted = await startTestHostedServer({ ...HOSTED_TEST_ENV, HOSTED_API_KEYS: KEY, MAX_SESSIONS: '4' });
});
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await Promise.all(children.filter((child) => child.exitCode === null && child.signalCode === null).map((child) => once(child, 'exit')));
  await hosted?.close();
  await Promise.all([fixtures?.close(), fake?.close()]);
});

describe('the reference function', () => {
  it('answers 200 { ok: true, data } with what the model extracted after the act(), in Node and in the edge runtime', async () => {
    // One function server per runtime, with instructions of their own: the hosted server's cache
    // would otherwise answer the second runtime without asking the model.
    const routes = await Promise.all(
      (['/api/run', '/api/run-edge'] as const).map(async (route) => ({
        route,
        base: await serveFunction(
          functionEnv({
            ACT_INSTRUCTION: `click the top button (${route})`,
            EXTRACT_INSTRUCTION: `What does the state line say? (${route})`,
          }),
        ),
      })),
    );
    for (const { route, base } of routes) {
      fake.reset();
      fake.script(script);
      const result = await call(base + route);
      expect({ route, ...result }).toEqual({ route, status: 200, body: { ok: true, data: 'top clicked 1' } });
      // One act and one extract request, made by the hosted server with the key the function sent.
      expect(fake.requests).toHaveLength(2);
      expect(fake.requests.map((request) => request.headers.authorization)).toEqual(['Bearer sk-function-test', 'Bearer sk-function-test']);
      expect(fake.requests[0]!.user).toContain(`click the top button (${route})`);
      // GET is how the platform's scheduler calls; the same page again is answered by the server's cache.
      fake.reset();
      fake.script(script);
      expect(await call(base + route, { method: 'GET' })).toEqual({ status: 200, body: { ok: true, data: 'top clicked 1' } });
      expect(fake.requests).toHaveLength(0);
    }
    // Every session the function opened was released by its close().
    expect(hosted.sessions.activeCount).toBe(0);
    // Two function servers (each bundling both functions) and four hosted sessions.
  }, 90_000);

  it('with MODEL_BASE_URL and no MODEL_API_KEY, the model server there is asked for no key, in Node and in the edge runtime', async () => {
    // Neither the function nor the hosted server (this process) has a provider key.
    const saved = process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_API_KEY;
    try {
      for (const route of ['/api/run', '/api/run-edge']) {
        const base = await serveFunction(
          functionEnv({
            MODEL_API_KEY: '',
            OPENAI_API_KEY: '',
            // Instructions of their own, so that the server's cache answers neither.
            ACT_INSTRUCTION: `click the top button (keyless ${route})`,
            EXTRACT_INSTRUCTION: `What does the state line say? (keyless ${route})`,
          }),
        );
        fake.reset();
        fake.script(script);
        expect({ route, ...(await call(base + route)) }).toEqual({ route, status: 200, body: { ok: true, data: 'top clicked 1' } });
        expect(fake.requests.map((request) => request.headers.authorization)).toEqual(['Bearer unused', 'Bearer unused']);
      }
    } finally {
      if (saved !== undefined) process.env.OPENAI_API_KEY = saved;
    }
  }, 90_000);

  it('answers 500 { ok: false, error } naming the cause when the hosted key is wrong, in Node and in the edge runtime', async () => {
    const base = await serveFunction(functionEnv({ HOSTED_API_KEY: 'wrong-key' }));
    for (const route of ['/api/run', '/api/run-edge']) {
      const result = await call(base + route);
      expect(result.status).toBe(500);
      expect(result.body.ok).toBe(false);
      expect(result.body.error).toMatch(/401/);
      expect(result.body.error).toMatch(/HOSTED_API_KEY/);
      expect(result.body.error).not.toContain('wrong-key');
    }
  });

  it('with CRON_SECRET set, answers 401 without the bearer and 200 with it', async () => {
    const base = await serveFunction(functionEnv({ CRON_SECRET }));
    for (const route of ['/api/run', '/api/run-edge']) {
      expect(await call(base + route, { method: 'GET' })).toMatchObject({ status: 401, body: { ok: false } });
      expect(await call(base + route, { headers: { authorization: 'Bearer not-the-secret' } })).toMatchObject({ status: 401 });
      fake.reset();
      fake.script(script);
      expect(await call(base + route, { method: 'GET', headers: { authorization: `Bearer ${CRON_SECRET}` } })).toEqual({
        status: 200,
        body: { ok: true, data: 'top clicked 1' },
      });
    }
  });

  it('ships a vercel.json that parses, with maxDuration 60 for api/run.ts and a five-field cron on /api/run', () => {
    const config = JSON.parse(readFileSync(path.join('examples', 'serverless', 'vercel.json'), 'utf8')) as {
      functions: Record<string, { maxDuration: number }>;
      crons: Array<{ path: string; schedule: string }>;
    };
    expect(config.functions['api/run.ts']).toEqual({ maxDuration: 60 });
    expect(config.crons).toHaveLength(1);
    expect(config.crons[0]!.path).toBe('/api/run');
    const fields = config.crons[0]!.schedule.split(' ');
    expect(fields).toHaveLength(5);
    for (const field of fields) expect(field).toMatch(/^(\*|\d+(-\d+)?)(\/\d+)?(,(\*|\d+(-\d+)?)(\/\d+)?)*$/);
    const pkg = JSON.parse(readFileSync(path.join('examples', 'serverless', 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(pkg.dependencies.tendril).toBe('>=3.0.0 <4.0.0');
  });
});
