// A batch queue, as whoever feeds it and reads it sees it: add jobs, set the queue's limits, read
// its state and its results, follow its progress. The workers are in worker.ts.

import type { Job, Queue, QueueEvents } from 'bullmq';
import { InvalidOptionError } from '../errors.js';
import { withDeadline } from '../util/time.js';
import { QueueAccount } from './account.js';
import { JobAdder } from './adding.js';
import { HostWaits } from './hostWaits.js';
import type { TokenUsage } from '../types.js';
import {
  BULL_PREFIX,
  batchKeys,
  checkNoEviction,
  checkQueueName,
  connectRedis,
  loadBullMQ,
  QUEUE_OP_TIMEOUT_MS,
  redisUrlOf,
  type RedisClient,
} from './connection.js';
import { decodeFailure, type JobFailure } from './failures.js';
import { checkJob, type BatchJob } from './job.js';
import type { QueueLimits } from './limits.js';

export interface BatchQueueOptions {
  /** The queue's name: workers of the same name on the same Redis share its jobs. */
  queue: string;
  /** Default: REDIS_URL, else redis://127.0.0.1:6379. Its Redis must not evict keys. */
  redisUrl?: string;
}

export interface AddOptions {
  /** Tries per job before it fails, for failures another try may mend. Default 3. */
  attempts?: number;
  /** The first retry's delay in ms; each next one doubles it. Default 1000. */
  backoffMs?: number;
  /** Runs again jobs that already finished (done or failed); others already there are left as they are. */
  rerun?: boolean;
}

export interface AddReport {
  /** Jobs new to the queue (and, with `rerun`, finished ones queued again). */
  added: number;
  /** Jobs that were already there (or being added by another `add` at that moment), left as they were. */
  existing: number;
  /** Of those already there, how many had failed: `rerun` runs them again (always 0 with `rerun`). */
  failed: number;
}

export interface BatchStatus {
  waiting: number;
  /** Waiting for a retry's backoff to pass. */
  delayed: number;
  /** Running in a worker. */
  active: number;
  /** Taken by a worker but waiting for room on their host (`perHost`, `hostDelayMs`): not running yet. */
  waitingForHost: number;
  done: number;
  failed: number;
  /** Attempts that failed and were tried again. */
  retried: number;
  /** Tokens the queue's model calls used, and its budget (undefined: none). */
  tokens: { used: number; budget: number | undefined };
}

/** One job's outcome, as `tendril batch results` prints it. */
export interface BatchResult {
  id: string;
  url: string;
  ok: boolean;
  /** The page text (a job without instruction). */
  pageText?: string;
  /** The model's answer (an instruction without schema). */
  extraction?: string;
  /** The schema's value (an instruction with a schema). */
  data?: unknown;
  error?: JobFailure;
  attempts: number;
  /** How long the last attempt took. */
  ms: number;
  usage?: TokenUsage;
  /** The job's trace file, when its worker kept one (--trace-dir). */
  trace?: string;
}

/** What a worker returns for a job that succeeded. */
export interface JobReturn {
  pageText?: string;
  extraction?: string;
  data?: unknown;
  ms: number;
  /** The job's trace file, when the worker kept one. */
  trace?: string;
}

const ADD_CHUNK = 500;
const PAGE = 200;
const isDrained = (status: BatchStatus) => status.waiting + status.delayed + status.active + status.waitingForHost === 0;

export class BatchQueue {
  readonly name: string;
  readonly #account: QueueAccount;
  readonly #adder: JobAdder;
  readonly #hostWaits: HostWaits;
  #events: QueueEvents | undefined;

  private constructor(
    private readonly bull: typeof import('bullmq'),
    private readonly client: RedisClient,
    private readonly queue: Queue,
    name: string,
  ) {
    this.name = name;
    this.#account = new QueueAccount(client, name);
    this.#adder = new JobAdder(client, queue, this.#account, name);
    this.#hostWaits = new HostWaits(client, name);
  }

  /** Connects to the queue's Redis (refusing one that evicts keys). */
  static async open(options: BatchQueueOptions): Promise<BatchQueue> {
    const name = checkQueueName(options.queue);
    const url = redisUrlOf(options.redisUrl);
    const bull = await loadBullMQ();
    const client = await connectRedis(url);
    try {
      await checkNoEviction(client, url);
      const queue = new bull.Queue(name, { connection: client as never, prefix: BULL_PREFIX });
      queue.on('error', () => undefined); // the client reconnects; each operation has its deadline
      return new BatchQueue(bull, client, queue, name);
    } catch (error) {
      client.destroy();
      throw error;
    }
  }

  /**
   * Adds jobs; a job already in the queue is left as it is, unless it finished and `rerun`. Every
   * job is checked before any is added (a bad one adds none), so the jobs of one call are held in
   * memory: to add more than fits, check them yourself (checkJob) and add them in several calls.
   * The counts hold when several processes add the same jobs at once.
   */
  async add(jobs: Iterable<BatchJob | unknown> | AsyncIterable<BatchJob | unknown>, options: AddOptions = {}): Promise<AddReport> {
    const attempts = options.attempts ?? 3;
    const backoffMs = options.backoffMs ?? 1000;
    if (!Number.isInteger(attempts) || attempts < 1)
      throw new InvalidOptionError(`attempts must be a whole number of 1 or more, not ${attempts}.`);
    if (!Number.isFinite(backoffMs) || backoffMs < 0) throw new InvalidOptionError(`backoffMs must be 0 or more, not ${backoffMs}.`);
    const checked: BatchJob[] = [];
    for await (const given of jobs as AsyncIterable<unknown>) checked.push(checkJob(given, `job ${checked.length + 1}`));
    const report: AddReport = { added: 0, existing: 0, failed: 0 };
    const chunk = { attempts, backoffMs, rerun: options.rerun === true };
    for (let start = 0; start < checked.length; start += ADD_CHUNK)
      await this.#adder.add(checked.slice(start, start + ADD_CHUNK), chunk, report);
    return report;
  }

  /** Sets the queue's limits for every worker (a field left out keeps its value; 0 removes it). */
  async configure(limits: QueueLimits): Promise<void> {
    for (const [key, value] of Object.entries(limits)) {
      if (value !== undefined && !(Number.isInteger(value) && value >= 0))
        throw new InvalidOptionError(`${key} must be a whole number, 0 or more, not ${String(value)}.`);
    }
    const work: Array<Promise<unknown>> = [];
    if (limits.maxActive !== undefined)
      work.push(limits.maxActive > 0 ? this.queue.setGlobalConcurrency(limits.maxActive) : this.queue.removeGlobalConcurrency());
    const settings = batchKeys(this.name).settings;
    for (const key of ['perHost', 'hostDelayMs', 'budgetTokens'] as const) {
      const value = limits[key];
      if (value === undefined) continue;
      work.push(value > 0 ? this.client.hSet(settings, key, String(value)) : this.client.hDel(settings, key));
    }
    await withDeadline(Promise.all(work), QUEUE_OP_TIMEOUT_MS, "Setting the queue's limits");
  }

  async status(): Promise<BatchStatus> {
    const [counts, retried, account, forHost] = await withDeadline(
      Promise.all([
        this.queue.getJobCounts('waiting', 'prioritized', 'waiting-children', 'delayed', 'active', 'completed', 'failed'),
        this.client.hGet(batchKeys(this.name).stats, 'retried'),
        this.#account.state(),
        this.#hostWaits.count(this.queue.toKey(''), this.queue.toKey('delayed')),
      ]),
      QUEUE_OP_TIMEOUT_MS,
      "Reading the queue's counts",
    );
    const count = (type: string) => counts[type] ?? 0;
    // The reads are not one moment: never count more jobs as waiting for their host than BullMQ holds.
    const forHostDelayed = Math.min(count('delayed'), forHost.delayed);
    const forHostActive = Math.min(count('active'), forHost.active);
    return {
      waiting: count('waiting') + count('prioritized') + count('waiting-children'),
      delayed: count('delayed') - forHostDelayed,
      active: count('active') - forHostActive,
      waitingForHost: forHostDelayed + forHostActive,
      done: count('completed'),
      failed: count('failed'),
      retried: Number(retried ?? 0),
      tokens: { used: account.used, budget: account.budget },
    };
  }

  /** Resolves once no job is waiting, delayed or active; `onStatus` sees each state read meanwhile. */
  async drained(onStatus: (status: BatchStatus) => void = () => undefined, signal?: AbortSignal): Promise<BatchStatus> {
    const events = await this.#queueEvents();
    let wake: () => void = () => undefined;
    const onEvent = () => wake();
    for (const name of ['completed', 'failed', 'active', 'waiting', 'drained'] as const) events.on(name, onEvent);
    try {
      for (;;) {
        signal?.throwIfAborted();
        const status = await this.status();
        onStatus(status);
        if (isDrained(status)) return status;
        // An event (or, for what sends none, such as a dead worker's job taken back, a second) wakes us.
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 1000);
          wake = () => (clearTimeout(timer), resolve());
        });
      }
    } finally {
      for (const name of ['completed', 'failed', 'active', 'waiting', 'drained'] as const) events.off(name, onEvent);
    }
  }

  /**
   * Progress as it happens, in every worker: 'completed' (jobId), 'failed' (jobId, the error),
   * 'active' (jobId). Returns a function that stops listening.
   */
  async on(event: 'completed' | 'failed' | 'active', listener: (jobId: string, error?: JobFailure) => void): Promise<() => void> {
    const events = await this.#queueEvents();
    const handler = (args: { jobId: string; failedReason?: string }) =>
      listener(args.jobId, event === 'failed' ? decodeFailure(args.failedReason) : undefined);
    events.on(event, handler as never);
    return () => void events.off(event, handler as never);
  }

  async #queueEvents(): Promise<QueueEvents> {
    if (!this.#events) {
      // From the stream's last event as of now: left to itself, QueueEvents starts at its first
      // read, and what happens between now and then would be missed.
      const latest = await withDeadline(
        this.client.xRevRange(this.queue.toKey('events'), '+', '-', { COUNT: 1 }),
        QUEUE_OP_TIMEOUT_MS,
        "Reading the queue's events",
      );
      const last = latest?.[0];
      const connection = this.client.duplicate() as never;
      this.#events = new this.bull.QueueEvents(this.name, { connection, prefix: BULL_PREFIX, lastEventId: last?.id ?? '0-0' });
      this.#events.on('error', () => undefined);
      await withDeadline(this.#events.waitUntilReady(), QUEUE_OP_TIMEOUT_MS, "Listening to the queue's events");
    }
    return this.#events;
  }

  /**
   * Every finished job's result, done ones first, then failed ones (only those with `failed`),
   * read a page at a time: a queue of any size is never held in memory.
   */
  async *results(options: { failed?: boolean } = {}): AsyncGenerator<BatchResult> {
    for (const type of options.failed ? (['failed'] as const) : (['completed', 'failed'] as const)) {
      // Oldest first: jobs that finish meanwhile join the end, so no page shifts under us.
      for (let start = 0; ; start += PAGE) {
        const jobs = (await withDeadline(
          this.queue.getJobs([type], start, start + PAGE - 1, true),
          QUEUE_OP_TIMEOUT_MS,
          "Reading the queue's results",
        )) as Job[];
        const present = jobs.filter(Boolean);
        const ids = present.map((job) => job.id!);
        const [usage, traces] = await Promise.all([this.#account.usageOf(ids), this.#failedTraces(type, ids)]);
        for (const [i, job] of present.entries()) yield resultOf(job, type === 'completed', usage[i], traces[i]);
        if (jobs.length < PAGE) break;
      }
    }
  }

  /** A failed job has no return value: its worker noted its trace's file beside the queue. */
  async #failedTraces(type: 'completed' | 'failed', ids: string[]): Promise<Array<string | null>> {
    if (type !== 'failed' || ids.length === 0) return [];
    return withDeadline(this.client.hmGet(batchKeys(this.name).traces, ids), QUEUE_OP_TIMEOUT_MS, "Reading the jobs' traces");
  }

  async close(): Promise<void> {
    await this.#events?.close().catch(() => undefined);
    await this.queue.close().catch(() => undefined);
    await this.client.close().catch(() => this.client.destroy());
  }
}

function resultOf(job: Job, ok: boolean, usage: TokenUsage | undefined, trace: string | null | undefined): BatchResult {
  const data = job.data as BatchJob;
  const base = { id: job.id!, url: data.url, ok, attempts: job.attemptsMade };
  const withUsage = <T extends object>(result: T) => (usage ? { ...result, usage } : result);
  if (ok) {
    const { ms, ...value } = (job.returnvalue ?? {}) as JobReturn;
    return withUsage({ ...base, ...value, ms: ms ?? 0 });
  }
  const ms = job.finishedOn && job.processedOn ? job.finishedOn - job.processedOn : 0;
  return withUsage({ ...base, error: decodeFailure(job.failedReason), ms, ...(trace ? { trace } : {}) });
}
