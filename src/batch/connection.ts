// The queue's Redis and the queue engine (BullMQ), both optional peers loaded only here. BullMQ 6
// takes a node-redis client (the `redis` package the hosted cache uses) as its connection, so the
// batch layer needs no second Redis client (ioredis is optional for BullMQ since its version 6).

import { InvalidOptionError, TimeoutError } from '../errors.js';
import { parseRedisUrl } from '../hosted/server/redis-config.js';
import { redactUrl } from '../util/redact.js';
import { withDeadline } from '../util/time.js';

export type BullMQ = typeof import('bullmq');
type RedisModule = typeof import('redis');
export type RedisClient = ReturnType<RedisModule['createClient']>;

/** Default Redis when neither --redis-url nor REDIS_URL says: a local one, for a first run. */
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
/** Deadline of connecting, and of each of our own queue operations. */
export const QUEUE_OP_TIMEOUT_MS = 10_000;
/** BullMQ's keys start with it; ours (limits, usage) with `${PREFIX}:batch:<queue>:`. */
export const BULL_PREFIX = 'tendril:bq';

async function load<T>(name: string, importer: () => Promise<unknown>): Promise<T> {
  try {
    return (await importer()) as T;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') throw error;
    throw new InvalidOptionError(
      `Batch jobs need the \`${name}\` package, which is not installed: run \`npm install bullmq redis\` beside tendril.`,
      { cause: error },
    );
  }
}

export const loadBullMQ = (): Promise<BullMQ> => load<BullMQ>('bullmq', () => import('bullmq'));

/** The Redis URL to use: the one given, else REDIS_URL, else a local Redis. */
export function redisUrlOf(given: string | undefined, env: Record<string, string | undefined> = process.env): string {
  const url = given?.trim() || env.REDIS_URL?.trim() || DEFAULT_REDIS_URL;
  parseRedisUrl(url); // a clear InvalidOptionError for a malformed one
  return url;
}

/**
 * A connected node-redis client. It retries a lost connection with backoff, but a first connection
 * that fails ends `connect` (with the reason, the URL's password hidden) instead of retrying forever.
 */
export async function connectRedis(url: string, onError: (error: Error) => void = () => undefined): Promise<RedisClient> {
  const redis = await load<RedisModule>('redis', () => import('redis'));
  let started = false;
  const reconnectStrategy = (retries: number, cause: Error) => (started ? Math.min(100 * 2 ** retries, 2000) : cause);
  const client = redis.createClient({ url, socket: { connectTimeout: QUEUE_OP_TIMEOUT_MS, reconnectStrategy, keepAlive: true } as never });
  client.on('error', (error: Error) => onError(error));
  try {
    await withDeadline(client.connect(), QUEUE_OP_TIMEOUT_MS, `Connecting to the queue's Redis at ${redactUrl(url)}`);
  } catch (error) {
    client.destroy();
    if (error instanceof TimeoutError) throw error;
    throw new InvalidOptionError(
      `Cannot reach the queue's Redis at ${redactUrl(url)}: ${(error as Error).message}. Start Redis there, or give its URL with --redis-url or REDIS_URL.`,
      {
        cause: error,
      },
    );
  }
  started = true;
  return client as RedisClient;
}

/**
 * A queue whose Redis evicts keys loses jobs and their results without a word: BullMQ's state is
 * all keys. Refuse to start on one. INFO rather than CONFIG GET, which hosted Redis often disables.
 */
export async function checkNoEviction(client: RedisClient, url: string): Promise<void> {
  const info = await withDeadline(client.info('memory'), QUEUE_OP_TIMEOUT_MS, 'Reading the Redis INFO');
  const policy = /maxmemory_policy:(\S+)/.exec(info)?.[1];
  if (policy && policy !== 'noeviction') {
    throw new InvalidOptionError(
      `The queue's Redis at ${redactUrl(url)} has maxmemory-policy ${policy}: it may evict the queue's keys, losing jobs and results. ` +
        "Give the queue a Redis with `maxmemory-policy noeviction` (redis-server --maxmemory-policy noeviction, or CONFIG SET maxmemory-policy noeviction); a cache's Redis, which should evict, is not the place for it.",
    );
  }
}

/** Our own keys of a queue (BullMQ's are under BULL_PREFIX). */
export function batchKeys(queue: string) {
  const base = `tendril:batch:${queue}`;
  return {
    /** Hash: the queue's settings (perHost, hostDelayMs, budgetTokens), read by every worker. */
    settings: `${base}:settings`,
    /** Hash: counters (retried) and the queue's token total (tokens:p, tokens:c, tokens:t). */
    stats: `${base}:stats`,
    /** Hash: each job's token use, `<id>:p`, `<id>:c`, `<id>:t`, over all its attempts. */
    usage: `${base}:usage`,
    /** Hash: a failed job's trace file by its id (a worker's --trace-dir; a done job's is in its return value). */
    traces: `${base}:traces`,
    /** Sorted set of the leases on one host, scored by when each expires. */
    hostLeases: (host: string) => `${base}:host:${host}`,
    /** When a job's page request to one host was last answered (ms, Redis's clock). */
    hostLast: (host: string) => `${base}:hostlast:${host}`,
    /** Sorted set of the jobs waiting for room on their host, scored by when the mark lapses (hostWaits.ts). */
    hostWaits: `${base}:hostwaits`,
    /** An adder's claim on a job id while it adds it (adding.ts). */
    adding: (id: string) => `${base}:adding:${id}`,
    /** The lease whose page request to one host is due or in flight (with --host-delay). */
    hostTurn: (host: string) => `${base}:hostturn:${host}`,
    /** Sorted set of the jobs put back to wait for room on one host, scored by when they began to wait. */
    hostWaiting: (host: string) => `${base}:hostwait:${host}`,
    /** Hash of the token reservations of model calls in flight: id -> tokens. */
    reserved: `${base}:reserved`,
    /** Sorted set of those reservations, scored by when each lapses (its call's job is past its deadline). */
    reservedUntil: `${base}:reserveduntil`,
  };
}

/** A queue name fit for Redis keys and the command line. */
export function checkQueueName(name: unknown): string {
  if (typeof name !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/.test(name)) {
    throw new InvalidOptionError(`A queue name is letters, digits, '.', '_' and '-' (at most 100), not ${JSON.stringify(name)}.`);
  }
  return name;
}
