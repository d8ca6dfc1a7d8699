// Two hosted server instances sharing one Redis (a real redis-server): what one computed, the
// other answers from the cache, as behind a load balancer.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostedServer } from '../../src/hosted/server/http.js';
import { InvalidOptionError, Sdk } from '../../src/index.js';
import { startFixtureServers, type FixtureServers } from '../fixtures/server.js';
import { HOSTED_TEST_ENV } from '../helpers.js';
import { startFakeModel, type FakeModel } from '../support/fake-model.js';
import { startTestHostedServer } from '../support/hosted.js';
import { freePort, startRedis, type RedisServer } from '../support/redis.js';

const KEY = 'redis-test-key';
let redis: RedisServer;
let fixtures: FixtureServers;
let fake: FakeModel;
const servers: HostedServer[] = [];

const start = (redisUrl: string) => startTestHostedServer({ ...HOSTED_TEST_ENV, HOSTED_API_KEYS: KEY, REDIS_URL: redisUrl });

beforeAll(async () => {
  [redis, fixtures, fake] = await Promise.all([freePort().then((port) => startRedis(port)), startFixtureServers(), startFakeModel()]);
  servers.push(...(await Promise.all([start(`redis://127.0.0.1:${redis.port}`), start(`redis://127.0.0.1:${redis.port}`)])));
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await Promise.all([redis?.stop(), fixtures?.close(), fake?.close()]);
});

describe('a Redis-backed result cache', () => {
  it('is shared by two server instances: a MISS on one is a HIT on the other, with one model request', async () => {
    fake.reset();
    fake.script(() => ({ json: { extraction: 'three widgets' } }));
    const extractOn = async (server: HostedServer) => {
      const sdk = new Sdk({
        env: 'HOSTED',
        apiKey: KEY,
        projectId: 'p',
        hostedApiUrl: server.url,
        model: { modelName: 'openai/gpt-4.1-mini', apiKey: 'sk-redis', baseURL: fake.url },
        verbose: 0,
        disablePino: true,
      });
      try {
        await sdk.init();
        await sdk.context.pages()[0]!.goto(fixtures.a.url('extract-shop.html'));
        return await sdk.extract('How many widgets?');
      } finally {
        await sdk.close();
      }
    };
    expect(await extractOn(servers[0]!)).toEqual({ extraction: 'three widgets', cacheStatus: 'MISS' });
    expect(await extractOn(servers[1]!)).toEqual({ extraction: 'three widgets', cacheStatus: 'HIT' });
    expect(fake.requests).toHaveLength(1);
    // The result is in Redis itself, under the cache's prefix.
    expect(Number(await redis.cli('DBSIZE'))).toBeGreaterThan(0);
  });

  it('keeps a server with an unreachable REDIS_URL from starting, naming host and port', async () => {
    const port = await freePort();
    const error = await start(`redis://:secret-pw@127.0.0.1:${port}`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect((error as Error).message).toContain(`127.0.0.1:${port}`);
    expect((error as Error).message).not.toContain('secret-pw');
  });
});
