// A batch worker: takes jobs from the queue (BullMQ), runs each on a fresh context of its one
// browser (or its slot's recycled one: contextPool.ts), within the queue's limits (a job whose
// host is busy goes back to the queue rather than wait in a slot), and sorts failures into retried
// and permanent ones. Several workers on one Redis share the queue; one that dies loses no job (others take its jobs once their
// lock lapses), and its Chromium dies with it (the launcher's pipe, see browser/launch.ts).

import type { Job, Queue, Worker } from 'bullmq';
import { BudgetExceededError, ConnectionClosedError, InvalidOptionError, MissingLLMConfigurationError } from '../errors.js';
import { checkStorageState } from '../driver/storageState.js';
import { parseModelConfiguration } from '../llm/config.js';
import { modelSettingsError } from '../llm/providers.js';
import type { ModelConfiguration, SdkOptions } from '../types.js';
import { withDeadline } from '../util/time.js';
import { JobAccount, QueueAccount } from './account.js';
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
import { decodeFailure, encodeFailure, isPermanent, type JobFailure } from './failures.js';
import type { BatchJob } from './job.js';
import { HostWaits } from './hostWaits.js';
import { JobTrace, type TraceMode } from './jobTrace.js';
import { HostLimits, hostOf, readLimits, type HostLease, type QueueLimits } from './limits.js';
import type { JobReturn } from './queue.js';
import { runJob } from './runJob.js';
import { checkIsolation, ContextPool, freshContexts, type Isolation, type JobContexts } from './contextPool.js';
import { WorkerBrowser } from './workerBrowser.js';

export interface BatchWorkerOptions {
  queue: string;
  /** Default: REDIS_URL, else redis://127.0.0.1:6379. */
  redisUrl?: string;
  /** Jobs this worker runs at once, each in its own browser context. Default 4. */
  concurrency?: number;
  /** The browser (launched, `localBrowserLaunchOptions.cdpUrl`, or env HOSTED) and the Sdk's other options. */
  sdk?: SdkOptions;
  /** The model for jobs that ask one; a job's `model` replaces its name only (the key stays the worker's). */
  model?: Exclude<ModelConfiguration, string>;
  /** Deadline of a job that sets none, from opening its page to its result. Default 60000. */
  jobTimeoutMs?: number;
  /**
   * How long a job stays locked to this worker without a sign of life: a dead worker's jobs go to
   * others within this and a tenth more (at most 2 s) after it died (BullMQ's lockDuration; its
   * stalled check runs every tenth of it). Default 30000.
   */
  lockMs?: number;
  /** On close(): how long jobs in hand may take to finish before they are handed back. Default 10000. */
  graceMs?: number;
  /** A storage state (cookies, localStorage) each job's context starts with. */
  storageState?: unknown;
  /**
   * `fresh` (default): each job in a new browser context, gone when it ends. `recycle`: one context
   * per concurrency slot, cleared between jobs; faster, and it shares what docs/batch.md lists.
   */
  isolation?: Isolation;
  /**
   * A trace zip of each job's context (docs/tracing.md) in `dir`, named by the job's id, its path in
   * the job's result; `mode` 'retain-on-failure' keeps only failed jobs' traces. Default 'on'.
   */
  trace?: { dir: string; mode?: TraceMode };
  /** Each job as it ends. */
  onJob?: (event: WorkerJobEvent) => void;
  /** Trouble with the queue's Redis (lost, reconnecting) and BullMQ's own errors; passwords are never in them. */
  onError?: (error: Error) => void;
}

export type WorkerJobEvent =
  | { kind: 'done'; id: string; url: string; ms: number }
  | { kind: 'failed'; id: string; url: string; error: JobFailure; retry: boolean; attempt: number; attempts: number }
  /** Back to the queue without an attempt counted: the worker is stopping, or (`why`) it cannot run the job but another may. */
  | { kind: 'handed-back'; id: string; url: string; why?: string };

/** How long a job this worker has no model for waits before any worker takes it again. */
const NO_MODEL_DELAY_MS = 5000;

/**
 * How often the workers look for jobs whose lock lapsed (one look serves them all). A job is
 * taken back at the first look after its lock lapsed, so a dead worker's jobs come back within
 * `lockMs` plus this; at `lockMs` itself they came back up to twice as late.
 */
export function stalledCheckMs(lockMs: number): number {
  return Math.min(2000, Math.max(250, Math.floor(lockMs / 10)));
}

/** How long a worker trusts the queue's limits it read before reading them again. */
const LIMITS_TTL_MS = 2000;
/** A job put back for its host is shown as waiting for it this long past the moment it looks again. */
const HOST_WAIT_MARGIN_MS = 5000;

export class BatchWorker {
  readonly #handBack = new AbortController();
  readonly #limitsRead: { at: number; value?: Promise<QueueLimits> } = { at: 0 };
  #running = 0;
  /** Jobs this worker handed back for want of a usable model. */
  readonly #noModel = new Set<string>();
  #closing: Promise<void> | undefined;
  #worker!: Worker;
  readonly #contexts: JobContexts;

  private constructor(
    private readonly bull: typeof import('bullmq'),
    private readonly client: RedisClient,
    private readonly queue: Queue,
    private readonly browser: WorkerBrowser,
    private readonly options: BatchWorkerOptions & { queue: string },
    private readonly account: QueueAccount,
    private readonly hosts: HostLimits,
    private readonly hostWaits: HostWaits,
  ) {
    this.#contexts = checkIsolation(options.isolation, 'isolation') === 'recycle' ? new ContextPool() : freshContexts;
  }

  /** Connects, starts the browser, and starts taking jobs. */
  static async start(options: BatchWorkerOptions): Promise<BatchWorker> {
    const name = checkQueueName(options.queue);
    const concurrency = options.concurrency ?? 4;
    if (!Number.isInteger(concurrency) || concurrency < 1)
      throw new InvalidOptionError(`concurrency must be a whole number of 1 or more, not ${concurrency}.`);
    // Before anything starts: a state that cannot load would fail every job instead.
    if (options.storageState !== undefined) checkStorageState(options.storageState, 'storageState');
    const lockMs = options.lockMs ?? 30_000;
    checkIsolation(options.isolation, 'isolation');
    // A model that cannot be used is said now, before a job is taken, not once per job.
    const missing = options.model && modelSettingsError(parseModelConfiguration(options.model)!);
    if (missing) throw missing;
    const url = redisUrlOf(options.redisUrl);
    const bull = await loadBullMQ();
    const onError = options.onError ?? (() => undefined);
    const client = await connectRedis(url, onError);
    const browser = new WorkerBrowser(options.sdk ?? {});
    try {
      await checkNoEviction(client, url);
      // The browser first: a worker that cannot get one takes no job.
      await browser.get();
      const queue = new bull.Queue(name, { connection: client as never, prefix: BULL_PREFIX });
      queue.on('error', () => undefined);
      const worker: BatchWorker = new BatchWorker(
        bull,
        client,
        queue,
        browser,
        { ...options, queue: name },
        new QueueAccount(client, name),
        new HostLimits(client, name, lockMs, (id): Promise<boolean> => worker.#wake(id)),
        new HostWaits(client, name),
      );
      worker.#worker = new bull.Worker(name, (job, token) => worker.#process(job, token), {
        connection: client as never,
        prefix: BULL_PREFIX,
        concurrency,
        lockDuration: lockMs,
        stalledInterval: stalledCheckMs(lockMs),
        maxStalledCount: 2,
      });
      // The client reconnects by itself; a job's own errors are its result, not these.
      worker.#worker.on('error', onError);
      await withDeadline(worker.#worker.waitUntilReady(), QUEUE_OP_TIMEOUT_MS, 'Starting the worker');
      return worker;
    } catch (error) {
      await browser.close().catch(() => undefined);
      client.destroy();
      throw error;
    }
  }

  /** Process id of the browser this worker launched (undefined when attached). */
  browserProcessId(): number | undefined {
    return this.browser.processId();
  }

  async #limits(): Promise<QueueLimits> {
    const read = this.#limitsRead;
    if (!read.value || Date.now() - read.at > LIMITS_TTL_MS) {
      read.at = Date.now();
      read.value = readLimits(this.client, this.options.queue);
      read.value.catch(() => (read.value = undefined));
    }
    return read.value;
  }

  async #process(job: Job, token: string | undefined): Promise<JobReturn> {
    const data = job.data as BatchJob;
    const id = job.id!;
    this.#running++;
    let lease: HostLease | undefined;
    let sdk: Awaited<ReturnType<WorkerBrowser['get']>> | undefined;
    const attempts = job.opts.attempts ?? 1;
    const traced = this.options.trace;
    const trace = traced && JobTrace.of(traced.dir, traced.mode ?? 'on', id, this.options.onError ?? (() => undefined));
    try {
      const limits = await this.#limits();
      if ((data.instruction || data.act) && !this.options.model) {
        throw new MissingLLMConfigurationError('This worker has no model (no --model, MODEL_NAME or key), and the job has an instruction.');
      }
      if (data.instruction || data.act) {
        const { remaining, budget } = await this.account.state();
        if (remaining <= 0) {
          const spent = new BudgetExceededError(
            `The queue's token budget (${budget} tokens) is spent; raise it with \`tendril batch add --budget-tokens\`.`,
          );
          throw Object.assign(spent, { scope: 'account', limit: budget ?? 0, used: (budget ?? 0) - remaining, needed: 1 });
        }
      }
      const host = hostOf(data.url);
      const [perHost, hostDelayMs] = [limits.perHost ?? 0, limits.hostDelayMs ?? 0];
      const taken = await this.hosts.take(host, id, perHost, hostDelayMs);
      if (!taken.lease) {
        // The host is busy: the job goes back to the queue, so this slot takes another one. A
        // DelayedError is not a failure to BullMQ: no attempt is counted. Marked for `batch
        // status` until a little past the moment it looks again (a wake-up may come sooner).
        await this.hostWaits.mark(id, taken.waitMs + HOST_WAIT_MARGIN_MS);
        await job.moveToDelayed(Date.now() + taken.waitMs, token);
        // Should Redis fail here, the job's own recheck (HOST_RECHECK_MS) is its wake-up.
        if (taken.untilWoken && !(await this.hosts.wait(host, id, perHost, hostDelayMs).catch(() => true))) await this.#wake(id);
        throw new this.bull.DelayedError();
      }
      lease = taken.lease;
      if (perHost > 0 || hostDelayMs > 0) await this.hostWaits.clear(id);
      sdk = await this.browser.get();
      const timeoutMs = data.timeout ?? this.options.jobTimeoutMs ?? 60_000;
      const budget = { maxTokens: data.maxTokens, account: new JobAccount(this.account, id, data.maxTokens, timeoutMs) };
      const result = await runJob(sdk, data, {
        timeoutMs,
        model: this.options.model,
        budget,
        storageState: this.options.storageState,
        signal: this.#handBack.signal,
        onRequested: () => lease!.requested(),
        contexts: this.#contexts,
        trace,
      });
      // An earlier attempt's failed trace is gone (or replaced): the job's result names the one kept.
      if (trace) await this.#noteTrace(id, undefined);
      if (trace?.written) result.trace = trace.written;
      this.options.onJob?.({ kind: 'done', id, url: data.url, ms: result.ms });
      return result;
    } catch (error) {
      if (error instanceof this.bull.DelayedError) throw error;
      if (this.#handBack.signal.aborted) {
        // Back to the queue as it was (no attempt counted), for another worker.
        await job.moveToDelayed(Date.now(), token);
        this.options.onJob?.({ kind: 'handed-back', id, url: data.url });
        throw new this.bull.DelayedError();
      }
      if (error instanceof MissingLLMConfigurationError) {
        // This worker's settings, not the job: it goes back, its attempts untouched, for a worker that has the model.
        await job.moveToDelayed(Date.now() + NO_MODEL_DELAY_MS, token);
        this.#noModel.add(id);
        this.options.onJob?.({ kind: 'handed-back', id, url: data.url, why: `${error.name}: ${error.message}` });
        throw new this.bull.DelayedError();
      }
      if (sdk && error instanceof ConnectionClosedError) this.browser.lost(sdk);
      const permanent = isPermanent(error);
      const retry = !permanent && job.attemptsMade + 1 < attempts;
      if (retry) await this.client.hIncrBy(batchKeys(this.options.queue).stats, 'retried', 1).catch(() => undefined);
      if (trace) await this.#noteTrace(id, trace.written);
      const reason = encodeFailure(error);
      this.options.onJob?.({
        kind: 'failed',
        id,
        url: data.url,
        error: decodeFailure(reason),
        retry,
        attempt: job.attemptsMade + 1,
        attempts,
      });
      throw permanent ? new this.bull.UnrecoverableError(reason) : new Error(reason);
    } finally {
      await lease?.release();
      this.#running--;
    }
  }

  /** A job put back to wait for a host that now has room: run it now. False when it was not delayed. */
  async #wake(jobId: string): Promise<boolean> {
    const job = await withDeadline(this.queue.getJob(jobId), QUEUE_OP_TIMEOUT_MS, 'Reading a job').catch(() => undefined);
    // Not delayed any more (it looked again by itself, or was removed): the next one is woken instead.
    return job
      ? job.promote().then(
          () => true,
          () => false,
        )
      : false;
  }

  /** A failed job's trace file for `batch results` (a failed job has no return value to carry it). */
  async #noteTrace(id: string, file: string | undefined): Promise<void> {
    const key = batchKeys(this.options.queue).traces;
    const write = file ? this.client.hSet(key, id, file) : this.client.hDel(key, id);
    await withDeadline(write, QUEUE_OP_TIMEOUT_MS, "Noting the job's trace").catch((error: Error) => this.options.onError?.(error));
  }

  /**
   * Resolves once no job is waiting, delayed or active anywhere, and none in this worker: jobs of
   * a worker that died count as active until they are taken back, so they are run before this resolves.
   */
  async untilEmpty(): Promise<void> {
    for (;;) {
      if (this.#closing) return;
      if (this.#running === 0) {
        const counts = await withDeadline(
          this.queue.getJobCounts('waiting', 'prioritized', 'waiting-children', 'delayed', 'active'),
          QUEUE_OP_TIMEOUT_MS,
          "Reading the queue's counts",
        ).catch(() => undefined);
        if (counts && Object.values(counts).every((count) => count === 0)) return;
        if (counts && (await this.#onlyUnrunnableLeft(counts))) return;
      }
      // Nothing tells of a dead worker's job taken back, so look again shortly.
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  /**
   * Whether all that is left are delayed jobs this worker handed back for want of a model: it can
   * run none of them, so waiting for them would be forever (they stay queued for a worker that can).
   */
  async #onlyUnrunnableLeft(counts: Record<string, number>): Promise<boolean> {
    const { delayed = 0, ...others } = counts;
    if (!this.#noModel.size || delayed === 0 || delayed > this.#noModel.size || Object.values(others).some(Boolean)) return false;
    const jobs = await withDeadline(this.queue.getJobs(['delayed'], 0, delayed), QUEUE_OP_TIMEOUT_MS, 'Reading the delayed jobs').catch(
      () => undefined,
    );
    return jobs !== undefined && jobs.every((job) => this.#noModel.has(job.id!));
  }

  /**
   * Stops taking jobs, lets those in hand finish for `graceMs`, hands back the rest (they go to
   * other workers without losing an attempt), then closes the browser and the connection.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      const graceMs = this.options.graceMs ?? 10_000;
      const timer = setTimeout(() => this.#handBack.abort(new Error('The worker is stopping; the job goes back to the queue.')), graceMs);
      try {
        await this.#worker.close();
      } finally {
        clearTimeout(timer);
        if (this.#contexts instanceof ContextPool) await this.#contexts.close();
        await this.browser.close().catch(() => undefined);
        await this.queue.close().catch(() => undefined);
        await this.client.close().catch(() => this.client.destroy());
      }
    })();
    return this.#closing;
  }
}
