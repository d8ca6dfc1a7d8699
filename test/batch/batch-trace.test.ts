// `tendril worker --trace-dir DIR [--trace on|retain-on-failure]`, as users run it on a real Redis:
// one zip per job named by its id, its path in the job's result line; retain-on-failure keeps the
// failed job's trace only, and each kept trace holds that job's own calls.

import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBatchSite, type BatchSite } from '../support/batch-site.js';
import { CLI, useBatchCli } from '../support/batch-cli.js';
import { runScript } from '../support/child.js';
import { startFakeModel, type FakeModel, type FakeRequest } from '../support/fake-model.js';
import { traceActions } from '../support/trace-file.js';

const batch = useBatchCli('tendril-batch-trace-');
const { workers, env, cli } = batch;
let site: BatchSite;
let fake: FakeModel;

beforeAll(async () => {
  [site, fake] = await Promise.all([startBatchSite(), startFakeModel()]);
  // The count job's answer never fits its schema (a permanent failure); the other job's is plain text.
  fake.script((request: FakeRequest) =>
    JSON.stringify(request.schema ?? {}).includes('"count"') ? { json: { count: 'many' } } : { json: { extraction: 'Page heading' } },
  );
});

afterAll(async () => {
  await Promise.all([site?.close(), fake?.close()]);
});

interface Result {
  id: string;
  url: string;
  ok: boolean;
  trace?: string;
  error?: { name: string };
}

/** Adds a job that succeeds and one that fails on `queue`, runs one worker with `flags` until the queue is empty, and reads the results. */
async function runQueue(queue: string, flags: string[]): Promise<{ done: Result; failed: Result; dir: string }> {
  const dir = path.join(batch.dir, queue);
  const jobs = path.join(batch.dir, `${queue}.jsonl`);
  const good = site.url('127.0.0.1', `/p/${queue}-good`);
  const bad = site.url('127.0.0.1', `/p/${queue}-bad`);
  const schema = { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] };
  writeFileSync(
    jobs,
    `${JSON.stringify({ url: good, instruction: 'the heading' })}\n${JSON.stringify({ url: bad, instruction: 'the count', schema })}\n`,
  );
  expect(await cli('batch', 'add', '--queue', queue, jobs)).toBe('added 2, already there 0\n');
  const worker = runScript(CLI, ['worker', '--queue', queue, '--exit-when-empty', '--trace-dir', dir, ...flags], {
    ...env(),
    MODEL_API_KEY: 'sk-batch-trace',
    MODEL_BASE_URL: fake.url,
    MODEL_NAME: 'openai/gpt-4.1-mini',
  });
  workers.push(worker);
  expect(await worker.exit, worker.stderr()).toBe(0);
  const results = (await cli('batch', 'results', '--queue', queue))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Result);
  const done = results.find((result) => result.url === good)!;
  const failed = results.find((result) => result.url === bad)!;
  expect(done, JSON.stringify(results)).toMatchObject({ ok: true });
  expect(failed, JSON.stringify(results)).toMatchObject({ ok: false, error: { name: 'SchemaValidationError' } });
  return { done, failed, dir };
}

describe('tendril worker --trace-dir', () => {
  it("retain-on-failure keeps the failed job's trace (its path in its result line) and not the done one's", async () => {
    const { done, failed, dir } = await runQueue('keep-failed', ['--trace', 'retain-on-failure']);
    expect(failed.trace).toBe(path.join(dir, `${failed.id}.zip`));
    expect(done.trace).toBeUndefined();
    expect(readdirSync(dir)).toEqual([`${failed.id}.zip`]);
    const actions = traceActions(failed.trace!);
    expect(actions.slice(0, 2)).toEqual([
      { title: 'newPage about:blank', result: '<Page>' },
      { title: `goto ${failed.url}`, result: { status: 200, url: failed.url } },
    ]);
    expect(actions.find((action) => action.title === 'extract: the count')).toMatchObject({ error: { name: 'SchemaValidationError' } });
  }, 120_000);

  it("on keeps every job's trace, each holding only its own job's goto and extract", async () => {
    const { done, failed, dir } = await runQueue('keep-all', ['--trace', 'on']);
    expect(done.trace).toBe(path.join(dir, `${done.id}.zip`));
    expect(failed.trace).toBe(path.join(dir, `${failed.id}.zip`));
    expect(existsSync(done.trace!) && existsSync(failed.trace!)).toBe(true);
    const titles = (file: string) => traceActions(file).map((action) => action.title);
    // The model requests are attachments of their extract, not actions of their own.
    expect(titles(done.trace!)).toEqual(['newPage about:blank', `goto ${done.url}`, 'extract: the heading']);
    expect(titles(failed.trace!)).toEqual(['newPage about:blank', `goto ${failed.url}`, 'extract: the count']);
  }, 120_000);

  it('refuses --trace without --trace-dir, and a mode it does not know, with the usage (exit 2)', async () => {
    for (const [args, message] of [
      [['--trace', 'on'], /--trace needs --trace-dir/],
      [['--trace-dir', batch.dir, '--trace', 'always'], /--trace takes on or retain-on-failure/],
    ] as const) {
      const worker = runScript(CLI, ['worker', '--queue', 'never', ...args], env());
      expect(await worker.exit).toBe(2);
      expect(worker.stderr()).toMatch(message);
    }
  });
});
