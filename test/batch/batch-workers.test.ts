// Three `tendril worker` processes on one queue, as users run them: 100 page jobs on two loopback
// hosts, one worker SIGKILLed mid-run. Every job's result appears once and is right, the killed
// worker's Chromium is gone, and the queue's limits held in all workers together.

import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startBatchSite, type BatchSite } from '../support/batch-site.js';
import { runScript, waitForLine, type Run } from '../support/child.js';
import { CLI, useBatchCli } from '../support/batch-cli.js';

const JOBS = 100;
const batch = useBatchCli('tendril-batch-');
const { workers, env, cli } = batch;
let site: BatchSite;

beforeAll(async () => {
  site = await startBatchSite(25);
});

afterAll(async () => {
  await site?.close();
});

/** Resolves once the child has written `count` lines matching `pattern` to stderr. */
function stderrLines(run: Run, pattern: RegExp, count: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => (run.stderr().match(new RegExp(pattern, 'gm')) ?? []).length >= count && resolve();
    run.child.stderr!.on('data', check);
    void run.exit.then((code) => reject(new Error(`worker exited ${code} first: ${run.stderr()}`)));
    check();
  });
}

/** Whether the process runs (a zombie, dead but not yet reaped by its parent, does not). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

it('three workers run 100 jobs, one killed mid-run: each result once and right, its Chromium gone, the limits held', async () => {
  const urls = Array.from({ length: JOBS }, (_, i) => site.url(i % 2 ? 'localhost' : '127.0.0.1', `/p/w${i}`));
  const file = path.join(batch.dir, 'urls.txt');
  writeFileSync(file, `# the test's pages\n${urls.join('\n')}\n`);
  expect(await cli('batch', 'add', '--queue', 'run', '--max-active', '6', '--per-host', '3', file)).toBe(
    `added ${JOBS}, already there 0\n`,
  );

  for (let i = 0; i < 3; i++) {
    // A lock of 5 s: a shorter one lapses in live workers too when the host is starved of CPU (the
    // whole suite on 2 cores), and BullMQ then fails a job that stalled more than twice.
    workers.push(runScript(CLI, ['worker', '--queue', 'run', '--concurrency', '3', '--exit-when-empty', '--lock-ms', '5000'], env()));
  }
  // Mid-run: the first worker to have finished a few jobs (it is taking more) is killed.
  const victim = await Promise.race(workers.map((worker) => stderrLines(worker, /^done /, 3).then(() => worker)));
  const chromePid = Number((await waitForLine(victim, /worker ready: queue run, browser pid (\d+)/))[1]);
  expect(alive(chromePid)).toBe(true);
  victim.child.kill('SIGKILL');
  expect(await victim.exit).toBe(null);
  // Its Chrome ends with its debugging pipe. Nothing signals the death of a process that is not
  // our child, so look until it is gone (or the test's own timeout).
  while (alive(chromePid)) await new Promise((resolve) => setTimeout(resolve, 50));

  // The others run every job left, the dead worker's included once its lock lapses, then exit.
  expect(await Promise.all(workers.filter((worker) => worker !== victim).map((worker) => worker.exit))).toEqual([0, 0]);

  const out = path.join(batch.dir, 'results.jsonl');
  expect(await cli('batch', 'results', '--queue', 'run', '--out', out)).toBe('');
  const results = readFileSync(out, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  expect(results).toHaveLength(JOBS);
  expect(new Set(results.map((result) => result.url))).toEqual(new Set(urls));
  for (const result of results) {
    const page = new URL(result.url).pathname;
    // The message names a failed job's error: the assertion alone would show only `ok: false`.
    expect(result, `${result.url}: ${JSON.stringify(result.error)}`).toMatchObject({
      ok: true,
      pageText: expect.stringContaining(`Marker ${page.replace(/\W/g, '-')}`),
    });
  }

  // The limits held across the three workers (counted by the server), and work did overlap.
  expect(site.peak.all).toBeLessThanOrEqual(6);
  expect(site.peak.all).toBeGreaterThan(1);
  expect(Math.max(...site.peak.perHost.values())).toBeLessThanOrEqual(3);

  // The same jobs again: none added, none run again.
  expect(await cli('batch', 'add', '--queue', 'run', file)).toBe(`added 0, already there ${JOBS}\n`);
  expect(JSON.parse(await cli('batch', 'status', '--queue', 'run', '--json'))).toMatchObject({
    waiting: 0,
    active: 0,
    done: JOBS,
    failed: 0,
  });
}, 180_000);

it('SIGTERM: a job in hand past the grace goes back to the queue without losing an attempt, and the browser closes', async () => {
  const file = path.join(batch.dir, 'hang.txt');
  writeFileSync(file, `${site.url('127.0.0.1', '/hang/term')}\n`);
  expect(await cli('batch', 'add', '--queue', 'term', '--timeout', '120000', file)).toBe('added 1, already there 0\n');
  const arrived = site.hangArrived();
  const closed = site.hangClosed();
  const worker = runScript(CLI, ['worker', '--queue', 'term', '--grace', '200'], env());
  workers.push(worker);
  const chromePid = Number((await waitForLine(worker, /browser pid (\d+)/))[1]);
  await arrived;
  worker.child.kill('SIGTERM');
  expect(await worker.exit).toBe(0);
  await closed;
  expect(worker.stderr()).toContain('handed back');
  expect(alive(chromePid)).toBe(false);
  const status = JSON.parse(await cli('batch', 'status', '--queue', 'term', '--json'));
  expect(status.waiting + status.delayed).toBe(1);
  expect(status).toMatchObject({ active: 0, done: 0, failed: 0, retried: 0 });
}, 120_000);

it("a SIGKILLed worker's job comes back within its --lock-ms and a few seconds, not up to twice that", async () => {
  const LOCK = 20_000;
  const page = '/hang-once/stall';
  const file = path.join(batch.dir, 'stall.txt');
  writeFileSync(file, `${site.url('127.0.0.1', page)}\n`);
  expect(await cli('batch', 'add', '--queue', 'stall', '--timeout', '120000', file)).toBe('added 1, already there 0\n');
  const args = ['worker', '--queue', 'stall', '--lock-ms', String(LOCK), '--exit-when-empty'];
  const victim = runScript(CLI, args, env());
  workers.push(victim);
  await site.arrival(page, 1);
  // The other worker is ready (its browser up) before the kill: what is timed is the job's return.
  const other = runScript(CLI, args, env());
  workers.push(other);
  await waitForLine(other, /worker ready/);
  victim.child.kill('SIGKILL');
  const killed = Date.now();
  expect(await victim.exit).toBe(null);
  const back = (await site.arrival(page, 2)) - killed;
  // A lock lapses at most --lock-ms after the kill; the workers look for lapsed ones every tenth of
  // it (2 s at most); the rest is the other worker opening the page.
  expect(back, `the job came back ${back} ms after the kill`).toBeLessThanOrEqual(LOCK + 4000);
  expect(await other.exit).toBe(0);
  const status = JSON.parse(await cli('batch', 'status', '--queue', 'stall', '--json'));
  expect(status).toMatchObject({ waiting: 0, active: 0, done: 1, failed: 0 });
}, 120_000);

it('says what is wrong with a command line, and exits 2', async () => {
  writeFileSync(path.join(batch.dir, 'state.txt'), 'cookies=1');
  const runs = [
    runScript(CLI, ['batch', 'add', 'urls.txt'], env()),
    runScript(CLI, ['worker', '--queue', 'q', '--concurrency', '0'], env()),
    runScript(CLI, ['batch', 'add', '--queue', 'q', path.join(batch.dir, 'no-such-file.txt')], env()),
    runScript(CLI, ['worker', '--queue', 'q', '--storage-state', path.join(batch.dir, 'state.txt')], env()),
  ];
  expect(await Promise.all(runs.map((run) => run.exit))).toEqual([2, 2, 2, 2]);
  expect(runs[3]!.stderr()).toMatch(/--storage-state .*state\.txt is not JSON/);
  expect(runs[0]!.stderr()).toContain('Name the queue with --queue NAME.');
  expect(runs[1]!.stderr()).toContain('--concurrency takes a whole number of 1 or more, not "0".');
  expect(runs[2]!.stderr()).toMatch(/InvalidOptionError: .*no-such-file\.txt cannot be read/);
}, 60_000);
