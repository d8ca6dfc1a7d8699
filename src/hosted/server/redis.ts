// The result cache in Redis, so that server instances behind one load balancer share results. The
// client is the official `redis` package (node-redis), an optional peer loaded only when a Redis
// is configured. A cache must never break an operation, so every failure here becomes a miss
// (get) or a no-op (set), within a deadline of our own: node-redis's command timeout stops at the
// socket, and a Redis that stops answering must not hold a request.

import { InvalidOptionError, TimeoutError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { ResultCache } from './resultCache.js';
import { REDIS_URL_FORM, type RedisConfig } from './redis-config.js';

/** At most one error line per this long, however many requests fail meanwhile. */
const REPORT_INTERVAL_MS = 60_000;
/** Backoff between reconnection attempts: doubles from the first to the last, then stays. */
const RECONNECT_MS = [100, 2000] as const;
/** Commands waiting for a reply on one connection (a Redis that hangs) beyond this fail at once. */
const QUEUE_LIMIT = 1000;

type RedisModule = typeof import('redis');

const FIXES: Record<RedisConfig['mode'], string> = {
  single: `Start Redis there, correct REDIS_URL (${REDIS_URL_FORM}) and REDIS_USERNAME/REDIS_PASSWORD if set, or unset them to cache in memory.`,
  cluster:
    'Start the Cluster, correct REDIS_CLUSTER_NODES (host:port of some of its nodes), REDIS_USERNAME, REDIS_PASSWORD and REDIS_TLS, or unset them to cache in memory.',
  sentinel:
    'Start the sentinels and the master, correct REDIS_SENTINELS, REDIS_SENTINEL_NAME (the monitored master), REDIS_SENTINEL_PASSWORD, REDIS_USERNAME, REDIS_PASSWORD and REDIS_TLS, or unset them to cache in memory.',
};

/** What the cache needs of a node-redis client, cluster or sentinel: their types differ only elsewhere. */
interface Backend {
  connect(): Promise<unknown>;
  get(key: string): Promise<unknown>;
  set(key: string, value: string, options: { expiration: { type: 'PX'; value: number } }): Promise<unknown>;
  close(): Promise<unknown>;
  destroy(): unknown;
  on(event: string, listener: (error: Error) => void): unknown;
}

/**
 * A node-redis client for `config` (one node, a Cluster or a master through Sentinel), not yet
 * connected. Shared by the cache and the instance registry (registry.ts), each with its own connection.
 */
export function createRedisClient(
  redis: RedisModule,
  config: RedisConfig,
  timeoutMs: number,
  reconnectStrategy: (retries: number, cause: Error) => number | Error,
): unknown {
  const socket = { tls: config.tls, connectTimeout: timeoutMs, reconnectStrategy, keepAlive: true };
  // Without this, commands sent while disconnected wait in memory for the connection to return.
  const common = { username: config.username, password: config.password, disableOfflineQueue: true, commandsQueueMaxLength: QUEUE_LIMIT };
  return config.mode === 'single'
    ? redis.createClient({ ...common, database: config.db, socket: { ...socket, ...config.node } as never })
    : config.mode === 'cluster'
      ? redis.createCluster({ rootNodes: config.nodes.map((node) => ({ socket: node })), defaults: { ...common, socket: socket as never } })
      : redis.createSentinel({
          name: config.masterName,
          sentinelRootNodes: config.sentinels,
          nodeClientOptions: { ...common, database: config.db, socket: socket as never },
          sentinelClientOptions: {
            username: config.sentinelUsername,
            password: config.sentinelPassword,
            disableOfflineQueue: true,
            socket: socket as never,
          },
          passthroughClientErrorEvents: true,
        });
}

const sentence = (text: string) => text.replace(/([^.!?])$/, '$1.');

/** The `redis` package, or an error that says how to get it. `importer` is for tests to name a missing one. */
export async function loadRedis(importer: () => Promise<unknown> = () => import('redis')): Promise<RedisModule> {
  try {
    return (await importer()) as RedisModule;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') throw error;
    throw new InvalidOptionError(
      'A Redis is configured (REDIS_URL, REDIS_CLUSTER_NODES or REDIS_SENTINELS) but the `redis` package is not installed: run `npm install redis` beside tendril, or unset the variable to cache in memory.',
      { cause: error },
    );
  }
}

export interface RedisCacheOptions {
  /** How long an entry lives. Default 24 hours. */
  ttlMs?: number;
  /** Put before every key; instances sharing a Redis must use the same one. Default `tendril:cache:`. */
  keyPrefix?: string;
  /** Deadline of each command, and of each connection attempt. Default 2 s. */
  timeoutMs?: number;
  /** Deadline of `connect` as a whole (a Cluster's discovery and its nodes included). Default 10 s. */
  startTimeoutMs?: number;
}

export class RedisCache implements ResultCache {
  readonly #backend: Backend;
  readonly #ttl: number;
  readonly #prefix: string;
  readonly #timeoutMs: number;
  readonly #where: string;
  /** Until `connect` succeeds, a failed connection attempt ends it instead of being tried again. */
  #started = false;
  #closed = false;
  #lastError: Error | undefined;
  /** An error line went out, and no recovery line since. */
  #failing = false;
  #reportedAt = -Infinity;
  #unreported = 0;

  private constructor(
    redis: RedisModule,
    config: RedisConfig,
    private readonly logger: Logger,
    options: RedisCacheOptions,
  ) {
    const { ttlMs = 24 * 3600_000, keyPrefix = 'tendril:cache:', timeoutMs = 2000 } = options;
    if (!Number.isSafeInteger(ttlMs) || ttlMs < 1) throw new InvalidOptionError(`ttlMs must be a positive integer, not ${ttlMs}.`);
    if (!(timeoutMs > 0)) throw new InvalidOptionError(`timeoutMs must be positive, not ${timeoutMs}.`);
    [this.#ttl, this.#prefix, this.#timeoutMs, this.#where] = [ttlMs, keyPrefix, timeoutMs, config.where];
    this.#backend = this.#create(redis, config);
    // node-redis reports every failed reconnection as an 'error' event; unheard, one would end the process.
    const onError = (error: Error) => (this.#started && !this.#closed ? this.#failed('connection', error) : void (this.#lastError = error));
    this.#backend.on('error', onError);
    if (config.mode === 'cluster') this.#backend.on('node-error', onError);
  }

  #create(redis: RedisModule, config: RedisConfig): Backend {
    // Retrying forever is right once running (Redis comes back); at start a wrong address must fail.
    const reconnectStrategy = (retries: number, cause: Error) =>
      this.#started && !this.#closed ? Math.min(RECONNECT_MS[0] * 2 ** retries, RECONNECT_MS[1]) : cause;
    return createRedisClient(redis, config, this.#timeoutMs, reconnectStrategy) as Backend;
  }

  /** So that a server given a wrong Redis fails at start, rather than quietly caching nothing. */
  static async connect(config: RedisConfig, logger: Logger, options: RedisCacheOptions = {}): Promise<RedisCache> {
    const cache = new RedisCache(await loadRedis(), config, logger, options);
    const startTimeoutMs = options.startTimeoutMs ?? 10_000;
    let timer: NodeJS.Timeout | undefined;
    try {
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(cache.#lastError ?? new TimeoutError(`No answer within ${startTimeoutMs} ms.`, startTimeoutMs)),
          startTimeoutMs,
        );
      });
      await Promise.race([cache.#backend.connect(), late]);
      // A cluster is ready once it knows its slots; one GET proves a data node answers.
      await cache.#deadline(cache.#backend.get(`${cache.#prefix}startup-check`), 'GET');
    } catch (error) {
      cache.#closed = true;
      cache.#backend.destroy();
      // A Cluster's own error (no root node answered) hides why; the last node error says it.
      const last = cache.#lastError && cache.#lastError !== error ? ` (${sentence(cache.#lastError.message).slice(0, -1)})` : '';
      const reason = sentence(String((error as Error).message || error).replace(/\.$/, '') + last);
      throw new InvalidOptionError(`Cannot use Redis (${config.where}): ${reason} ${FIXES[config.mode]}`, { cause: error });
    } finally {
      clearTimeout(timer);
    }
    cache.#started = true;
    logger.info('cache', `Caching results in Redis (${config.where}).`);
    return cache;
  }

  async get(key: string): Promise<unknown | undefined> {
    if (this.#closed) return undefined;
    try {
      const reply = await this.#deadline(this.#backend.get(this.#prefix + key), 'GET');
      this.#recovered();
      return typeof reply === 'string' ? JSON.parse(reply) : undefined;
    } catch (error) {
      return this.#failed('get', error as Error);
    }
  }

  async set(key: string, value: unknown): Promise<void> {
    if (this.#closed) return;
    try {
      const text = JSON.stringify(value);
      if (text === undefined) return;
      await this.#deadline(this.#backend.set(this.#prefix + key, text, { expiration: { type: 'PX', value: this.#ttl } }), 'SET');
      this.#recovered();
    } catch (error) {
      this.#failed('set', error as Error);
    }
  }

  /** Waits for the replies still due, but not past the deadline: then the connections are cut. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      await this.#deadline(this.#backend.close(), 'close');
    } catch {
      this.#backend.destroy();
    }
  }

  /** The command's reply, or a TimeoutError once the deadline passes; the command itself is left to node-redis. */
  #deadline<T>(work: Promise<T>, what: string): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new TimeoutError(`Redis (${this.#where}) did not answer ${what} within ${this.#timeoutMs} ms.`, this.#timeoutMs)),
        this.#timeoutMs,
      );
    });
    // A reply or error that comes after the deadline has no one to hear it.
    work.catch(() => undefined);
    return Promise.race([work, late]).finally(() => clearTimeout(timer));
  }

  #failed(op: string, error: Error): undefined {
    if (this.#closed) return;
    this.#unreported++;
    if (Date.now() - this.#reportedAt < REPORT_INTERVAL_MS) return;
    const failures = this.#unreported;
    [this.#reportedAt, this.#unreported, this.#failing] = [Date.now(), 0, true];
    const message = `Redis cache (${this.#where}) failed (${op}): ${sentence(String(error.message || error))} Going on without it.`;
    this.logger.error('cache', message, { failures });
  }

  #recovered(): void {
    if (!this.#failing) return;
    this.#failing = false;
    this.logger.info('cache', `Redis cache (${this.#where}) answers again.`);
  }
}
