// The per-host limits with real workers, real Chromium and a real redis-server, judged by what the
// site saw: requests to one host spaced by --host-delay (the times the site recorded), and a host
// that is busy holding no worker slot (with --per-host 1 and one slow host, the other hosts' jobs
// take as long as without it), the limit never passed on any host.

import { afterAll, beforeAll, expect, it } from 'vitest';
import { BatchQueue, BatchWorker, type BatchResult, type WorkerJobEvent } from '../../src/batch/index.js';
import { CHROME, TEST_ARGS } from '../helpers.js';
import { startBatchSite, type BatchSite } from '../support/batch-site.js';
import { freePort, startRedis, type RedisServer } from '../support/redis.js';

let redis: RedisServer;
let site: BatchSite;
let redisUrl: string;
const SLOW_MS = 20_000;
const FAST = ['127.0.0.3', '127.0.0.4', '127.0.0.5'];

beforeAll(async () => {
  [redis, site] = await Promise.all([
    freePort().then((port) => startRedis(port)),
    startBatchSite({ holdMs: 1500, slowMs: SLOW_MS, addresses: ['127.0.0.2', ...FAST] }),
  ]);
  redisUrl = `redis://127.0.0.1:${redis.port}`;
});

afterAll(async () => {
  await Promise.all([redis?.stop(), site?.close()]);
});

async function all<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const each of iterable) out.push(each);
  return out;
}

function startWorker(queue: string, onJob: (event: WorkerJobEvent) => void) {
  return BatchWorker.start({
    queue,
    redisUrl,
    concurrency: 2,
    lockMs: 10_000,
    sdk: { verbose: 0, disablePino: true, localBrowserLaunchOptions: { executablePath: CHROME, args: TEST_ARGS } },
    onJob,
  });
}

/**
 * Runs `urls` on a new queue with two workers of two slots each, the workers started first; returns
 * when each URL's job finished (ms after the jobs were added) and the queue's results.
 */
async function run(name: string, urls: string[], limits: { perHost?: number; hostDelayMs?: number }) {
  const queue = await BatchQueue.open({ queue: name, redisUrl });
  const finished = new Map<string, number>();
  let started = 0;
  const workers: BatchWorker[] = [];
  try {
    await queue.configure(limits);
    const onJob = (event: WorkerJobEvent) => event.kind === 'done' && finished.set(event.url, Date.now() - started);
    workers.push(...(await Promise.all([startWorker(name, onJob), startWorker(name, onJob)])));
    started = Date.now();
    expect(await queue.add(urls.map((url) => ({ url })))).toEqual({ added: urls.length, existing: 0 });
    await Promise.all(workers.map((worker) => worker.untilEmpty()));
    return { finished, results: await all(queue.results()) };
  } finally {
    await Promise.all(workers.map((worker) => worker.close()));
    await queue.close();
  }
}

function expectEachOnceAndRight(results: BatchResult[], urls: string[]) {
  expect(results).toHaveLength(urls.length);
  expect(new Set(results.map((result) => result.url))).toEqual(new Set(urls));
  // Waiting for a host is not an attempt.
  for (const result of results) expect(result, result.url).toMatchObject({ ok: true, attempts: 1 });
  for (const url of urls) expect(site.hits.get(new URL(url).pathname), url).toBe(1);
}

it("spaces the requests the site sees on one host by --host-delay, though each job's context and tab open first", async () => {
  const DELAY = 1500;
  const hosts = ['127.0.0.1', 'localhost'];
  const urls = hosts.flatMap((host, h) => Array.from({ length: 3 }, (_, i) => site.url(host, `/p/delay-${h}-${i}`)));
  const { results } = await run('delay', urls, { hostDelayMs: DELAY });
  expectEachOnceAndRight(results, urls);
  for (const host of hosts) {
    const times = site.arrivals.filter((each) => each.host === host && each.path.startsWith('/p/delay-')).map((each) => each.at);
    expect(times).toHaveLength(3);
    const gaps = times.slice(1).map((at, i) => at - times[i]!);
    for (const gap of gaps) expect(gap, `${host}: ${gaps.join(', ')} ms apart`).toBeGreaterThanOrEqual(DELAY);
  }
}, 120_000);

it("with --per-host 1, one slow host holds no slot: the other hosts' jobs finish as soon as without it, and no host had two at once", async () => {
  const fast = (round: string) => FAST.flatMap((host) => Array.from({ length: 4 }, (_, i) => site.url(host, `/p/${round}-${host}-${i}`)));
  // The slow host's jobs are queued first: a worker that kept a slot for the second while it waited
  // for its host would leave two slots of four for the other three hosts (one job at a time each).
  // Two only, each slower than all the others' jobs together, so that what is measured is the slot
  // the second would hold, not the work of opening pages that a busy machine does beside the others'.
  const slow = Array.from({ length: 2 }, (_, i) => site.url('127.0.0.2', `/slow/${i}`));
  const last = (finished: Map<string, number>, urls: string[]) => Math.max(...urls.map((url) => finished.get(url)!));
  // Without it before and after, so that a change in the machine's load meanwhile counts in both.
  const without: number[] = [];
  const alone = async (round: string) => {
    const { finished, results } = await run(round, fast(round), { perHost: 1 });
    expectEachOnceAndRight(results, fast(round));
    without.push(last(finished, fast(round)));
  };
  await alone('alone-1');
  const beside = await run('beside', [...slow, ...fast('beside')], { perHost: 1 });
  await alone('alone-2');
  expectEachOnceAndRight(beside.results, [...slow, ...fast('beside')]);
  const withSlow = last(beside.finished, fast('beside'));
  const mean = (without[0]! + without[1]!) / 2;
  if (process.env.BATCH_HOSTS_REPORT) console.log(`beside the slow host ${withSlow} ms, without it ${without.join(' and ')} ms`);
  expect(
    withSlow,
    `the other hosts' jobs took ${withSlow} ms beside the slow host, ${without.join(' and ')} ms without it`,
  ).toBeLessThanOrEqual(mean * 1.15);
  // The slow host's jobs ran one after the other: the second waited, without a slot.
  expect(last(beside.finished, slow)).toBeGreaterThanOrEqual(2 * SLOW_MS);
  for (const host of ['127.0.0.2', ...FAST]) expect(site.peak.perHost.get(host), host).toBe(1);
}, 300_000);
