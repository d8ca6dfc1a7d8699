// Adding jobs to a queue, with counts that stay true when several `add`s run at once. BullMQ adds
// a job id once (its script checks and adds in one step) but tells no caller whether its add was
// the one that did it, so two adders of the same jobs that each looked first both saw them absent
// and both said "added". Here each adder first claims the ids it is about to add (SET NX, one
// transaction): for each id exactly one adder at a time holds it, looks, adds, counts and lets go,
// and an adder that finds an id claimed counts it as already there, since the other is adding it.

import { randomUUID } from 'node:crypto';
import type { Queue } from 'bullmq';
import { withDeadline } from '../util/time.js';
import type { QueueAccount } from './account.js';
import { batchKeys, QUEUE_OP_TIMEOUT_MS, type RedisClient } from './connection.js';
import { jobId, type BatchJob } from './job.js';

export interface AddCounts {
  added: number;
  existing: number;
  failed: number;
}

export interface ChunkOptions {
  attempts: number;
  backoffMs: number;
  rerun: boolean;
}

/**
 * How long a claim outlives an adder that died holding it. Meanwhile other adders count its ids
 * as already there (and, without rerun, add them too, so that none is lost).
 */
const CLAIM_MS = 60_000;

// Lets go only of the claims still ours: one that lapsed may be another adder's by now.
const RELEASE = `
for _, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then redis.call('DEL', key) end
end
return 0`;

export class JobAdder {
  readonly #keys;

  constructor(
    private readonly client: RedisClient,
    private readonly queue: Queue,
    private readonly account: QueueAccount,
    name: string,
  ) {
    this.#keys = batchKeys(name);
  }

  /** Adds checked jobs (one chunk: their ids are claimed together), adding to `counts`. */
  async add(jobs: BatchJob[], options: ChunkOptions, counts: AddCounts): Promise<void> {
    // One job per id, even within the chunk.
    const byId = new Map(jobs.map((job) => [jobId(job), job]));
    counts.existing += jobs.length - byId.size;
    const ids = [...byId.keys()];
    const token = randomUUID();
    const claims = this.client.multi();
    for (const id of ids) claims.set(this.#keys.adding(id), token, { NX: true, PX: CLAIM_MS });
    const claimed = (await withDeadline(claims.exec(), QUEUE_OP_TIMEOUT_MS, 'Claiming the jobs to add')) as unknown as Array<string | null>;
    const mine = ids.filter((_, i) => claimed[i] === 'OK');
    const theirs = ids.filter((_, i) => claimed[i] !== 'OK');
    try {
      const look = this.client.multi();
      for (const id of mine) look.exists(this.queue.toKey(id));
      const found = (await withDeadline(look.exec(), QUEUE_OP_TIMEOUT_MS, 'Looking for the jobs in the queue')) as unknown as number[];
      const fresh: string[] = [];
      const there: string[] = [];
      for (const [i, id] of mine.entries()) {
        if (!found[i]) fresh.push(id);
        else if (options.rerun && (await this.#removeIfFinished(id))) fresh.push(id);
        else there.push(id);
      }
      counts.existing += there.length + theirs.length;
      if (!options.rerun && there.length) counts.failed += await this.#failedAmong(there);
      // Another adder is adding `theirs` now. Without rerun, adding them here too is harmless (a job
      // id is added once) and keeps them if that adder dies before it adds them.
      const toAdd = options.rerun ? fresh : [...fresh, ...theirs];
      const bulk = toAdd.map((id) => ({
        name: 'page',
        data: byId.get(id)!,
        opts: { jobId: id, attempts: options.attempts, backoff: { type: 'exponential', delay: options.backoffMs } },
      }));
      if (bulk.length) await withDeadline(this.queue.addBulk(bulk), QUEUE_OP_TIMEOUT_MS, 'Adding jobs to the queue');
      counts.added += fresh.length;
    } finally {
      if (mine.length) {
        const keys = mine.map((id) => this.#keys.adding(id));
        await withDeadline(this.client.eval(RELEASE, { keys, arguments: [token] }), QUEUE_OP_TIMEOUT_MS, 'Releasing the claims').catch(
          () => undefined, // they lapse by themselves
        );
      }
    }
  }

  /** How many of these jobs (all in the queue) failed. */
  async #failedAmong(ids: string[]): Promise<number> {
    const look = this.client.multi();
    const failed = this.queue.toKey('failed');
    for (const id of ids) look.zScore(failed, id);
    const scores = (await withDeadline(look.exec(), QUEUE_OP_TIMEOUT_MS, "Reading the jobs' states")) as unknown as Array<number | null>;
    return scores.filter((score) => score !== null).length;
  }

  async #removeIfFinished(id: string): Promise<boolean> {
    const state = await withDeadline(this.queue.getJobState(id), QUEUE_OP_TIMEOUT_MS, "Reading a job's state");
    if (state !== 'completed' && state !== 'failed') return false;
    await withDeadline(this.queue.remove(id), QUEUE_OP_TIMEOUT_MS, 'Removing a finished job');
    await this.account.forget([id]);
    await withDeadline(this.client.hDel(this.#keys.traces, id), QUEUE_OP_TIMEOUT_MS, "Forgetting a job's trace");
    return true;
  }
}
