// The queue's token account in Redis (--budget-tokens), and each job's share of it. The library
// asks an account before every model request and tells it what the request used (TokenAccount);
// a worker gives each job a JobAccount over the queue's, which also tallies the job's own use.

import { withDeadline } from '../util/time.js';
import type { TokenAccount, TokenUsage } from '../types.js';
import { batchKeys, QUEUE_OP_TIMEOUT_MS, type RedisClient } from './connection.js';

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

  /** Adds one request's use to the queue's total and to the job's (one transaction). */
  async spend(jobId: string, usage: TokenUsage): Promise<void> {
    const { stats, usage: perJob } = this.#keys;
    const multi = this.client
      .multi()
      .hIncrBy(stats, 'tokens:p', usage.promptTokens)
      .hIncrBy(stats, 'tokens:c', usage.completionTokens)
      .hIncrBy(stats, 'tokens:t', usage.totalTokens)
      .hIncrBy(perJob, `${jobId}:p`, usage.promptTokens)
      .hIncrBy(perJob, `${jobId}:c`, usage.completionTokens)
      .hIncrBy(perJob, `${jobId}:t`, usage.totalTokens);
    await withDeadline(multi.exec(), QUEUE_OP_TIMEOUT_MS, "Recording tokens in the queue's account");
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
 * One attempt of one job: what remains is the least of the queue's remainder and the job's own
 * `maxTokens` less what this attempt used; what it spends goes to both.
 */
export class JobAccount implements TokenAccount {
  #used = 0;

  constructor(
    private readonly queue: QueueAccount,
    private readonly jobId: string,
    private readonly maxTokens: number | undefined,
  ) {}

  /** Tokens this attempt used. */
  get used(): number {
    return this.#used;
  }

  async remaining(): Promise<number> {
    const { remaining } = await this.queue.state();
    return this.maxTokens === undefined ? remaining : Math.min(remaining, Math.max(0, this.maxTokens - this.#used));
  }

  async spend(usage: TokenUsage): Promise<void> {
    this.#used += usage.totalTokens;
    await this.queue.spend(this.jobId, usage);
  }
}
