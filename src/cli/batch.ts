// `tendril batch add|status|results`: feeding a batch queue and reading it. The workers are
// `tendril worker` (worker.ts). The batch layer, and with it BullMQ, is loaded only here.

import { createWriteStream } from 'node:fs';
import { access, constants } from 'node:fs/promises';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { InvalidOptionError } from '../errors.js';
import { readJsonFlag } from './jsonFile.js';
import { parseFlags, UsageError } from './usage.js';

const CONNECTION = `  --queue NAME         the queue (required): workers of this name on the same Redis share it
  --redis-url URL      the queue's Redis (default REDIS_URL, else redis://127.0.0.1:6379); it must
                       not evict keys (maxmemory-policy noeviction)`;

export const BATCH_USAGE = `tendril batch add|status|results --queue NAME [flags]

  add FILE|-        queue jobs: one URL a line, or one JSON object a line with per-job fields
  status            the queue's counts (--wait: until it is drained)
  results           one JSON line per finished job

Workers run the jobs: tendril worker --queue NAME. \`tendril batch <command> --help\` tells more.`;

export const ADD_USAGE = `tendril batch add --queue NAME [flags] FILE|-

Queues one job per line of FILE (- for stdin): a URL, or a JSON object with the job's fields
{ "url", "instruction", "schema", "act", "model", "selector", "timeout", "maxTokens" }; the flags
give every line's defaults. Without an instruction a job reads the page text (no model).
A job's id is a hash of what it asks: a job already in the queue is not added again, and a finished
one is not run again unless --rerun. Prints how many were added and how many were already there.

${CONNECTION}
Each job:
  --instruction TEXT   what to extract
  --schema FILE        a JSON Schema file for the extraction's value
  --act TEXT           one action before reading, such as "click the Accept cookies button"
  --model NAME         provider/model (default: the worker's)
  --selector S         read only this element's subtree (XPath or CSS)
  --timeout MS         the job's deadline (default: the worker's --job-timeout)
  --max-tokens N       most tokens the job's model calls may use
  --attempts N         tries for failures another try may mend (default 3)
  --backoff MS         the first retry's delay, doubled for each next one (default 1000)
  --rerun              run again jobs that already finished
The queue, for every worker (a value stays until set again; 0 removes it):
  --max-active N       jobs running at once in all workers together
  --per-host N         jobs on one host at once, in all workers together
  --host-delay MS      least time between the starts of two jobs on one host
  --budget-tokens N    tokens the queue's model calls may use in all`;

export const STATUS_USAGE = `tendril batch status --queue NAME [--wait] [--json]

Prints the queue's counts: waiting, delayed (a retry's backoff), active (running), for host (taken
by a worker, waiting for room on their host: --per-host, --host-delay), done, failed, retried
(attempts tried again), and the tokens its model calls used (of its budget).
  --wait               first wait until no job is waiting, delayed, active or for host (a progress bar on a terminal)
  --json               the counts as one JSON object
${CONNECTION}`;

export const RESULTS_USAGE = `tendril batch results --queue NAME [--out FILE.jsonl] [--failed]

Writes one JSON line per finished job, done ones first: { "id", "url", "ok", and "pageText",
"extraction" or "data" (the schema's value), or "error": { "name", "message" }, "attempts", "ms",
"usage" (the model's tokens, over all attempts) }. Streamed: a queue of any size fits.
  --out FILE           write to FILE instead of stdout
  --failed             only the failed jobs
${CONNECTION}`;

const CONNECTION_FLAGS = { queue: { type: 'string' }, 'redis-url': { type: 'string' }, help: { type: 'boolean', short: 'h' } } as const;

function whole(raw: string | undefined, flag: string, usage: string, min = 0): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min)
    throw new UsageError(`--${flag} takes a whole number${min ? ` of ${min} or more` : ''}, not ${JSON.stringify(raw)}.`, usage);
  return value;
}

/** The --schema file: a JSON Schema object extract() can serve, refused at once otherwise (never per job). */
async function readSchemaFlag(file: string): Promise<Record<string, unknown>> {
  const json = await readJsonFlag('--schema', file);
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    const what = json === null ? 'null' : Array.isArray(json) ? 'an array' : `a ${typeof json}`;
    throw new InvalidOptionError(
      `--schema ${file} holds ${what}; it must hold a JSON Schema object such as { "type": "object", "properties": { … } }.`,
    );
  }
  const { schemaFromJson } = await import('../extract/jsonSchemaInput.js');
  try {
    schemaFromJson(json);
  } catch (error) {
    throw new InvalidOptionError(`--schema ${file}: ${(error as Error).message}`, { cause: error });
  }
  return json as Record<string, unknown>;
}

async function openQueue(values: { queue?: string; 'redis-url'?: string }, usage: string) {
  if (!values.queue) throw new UsageError('Name the queue with --queue NAME.', usage);
  const { BatchQueue } = await import('../batch/queue.js');
  return BatchQueue.open({ queue: values.queue, redisUrl: values['redis-url'] });
}

export async function batchCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'add') return addCommand(rest);
  if (sub === 'status') return statusCommand(rest);
  if (sub === 'results') return resultsCommand(rest);
  if (sub === '--help' || sub === '-h')
    return (process.stdout.write([BATCH_USAGE, ADD_USAGE, STATUS_USAGE, RESULTS_USAGE].join('\n\n') + '\n'), 0);
  throw new UsageError(sub ? `Unknown command "batch ${sub}".` : 'Say what to do: tendril batch add|status|results.', BATCH_USAGE);
}

async function addCommand(argv: string[]): Promise<number> {
  const flags = {
    ...CONNECTION_FLAGS,
    ...Object.fromEntries(
      [
        'instruction',
        'schema',
        'act',
        'model',
        'selector',
        'timeout',
        'max-tokens',
        'attempts',
        'backoff',
        'max-active',
        'per-host',
        'host-delay',
        'budget-tokens',
      ].map((name) => [name, { type: 'string' as const }]),
    ),
    rerun: { type: 'boolean' as const },
  };
  const { values, positionals } = parseFlags(argv, flags, ADD_USAGE, true);
  if (values.help) return (process.stdout.write(`${ADD_USAGE}\n`), 0);
  const v = values as Record<string, string | undefined>;
  if (!values.queue) throw new UsageError('Name the queue with --queue NAME.', ADD_USAGE);
  if (positionals.length !== 1) throw new UsageError('Give one file of jobs (or - for stdin).', ADD_USAGE);
  const defaults = {
    instruction: v.instruction,
    schema: v.schema ? await readSchemaFlag(v.schema) : undefined,
    act: v.act,
    model: v.model,
    selector: v.selector,
    timeout: whole(v.timeout, 'timeout', ADD_USAGE, 1),
    maxTokens: whole(v['max-tokens'], 'max-tokens', ADD_USAGE, 1),
  };
  const limits = {
    maxActive: whole(v['max-active'], 'max-active', ADD_USAGE),
    perHost: whole(v['per-host'], 'per-host', ADD_USAGE),
    hostDelayMs: whole(v['host-delay'], 'host-delay', ADD_USAGE),
    budgetTokens: whole(v['budget-tokens'], 'budget-tokens', ADD_USAGE),
  };
  const options = {
    attempts: whole(v.attempts, 'attempts', ADD_USAGE, 1),
    backoffMs: whole(v.backoff, 'backoff', ADD_USAGE),
    rerun: values.rerun === true,
  };
  const file = positionals[0]!;
  if (file !== '-') {
    await access(file, constants.R_OK).catch((error: Error) => {
      throw new InvalidOptionError(`${file} cannot be read: ${error.message}`);
    });
  }
  const { checkedLines } = await import('./batchLines.js');
  // Every line is checked before any job is queued: a bad line anywhere queues nothing.
  const lines = await checkedLines(file, defaults);
  try {
    const queue = await openQueue(values, ADD_USAGE);
    try {
      await queue.configure(limits);
      const report = { added: 0, existing: 0, failed: 0 };
      try {
        for await (const batch of lines.batches()) {
          const each = await queue.add(batch, options);
          report.added += each.added;
          report.existing += each.existing;
          report.failed += each.failed;
        }
      } catch (error) {
        // Only a file changed since it was checked, or the queue failing, stops it midway: say what is in.
        if (report.added + report.existing)
          process.stderr.write(`tendril batch add: added ${report.added}, already there ${report.existing} before this error:\n`);
        throw error;
      }
      const failed = report.failed ? ` (${report.failed} of them failed: --rerun runs them again)` : '';
      process.stdout.write(`added ${report.added}, already there ${report.existing}${failed}\n`);
      return 0;
    } finally {
      await queue.close();
    }
  } finally {
    await lines.dispose();
  }
}

async function statusCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    { ...CONNECTION_FLAGS, wait: { type: 'boolean' }, json: { type: 'boolean' } },
    STATUS_USAGE,
  );
  if (values.help) return (process.stdout.write(`${STATUS_USAGE}\n`), 0);
  if (positionals.length) throw new UsageError('status takes no arguments.', STATUS_USAGE);
  const queue = await openQueue(values, STATUS_USAGE);
  try {
    const { progressLine } = await import('./batchProgress.js');
    const tty = process.stderr.isTTY === true;
    const status = values.wait
      ? await queue.drained((each) => tty && process.stderr.write(`\r\x1b[2K${progressLine(each)}`))
      : await queue.status();
    if (values.wait && tty) process.stderr.write('\n');
    if (values.json) process.stdout.write(`${JSON.stringify(status)}\n`);
    else {
      const { budget, used } = status.tokens;
      const lines = [
        ['waiting', status.waiting],
        ['delayed', status.delayed],
        ['active', status.active],
        ['for host', status.waitingForHost],
        ['done', status.done],
        ['failed', status.failed],
        ['retried', status.retried],
        ['tokens', budget === undefined ? used : `${used} of ${budget}`],
      ];
      process.stdout.write(lines.map(([name, value]) => `${String(name).padEnd(8)} ${value}`).join('\n') + '\n');
    }
    return 0;
  } finally {
    await queue.close();
  }
}

async function resultsCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    { ...CONNECTION_FLAGS, out: { type: 'string' }, failed: { type: 'boolean' } },
    RESULTS_USAGE,
  );
  if (values.help) return (process.stdout.write(`${RESULTS_USAGE}\n`), 0);
  if (positionals.length) throw new UsageError('results takes no arguments (write to a file with --out FILE).', RESULTS_USAGE);
  const queue = await openQueue(values, RESULTS_USAGE);
  const out: Writable = values.out ? createWriteStream(values.out) : process.stdout;
  try {
    for await (const result of queue.results({ failed: values.failed === true })) {
      // Backpressure: never more than the stream's buffer in memory.
      if (!out.write(`${JSON.stringify(result)}\n`)) await once(out, 'drain');
    }
    return 0;
  } finally {
    if (out !== process.stdout) await new Promise((resolve) => out.end(resolve));
    await queue.close();
  }
}
