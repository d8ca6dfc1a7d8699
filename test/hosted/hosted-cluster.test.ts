// Several hosted-server instances as a user runs them: `tendril hosted serve` processes sharing one
// Redis (a real redis-server) behind nginx (Debian's, with examples/container/nginx.conf) in plain
// round-robin, driven by the client over the balancer's one URL. Sessions run concurrently, each
// request landing on whichever instance nginx picks; one instance is SIGKILLed in the middle.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { HostedApi } from '../../src/hosted/client/api.js';
import { ConnectionClosedError, HostedServiceError, Sdk, SdkError } from '../../src/index.js';
import { startFixtureServers, type FixtureServers } from '../fixtures/server.js';
import type { Run } from '../support/child.js';
import { startBalancer, startInstance, type Instance } from '../support/hosted-instances.js';
import { startFakeModel, type FakeModel } from '../support/fake-model.js';
import type { Nginx } from '../support/nginx.js';
import { freePort, startRedis, type RedisServer } from '../support/redis.js';

const KEY = 'cluster-test-key';
/** Concurrent sessions in each round. */
const SESSIONS = 8;
/** A light page (no frames): eight sessions at once share two cores with the rest of the suite. */
const PAGE = 'cluster.html';
/** Rounds before the kill: the acceptance ran three (TENDRIL_CLUSTER_ROUNDS=3). */
const ROUNDS = Number(process.env.TENDRIL_CLUSTER_ROUNDS ?? 1);

let redis: RedisServer;
let fixtures: FixtureServers;
let fake: FakeModel;
let nginx: Nginx;
/** The instances' temporary folder: every session folder (and so every session browser's profile) is in it. */
let tmp: string;
const instances: Instance[] = [];
/** Every instance process, also one that failed to start: none may outlive the test. */
const started: Run[] = [];

function startOne(port: number, publicUrl: string): Promise<Instance> {
  return startInstance(
    port,
    {
      HOSTED_API_KEYS: KEY,
      HOSTED_SIGNING_SECRET: 'cluster-test-signing-secret',
      REDIS_URL: `redis://127.0.0.1:${redis.port}`,
      PUBLIC_URL: publicUrl,
      MAX_SESSIONS: String(SESSIONS),
      TMPDIR: tmp,
    },
    started,
  );
}

/** The session's owner, as the registry in Redis says. */
async function ownerOf(sessionId: string): Promise<string> {
  return redis.cli('GET', `tendril:cluster:session:${sessionId}`);
}

/** A client of the balancer, and the id of its session (from its log line) once it has one. */
function client(): { sdk: Sdk; id: () => string } {
  let id: string | undefined;
  const sdk = new Sdk({
    env: 'HOSTED',
    apiKey: KEY,
    projectId: 'cluster',
    hostedApiUrl: nginx.url,
    model: { modelName: 'openai/gpt-4.1-mini', apiKey: 'sk-cluster', baseURL: fake.url },
    verbose: 1,
    disablePino: true,
    logger: (line) => {
      if (line.message === 'Hosted session created') id = line.auxiliary?.session as string;
    },
  });
  return { sdk, id: () => id! };
}

/** Everything a session does: page, page text, extract(instruction) from the cache, act, close. */
async function fullSession(): Promise<string> {
  const { sdk, id } = client();
  try {
    await sdk.init();
    const page = sdk.context.pages()[0]!;
    await page.goto(fixtures.a.url(PAGE));
    const { pageText } = await sdk.extract();
    expect(pageText).toContain('Widget A costs 12.50');
    expect(await sdk.extract('How many widgets?')).toEqual({ extraction: 'three widgets', cacheStatus: 'HIT' });
    await sdk.act({ elementId: /\[(\d+)\] button: Buy a widget/.exec(pageText)![1]! });
    expect(await page.evaluate(() => document.getElementById('state')!.textContent)).toBe('bought 1');
    return await ownerOf(id());
  } finally {
    await sdk.close();
  }
}

/** Session folders and the processes of any browser still using one. */
function leftovers(): { folders: string[]; processes: string[] } {
  const folders = readdirSync(tmp).filter((name) => name.startsWith('tendril-session-'));
  const processes = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(tmp));
  return { folders, processes };
}

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'tendril-cluster-'));
  const [redisPort, nginxPort, ...ports] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  [redis, fixtures, fake] = await Promise.all([startRedis(redisPort!), startFixtureServers(), startFakeModel()]);
  const publicUrl = `http://127.0.0.1:${nginxPort}`;
  instances.push(...(await Promise.all(ports.map((port) => startOne(port, publicUrl)))));
  // The documented configuration, with the instances' loopback addresses and a loopback port.
  nginx = await startBalancer(nginxPort!, instances);
}, 60_000);

afterAll(async () => {
  for (const run of started) if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGTERM');
  await Promise.all(started.map((run) => run.exit));
  await Promise.all([nginx?.stop(), redis?.stop(), fixtures?.close(), fake?.close()]);
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('instances behind nginx in round-robin', () => {
  it('serve every session through any instance, share the cache, survive a SIGKILLed instance, and leave nothing behind', async () => {
    fake.reset();
    fake.script(() => ({ json: { extraction: 'three widgets' } }));
    // One MISS computes the answer; from then on every instance answers it from Redis.
    const { sdk: first, id: firstId } = client();
    await first.init();
    await first.context.pages()[0]!.goto(fixtures.a.url(PAGE));
    expect(await first.extract('How many widgets?')).toEqual({ extraction: 'three widgets', cacheStatus: 'MISS' });
    const computedBy = await ownerOf(firstId());
    await first.close();

    for (let round = 0; round < ROUNDS; round++) {
      const owners = await Promise.all(Array.from({ length: SESSIONS }, () => fullSession()));
      // Both instances ran sessions, so some HITs were served by the instance that did not compute the answer.
      expect(new Set(owners)).toEqual(new Set(instances.map((each) => each.id)));
      expect(owners.some((owner) => owner !== computedBy)).toBe(true);
    }
    expect(fake.requests).toHaveLength(1);

    // Sessions open on both instances, then one instance is killed outright.
    const [victim, survivor] = instances as [Instance, Instance];
    const open = await Promise.all(
      Array.from({ length: SESSIONS }, async () => {
        const { sdk, id } = client();
        await sdk.init();
        await sdk.context.pages()[0]!.goto(fixtures.a.url(PAGE));
        return { sdk, id: id(), owner: await ownerOf(id()) };
      }),
    );
    expect(new Set(open.map(({ owner }) => owner))).toEqual(new Set([victim.id, survivor.id]));
    victim.run.child.kill('SIGKILL');
    await victim.run.exit;
    // The survivor's sessions run on, whichever instance nginx asks; the victim's are lost at once.
    const api = new HostedApi(nginx.url, KEY, 10_000);
    for (const { id, owner } of open) {
      const state = await api.getSession(id).then(
        (session) => session.status,
        (error: unknown) => error,
      );
      if (owner === survivor.id) expect(state).toBe('RUNNING');
      else expect(state).toMatchObject({ status: 410, code: 'browser_gone' });
    }
    // A connectUrl that went through the victim to the survivor was cut with it, like through any hop that dies.
    const forwardedByVictim = (id: string) => victim.run.stderr().includes(`"session":"${id}","to":"${survivor.id}"`);
    const outcomes = await Promise.all(
      open.map(async ({ sdk, id, owner }) => {
        const result = await sdk.extract('How many widgets?').then(
          (value) => ({ value, error: undefined }),
          (error: unknown) => ({ value: undefined, error }),
        );
        await sdk.close();
        return { owner, cut: forwardedByVictim(id), ...result };
      }),
    );
    for (const outcome of outcomes) {
      if (outcome.owner === victim.id) {
        // The session is gone with its instance: a typed error (its connection closed, or 410 from REST), not a 404 or a hang.
        expect(outcome.error).toBeInstanceOf(SdkError);
        if (outcome.error instanceof HostedServiceError) expect([outcome.error.status, outcome.error.code]).toEqual([410, 'browser_gone']);
      } else if (!outcome.cut) {
        expect(outcome).toMatchObject({ value: { extraction: 'three widgets', cacheStatus: 'HIT' } });
      } else if (outcome.error) {
        expect(outcome.error).toBeInstanceOf(ConnectionClosedError);
      }
    }

    // New sessions all work on what is left.
    const owners = await Promise.all(Array.from({ length: SESSIONS }, () => fullSession()));
    expect(new Set(owners)).toEqual(new Set([survivor.id]));

    const health = (await (await fetch(`${nginx.url}/healthz`)).json()) as { sessions: number };
    expect(health.sessions).toBe(0);
    // The victim's browsers end with it (their launch wrapper removes their folders): nothing of any session is left.
    await vi.waitFor(() => expect(leftovers()).toEqual({ folders: [], processes: [] }), { timeout: 15_000, interval: 100 });
    expect(existsSync(tmp)).toBe(true);
    expect(nginx.errorLog()).not.toMatch(/no live upstreams/);
  }, 240_000);
});
