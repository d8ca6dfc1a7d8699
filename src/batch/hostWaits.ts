// Which jobs are waiting for room on their host (--per-host, --host-delay), so that `batch status`
// can tell them from the jobs that run: to BullMQ such a job is as active (or as delayed) as any.
// A sorted set of job ids, scored by when the mark lapses by Redis's clock: a worker renews the
// mark while the job waits, and one that dies leaves marks that lapse by themselves.

import { withDeadline } from '../util/time.js';
import { batchKeys, QUEUE_OP_TIMEOUT_MS, type RedisClient } from './connection.js';

const MARK = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
return 0`;

// Of the live marks, how many are on jobs BullMQ holds as delayed and how many as active (locked).
const COUNT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local active, delayed = 0, 0
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  if redis.call('ZSCORE', KEYS[2], id) then delayed = delayed + 1
  elseif redis.call('EXISTS', ARGV[1] .. id .. ':lock') == 1 then active = active + 1 end
end
return { active, delayed }`;

export class HostWaits {
  readonly #key;

  constructor(
    private readonly client: RedisClient,
    queue: string,
  ) {
    this.#key = batchKeys(queue).hostWaits;
  }

  /** Marks the job as waiting for its host, for `ms` unless marked again. */
  async mark(id: string, ms: number): Promise<void> {
    await withDeadline(
      this.client.eval(MARK, { keys: [this.#key], arguments: [id, String(ms)] }),
      QUEUE_OP_TIMEOUT_MS,
      'Marking a job as waiting for its host',
    );
  }

  async clear(id: string): Promise<void> {
    await withDeadline(this.client.zRem(this.#key, id), QUEUE_OP_TIMEOUT_MS, 'Clearing a job waiting for its host');
  }

  /**
   * How many jobs wait for their host, split by what BullMQ holds them as. `jobKeyPrefix` is
   * BullMQ's key of a job without its id; `delayedKey` its delayed set.
   */
  async count(jobKeyPrefix: string, delayedKey: string): Promise<{ active: number; delayed: number }> {
    const [active, delayed] = (await withDeadline(
      this.client.eval(COUNT, { keys: [this.#key, delayedKey], arguments: [jobKeyPrefix] }),
      QUEUE_OP_TIMEOUT_MS,
      'Counting the jobs waiting for their host',
    )) as [number, number];
    return { active, delayed };
  }
}
