// `tendril worker`: runs a batch queue's jobs until stopped (or, with --exit-when-empty, until no
// job is left anywhere). SIGTERM or SIGINT: jobs in hand finish (or go back to the queue after
// --grace), the browser closes, the process exits 0.

import { InvalidOptionError } from '../errors.js';
import type { TraceMode } from '../batch/jobTrace.js';
import type { SdkOptions } from '../types.js';
import { readJsonFlag } from './jsonFile.js';
import { parseFlags, UsageError } from './usage.js';

export const WORKER_USAGE = `tendril worker --queue NAME [flags]

Runs the queue's jobs (added with tendril batch add) until stopped: one browser, each job in a fresh
browser context of its own. Start as many workers as you like, on as many machines, on one Redis.
Prints "worker ready" once it takes jobs, and a line per job on stderr.

  --queue NAME         the queue (required)
  --redis-url URL      the queue's Redis (default REDIS_URL, else redis://127.0.0.1:6379)
  --concurrency N      jobs at once in this worker (default 4)
  --exit-when-empty    exit once no job is waiting, delayed or active in any worker
  --job-timeout MS     deadline of a job that sets none (default 60000)
  --lock-ms MS         a dead worker's jobs go to others this long after it died (default 30000)
  --grace MS           on SIGTERM, how long jobs in hand may finish before going back (default 10000)
  --storage-state FILE a storage state (cookies, localStorage; JSON) every job's context starts with
  --trace-dir DIR      a trace zip of each job (docs/tracing.md) in DIR, named by the job's id; its
                       path is the "trace" of the job's result line
  --trace MODE         on (default: every job's trace kept) or retain-on-failure (only failed jobs')
  --model NAME         provider/model for jobs with an instruction (default MODEL_NAME, else
                       openai/gpt-4.1-mini); the key from MODEL_API_KEY or the provider's variable
  --base-url URL       the model server's URL (default MODEL_BASE_URL)
Browser (default: a local Chrome or Chromium, or CHROME_PATH):
  --cdp-url URL        attach to any CDP endpoint (ws://…, http://host:port): a hosted session, a
                       Selenium Grid's se:cdp, browserless
  --hosted             use the hosted service: HOSTED_API_KEY, HOSTED_PROJECT_ID, HOSTED_API_URL
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
  'trace-dir': { type: 'string' },
  trace: { type: 'string' },
  model: { type: 'string' },
  'base-url': { type: 'string' },
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

/** The parsed --storage-state file: a JSON object (as Playwright's storageState() writes it). */
async function readStorageState(file: string): Promise<unknown> {
  const parsed = await readJsonFlag('--storage-state', file);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new InvalidOptionError(`--storage-state ${file} must hold a JSON object such as { "cookies": [...], "origins": [...] }.`);
  }
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

export async function workerCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, FLAGS, WORKER_USAGE);
  if (values.help) return (process.stdout.write(`${WORKER_USAGE}\n`), 0);
  if (positionals.length) throw new UsageError('worker takes no arguments.', WORKER_USAGE);
  if (!values.queue) throw new UsageError('Name the queue with --queue NAME.', WORKER_USAGE);
  if (values.hosted && values['cdp-url']) throw new UsageError('Choose one browser: --cdp-url or --hosted.', WORKER_USAGE);
  const trace = traceOf(values['trace-dir'], values.trace);
  const env = process.env;
  const sdk: SdkOptions = {
    env: values.hosted ? 'HOSTED' : 'LOCAL',
    verbose: values.verbose ? 2 : 0,
    disablePino: !values.verbose,
    localBrowserLaunchOptions: values['cdp-url'] ? { cdpUrl: values['cdp-url'] } : undefined,
  };
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
    sdk,
    trace,
    model: {
      modelName: values.model ?? (env.MODEL_NAME?.trim() || 'openai/gpt-4.1-mini'),
      apiKey: env.MODEL_API_KEY?.trim() || undefined,
      baseURL: values['base-url'] ?? (env.MODEL_BASE_URL?.trim() || undefined),
    },
    onError: reportRedisError,
    onJob: (event) => {
      if (quiet) return;
      if (event.kind === 'done') process.stderr.write(`done ${event.url} (${event.ms} ms)\n`);
      else if (event.kind === 'handed-back') process.stderr.write(`handed back ${event.url}\n`);
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
