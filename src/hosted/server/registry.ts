// Where every session lives, in the Redis the instances share: each instance writes a heartbeat
// (its internal URL and how full it is) that expires unless renewed, and the id of each session it
// starts. Any instance can then find a session's owner, tell an owner that died (its heartbeat is
// gone) from one that lives, and find an instance with room for a new session. Its own connection,
// apart from the result cache's, so that a slow cache command never holds a lookup.

import { InvalidOptionError, TimeoutError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { createRedisClient, loadRedis } from './redis.js';
import type { RedisConfig } from './redis-config.js';

/** What an instance says of itself in its heartbeat. */
export interface InstanceInfo {
  id: string;
  /** Where the other instances reach it (HOSTED_INTERNAL_URL). */
  url: string;
  sessions: number;
  maxSessions: number;
}

/** A session this instance runs, as the registry records it again. */
export interface OwnedSession {
  id: string;
  /** How long it may still live. */
  lifetimeMs: number;
}

/** A session's owner: alive (with where it is), or gone (its heartbeat expired or it drained). */
export type Owner = { alive: true; instance: InstanceInfo } | { alive: false; id: string };

interface Backend {
  connect(): Promise<unknown>;
  get(key: string): Promise<unknown>;
  set(key: string, value: string, options: { expiration: { type: 'PX'; value: number }; GET?: boolean }): Promise<unknown>;
  del(key: string): Promise<unknown>;
  sAdd(key: string, member: string): Promise<unknown>;
  sRem(key: string, member: string): Promise<unknown>;
  sMembers(key: string): Promise<unknown>;
  close(): Promise<unknown>;
  destroy(): unknown;
  on(event: string, listener: (error: Error) => void): unknown;
}

export interface RegistryOptions {
  /** How often the heartbeat is written; it expires after three of these. Default 1 s. */
  heartbeatMs?: number;
  /** Deadline of each command. Default 2 s. */
  timeoutMs?: number;
  /** Put before every key; instances of one cluster must use the same. Default `tendril:cluster:`. */
  keyPrefix?: string;
}

/** Kept after a session's own deadline, so a late request still learns who had it. */
const OWNER_MARGIN_MS = 10 * 60_000;

export class InstanceRegistry {
  readonly #backend: Backend;
  readonly #heartbeatMs: number;
  readonly #timeoutMs: number;
  readonly #prefix: string;
  readonly #where: string;
  #timer: NodeJS.Timeout | undefined;
  #started = false;
  #closed = false;
  #failing = false;

  private constructor(
    backend: Backend,
    config: RedisConfig,
    private readonly self: () => InstanceInfo,
    private readonly owned: () => OwnedSession[],
    private readonly logger: Logger,
    options: RegistryOptions,
  ) {
    this.#backend = backend;
    this.#heartbeatMs = options.heartbeatMs ?? 1000;
    this.#timeoutMs = options.timeoutMs ?? 2000;
    this.#prefix = options.keyPrefix ?? 'tendril:cluster:';
    this.#where = config.where;
    const onError = (error: Error) => (this.#started && !this.#closed ? this.#failed('connection', error) : undefined);
    backend.on('error', onError);
    if (config.mode === 'cluster') backend.on('node-error', onError);
  }

  /** Connects, writes the first heartbeat, and keeps writing it until `close`. */
  static async start(
    config: RedisConfig,
    self: () => InstanceInfo,
    owned: () => OwnedSession[],
    logger: Logger,
    options: RegistryOptions = {},
  ): Promise<InstanceRegistry> {
    const redis = await loadRedis();
    let registry: InstanceRegistry | undefined;
    const reconnect = (retries: number, cause: Error) =>
      registry !== undefined && registry.#started && !registry.#closed ? Math.min(100 * 2 ** retries, 2000) : cause;
    const backend = createRedisClient(redis, config, options.timeoutMs ?? 2000, reconnect) as Backend;
    registry = new InstanceRegistry(backend, config, self, owned, logger, options);
    try {
      await registry.#deadline(backend.connect(), 'connect', 10_000);
      await registry.#beat();
    } catch (error) {
      registry.#closed = true;
      backend.destroy();
      throw new InvalidOptionError(`Cannot keep the instance registry in Redis (${config.where}): ${(error as Error).message}`, {
        cause: error,
      });
    }
    registry.#started = true;
    registry.#timer = setInterval(
      () =>
        void registry.#beat().then(
          () => registry.#recovered(),
          (error: Error) => registry.#failed('heartbeat', error),
        ),
      registry.#heartbeatMs,
    );
    registry.#timer.unref();
    return registry;
  }

  /** Records this instance as the owner of a session that lives at most `lifetimeMs`. */
  async claim(sessionId: string, lifetimeMs: number): Promise<void> {
    try {
      await this.#claim(sessionId, lifetimeMs);
    } catch (error) {
      // The session still works through this instance; only the others cannot find it.
      this.#failed('claim', error as Error);
    }
  }

  /** The session's owner, or undefined when no instance ever claimed it. Throws when Redis does not answer. */
  async owner(sessionId: string): Promise<Owner | undefined> {
    const id = await this.#deadline(this.#backend.get(this.#key('session', sessionId)), 'GET');
    if (typeof id !== 'string') return undefined;
    const instance = await this.#instance(id);
    return instance ? { alive: true, instance } : { alive: false, id };
  }

  /** The live instance (other than this one) with the most free sessions, if any has one. */
  async withRoom(): Promise<InstanceInfo | undefined> {
    const ids = (await this.#deadline(this.#backend.sMembers(this.#key('instances')), 'SMEMBERS')) as string[];
    const selfId = this.self().id;
    const found = await Promise.all(ids.filter((id) => id !== selfId).map(async (id) => ({ id, info: await this.#instance(id) })));
    // Instances whose heartbeat expired leave the list here: nobody else would remove them.
    for (const { id, info } of found) if (!info) void this.#backend.sRem(this.#key('instances'), id).catch(() => undefined);
    const room = (info: InstanceInfo) => info.maxSessions - info.sessions;
    return found
      .map(({ info }) => info)
      .filter((info): info is InstanceInfo => info !== undefined && room(info) > 0)
      .sort((a, b) => room(b) - room(a))[0];
  }

  /** Stops the heartbeat and removes it, so the other instances know at once that this one is gone. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#timer);
    const selfId = this.self().id;
    try {
      await this.#deadline(
        Promise.all([this.#backend.del(this.#key('instance', selfId)), this.#backend.sRem(this.#key('instances'), selfId)]),
        'DEL',
      );
      await this.#deadline(this.#backend.close(), 'close');
    } catch {
      this.#backend.destroy();
    }
  }

  #claim(sessionId: string, lifetimeMs: number): Promise<unknown> {
    return this.#deadline(
      this.#backend.set(this.#key('session', sessionId), this.self().id, {
        expiration: { type: 'PX', value: lifetimeMs + OWNER_MARGIN_MS },
      }),
      'SET',
    );
  }

  async #instance(id: string): Promise<InstanceInfo | undefined> {
    const text = await this.#deadline(this.#backend.get(this.#key('instance', id)), 'GET');
    if (typeof text !== 'string') return undefined;
    try {
      return JSON.parse(text) as InstanceInfo;
    } catch {
      return undefined;
    }
  }

  async #beat(): Promise<void> {
    if (this.#closed) return;
    const info = this.self();
    const before = await this.#deadline(
      this.#backend.set(this.#key('instance', info.id), JSON.stringify(info), {
        expiration: { type: 'PX', value: this.#heartbeatMs * 3 },
        GET: true,
      }),
      'SET',
    );
    await this.#deadline(this.#backend.sAdd(this.#key('instances'), info.id), 'SADD');
    // No heartbeat of ours was there: Redis lost its data (restarted empty, failed over to a replica
    // that had not caught up) or this process was held past three beats. Either way the owner keys
    // of the sessions it runs may be gone too, and without them every other instance would answer
    // those sessions as unknown (404) while their browsers run here: write them again.
    if (before === null && this.#started) await this.#reclaim();
  }

  async #reclaim(): Promise<void> {
    const owned = this.owned();
    await Promise.all(owned.map((session) => this.#claim(session.id, session.lifetimeMs)));
    if (owned.length) this.logger.info('hosted', `Registered this instance's ${owned.length} session(s) again in Redis (${this.#where})`);
  }

  #key(...parts: string[]): string {
    return this.#prefix + parts.join(':');
  }

  #deadline<T>(work: Promise<T>, what: string, timeoutMs = this.#timeoutMs): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new TimeoutError(`Redis (${this.#where}) did not answer ${what} within ${timeoutMs} ms.`, timeoutMs)),
        timeoutMs,
      );
    });
    work.catch(() => undefined);
    return Promise.race([work, late]).finally(() => clearTimeout(timer));
  }

  /** One line when the registry starts failing, one when it recovers: not one per heartbeat. */
  #failed(what: string, error: Error): void {
    if (this.#closed || this.#failing) return;
    this.#failing = true;
    this.logger.error('hosted', `Instance registry in Redis (${this.#where}) failed (${what}): ${error.message}`);
  }

  #recovered(): void {
    if (!this.#failing) return;
    this.#failing = false;
    this.logger.info('hosted', `Instance registry in Redis (${this.#where}) answers again.`);
  }
}
