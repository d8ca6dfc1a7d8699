// An instance that stops answering without dying (SIGSTOP: a frozen VM, a debugger, a process
// swapped out) must not hold the sessions of the healthy instances: two `tendril hosted serve`
// processes, one Redis, nginx in round-robin with examples/container/nginx.conf, all real.

import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostedApi } from '../../src/hosted/client/api.js';
import { Sdk } from '../../src/index.js';
import { startFixtureServers, type FixtureServers } from '../fixtures/server.js';
import type { Run } from '../support/child.js';
import { startBalancer, startInstance, type Instance } from '../support/hosted-instances.js';
import type { Nginx } from '../support/nginx.js';
import { freePort, startRedis, type RedisServer } from '../support/redis.js';

const KEY = 'stopped-test-key';
/** nginx's proxy_read_timeout on operations in examples/container/nginx.conf. */
const STOPPED_READ_TIMEOUT_MS = 5000;
/** An act on a loaded machine (a click on a light page: about 100-400 ms here, measured). */
const ACT_MS = 2000;
let redis: RedisServer;
let fixtures: FixtureServers;
let nginx: Nginx;
let tmp: string;
let instances: Instance[];
const started: Run[] = [];

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'tendril-stopped-'));
  const [redisPort, nginxPort, ...ports] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  [redis, fixtures] = await Promise.all([startRedis(redisPort!), startFixtureServers()]);
  const env = {
    HOSTED_API_KEYS: KEY,
    HOSTED_SIGNING_SECRET: 'stopped-test-signing-secret',
    REDIS_URL: `redis://127.0.0.1:${redis.port}`,
    PUBLIC_URL: `http://127.0.0.1:${nginxPort}`,
    TMPDIR: tmp,
  };
  instances = await Promise.all(ports.map((port) => startInstance(port, env, started)));
  nginx = await startBalancer(nginxPort!, instances);
}, 60_000);

afterAll(async () => {
  for (const run of started) {
    if (run.child.exitCode !== null || run.child.signalCode !== null) continue;
    run.child.kill('SIGCONT');
    run.child.kill('SIGTERM');
  }
  await Promise.all(started.map((run) => run.exit));
  await Promise.all([nginx?.stop(), redis?.stop(), fixtures?.close()]);
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('one of two instances stopped (SIGSTOP)', () => {
  it("does not hold the healthy instance's sessions: act answers quickly whichever instance nginx picks", async () => {
    let id: string | undefined;
    const sdk = new Sdk({
      env: 'HOSTED',
      apiKey: KEY,
      projectId: 'stopped',
      hostedApiUrl: nginx.url,
      verbose: 1,
      disablePino: true,
      logger: (line) => {
        if (line.message === 'Hosted session created') id = line.auxiliary?.session as string;
      },
    });
    await sdk.init();
    try {
      const page = sdk.context.pages()[0]!;
      await page.goto(fixtures.a.url('cluster.html'));
      const owner = await redis.cli('GET', `tendril:cluster:session:${id!}`);
      const victim = instances.find((each) => each.id !== owner)!;
      // REST alone, as the client: its connectUrl may itself run through the instance stopped below.
      const api = new HostedApi(nginx.url, KEY, 10_000);
      const action = { selector: "xpath=//button[@id='buy']", method: 'click' };
      victim.run.child.kill('SIGSTOP');
      try {
        const times: number[] = [];
        // Round-robin: of four requests, two go to the stopped instance first.
        for (let round = 0; round < 4; round++) {
          const before = Date.now();
          await api.operation(id!, 'act', { action }, { bypassCache: true, timeoutMs: 30_000, onLog: () => undefined });
          times.push(Date.now() - before);
        }
        // Before, an act nginx gave the stopped instance waited as long as it stayed stopped. Now that
        // one costs nginx's read timeout for operations (5 s, examples/container/nginx.conf) on top of
        // the act itself, and the others the act alone (nginx then skips the silent instance for 10 s).
        for (const ms of times) expect(ms).toBeLessThan(STOPPED_READ_TIMEOUT_MS + ACT_MS);
        expect(times.filter((ms) => ms >= STOPPED_READ_TIMEOUT_MS).length).toBeLessThanOrEqual(1);
      } finally {
        victim.run.child.kill('SIGCONT');
      }
      // Each act was done once: the page counted four (the client's connectUrl may run through the stopped instance, so it is read after).
      expect(await page.evaluate(() => document.getElementById('state')!.textContent)).toBe('bought 4');
      // Through nginx the stream opens before the request is checked: a bad one still says its status.
      const bad = await api
        .operation(id!, 'act', {}, { bypassCache: true, timeoutMs: 10_000, onLog: () => undefined })
        .catch((error: unknown) => error);
      expect(bad).toMatchObject({ status: 400, code: 'bad_request' });
    } finally {
      await sdk.close();
    }
  }, 120_000);
});
