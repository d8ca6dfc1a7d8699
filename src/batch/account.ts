// The queue's token account in Redis (--budget-tokens), and each job's share of it. Every worker's
// model calls draw on one budget at once, so a call's estimate is reserved in Redis (one Lua
// script: checked against the budget less what is spent and what other calls in flight hold)
// before it is sent, and settled with what it used after; a worker gives each job a JobAccount
// over the queue's, which also holds the job to its own maxTokens and tallies its use.

import { randomUUID } from 'node:crypto';
import type { ReservingAccount, TokenReservation } from '../llm/tokenMeter.js';
import { withDeadline } from '../util/time.js';
import type { TokenUsage } from '../types.js';
import { batchKeys, QUEUE_OP_TIMEOUT_MS, type RedisClient } from './connection.js';

const NOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

// Returns {1} when held (or there is no budget, and nothing needs holding), else {0, left, held}:
// what the budget has left once what is spent and what calls in flight hold are taken off.
// A reservation whose job is past its deadline has lapsed (its worker died holding it).
const RESERVE = `${NOW}
local lapsed = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now)
if #lapsed > 0 then
  redis.call('HDEL', KEYS[3], unpack(lapsed))
  redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now)
end
local budget = tonumber(redis.call('HGET', KEYS[1], 'budgetTokens') or '')
if not budget or budget <= 0 then return {1} end
local used = tonumber(redis.call('HGET', KEYS[2], 'tokens:t') or '0')
local held = 0
for _, tokens in ipairs(redis.call('HVALS', KEYS[3])) do held = held + tonumber(tokens) end
local needed = tonumber(ARGV[2])
if budget - used - held < needed then return {0, budget - used - held, held} end
redis.call('HSET', KEYS[3], ARGV[1], needed)
redis.call('ZADD', KEYS[4], now + tonumber(ARGV[3]), ARGV[1])
return {1}`;

// What one call used, to the queue's total and the job's, as its reservation goes (one step, so
// that no check sees the call both spent and held, or neither).
const SETTLE = `
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
if ARGV[2] == '' then return 0 end
local p, c, t = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
redis.call('HINCRBY', KEYS[3], 'tokens:p', p)
redis.call('HINCRBY', KEYS[3], 'tokens:c', c)
redis.call('HINCRBY', KEYS[3], 'tokens:t', t)
redis.call('HINCRBY', KEYS[4], ARGV[2] .. ':p', p)
redis.call('HINCRBY', KEYS[4], ARGV[2] .. ':c', c)
redis.call('HINCRBY', KEYS[4], ARGV[2] .. ':t', t)
return 1`;

export class QueueAccount {
  readonly #keys;

  constructor(
    private readonly client: RedisClient,
    queue: string,
  ) {
    this.#keys = batchKeys(queue);
  }

  /** Tokens the queue may still spend (Infinity without a budget) and what it has spent. */
  async state(): Promise<{ remaining: number; used: number; budget: number | undefined }> {
    const [budget, used] = await withDeadline(
      Promise.all([this.client.hGet(this.#keys.settings, 'budgetTokens'), this.client.hGet(this.#keys.stats, 'tokens:t')]),
      QUEUE_OP_TIMEOUT_MS,
      "Reading the queue's token account",
    );
    const spent = Number(used ?? 0);
    const limit = budget ? Number(budget) : undefined;
    return { remaining: limit === undefined ? Infinity : Math.max(0, limit - spent), used: spent, budget: limit };
  }

  /**
   * Holds `tokens` of the budget for one call until it is settled, or `lapseMs` (past its job's
   * deadline, when nothing can be spent any more); or says what is left when they do not fit.
   */
  async reserve(tokens: number, lapseMs: number): Promise<{ id: string } | { left: number; held: number }> {
    const id = randomUUID();
    const keys = [this.#keys.settings, this.#keys.stats, this.#keys.reserved, this.#keys.reservedUntil];
    const reply = (await withDeadline(
      this.client.eval(RESERVE, { keys, arguments: [id, String(tokens), String(Math.ceil(lapseMs))] }),
      QUEUE_OP_TIMEOUT_MS,
      "Reserving tokens in the queue's account",
    )) as number[];
    return reply[0] === 1 ? { id } : { left: Math.max(0, Number(reply[1])), held: Number(reply[2]) };
  }

  /** Lets go of a reservation and, with a usage, adds it to the queue's total and to the job's. */
  async settle(id: string, jobId: string, usage?: TokenUsage): Promise<void> {
    const { reserved, reservedUntil, stats, usage: perJob } = this.#keys;
    const args = usage
      ? [id, jobId, String(usage.promptTokens), String(usage.completionTokens), String(usage.totalTokens)]
      : [id, '', '0', '0', '0'];
    await withDeadline(
      this.client.eval(SETTLE, { keys: [reserved, reservedUntil, stats, perJob], arguments: args }),
      QUEUE_OP_TIMEOUT_MS,
      "Recording tokens in the queue's account",
    );
  }

  /** Each job's token use over all its attempts (undefined for a job that used none). */
  async usageOf(jobIds: string[]): Promise<Array<TokenUsage | undefined>> {
    if (jobIds.length === 0) return [];
    const fields = jobIds.flatMap((id) => [`${id}:p`, `${id}:c`, `${id}:t`]);
    const values = await withDeadline(this.client.hmGet(this.#keys.usage, fields), QUEUE_OP_TIMEOUT_MS, "Reading the jobs' token use");
    return jobIds.map((_, i) => {
      const [p, c, t] = values.slice(i * 3, i * 3 + 3);
      return t == null ? undefined : { promptTokens: Number(p ?? 0), completionTokens: Number(c ?? 0), totalTokens: Number(t) };
    });
  }

  /** Forgets a job's tallies (it is run again from the start). */
  async forget(jobIds: string[]): Promise<void> {
    if (jobIds.length === 0) return;
    const fields = jobIds.flatMap((id) => [`${id}:p`, `${id}:c`, `${id}:t`]);
    await withDeadline(this.client.hDel(this.#keys.usage, fields), QUEUE_OP_TIMEOUT_MS, "Clearing the jobs' token use");
  }
}

/**
 * One attempt of one job: a call fits if it fits the job's own `maxTokens` (less what this attempt
 * used and what its calls in flight hold) and the queue's budget (reserved in Redis); what it
 * spends goes to both.
 */
export class JobAccount implements ReservingAccount {
  #used = 0;
  #held = 0;
  readonly #deadline: number;

  constructor(
    private readonly queue: QueueAccount,
    private readonly jobId: string,
    private readonly maxTokens: number | undefined,
    /** The job's deadline: a reservation lapses a little after it, should the worker die holding it. */
    timeoutMs: number,
  ) {
    this.#deadline = Date.now() + timeoutMs;
  }

  /** Tokens this attempt used. */
  get used(): number {
    return this.#used;
  }

  #ownLeft(): number {
    return this.maxTokens === undefined ? Infinity : Math.max(0, this.maxTokens - this.#used - this.#held);
  }

  async remaining(): Promise<number> {
    const { remaining } = await this.queue.state();
    return Math.min(remaining, this.#ownLeft());
  }

  async spend(usage: TokenUsage): Promise<void> {
    // Not reserved first (the meter reserves what it sends): nothing is held under this id.
    await this.#settled(randomUUID(), usage);
  }

  async reserve(tokens: number): Promise<TokenReservation | { left: number; held: number }> {
    const own = this.#ownLeft();
    if (own < tokens) return { left: own, held: this.#held };
    // Held here before the round trip, so that the job's own calls started together see each other.
    this.#held += tokens;
    let granted: Awaited<ReturnType<QueueAccount['reserve']>>;
    try {
      granted = await this.queue.reserve(tokens, Math.max(0, this.#deadline - Date.now()) + QUEUE_OP_TIMEOUT_MS);
    } catch (error) {
      this.#held -= tokens;
      throw error;
    }
    if (!('id' in granted)) {
      this.#held -= tokens;
      return granted;
    }
    let open = true;
    const close = () => {
      const was = open;
      if (open) this.#held -= tokens;
      open = false;
      return was;
    };
    return {
      settle: (usage) => {
        close();
        return this.#settled(granted.id, usage);
      },
      cancel: () => (close() ? this.queue.settle(granted.id, this.jobId) : Promise.resolve()),
    };
  }

  #settled(id: string, usage: TokenUsage): Promise<void> {
    this.#used += usage.totalTokens;
    return this.queue.settle(id, this.jobId, usage);
  }
}
