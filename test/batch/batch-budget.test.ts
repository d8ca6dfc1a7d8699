// The queue's token budget with `tendril worker` processes racing for it, against a real
// redis-server, real Chromium and the fake model server, whose every call costs 4,200 tokens and
// takes a while, so that calls of every worker are in flight at once. Each call's estimate is held
// in Redis before it is sent: the total stays within the budget, and the jobs whose calls did not
// fit fail with BudgetExceededError, none sent.

import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startBatchSite, type BatchSite } from '../support/batch-site.js';
import { CLI, useBatchCli } from '../support/batch-cli.js';
import { runScript } from '../support/child.js';
import { startFakeModel, type FakeModel } from '../support/fake-model.js';

const BUDGET = 10_000;
const COST = 4_200;
const batch = useBatchCli('tendril-batch-budget-');
const { workers, env, cli } = batch;
let site: BatchSite;
let fake: FakeModel;

beforeAll(async () => {
  [site, fake] = await Promise.all([startBatchSite(), startFakeModel()]);
});

afterAll(async () => {
  await Promise.all([site?.close(), fake?.close()]);
});

it.each([
  { workers: 3, concurrency: 2 },
  { workers: 1, concurrency: 4 },
])(
  '--budget-tokens 10000, $workers worker(s) x concurrency $concurrency, calls of 4,200 tokens: the total stays within the budget',
  async ({ workers: count, concurrency }) => {
    fake.reset();
    // Long enough that every slot's call is asked for before the first is answered.
    fake.script(() => ({ json: { extraction: 'the heading' }, totalTokens: COST, delayMs: 3000 }));
    const queue = `budget-${count}x${concurrency}`;
    const jobs = 2 * count * concurrency;
    const file = path.join(batch.dir, `${queue}.txt`);
    writeFileSync(file, `${Array.from({ length: jobs }, (_, i) => site.url('127.0.0.1', `/p/${queue}-${i}`)).join('\n')}\n`);
    expect(await cli('batch', 'add', '--queue', queue, '--budget-tokens', String(BUDGET), '--instruction', 'What does it say?', file)).toBe(
      `added ${jobs}, already there 0\n`,
    );
    const args = ['worker', '--queue', queue, '--concurrency', String(concurrency), '--exit-when-empty', '--base-url', fake.url];
    const runs = Array.from({ length: count }, () => runScript(CLI, args, { ...env(), MODEL_API_KEY: 'sk-budget-test' }));
    workers.push(...runs);
    expect(await Promise.all(runs.map((run) => run.exit))).toEqual(runs.map(() => 0));

    const status = JSON.parse(await cli('batch', 'status', '--queue', queue, '--json'));
    const sent = fake.requests.length;
    if (process.env.BATCH_BUDGET_REPORT) console.log(`${count} x ${concurrency}: ${sent} calls, ${status.tokens.used} tokens`);
    expect(status.tokens).toEqual({ used: sent * COST, budget: BUDGET });
    expect(status.tokens.used).toBeLessThanOrEqual(BUDGET);
    // As many calls as fit: one more would have passed the budget.
    expect(sent).toBeGreaterThanOrEqual(1);
    expect(sent).toBeLessThanOrEqual(Math.floor(BUDGET / COST));

    const out = path.join(batch.dir, `${queue}.jsonl`);
    expect(await cli('batch', 'results', '--queue', queue, '--out', out)).toBe('');
    const results = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(results).toHaveLength(jobs);
    const done = results.filter((result) => result.ok);
    expect(done).toHaveLength(sent);
    for (const result of done) expect(result).toMatchObject({ extraction: 'the heading', usage: { totalTokens: COST } });
    for (const result of results.filter((each) => !each.ok))
      expect(result, JSON.stringify(result.error)).toMatchObject({ attempts: 1, error: { name: 'BudgetExceededError' } });
  },
  180_000,
);
