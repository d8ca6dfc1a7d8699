// The hosted server's Redis result cache against a real three-node Redis Cluster and a master
// found through Redis Sentinel (Debian's redis-server on loopback ports): keys spread over the
// nodes, shared between instances, ACL users on every node, and a node that hangs or dies.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/errors.js';
import { openResultCache } from '../../src/hosted/server/cache.js';
import { readServerConfig } from '../../src/hosted/server/config.js';
import { RedisCache, type RedisCacheOptions } from '../../src/hosted/server/redis.js';
import { readRedisConfig } from '../../src/hosted/server/redis-config.js';
import { Logger } from '../../src/logger.js';
import type { LogLine } from '../../src/types.js';
import { freePort, startRedis, startRedisCluster, startSentinel, type RedisCluster, type RedisServer } from '../support/redis.js';

const APP_PASSWORD = 'cluster-app-pw-not-for-logs';
/** An ACL user on every node; the default user stays open for redis-cli and cluster creation. */
const APP_USER = ['--user', 'app', 'on', `>${APP_PASSWORD}`, '~*', '&*', '+@all'];
const PREFIX = 'tendril:cache:';
const timeoutMs = 500;

let cluster: RedisCluster;
const open: RedisCache[] = [];

function recorder(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  return { logger: new Logger({ verbose: 2, disablePino: true, logger: (line) => lines.push(line) }), lines };
}

const clusterConfig = (env: Record<string, string> = {}) =>
  readRedisConfig({ REDIS_CLUSTER_NODES: cluster.seeds, REDIS_USERNAME: 'app', REDIS_PASSWORD: APP_PASSWORD, ...env })!;

async function connect(options: RedisCacheOptions = {}, logger = new Logger({ verbose: 0, disablePino: true })): Promise<RedisCache> {
  const cache = await RedisCache.connect(clusterConfig(), logger, { timeoutMs, ...options });
  open.push(cache);
  return cache;
}

/** The cache's keys (without the prefix) that this node holds, read from the node itself. */
async function keysOn(node: RedisServer): Promise<string[]> {
  const text = await node.cli('--scan', '--pattern', `${PREFIX}*`);
  return text ? text.split('\n').map((key) => key.slice(PREFIX.length)) : [];
}

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const start = performance.now();
  const result = await work();
  return [result, performance.now() - start];
}

beforeAll(async () => {
  // Without full coverage required, the live nodes keep serving their slots when one dies.
  cluster = await startRedisCluster(3, [...APP_USER, '--cluster-require-full-coverage', 'no']);
}, 60_000);
afterAll(async () => {
  await Promise.all(open.map((cache) => cache.close()));
  await cluster?.stop();
});

describe('RedisCache on a three-node Redis Cluster', () => {
  it('round-trips many keys, which land on every node, with the prefix and TTL', async () => {
    const cache = await connect({ ttlMs: 3600_000 });
    const keys = Array.from({ length: 120 }, (_, i) => `spread-${i}`);
    await Promise.all(keys.map((key, i) => cache.set(key, { i, text: `value ${i} ✓` })));
    expect(await Promise.all(keys.map((key) => cache.get(key)))).toEqual(keys.map((_, i) => ({ i, text: `value ${i} ✓` })));
    const held = await Promise.all(cluster.nodes.map(keysOn));
    // 120 keys over three nodes' slots: each node holds some, and together exactly these.
    for (const [i, onNode] of held.entries())
      expect(onNode.filter((key) => key.startsWith('spread-')).length, `node ${i}`).toBeGreaterThan(0);
    expect(
      held
        .flat()
        .filter((key) => key.startsWith('spread-'))
        .sort(),
    ).toEqual([...keys].sort());
    const owner = cluster.nodes[held.findIndex((onNode) => onNode.includes('spread-0'))]!;
    expect(await owner.cli('GET', `${PREFIX}spread-0`)).toBe('{"i":0,"text":"value 0 ✓"}');
    const ttl = Number(await owner.cli('PTTL', `${PREFIX}spread-0`));
    expect(ttl).toBeGreaterThan(3600_000 - 60_000);
    expect(ttl).toBeLessThanOrEqual(3600_000);
  });

  it('shares entries between two instances', async () => {
    const [first, second] = await Promise.all([connect(), connect()]);
    for (let i = 0; i < 30; i++) await first.set(`shared-${i}`, { from: 'first', i });
    for (let i = 0; i < 30; i++) expect(await second.get(`shared-${i}`)).toEqual({ from: 'first', i });
  });

  it('comes from the server configuration (REDIS_CLUSTER_NODES, REDIS_USERNAME, REDIS_PASSWORD)', async () => {
    const config = readServerConfig({
      HOSTED_API_KEYS: 'k',
      REDIS_CLUSTER_NODES: cluster.seeds,
      REDIS_USERNAME: 'app',
      REDIS_PASSWORD: APP_PASSWORD,
    });
    const cache = await openResultCache(config, new Logger({ verbose: 0, disablePino: true }));
    open.push(cache as RedisCache);
    expect(cache).toBeInstanceOf(RedisCache);
    await cache.set('from-config', [1, 2, 3]);
    expect(await cache.get('from-config')).toEqual([1, 2, 3]);
  });

  it('refuses at start a wrong ACL password, naming the nodes and never the password', async () => {
    const wrong = 'wrong-' + APP_PASSWORD;
    const { logger, lines } = recorder();
    const error = await RedisCache.connect(clusterConfig({ REDIS_PASSWORD: wrong }), logger, { timeoutMs }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect((error as Error).message).toMatch(/WRONGPASS/);
    expect((error as Error).message).toContain(`127.0.0.1:${cluster.nodes[0]!.port}`);
    expect((error as Error).message).not.toContain(wrong);
    expect(JSON.stringify(lines)).not.toContain(wrong);
  });

  // Last: it stops a node for good.
  it('answers misses within the deadline for a node that hangs or dies, and hits for the others', async () => {
    const { logger, lines } = recorder();
    const cache = await connect({}, logger);
    const keys = Array.from({ length: 60 }, (_, i) => `survive-${i}`);
    for (const key of keys) await cache.set(key, key);
    const held = await Promise.all(cluster.nodes.map(keysOn));
    const victim = cluster.nodes[0]!;
    const [lost, kept] = [
      held[0]!.filter((key) => key.startsWith('survive-')),
      held
        .slice(1)
        .flat()
        .filter((key) => key.startsWith('survive-')),
    ];
    expect(lost.length).toBeGreaterThan(0);
    expect(kept.length).toBeGreaterThan(0);

    victim.child.kill('SIGSTOP');
    try {
      const [got, elapsed] = await timed(() => cache.get(lost[0]!));
      expect(got).toBeUndefined();
      expect(elapsed).toBeLessThan(timeoutMs + 500);
      const [others, othersElapsed] = await timed(() => Promise.all(kept.map((key) => cache.get(key))));
      expect(others).toEqual(kept);
      expect(othersElapsed).toBeLessThan(timeoutMs);
    } finally {
      victim.child.kill('SIGCONT');
    }

    await victim.stop();
    const [after, elapsed] = await timed(() => Promise.all(keys.map((key) => cache.get(key))));
    expect(elapsed).toBeLessThan(timeoutMs + 500);
    expect(after).toEqual(keys.map((key) => (kept.includes(key) ? key : undefined)));
    // Writes to the dead node's slots are no-ops, not errors, and as quick.
    const [, setElapsed] = await timed(() => Promise.all(lost.map((key) => cache.set(key, 'again'))));
    expect(setElapsed).toBeLessThan(timeoutMs + 500);
    const errors = lines.filter((line) => line.level === 0);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toMatch(/Redis cache \(Cluster 127\.0\.0\.1:\d+/);
    expect(JSON.stringify(lines)).not.toContain(APP_PASSWORD);
  });
});

describe('RedisCache through Redis Sentinel', () => {
  const name = 'tendril-cache';
  let master: RedisServer;
  let sentinel: RedisServer;
  const sentinelEnv = (env: Record<string, string> = {}) =>
    readRedisConfig({
      REDIS_SENTINELS: `127.0.0.1:${sentinel.port}`,
      REDIS_SENTINEL_NAME: name,
      REDIS_USERNAME: 'app',
      REDIS_PASSWORD: APP_PASSWORD,
      REDIS_DB: '3',
      ...env,
    })!;

  beforeAll(async () => {
    master = await startRedis(await freePort(), APP_USER);
    sentinel = await startSentinel(await freePort(), name, master.port);
  }, 30_000);
  afterAll(async () => {
    await Promise.all([sentinel?.stop(), master?.stop()]);
  });

  it('finds the master through the sentinel and caches there, as the ACL user, in REDIS_DB', async () => {
    const cache = await RedisCache.connect(sentinelEnv(), new Logger({ verbose: 0, disablePino: true }), { timeoutMs });
    open.push(cache);
    await cache.set('via-sentinel', { found: true });
    expect(await cache.get('via-sentinel')).toEqual({ found: true });
    expect(await master.cli('-n', '3', 'GET', `${PREFIX}via-sentinel`)).toBe('{"found":true}');
    expect(await master.cli('-n', '0', 'EXISTS', `${PREFIX}via-sentinel`)).toBe('0');
  });

  it('refuses at start a master name the sentinel does not know, naming it and the sentinel', async () => {
    const [error, elapsed] = await timed(() =>
      RedisCache.connect(sentinelEnv({ REDIS_SENTINEL_NAME: 'no-such-master' }), new Logger({ verbose: 0, disablePino: true }), {
        timeoutMs,
        startTimeoutMs: 3000,
      }).catch((caught: unknown) => caught),
    );
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect((error as Error).message).toContain('master "no-such-master" via sentinels 127.0.0.1:' + sentinel.port);
    expect((error as Error).message).toMatch(/No such master/);
    expect((error as Error).message).toMatch(/REDIS_SENTINEL_NAME/);
    expect(elapsed).toBeLessThan(3000 + 1000);
  });

  it('misses within the deadline while the master hangs', async () => {
    const cache = await RedisCache.connect(sentinelEnv(), new Logger({ verbose: 0, disablePino: true }), { timeoutMs });
    open.push(cache);
    await cache.set('hang', 'value');
    master.child.kill('SIGSTOP');
    try {
      const [got, elapsed] = await timed(() => cache.get('hang'));
      expect(got).toBeUndefined();
      expect(elapsed).toBeLessThan(timeoutMs + 500);
    } finally {
      master.child.kill('SIGCONT');
    }
  });
});
