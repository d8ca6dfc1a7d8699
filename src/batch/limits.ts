// Limits on one host that hold across every worker: at most `perHost` jobs on it at once, and at
// least `hostDelayMs` between the starts of two. BullMQ's open-source edition has no groups, so
// these are ours: leases in a Redis sorted set, taken and checked by one Lua script (atomic), each
// with an expiry that its holder renews, so a worker that dies frees its hosts when it lapses.

import { randomUUID } from 'node:crypto';
import { withDeadline } from '../util/time.js';
import { batchKeys, QUEUE_OP_TIMEOUT_MS, type RedisClient } from './connection.js';

/** The queue's limits, kept in Redis by whoever adds jobs (`configure`), read by every worker. */
export interface QueueLimits {
  /** Jobs running at once in all workers together (BullMQ's global concurrency). */
  maxActive?: number;
  /** Jobs on one host at once, in all workers together. */
  perHost?: number;
  /** Least time between the starts of two jobs on one host, in ms. */
  hostDelayMs?: number;
  /** Tokens the queue's model calls may use in all. */
  budgetTokens?: number;
}

// Redis's own clock, so workers whose clocks differ agree. Returns 0 (taken) or ms to wait.
const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local max = tonumber(ARGV[2])
if max > 0 and redis.call('ZCARD', KEYS[1]) >= max then
  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return math.max(1, tonumber(first[2]) - now)
end
local delay = tonumber(ARGV[3])
if delay > 0 then
  local last = tonumber(redis.call('GET', KEYS[2]) or '0')
  if now - last < delay then return delay - (now - last) end
  redis.call('SET', KEYS[2], now, 'PX', delay)
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[4]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 0`;

const RENEW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local n = redis.call('ZADD', KEYS[1], 'XX', 'CH', now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return n`;

/** Longest pause between two tries for a busy host: a lease freed in another worker is seen this soon. */
const POLL_MS = 50;

export interface HostLease {
  release(): Promise<void>;
}

/** Told while a job waits for its host (so that status can say so): mark for this long, or clear. */
export interface HostWaiter {
  mark(ms: number): Promise<void>;
  clear(): Promise<void>;
}

export class HostLimits {
  readonly #keys;
  /** Wakes this process's waiters when one of its own leases ends, without waiting for the poll. */
  readonly #wake = new Set<() => void>();

  constructor(
    private readonly client: RedisClient,
    queue: string,
    /** How long a lease lives unless renewed: a dead worker's hosts are free this long after it died. */
    private readonly leaseMs: number,
  ) {
    this.#keys = batchKeys(queue);
  }

  /** One try: 0 when the lease is taken, else how long to wait before trying again. */
  async tryAcquire(host: string, id: string, perHost: number, hostDelayMs: number): Promise<number> {
    const args = [id, String(perHost), String(hostDelayMs), String(this.leaseMs)];
    const keys = [this.#keys.hostLeases(host), this.#keys.hostLast(host)];
    return Number(
      await withDeadline(this.client.eval(ACQUIRE, { keys, arguments: args }), QUEUE_OP_TIMEOUT_MS, 'Taking a host lease in Redis'),
    );
  }

  /**
   * Waits until `host` has room, then holds a place on it (renewed until released). `signal`
   * abandons the wait (a worker handing its jobs back).
   */
  async acquire(host: string, perHost: number, hostDelayMs: number, signal?: AbortSignal, waiter?: HostWaiter): Promise<HostLease> {
    if (perHost <= 0 && hostDelayMs <= 0) return { release: async () => undefined };
    const id = randomUUID();
    let marked = 0;
    try {
      for (;;) {
        signal?.throwIfAborted();
        const wait = await this.tryAcquire(host, id, perHost, hostDelayMs);
        if (wait === 0) break;
        // Renewed like a lease: a dead worker's marks lapse as its leases do.
        if (waiter && Date.now() - marked > this.leaseMs / 3) await waiter.mark(this.leaseMs), (marked = Date.now());
        await this.#pause(Math.min(wait, POLL_MS), signal);
      }
    } finally {
      if (marked) await waiter!.clear().catch(() => undefined);
    }
    const key = this.#keys.hostLeases(host);
    const renew = setInterval(
      () => {
        void this.client.eval(RENEW, { keys: [key], arguments: [id, String(this.leaseMs)] }).catch(() => undefined);
      },
      Math.max(100, Math.floor(this.leaseMs / 3)),
    );
    renew.unref();
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        clearInterval(renew);
        await withDeadline(this.client.zRem(key, id), QUEUE_OP_TIMEOUT_MS, 'Releasing a host lease in Redis').catch(() => undefined);
        for (const wake of [...this.#wake]) wake();
      },
    };
  }

  #pause(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#wake.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#wake.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}

/** The host a job's limits count it under: the URL's host name (ports of one host are one host). */
export function hostOf(url: string): string {
  return new URL(url).hostname.toLowerCase();
}

/** The queue's limits from Redis (what `configure` wrote). */
export async function readLimits(client: RedisClient, queue: string): Promise<QueueLimits> {
  const raw = await withDeadline(client.hGetAll(batchKeys(queue).settings), QUEUE_OP_TIMEOUT_MS, "Reading the queue's limits");
  const number = (value: string | undefined) => (value === undefined || value === '' ? undefined : Number(value));
  return { perHost: number(raw.perHost), hostDelayMs: number(raw.hostDelayMs), budgetTokens: number(raw.budgetTokens) };
}
