// Admission control of the hosted server: at most HOSTED_MAX_STARTING browsers start at once, a
// bounded queue waits its turn, and whoever would wait in vain gets 503 with Retry-After at once;
// the env "HOSTED" client asks again within its own deadline, and says "busy" when that passes,
// never "timed out". All real: the server, its Chromium; the starts are held at a gate (a FIFO the
// browser's launch command reads before it execs Chromium), so the test decides when each start
// goes on instead of guessing how long one takes.

import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEADERS } from '../../protocol/index.js';
import { readServerConfig } from '../../src/hosted/server/config.js';
import { startHostedServer, type HostedServer } from '../../src/hosted/server/http.js';
import { HostedServiceError, Sdk } from '../../src/index.js';
import { Logger } from '../../src/logger.js';
import { CHROME, HOSTED_TEST_ENV, TEST_ARGS } from '../helpers.js';

const KEY = 'admission-test-key-41aa';
let dir: string;
let gate: string;
let server: HostedServer;

/** Lets one held start go on (resolves once its launch command passed the gate). */
async function openGate(): Promise<void> {
  const writer = await open(gate, 'w');
  await writer.close();
}

/** Resolves once the server's admission shows `starting` starts and `queued` waiting requests. */
function admissionIs(starting: number, queued: number): Promise<void> {
  const admission = server.sessions.admission;
  return new Promise((resolve) => {
    const check = () => {
      if (admission.starting !== starting || admission.queued !== queued) return;
      admission.off('change', check);
      resolve();
    };
    admission.on('change', check);
    check();
  });
}

async function post(
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<{ status: number; retryAfter: string | null; body: { id?: string; error?: { code: string; message: string } } }> {
  const response = await fetch(`${server.url}/v1/sessions`, {
    method: 'POST',
    headers: { [HEADERS.apiKey]: KEY, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ projectId: 'p' }),
    signal,
  });
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: (await response.json()) as never };
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'tendril-admission-'));
  gate = path.join(dir, 'gate');
  execFileSync('mkfifo', [gate]);
  const launcher = path.join(dir, 'chrome-at-gate');
  writeFileSync(launcher, `#!/bin/sh\ncat '${gate}' >/dev/null\nexec '${CHROME}' "$@"\n`);
  chmodSync(launcher, 0o755);
  server = await startHostedServer(
    readServerConfig({
      ...HOSTED_TEST_ENV,
      PORT: '0',
      HOSTED_API_KEYS: KEY,
      MAX_SESSIONS: '6',
      HOSTED_MAX_STARTING: '1',
      HOSTED_START_QUEUE: '1',
      CHROME_PATH: launcher,
      CHROME_ARGS: TEST_ARGS.join(' '),
    }),
    new Logger({ verbose: 0, disablePino: true }),
  );
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('admission of session starts', () => {
  it('starts one browser at a time, queues one request, and answers the others 503 with Retry-After at once; a client that leaves the queue starts nothing', async () => {
    const first = post();
    await admissionIs(1, 0);
    const second = post();
    await admissionIs(1, 1);
    // The queue is full: refused at once, saying why and when to come back.
    const third = await post();
    expect(third.status).toBe(503);
    expect(third.body.error?.code).toBe('unavailable');
    expect(third.body.error?.message).toMatch(
      /busy starting browsers: 1 browsers are starting and 1 requests wait for their turn \(HOSTED_START_QUEUE\)/,
    );
    expect(Number(third.retryAfter)).toBeGreaterThanOrEqual(1);
    await openGate();
    expect((await first).status).toBe(201);
    // The queued one starts next, one at a time.
    await admissionIs(1, 0);
    // A request that says it waits less than a start would take is told so at once.
    const hurried = await post({ [HEADERS.maxWait]: '500' });
    expect(hurried.status).toBe(503);
    expect(hurried.body.error?.message).toMatch(/later than the 500 ms this request waits allows/);
    // A client that gives up while queued leaves the queue, and no browser starts for it.
    const leaving = new AbortController();
    const left = post({}, leaving.signal).catch((error: Error) => error);
    await admissionIs(1, 1);
    leaving.abort();
    await admissionIs(1, 0);
    expect(await left).toBeInstanceOf(Error);
    await openGate();
    expect((await second).status).toBe(201);
    await admissionIs(0, 0);
    expect(server.sessions.activeCount).toBe(2);
    for (const id of server.sessions.runningIds())
      await fetch(`${server.url}/v1/sessions/${id}`, {
        method: 'POST',
        headers: { [HEADERS.apiKey]: KEY, 'content-type': 'application/json' },
        body: '{"status":"REQUEST_RELEASE"}',
      });
    expect(server.sessions.activeCount).toBe(0);
  }, 90_000);

  it('the client asks a busy server again within its deadline and gets a session; with too short a deadline it gets the busy answer, not a timeout', async () => {
    const hold = post();
    await admissionIs(1, 0);
    const queued = post();
    await admissionIs(1, 1);
    // Full queue: a client that waits 4 s is told to come back, and gives up with that answer.
    const hurried = new Sdk({
      env: 'HOSTED',
      apiKey: KEY,
      projectId: 'p',
      hostedApiUrl: server.url,
      verbose: 0,
      disablePino: true,
      localBrowserLaunchOptions: { connectTimeoutMs: 4000 },
    });
    const error = await hurried.init().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HostedServiceError);
    expect((error as HostedServiceError).status).toBe(503);
    expect((error as Error).message).toMatch(/busy starting browsers.*within the 4000 ms this client waits for a session/);
    // A patient client is refused too at first, asks again after Retry-After, and gets its session
    // once the starts ahead of it are through.
    let refused!: () => void;
    const askedAgain = new Promise<void>((resolve) => (refused = resolve));
    const patient = new Sdk({
      env: 'HOSTED',
      apiKey: KEY,
      projectId: 'p',
      hostedApiUrl: server.url,
      verbose: 1,
      disablePino: true,
      logger: (line) => line.message.startsWith('The hosted service is busy; asking again') && refused(),
      localBrowserLaunchOptions: { connectTimeoutMs: 60_000 },
    });
    const ready = patient.init();
    await askedAgain;
    await openGate();
    expect((await hold).status).toBe(201);
    await openGate();
    expect((await queued).status).toBe(201);
    await openGate();
    await ready;
    await patient.context.pages()[0]!.goto('data:text/html,<title>in</title>');
    expect(await patient.context.pages()[0]!.title()).toBe('in');
    await patient.close();
    for (const id of server.sessions.runningIds())
      await fetch(`${server.url}/v1/sessions/${id}`, {
        method: 'POST',
        headers: { [HEADERS.apiKey]: KEY, 'content-type': 'application/json' },
        body: '{"status":"REQUEST_RELEASE"}',
      });
    expect(server.sessions.activeCount).toBe(0);
  }, 120_000);

  it('answers within the time the client waits even while its browser still starts, and ends the session started for nobody', async () => {
    const budget = server.sessions.admission.estimateMs + 1000;
    const answer = await post({ [HEADERS.maxWait]: String(budget) });
    expect(answer.status).toBe(503);
    expect(answer.body.error?.message).toMatch(new RegExp(`the browser did not start within the ${budget} ms this request waits`));
    expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
    // The start was under way (held at the gate); once through, its session is ended at once.
    expect(server.sessions.admission.starting).toBe(1);
    await openGate();
    await admissionIs(0, 0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(server.sessions.activeCount).toBe(0);
    expect(server.sessions.runningIds()).toEqual([]);
  }, 60_000);
});
