// `tendril worker`: runs a batch queue's jobs until stopped (or, with --exit-when-empty, until no
// job is left anywhere). SIGTERM or SIGINT: jobs in hand finish (or go back to the queue after
// --grace), the browser closes, the process exits 0.

import type { TraceMode } from '../batch/jobTrace.js';
import { MissingLLMConfigurationError } from '../errors.js';
import type { SdkOptions } from '../types.js';
import { readJsonFlag } from './jsonFile.js';
import { browserLaunchOptions, checkCommandLineModel, commandLineModel, modelGiven, type CommandLineModel } from './model.js';
import { parseFlags, UsageError } from './usage.js';

export const WORKER_USAGE = `tendril worker --queue NAME [flags]

Runs the queue's jobs (added with tendril batch add) until stopped: one browser, each job in a fresh
browser context of its own. Start as many workers as you like, on as many machines, on one Redis.
Prints "worker ready" once it takes jobs, and a line per job on stderr.

  --queue NAME         the queue (required)
  --redis-url URL      the queue's Redis (default REDIS_URL, else redis://127.0.0.1:6379)
  --concurrency N      jobs at once in this worker (default 4)
  --exit-when-empty    exit once no job is waiting, delayed or active in any worker (a worker with no
                       model: once only jobs that need one are left, handed back for others)
  --job-timeout MS     deadline of a job that sets none (default 60000)
  --lock-ms MS         a dead worker's jobs go to others this long after it died (default 30000)
  --grace MS           on SIGTERM, how long jobs in hand may finish before going back (default 10000)
  --storage-state FILE a storage state (cookies, localStorage; JSON) every job's context starts with
  --isolation MODE     fresh (default): a new browser context per job; recycle: one per slot,
                       cleared between jobs, faster, sharing what docs/batch.md lists
  --trace-dir DIR      a trace zip of each job (docs/tracing.md) in DIR, named by the job's id; its
                       path is the "trace" of the job's result line
  --trace MODE         on (default: every job's trace kept) or retain-on-failure (only failed jobs')
Model (jobs with an instruction or an action), checked at start:
  --model NAME         provider/model (default MODEL_NAME, else openai/gpt-4.1-mini); the key from
                       MODEL_API_KEY or the provider's variable
  --base-url URL       the model server's URL (default MODEL_BASE_URL); a server there is asked for
                       no key unless MODEL_API_KEY gives one
  A model named (a flag or MODEL_*) that lacks its key or address ends the worker at once (exit 2);
  with none named and no key, jobs that need a model go back to the queue for a worker that has one.
Browser (default: a local Chrome or Chromium, or CHROME_PATH):
  --chrome-args ARGS   extra switches for a launched Chromium (default CHROME_ARGS); where the
                       runtime has no user namespaces: --chrome-args=--no-sandbox
  --cdp-url URL        attach to any CDP endpoint (ws://…, http://host:port): a hosted session, a
                       Selenium Grid's se:cdp, browserless
  --hosted             use the hosted service: HOSTED_API_URL, HOSTED_API_KEY (HOSTED_PROJECT_ID optional)
  --quiet              no line per job
  --verbose            the library's log on stderr`;

const FLAGS = {
  queue: { type: 'string' },
  'redis-url': { type: 'string' },
  concurrency: { type: 'string' },
  'exit-when-empty': { type: 'boolean' },
  'job-timeout': { type: 'string' },
  'lock-ms': { type: 'string' },
  grace: { type: 'string' },
  'storage-state': { type: 'string' },
  isolation: { type: 'string' },
  'trace-dir': { type: 'string' },
  trace: { type: 'string' },
  model: { type: 'string' },
  'base-url': { type: 'string' },
  'chrome-args': { type: 'string' },
  'cdp-url': { type: 'string' },
  hosted: { type: 'boolean' },
  quiet: { type: 'boolean' },
  verbose: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

function positive(raw: string | undefined, flag: string): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1)
    throw new UsageError(`--${flag} takes a whole number of 1 or more, not ${JSON.stringify(raw)}.`, WORKER_USAGE);
  return value;
}

/**
 * The --storage-state file, checked whole (each cookie as the browser will be given it) before the
 * worker starts: a state that cannot load would otherwise fail every job, one by one.
 */
async function readStorageState(file: string): Promise<unknown> {
  const parsed = await readJsonFlag('--storage-state', file);
  const { checkStorageState } = await import('../driver/storageState.js');
  checkStorageState(parsed, `--storage-state ${file}`);
  return parsed;
}

function traceOf(dir: string | undefined, mode: string | undefined): { dir: string; mode: TraceMode } | undefined {
  if (mode !== undefined && mode !== 'on' && mode !== 'retain-on-failure')
    throw new UsageError(`--trace takes on or retain-on-failure, not ${JSON.stringify(mode)}.`, WORKER_USAGE);
  if (dir === undefined) {
    if (mode !== undefined) throw new UsageError('--trace needs --trace-dir DIR: where the traces go.', WORKER_USAGE);
    return undefined;
  }
  return { dir, mode: mode ?? 'on' };
}

/** At most one line per this long about the queue's Redis, however often its client retries. */
const ERROR_INTERVAL_MS = 30_000;
let lastError = -Infinity;

function reportRedisError(error: Error): void {
  if (Date.now() - lastError < ERROR_INTERVAL_MS) return;
  lastError = Date.now();
  // node-redis's messages name the address (never the password); BullMQ's name the queue.
  process.stderr.write(`tendril worker: the queue's Redis: ${error.message} (retrying)\n`);
}

/**
 * The worker's model, checked before it takes a job. A model the user named (a flag, MODEL_*) must
 * be usable, as for `tendril extract`: else exit 2 now, not a failure per job. None named and the
 * default without its key: no model, and jobs that need one are handed back (batch/worker.ts).
 */
async function workerModel(values: { model?: string; 'base-url'?: string }, hosted: boolean): Promise<CommandLineModel | undefined> {
  const model = commandLineModel(values);
  try {
    await checkCommandLineModel(model, !hosted);
  } catch (error) {
    if (modelGiven(values) || !(error instanceof MissingLLMConfigurationError)) throw error;
    process.stderr.write(
      `tendril worker: no model (${error.message}) Jobs with an instruction go back to the queue for a worker that has one.\n`,
    );
    return undefined;
  }
  return model;
}

export async function workerCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, FLAGS, WORKER_USAGE);
  if (values.help) return (process.stdout.write(`${WORKER_USAGE}\n`), 0);
  if (positionals.length) throw new UsageError('worker takes no arguments.', WORKER_USAGE);
  if (!values.queue) throw new UsageError('Name the queue with --queue NAME.', WORKER_USAGE);
  if (values.hosted && values['cdp-url']) throw new UsageError('Choose one browser: --cdp-url or --hosted.', WORKER_USAGE);
  if (values['chrome-args'] !== undefined && (values['cdp-url'] || values.hosted))
    throw new UsageError('--chrome-args is for a Chromium the worker launches, not with --cdp-url or --hosted.', WORKER_USAGE);
  if (values.isolation !== undefined && values.isolation !== 'fresh' && values.isolation !== 'recycle')
    throw new UsageError(`--isolation is fresh or recycle, not ${JSON.stringify(values.isolation)}.`, WORKER_USAGE);
  const trace = traceOf(values['trace-dir'], values.trace);
  const sdk: SdkOptions = {
    env: values.hosted ? 'HOSTED' : 'LOCAL',
    verbose: values.verbose ? 2 : 0,
    disablePino: !values.verbose,
    localBrowserLaunchOptions: browserLaunchOptions(values),
  };
  const model = await workerModel(values, values.hosted === true);
  const quiet = values.quiet === true;
  const { BatchWorker } = await import('../batch/worker.js');
  const worker = await BatchWorker.start({
    queue: values.queue,
    redisUrl: values['redis-url'],
    concurrency: positive(values.concurrency, 'concurrency'),
    jobTimeoutMs: positive(values['job-timeout'], 'job-timeout'),
    lockMs: positive(values['lock-ms'], 'lock-ms'),
    graceMs: values.grace === '0' ? 0 : positive(values.grace, 'grace'),
    storageState: values['storage-state'] ? await readStorageState(values['storage-state']) : undefined,
    isolation: values.isolation as 'fresh' | 'recycle' | undefined,
    sdk,
    trace,
    model,
    onError: reportRedisError,
    onJob: (event) => {
      if (quiet) return;
      if (event.kind === 'done') process.stderr.write(`done ${event.url} (${event.ms} ms)\n`);
      else if (event.kind === 'handed-back') process.stderr.write(`handed back ${event.url}${event.why ? `: ${event.why}` : ''}\n`);
      else
        process.stderr.write(
          `${event.retry ? 'retrying' : 'failed'} ${event.url} (attempt ${event.attempt} of ${event.attempts}): ${event.error.name}: ${event.error.message}\n`,
        );
    },
  });
  const pid = worker.browserProcessId();
  process.stdout.write(`worker ready: queue ${values.queue}${pid ? `, browser pid ${pid}` : ''}\n`);
  let stopping = false;
  const stop = () => {
    if (stopping) process.exit(130); // a second signal: at once
    stopping = true;
    void worker.close().then(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  if (values['exit-when-empty']) {
    await worker.untilEmpty();
    await worker.close();
    return 0;
  }
  return new Promise<number>(() => undefined);
}
