// The hosted server's Redis result cache against a real redis-server (Debian's package; CI installs
// it): round trips, sharing between instances, expiry, AUTH, and Redis dying, hanging and coming back.

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../src/errors.js';
import { MemoryCache, openResultCache } from '../src/hosted/server/cache.js';
import { parseRedisUrl, RedisCache, RespParser } from '../src/hosted/server/redis.js';
import { freePort, startRedis, type RedisServer } from './support/redis.js';
import { Logger } from '../src/logger.js';
import type { LogLine } from '../src/types.js';

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

/** Resolves with how long `work` took. */
async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

describe('RespParser', () => {
  const stream = Buffer.concat([
    Buffer.from('+OK\r\n-ERR wrong kind\r\n:-42\r\n:12345678901234567890\r\n$-1\r\n*-1\r\n$0\r\n\r\n'),
    Buffer.from(`$${Buffer.byteLength('naïve ☃ 🦀\r\nline')}\r\nnaïve ☃ 🦀\r\nline\r\n`),
    Buffer.from('*3\r\n$1\r\na\r\n*2\r\n:1\r\n-NOPE\r\n+x\r\n'),
  ]);
  const parse = (chunks: Buffer[]) => {
    const replies: unknown[] = [];
    const plain = (reply: unknown): unknown => (reply instanceof Error ? `error: ${reply.message}` : Array.isArray(reply) ? reply.map(plain) : reply);
    const parser = new RespParser((reply) => replies.push(plain(reply)));
    for (const chunk of chunks) parser.feed(chunk);
    return replies;
  };
  const expected = ['OK', 'error: ERR wrong kind', -42, Number('12345678901234567890'), null, null, '', 'naïve ☃ 🦀\r\nline', ['a', [1, 'error: NOPE'], 'x']];

  it('parses every RESP2 type, whole or fed one byte at a time (splitting UTF-8 sequences and CRLFs)', () => {
    expect(parse([stream])).toEqual(expected);
    expect(parse([...stream].map((byte) => Buffer.from([byte])))).toEqual(expected);
    for (const size of [2, 3, 7, 13]) {
      const chunks = [];
      for (let at = 0; at < stream.length; at += size) chunks.push(stream.subarray(at, at + size));
      expect(parse(chunks)).toEqual(expected);
    }
  });

  it('throws on a stream that is not RESP', () => {
    expect(() => parse([Buffer.from('HTTP/1.1 400 Bad Request\r\n')])).toThrow(/not RESP/);
    expect(() => parse([Buffer.from('$2\r\nabc\r\n')])).toThrow(/longer than announced/);
    expect(() => parse([Buffer.from('*two\r\n')])).toThrow(/not RESP/);
  });
});

describe('REDIS_URL', () => {
  it('reads host, port, TLS, credentials and database', () => {
    expect(parseRedisUrl('redis://cache.internal')).toMatchObject({ host: 'cache.internal', port: 6379, tls: false, db: 0, username: undefined, password: undefined });
    expect(parseRedisUrl('rediss://app:p%40ss%2Fw@cache:6380/3')).toMatchObject({ host: 'cache', port: 6380, tls: true, db: 3, username: 'app', password: 'p@ss/w' });
    expect(parseRedisUrl('redis://:secret@[::1]:7000/')).toMatchObject({ host: '::1', port: 7000, username: undefined, password: 'secret', where: '[::1]:7000' });
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
      let error: unknown;
      try {
        new RedisCache(url, quiet());
      } catch (caught) {
        error = caught;
      }
      expect(error, url).toBeInstanceOf(InvalidOptionError);
      expect((error as Error).message, url).toMatch(/redis:\/\/\[user:password@\]host/);
      expect((error as Error).message, url).not.toContain('hunter2');
    }
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
    const opening = openResultCache({ redisUrl: `redis://:${PASSWORD}@127.0.0.1:${port}` }, quiet());
    const error = await opening.then(() => undefined, (caught: Error) => caught);
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
  const connect = async (options?: ConstructorParameters<typeof RedisCache>[2], at = url) => {
    const cache = await RedisCache.connect(at, quiet(), options);
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
    const cache = await openResultCache({ redisUrl: url }, quiet());
    open.push(cache as RedisCache);
    expect(cache).toBeInstanceOf(RedisCache);
    await cache.set('via-open', [1, 2]);
    expect(await cache.get('via-open')).toEqual([1, 2]);
  });

  it('close() ends its socket and timers, and later calls are quiet misses', async () => {
    const count = (type: string) => process.getActiveResourcesInfo().filter((resource) => resource === type).length;
    const [sockets, timers] = [count('TCPSocketWrap'), count('Timeout')];
    const cache = await RedisCache.connect(url, quiet());
    await cache.set('before-close', 1);
    expect(count('TCPSocketWrap')).toBe(sockets + 1);
    const clients = Number(await redis.cli('INFO', 'clients').then((info) => /connected_clients:(\d+)/.exec(info)![1]));
    await cache.close();
    expect(count('TCPSocketWrap')).toBe(sockets);
    expect(count('Timeout')).toBe(timers);
    await until(async () => Number(/connected_clients:(\d+)/.exec(await redis.cli('INFO', 'clients'))![1]) === clients - 1, 5000, 'Redis sees the client leave');
    expect(await cache.get('before-close')).toBeUndefined();
    await expect(cache.set('after-close', 1)).resolves.toBeUndefined();
    expect(count('TCPSocketWrap')).toBe(sockets);
  });
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
      const cache = await RedisCache.connect(`redis://${credentials}@127.0.0.1:${redis.port}/2`, quiet());
      await cache.set('authed', credentials);
      expect(await cache.get('authed')).toBe(credentials);
      await cache.close();
    }
  });

  it('rejects a wrong password, or none, without showing the password', async () => {
    const { logger, lines } = recorder();
    const wrong = 'wrong-' + PASSWORD;
    const refused = await RedisCache.connect(`redis://:${wrong}@127.0.0.1:${redis.port}`, logger).catch((error: Error) => error);
    expect(refused).toBeInstanceOf(InvalidOptionError);
    expect((refused as Error).message).toMatch(/WRONGPASS|invalid password/);
    expect((refused as Error).message).toContain(`127.0.0.1:${redis.port}`);
    expect((refused as Error).message).not.toContain(wrong);
    expect(JSON.stringify(lines)).not.toContain(wrong);
    const anonymous = await RedisCache.connect(`redis://127.0.0.1:${redis.port}`, logger).catch((error: Error) => error);
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
    const cache = await RedisCache.connect(`redis://:${PASSWORD}@127.0.0.1:${port}`, logger, { timeoutMs });
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
    const cache = await RedisCache.connect(`redis://:${PASSWORD}@127.0.0.1:${port}`, quiet(), { timeoutMs });
    try {
      await cache.set('hang', 'value');
      const connections = async () => Number(/total_connections_received:(\d+)/.exec(await redis.cli('INFO', 'stats'))![1]);
      const before = await connections();
      redis.child.kill('SIGSTOP');
      try {
        let result: unknown = 'not set';
        const elapsed = await timed(async () => (result = await cache.get('hang')));
        expect(result).toBeUndefined();
        expect(elapsed).toBeGreaterThanOrEqual(timeoutMs - 50);
        expect(elapsed).toBeLessThan(timeoutMs + 500);
        expect(await timed(() => cache.set('hang', 'other'))).toBeLessThan(timeoutMs + 500);
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
      // Replies match commands by order, so a connection that missed a deadline is not trusted again.
      expect(await connections()).toBeGreaterThan(before + 1);
    } finally {
      await cache.close();
    }
  });
});
