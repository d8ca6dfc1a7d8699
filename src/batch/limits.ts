// Limits on one host that hold across every worker: at most `perHost` jobs on it at once, and at
// least `hostDelayMs` between two jobs' requests to it. BullMQ's open-source edition has no groups,
// so these are ours: leases in a Redis sorted set, taken and checked by one Lua script (atomic),
// each with an expiry that its holder renews, so a worker that dies frees its hosts when it lapses.
// A job that finds its host busy holds nothing: the worker puts it back (delayed) for as long as
// the delay has left, or, when only a release can make room, in the host's waiting set, from
// which the end of a lease or of a request wakes the oldest.

import { randomUUID } from 'node:crypto';
import { withDeadline } from '../util/time.js';
import { batchKeys, QUEUE_OP_TIMEOUT_MS, type RedisClient } from './connection.js';

/** The queue's limits, kept in Redis by whoever adds jobs (`configure`), read by every worker. */
export interface QueueLimits {
  /** Jobs running at once in all workers together (BullMQ's global concurrency). */
  maxActive?: number;
  /** Jobs on one host at once, in all workers together. */
  perHost?: number;
  /** Least time between two jobs' page requests to one host, in ms. */
  hostDelayMs?: number;
  /** Tokens the queue's model calls may use in all. */
  budgetTokens?: number;
}

const NOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

// The delay is timed from when the last job's page request was answered (`last`), not from when its
// lease was taken: between the two it opens a context and a tab, and the site sees nothing of that.
// Until then that job holds the host's turn, so no other job's request can overtake it.
// Returns 0 (taken), ms until the delay has passed (> 0), or -(ms until the oldest lease or the
// turn lapses) when only a release can make room. With ARGV[6] = 1 it takes nothing, and a job
// that must wait for a release is put in the host's waiting set instead (then it returns -1).
const TAKE = `${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local max, delay, ttl = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local wait = 0
if max > 0 and redis.call('ZCARD', KEYS[1]) >= max then
  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  wait = -math.max(1, tonumber(first[2]) - now)
elseif delay > 0 then
  local turn = redis.call('PTTL', KEYS[3])
  if turn > 0 then
    wait = -turn
  else
    local last = tonumber(redis.call('GET', KEYS[2]) or '0')
    if now - last < delay then wait = delay - (now - last) end
  end
end
if ARGV[6] == '1' then
  if wait >= 0 then return 0 end
  redis.call('ZADD', KEYS[4], 'NX', now, ARGV[5])
  redis.call('PEXPIRE', KEYS[4], 60000)
  return -1
end
if wait ~= 0 then return wait end
if delay > 0 then redis.call('SET', KEYS[3], ARGV[1], 'PX', ttl) end
redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('ZREM', KEYS[4], ARGV[5])
return 0`;

// Ends the holder's turn (its request was answered, or it ended without one: then the site may
// have seen a request, so the delay runs from now all the same), and with ARGV[3] = 1 its lease.
// Returns 1 when there is new room (the worker then wakes a waiting job), else 0.
const END = `${NOW}
local room = 0
if redis.call('GET', KEYS[3]) == ARGV[1] then
  redis.call('DEL', KEYS[3])
  redis.call('SET', KEYS[2], now, 'PX', math.max(1, tonumber(ARGV[2])))
  room = 1
end
if ARGV[3] == '1' then room = room + redis.call('ZREM', KEYS[1], ARGV[1]) end
return room`;

// The oldest job waiting for room on a host, taken out of the waiting set (nil when none).
const NEXT = `
local next = redis.call('ZRANGE', KEYS[1], 0, 0)
if #next == 0 then return false end
redis.call('ZREM', KEYS[1], next[1])
return next[1]`;

const RENEW = `${NOW}
local n = redis.call('ZADD', KEYS[1], 'XX', 'CH', now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
if redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('PEXPIRE', KEYS[2], ARGV[2]) end
return n`;

/**
 * How long a job put back to wait for room on a busy host waits before it looks again by itself.
 * It is woken when there is room, so this serves only should its waker die between taking it from
 * the waiting set and waking it; the places of a worker that died are taken by its own jobs, which
 * come back once their lock lapses. Long, since every waiting job looks again this often.
 */
export const HOST_RECHECK_MS = 30_000;

export interface HostLease {
  /** The job's page request was answered: the host's delay runs from now, for the next job. */
  requested(): Promise<void>;
  release(): Promise<void>;
}

/**
 * A lease taken, or how long the job should wait (ms) before trying again; `untilWoken` when only
 * a release can make room: then the job, once put back, calls `wait` to be woken by one.
 */
export type HostTry =
  | { lease: HostLease; waitMs?: undefined; untilWoken?: undefined }
  | { lease?: undefined; waitMs: number; untilWoken: boolean };

const NO_LEASE: HostLease = { requested: async () => undefined, release: async () => undefined };

export class HostLimits {
  readonly #keys;

  constructor(
    private readonly client: RedisClient,
    queue: string,
    /** How long a lease lives unless renewed: a dead worker's hosts are free this long after it died. */
    private readonly leaseMs: number,
    /** Wakes (promotes) a job waiting for a host that now has room; false when it was not waiting any more. */
    private readonly wake: (jobId: string) => Promise<boolean> = async () => true,
  ) {
    this.#keys = batchKeys(queue);
  }

  #hostKeys(host: string): string[] {
    const keys = this.#keys;
    return [keys.hostLeases(host), keys.hostLast(host), keys.hostTurn(host), keys.hostWaiting(host)];
  }

  /** One try for `jobId` on `host`: a lease (renewed until released), or how long to wait. */
  async take(host: string, jobId: string, perHost: number, hostDelayMs: number): Promise<HostTry> {
    if (perHost <= 0 && hostDelayMs <= 0) return { lease: NO_LEASE };
    const id = randomUUID();
    const keys = this.#hostKeys(host);
    const wait = await this.#eval(keys, [id, String(perHost), String(hostDelayMs), String(this.leaseMs), jobId, '0']);
    if (wait > 0) return { waitMs: wait, untilWoken: false };
    if (wait < 0) return { waitMs: HOST_RECHECK_MS, untilWoken: true };
    return { lease: this.#held(keys, id, hostDelayMs) };
  }

  /**
   * For a job put back (delayed) after `take` said to wait for a release: enters it in the host's
   * waiting set, whose oldest the next release wakes; false when there is room already (a release
   * came in between), and the job should be woken now. Entered only once it is delayed, so no
   * wake-up can come before it can be woken.
   */
  async wait(host: string, jobId: string, perHost: number, hostDelayMs: number): Promise<boolean> {
    return (await this.#eval(this.#hostKeys(host), ['', String(perHost), String(hostDelayMs), String(this.leaseMs), jobId, '1'])) < 0;
  }

  /** Wakes the oldest job still waiting: an entry whose job is not delayed any more is passed over. */
  async #wakeOne(waiting: string): Promise<void> {
    for (;;) {
      const next = await withDeadline(
        this.client.eval(NEXT, { keys: [waiting] }),
        QUEUE_OP_TIMEOUT_MS,
        'Waking a job waiting for its host',
      );
      if (typeof next !== 'string' || (await this.wake(next))) return;
    }
  }

  async #eval(keys: string[], args: string[]): Promise<number> {
    return Number(
      await withDeadline(this.client.eval(TAKE, { keys, arguments: args }), QUEUE_OP_TIMEOUT_MS, 'Taking a host lease in Redis'),
    );
  }

  #held(keys: string[], id: string, hostDelayMs: number): HostLease {
    const renew = setInterval(
      () => {
        const args = [id, String(this.leaseMs)];
        // Through a promise: a client already closed throws at once, and a timer must not throw.
        void Promise.resolve()
          .then(() => this.client.eval(RENEW, { keys: [keys[0]!, keys[2]!], arguments: args }))
          .catch(() => undefined);
      },
      Math.max(100, Math.floor(this.leaseMs / 3)),
    );
    renew.unref();
    let released = false;
    const end = async (lease: boolean) => {
      const args = [id, String(hostDelayMs), lease ? '1' : '0'];
      const room = await withDeadline(
        this.client.eval(END, { keys, arguments: args }),
        QUEUE_OP_TIMEOUT_MS,
        'Releasing a host lease in Redis',
      ).catch(() => 0);
      if (Number(room) > 0) await this.#wakeOne(keys[3]!).catch(() => undefined);
    };
    return {
      requested: () => (released ? Promise.resolve() : end(false)),
      release: async () => {
        if (released) return;
        released = true;
        clearInterval(renew);
        await end(true);
      },
    };
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
