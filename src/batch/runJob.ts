// One job on one page of a fresh browser context (its own cookies and storage, gone with it), or of
// its slot's recycled one (contextPool.ts):
// open the URL, act once if asked, read. The job's deadline is enforced by abort: when it passes,
// the context is closed under whatever is running in it, and the job fails with a TimeoutError.

import { PageStatusError } from '../errors.js';
import { schemaFromJson } from '../extract/jsonSchemaInput.js';
import type { Sdk } from '../sdk.js';
import type { ActOptions, ExtractOptions, ModelConfiguration, TokenBudget } from '../types.js';
import { Deadline } from '../util/time.js';
import { freshContexts, type JobContext, type JobContexts } from './contextPool.js';
import type { BatchJob } from './job.js';
import type { JobTrace } from './jobTrace.js';
import type { JobReturn } from './queue.js';

export interface RunOptions {
  /** The job's deadline when it sets none. */
  timeoutMs: number;
  /** The worker's model; the job's `model` names another of the same provider's key and server. */
  model?: Exclude<ModelConfiguration, string>;
  /** Charged for every model request (the queue's account through the job's). */
  budget?: TokenBudget;
  /** The parsed --storage-state file, given to each new context. */
  storageState?: unknown;
  /** Aborted when the worker hands its jobs back: ends the job at once, as its deadline would. */
  signal?: AbortSignal;
  /** Once the page's request was answered (the site has seen it): the host's delay runs from then. */
  onRequested?: () => Promise<void>;
  /** Where the job's page lives (contextPool.ts); default: a fresh context. */
  contexts?: JobContexts;
  /** Records the job's context (the worker's --trace-dir); kept or not by how the job ends. */
  trace?: JobTrace;
}

export async function runJob(sdk: Sdk, job: BatchJob, options: RunOptions): Promise<JobReturn> {
  const started = Date.now();
  const timeoutMs = job.timeout ?? options.timeoutMs;
  const deadline = new Deadline(
    timeoutMs,
    `The job on ${job.url}`,
    "Give it more time with the job's `timeout` or the worker's --job-timeout.",
  );
  const handBack = () => deadline.abort(options.signal!.reason as Error);
  options.signal?.addEventListener('abort', handBack, { once: true });
  if (options.signal?.aborted) handBack();
  let context: JobContext | undefined;
  let ended = false;
  let succeeded = false;
  const work = async (): Promise<JobReturn> => {
    const opened = await (options.contexts ?? freshContexts).open(sdk, options.storageState);
    context = opened;
    // The deadline passed while the context opened: the abort below has come and gone.
    if (ended) await opened.end(false).catch(() => undefined);
    if (ended) throw deadline.signal.reason;
    await options.trace?.start(opened.context);
    const page = await opened.newPage();
    // Only the status is needed: Chrome reports none of the page's requests (Navigation.gotoStatus).
    const status = await page.gotoStatus(job.url, { timeoutMs: deadline.remaining() });
    await options.onRequested?.();
    if (status >= 400)
      throw new PageStatusError(`${job.url} answered HTTP ${status}: its page is the server's error page.`, job.url, status);
    const model = job.model ? { ...(options.model ?? {}), modelName: job.model } : options.model;
    const call = (): ExtractOptions & ActOptions => ({ page, timeout: deadline.remaining(), model, budget: options.budget });
    if (job.act) await sdk.act(job.act, call());
    const ms = () => Date.now() - started;
    if (!job.instruction) return { pageText: (await sdk.extract({ ...call(), selector: job.selector })).pageText, ms: ms() };
    if (job.schema) {
      const data = await sdk.extract(job.instruction, schemaFromJson(job.schema), { ...call(), selector: job.selector });
      return { data, ms: ms() };
    }
    return { extraction: (await sdk.extract(job.instruction, { ...call(), selector: job.selector })).extraction, ms: ms() };
  };
  const running = work();
  try {
    const result = await deadline.race(running);
    succeeded = true;
    return result;
  } finally {
    ended = true;
    deadline.dispose();
    options.signal?.removeEventListener('abort', handBack);
    // Before the close, so that a job past its deadline is recorded as it stood.
    if (context) await options.trace?.finish(context.context, !succeeded);
    // Past the deadline this is the abort: what still runs in the context fails with it.
    await (context as JobContext | undefined)?.end(succeeded).catch(() => undefined);
    running.catch(() => undefined);
  }
}
