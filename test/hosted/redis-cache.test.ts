// The hosted server's Redis result cache against a real redis-server (Debian's package; CI installs
// it): round trips, sharing between instances, expiry, AUTH, and Redis dying, hanging and coming back.

import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/errors.js';
import { MemoryCache, openResultCache } from '../../src/hosted/server/cache.js';
import { readServerConfig } from '../../src/hosted/server/config.js';
import { loadRedis, RedisCache, type RedisCacheOptions } from '../../src/hosted/server/redis.js';
import { readRedisConfig } from '../../src/hosted/server/redis-config.js';
import { runScript } from '../support/child.js';
import { freePort, startRedis, type RedisServer } from '../support/redis.js';
import { selfSigned } from '../support/tls.js';
import { Logger } from '../../src/logger.js';
import type { LogLine } from '../../src/types.js';

const PASSWORD = 'pw-7Hq2-not-for-logs';
/** Of an ACL user, so AUTH must carry the user name; with characters a URL must percent-encode. */
const APP_PASSWORD = 'app/p@ss:wörd';
const quiet = () => new Logger({ verbose: 0, disablePino: true });

function recorder(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  return { logger: new Logger({ verbose: 2, disablePino: true, logger: (line) => lines.push(line) }), lines };
}

/** Polls `check` until it is true; fails the test when `ms` pass first. */
async function until(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function catching(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** Runs test/support/redis-child.ts on `url`: its report, once it exited by itself with `code`. */
async function runChild(
  url: string,
  env: Record<string, string> = {},
  code = 0,
): Promise<{ before: unknown; after: unknown; resources: string[]; stderr: string }> {
  const run = runScript(fileURLToPath(new URL('../support/redis-child.ts', import.meta.url)), [url], env);
  const exit = await Promise.race([run.exit, new Promise((resolve) => setTimeout(resolve, 20_000, 'no exit within 20 s'))]);
  if (exit !== code) run.child.kill('SIGKILL');
  expect(exit, run.stderr()).toBe(code);
  return { ...(code === 0 ? JSON.parse(run.stdout()) : {}), stderr: run.stderr() };
}

/** Resolves with how long `work` took. */
async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

const single = (url: string) => readRedisConfig({ REDIS_URL: url })!;

describe('the Redis configuration', () => {
  it('reads host, port, TLS, credentials and database from REDIS_URL', () => {
    expect(single('redis://cache.internal')).toMatchObject({
      mode: 'single',
      node: { host: 'cache.internal', port: 6379 },
      tls: false,
      db: 0,
      username: undefined,
      password: undefined,
    });
    expect(single('rediss://app:p%40ss%2Fw@cache:6380/3')).toMatchObject({
      node: { host: 'cache', port: 6380 },
      tls: true,
      db: 3,
      username: 'app',
      password: 'p@ss/w',
    });
    expect(single('redis://:secret@[::1]:7000/')).toMatchObject({
      node: { host: '::1', port: 7000 },
      username: undefined,
      password: 'secret',
      where: '[::1]:7000',
    });
    // Credentials kept out of the URL (a secret store's variable) fill in what it lacks.
    expect(readRedisConfig({ REDIS_URL: 'redis://cache', REDIS_USERNAME: 'app', REDIS_PASSWORD: 'pw' })).toMatchObject({
      username: 'app',
      password: 'pw',
    });
    expect(readRedisConfig({})).toBeUndefined();
  });

  it('reads a Cluster and a Sentinel setup', () => {
    const cluster = readRedisConfig({
      REDIS_CLUSTER_NODES: ' 10.0.0.5:7000, redis-2:7001 [fd00::5]:7002,redis-4',
      REDIS_USERNAME: 'app',
      REDIS_PASSWORD: 'pw',
      REDIS_TLS: 'true',
    });
    expect(cluster).toMatchObject({ mode: 'cluster', username: 'app', password: 'pw', tls: true });
    expect(cluster).toHaveProperty('nodes', [
      { host: '10.0.0.5', port: 7000 },
      { host: 'redis-2', port: 7001 },
      { host: 'fd00::5', port: 7002 },
      { host: 'redis-4', port: 6379 },
    ]);
    const sentinel = readRedisConfig({
      REDIS_SENTINELS: 's1,s2:26380',
      REDIS_SENTINEL_NAME: 'cache',
      REDIS_DB: '2',
      REDIS_SENTINEL_PASSWORD: 'spw',
    });
    expect(sentinel).toMatchObject({
      mode: 'sentinel',
      masterName: 'cache',
      db: 2,
      tls: false,
      sentinelPassword: 'spw',
      password: undefined,
    });
    expect(sentinel).toHaveProperty('sentinels', [
      { host: 's1', port: 26379 },
      { host: 's2', port: 26380 },
    ]);
  });

  it('refuses malformed URLs with InvalidOptionError, never showing the password', () => {
    const bad = [
      'http://u:hunter2@host',
      'redis://u:hunter2@host:notaport',
      'redis://u:hunter2@host:99999',
      'redis://u:hunter2/x@host', // a '/' in the password makes the rest parse as a path
      'redis://:hunter2@host/not-a-db',
      'redis://u:hunter2@host?timeout=1',
      'redis://u:hunter2%zz@host',
      'redis://:hunter2@/0',
    ];
    for (const url of bad) {
      const error = catching(() => single(url));
      expect(error, url).toBeInstanceOf(InvalidOptionError);
      expect((error as Error).message, url).toMatch(/redis:\/\/\[user:password@\]host/);
      expect((error as Error).message, url).not.toContain('hunter2');
    }
  });

  it('refuses contradictory or incomplete setups, naming the variables to fix and never the password', () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ REDIS_URL: 'redis://h', REDIS_CLUSTER_NODES: 'h:7000' }, /REDIS_URL and REDIS_CLUSTER_NODES are both set/],
      [{ REDIS_CLUSTER_NODES: 'h:7000', REDIS_SENTINELS: 's:26379' }, /REDIS_CLUSTER_NODES and REDIS_SENTINELS are both set/],
      [{ REDIS_URL: 'redis://:hunter2@h', REDIS_PASSWORD: 'hunter2' }, /REDIS_URL has a password and REDIS_PASSWORD/],
      [{ REDIS_URL: 'redis://h', REDIS_TLS: 'true' }, /REDIS_TLS is for .*rediss:\/\//],
      [{ REDIS_CLUSTER_NODES: 'h:7000', REDIS_DB: '1' }, /database 0 only/],
      [{ REDIS_CLUSTER_NODES: 'redis://u:hunter2@h:7000' }, /REDIS_CLUSTER_NODES has .*host:port/],
      [{ REDIS_CLUSTER_NODES: 'h:99999' }, /REDIS_CLUSTER_NODES has "h:99999"/],
      [{ REDIS_CLUSTER_NODES: 'h:7000', REDIS_TLS: 'maybe' }, /REDIS_TLS must be true or false/],
      [{ REDIS_SENTINELS: 's:26379' }, /REDIS_SENTINEL_NAME/],
      [{ REDIS_SENTINEL_NAME: 'cache' }, /without REDIS_SENTINELS/],
      [{ REDIS_SENTINELS: 's', REDIS_SENTINEL_NAME: 'c', REDIS_DB: 'two' }, /REDIS_DB must be a database number/],
      [{ REDIS_CLUSTER_NODES: 'h:7000', REDIS_USERNAME: 'app' }, /REDIS_USERNAME is set without REDIS_PASSWORD/],
      [{ REDIS_PASSWORD: 'hunter2' }, /REDIS_PASSWORD is set but no Redis is/],
    ];
    for (const [env, message] of cases) {
      const error = catching(() => readRedisConfig(env));
      expect(error, JSON.stringify(env)).toBeInstanceOf(InvalidOptionError);
      expect((error as Error).message, JSON.stringify(env)).toMatch(message);
      expect((error as Error).message, JSON.stringify(env)).not.toContain('hunter2');
    }
  });

  it('is read by readServerConfig, so a bad one stops the server before it starts', () => {
    const base = { HOSTED_API_KEYS: 'k' };
    expect(readServerConfig({ ...base, REDIS_CLUSTER_NODES: '127.0.0.1:7000' }).redis).toMatchObject({ mode: 'cluster' });
    expect(readServerConfig(base).redis).toBeUndefined();
    expect(() => readServerConfig({ ...base, REDIS_SENTINELS: 's:1' })).toThrow(InvalidOptionError);
  });
});

describe('the redis package', () => {
  it('when missing, makes an InvalidOptionError that says to install it', async () => {
    const missing = await loadRedis(() => import('redis-package-that-is-not-installed' as string)).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(InvalidOptionError);
    expect((missing as Error).message).toMatch(/`redis` package is not installed: run `npm install redis`/);
    const loaded = await loadRedis();
    expect(typeof loaded.createCluster).toBe('function');
  });
});

describe('openResultCache', () => {
  it('gives a MemoryCache when no REDIS_URL is set', async () => {
    const cache = await openResultCache({}, quiet());
    expect(cache).toBeInstanceOf(MemoryCache);
    await cache.close();
  });

  it('rejects clearly, naming host:port and the fix, when REDIS_URL points at a closed port', async () => {
    const port = await freePort();
    const opening = openResultCache({ redis: single(`redis://:${PASSWORD}@127.0.0.1:${port}`) }, quiet());
    const error = await opening.then(
      () => undefined,
      (caught: Error) => caught,
    );
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect(error!.message).toContain(`127.0.0.1:${port}`);
    expect(error!.message).toMatch(/ECONNREFUSED/);
    expect(error!.message).toMatch(/correct REDIS_URL|unset it/);
    expect(error!.message).not.toContain(PASSWORD);
  });
});

describe('RedisCache on a running redis-server', () => {
  let redis: RedisServer;
  let url: string;
  const open: RedisCache[] = [];
  const connect = async (options?: RedisCacheOptions, at = url) => {
    const cache = await RedisCache.connect(single(at), quiet(), options);
    open.push(cache);
    return cache;
  };

  beforeAll(async () => {
    redis = await startRedis(await freePort());
    url = `redis://127.0.0.1:${redis.port}`;
  });
  afterAll(async () => {
    await Promise.all(open.map((cache) => cache.close()));
    await redis?.stop();
  });

  it('round-trips objects, arrays, strings, unicode and a 1 MB value as copies', async () => {
    const cache = await connect();
    const big = { rows: Array.from({ length: 20_000 }, (_, i) => ({ i, text: `row ${i} ${'é'.repeat(20)} ✓` })) };
    expect(JSON.stringify(big).length).toBeGreaterThan(1_000_000);
    expect(Buffer.byteLength(JSON.stringify(big))).toBeLessThan(1_600_000);
    const values: Record<string, unknown> = {
      object: { title: 'Front page', price: 12.5, tags: ['a', 'b'], nested: { ok: true, none: null } },
      array: [1, 'two', { three: 3 }, [4]],
      string: 'plain text with "quotes" and \\ backslashes and \r\n newlines',
      unicode: 'Grüße, 你好, emoji 🦀🎉, rtl שלום, zero-width \u200b',
      number: 0,
      big,
    };
    for (const [key, value] of Object.entries(values)) await cache.set(key, value);
    for (const [key, value] of Object.entries(values)) expect(await cache.get(key), key).toEqual(value);
    const copy = (await cache.get('object')) as { tags: string[] };
    copy.tags.push('changed');
    expect(await cache.get('object')).toEqual(values.object);
  });

  it('answers undefined for a key nobody set', async () => {
    const cache = await connect();
    expect(await cache.get('never-set-' + Math.random())).toBeUndefined();
  });

  it('keeps JSON under the key prefix with a 24 h TTL by default', async () => {
    const cache = await connect();
    await cache.set('prefixed', { a: 1 });
    expect(await redis.cli('GET', 'tendril:cache:prefixed')).toBe('{"a":1}');
    const ttl = Number(await redis.cli('PTTL', 'tendril:cache:prefixed'));
    expect(ttl).toBeGreaterThan(24 * 3600_000 - 60_000);
    expect(ttl).toBeLessThanOrEqual(24 * 3600_000);
  });

  it('shares entries between instances on one Redis, and keeps other prefixes apart', async () => {
    const [first, second, other] = await Promise.all([connect(), connect(), connect({ keyPrefix: 'elsewhere:' })]);
    await first.set('shared', { from: 'first' });
    expect(await second.get('shared')).toEqual({ from: 'first' });
    await second.set('shared', { from: 'second' });
    expect(await first.get('shared')).toEqual({ from: 'second' });
    expect(await other.get('shared')).toBeUndefined();
  });

  it('lets entries expire after ttlMs', async () => {
    const cache = await connect({ ttlMs: 300 });
    await cache.set('short-lived', 'soon gone');
    expect(await cache.get('short-lived')).toBe('soon gone');
    const pttl = Number(await redis.cli('PTTL', 'tendril:cache:short-lived'));
    expect(pttl).toBeGreaterThan(0);
    expect(pttl).toBeLessThanOrEqual(300);
    await until(async () => (await cache.get('short-lived')) === undefined, 5000, 'the entry expires');
  });

  it('matches pipelined replies to their commands', async () => {
    const cache = await connect();
    const keys = Array.from({ length: 300 }, (_, i) => `pipelined-${i}`);
    await Promise.all(keys.map((key, i) => cache.set(key, { i, pad: 'x'.repeat(i * 37) })));
    const got = await Promise.all(keys.map((key) => cache.get(key)));
    expect(got).toEqual(keys.map((_, i) => ({ i, pad: 'x'.repeat(i * 37) })));
  });

  it('selects the database named in the URL', async () => {
    const cache = await connect(undefined, `${url}/5`);
    await cache.set('in-db-5', true);
    expect(await redis.cli('-n', '5', 'EXISTS', 'tendril:cache:in-db-5')).toBe('1');
    expect(await redis.cli('-n', '0', 'EXISTS', 'tendril:cache:in-db-5')).toBe('0');
    expect(await cache.get('in-db-5')).toBe(true);
  });

  it('openResultCache gives a working RedisCache when REDIS_URL is set', async () => {
    const cache = await openResultCache({ redis: single(url) }, quiet());
    open.push(cache as RedisCache);
    expect(cache).toBeInstanceOf(RedisCache);
    await cache.set('via-open', [1, 2]);
    expect(await cache.get('via-open')).toEqual([1, 2]);
  });

  it('close() leaves Redis with one client fewer, and later calls are quiet misses', async () => {
    const clients = async () => Number(/connected_clients:(\d+)/.exec(await redis.cli('INFO', 'clients'))![1]);
    const cache = await RedisCache.connect(single(url), quiet());
    await cache.set('before-close', 1);
    const before = await clients();
    await cache.close();
    await until(async () => (await clients()) === before - 1, 5000, 'Redis sees the client leave');
    expect(await cache.get('before-close')).toBeUndefined();
    await expect(cache.set('after-close', 1)).resolves.toBeUndefined();
    await expect(cache.close()).resolves.toBeUndefined();
    expect(await clients()).toBe(before - 1);
  });

  it('close() leaves no socket or timer behind: a process that used the cache then has nothing running', async () => {
    // In a process of its own, so that no other test's sockets and timers are counted.
    const report = await runChild(url);
    expect(report.before).toEqual({ ok: true });
    expect(report.after).toBeUndefined();
    expect(report.resources.filter((resource) => resource !== 'TTYWrap' && resource !== 'PipeWrap')).toEqual([]);
  }, 30_000);
});

describe('RedisCache over TLS (rediss://)', () => {
  let redis: RedisServer;
  let tlsPort: number;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'tendril-redis-tls-'));
    const { certPath: cert, keyPath: key } = await selfSigned(dir, '127.0.0.1', 'IP:127.0.0.1');
    tlsPort = await freePort();
    const tls = [
      '--tls-port',
      String(tlsPort),
      '--tls-cert-file',
      cert,
      '--tls-key-file',
      key,
      '--tls-ca-cert-file',
      cert,
      '--tls-auth-clients',
      'no',
    ];
    redis = await startRedis(await freePort(), tls);
  });
  afterAll(async () => {
    await redis?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  // NODE_EXTRA_CA_CERTS is read when Node starts, hence a child process.
  it('connects with TLS to a server whose certificate the trusted CAs sign, and refuses one they do not', async () => {
    const trusted = await runChild(`rediss://127.0.0.1:${tlsPort}/1`, { NODE_EXTRA_CA_CERTS: path.join(dir, 'cert.pem') });
    expect(trusted.before).toEqual({ ok: true });
    expect(await redis.cli('-n', '1', 'GET', 'tendril:cache:child')).toBe('{"ok":true}');
    const untrusted = await runChild(`rediss://127.0.0.1:${tlsPort}`, {}, 1);
    expect(untrusted.stderr).toMatch(/InvalidOptionError/);
    expect(untrusted.stderr).toMatch(/self[- ]signed certificate/);
  }, 60_000);
});

describe('RedisCache with AUTH', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    const appUser = ['--user', 'app', 'on', `>${APP_PASSWORD}`, '~*', '&*', '+@all'];
    redis = await startRedis(await freePort(), ['--requirepass', PASSWORD, ...appUser]);
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('authenticates with the password in the URL, with or without a user name', async () => {
    for (const credentials of [`:${PASSWORD}`, `default:${PASSWORD}`, `app:${encodeURIComponent(APP_PASSWORD)}`]) {
      const cache = await RedisCache.connect(single(`redis://${credentials}@127.0.0.1:${redis.port}/2`), quiet());
      await cache.set('authed', credentials);
      expect(await cache.get('authed')).toBe(credentials);
      await cache.close();
    }
  });

  it('rejects a wrong password, or none, without showing the password', async () => {
    const { logger, lines } = recorder();
    const wrong = 'wrong-' + PASSWORD;
    const refused = await RedisCache.connect(single(`redis://:${wrong}@127.0.0.1:${redis.port}`), logger).catch((error: Error) => error);
    expect(refused).toBeInstanceOf(InvalidOptionError);
    expect((refused as Error).message).toMatch(/WRONGPASS|invalid password/);
    expect((refused as Error).message).toContain(`127.0.0.1:${redis.port}`);
    expect((refused as Error).message).not.toContain(wrong);
    expect(JSON.stringify(lines)).not.toContain(wrong);
    const anonymous = await RedisCache.connect(single(`redis://127.0.0.1:${redis.port}`), logger).catch((error: Error) => error);
    expect(anonymous).toBeInstanceOf(InvalidOptionError);
    expect((anonymous as Error).message).toMatch(/NOAUTH/);
  });
});

describe('RedisCache when Redis fails', () => {
  const timeoutMs = 500;
  let redis: RedisServer;
  let port: number;
  // Each test breaks its Redis, so each gets its own.
  beforeEach(async () => {
    port = await freePort();
    redis = await startRedis(port, ['--requirepass', PASSWORD]);
  });
  afterEach(async () => {
    await redis?.stop();
  });

  it('misses quietly while Redis is down, logs once without the password, and reconnects when it is back', async () => {
    const { logger, lines } = recorder();
    const cache = await RedisCache.connect(single(`redis://:${PASSWORD}@127.0.0.1:${port}`), logger, { timeoutMs });
    try {
      await cache.set('k', 'before');
      expect(await cache.get('k')).toBe('before');

      await redis.stop();
      for (let i = 0; i < 20; i++) {
        expect(await timed(() => expect(cache.get('k')).resolves.toBeUndefined())).toBeLessThan(timeoutMs + 500);
        expect(await timed(() => expect(cache.set('k', i)).resolves.toBeUndefined())).toBeLessThan(timeoutMs + 500);
      }
      const errors = lines.filter((line) => line.level === 0);
      expect(errors).toHaveLength(1);
      expect(errors[0]!.message).toContain(`127.0.0.1:${port}`);
      expect(JSON.stringify(lines)).not.toContain(PASSWORD);

      redis = await startRedis(port, ['--requirepass', PASSWORD]);
      await until(
        async () => {
          await cache.set('k', 'after');
          return (await cache.get('k')) === 'after';
        },
        10_000,
        'the cache works again on the restarted Redis',
      );
      expect(await redis.cli('GET', 'tendril:cache:k')).toBe('"after"');
      expect(lines.filter((line) => line.level === 0)).toHaveLength(1);
      expect(lines.some((line) => /answers again/.test(line.message))).toBe(true);
      expect(JSON.stringify(lines)).not.toContain(PASSWORD);
    } finally {
      await cache.close();
    }
  });

  it('gives up on a Redis that stops answering within the deadline, and uses it again when it answers', async () => {
    const cache = await RedisCache.connect(single(`redis://:${PASSWORD}@127.0.0.1:${port}`), quiet(), { timeoutMs });
    try {
      await cache.set('hang', 'value');
      redis.child.kill('SIGSTOP');
      try {
        let result: unknown = 'not set';
        const elapsed = await timed(async () => (result = await cache.get('hang')));
        expect(result).toBeUndefined();
        expect(elapsed).toBeGreaterThanOrEqual(timeoutMs - 50);
        expect(elapsed).toBeLessThan(timeoutMs + 500);
        expect(await timed(() => cache.set('hang', 'other'))).toBeLessThan(timeoutMs + 500);
        // A burst past the client's queue limit: those beyond it fail at once, none waits longer.
        const burst = await timed(async () =>
          expect(await Promise.all(Array.from({ length: 1500 }, (_, i) => cache.get(`burst-${i}`)))).toEqual(Array(1500).fill(undefined)),
        );
        expect(burst).toBeLessThan(timeoutMs + 1000);
      } finally {
        redis.child.kill('SIGCONT');
      }
      // The timed-out SET may still run once Redis wakes, so only a fresh round trip tells it works.
      await until(
        async () => {
          await cache.set('hang', 'after');
          return (await cache.get('hang')) === 'after';
        },
        10_000,
        'the cache works again once Redis answers',
      );
    } finally {
      await cache.close();
    }
  });
});
