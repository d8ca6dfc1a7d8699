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
const SLOW_MS = 25_000;
const FAST = ['127.0.0.3', '127.0.0.4', '127.0.0.5'];
const OTHERS = ['127.0.0.6', '127.0.0.7', '127.0.0.8'];

beforeAll(async () => {
  [redis, site] = await Promise.all([
    freePort().then((port) => startRedis(port)),
    startBatchSite({ holdMs: 2500, slowMs: SLOW_MS, addresses: ['127.0.0.2', ...FAST, ...OTHERS] }),
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
 * A new queue with two workers of two slots each, the workers started first; `run` adds `urls`
 * and returns when each URL's job finished (ms after they were added) and the queue's results.
 */
async function openQueue(name: string, limits: { perHost?: number; hostDelayMs?: number }) {
  const queue = await BatchQueue.open({ queue: name, redisUrl });
  const finished = new Map<string, number>();
  let started = 0;
  const workers: BatchWorker[] = [];
  const close = async () => {
    await Promise.all(workers.map((worker) => worker.close()));
    await queue.close();
  };
  try {
    await queue.configure(limits);
    const onJob = (event: WorkerJobEvent) => event.kind === 'done' && finished.set(event.url, Date.now() - started);
    workers.push(...(await Promise.all([startWorker(name, onJob), startWorker(name, onJob)])));
  } catch (error) {
    await close();
    throw error;
  }
  return {
    async run(urls: string[]) {
      try {
        started = Date.now();
        expect(await queue.add(urls.map((url) => ({ url })))).toEqual({ added: urls.length, existing: 0, failed: 0 });
        await Promise.all(workers.map((worker) => worker.untilEmpty()));
        return { finished, results: await all(queue.results()) };
      } finally {
        await close();
      }
    },
  };
}

async function run(name: string, urls: string[], limits: { perHost?: number; hostDelayMs?: number }) {
  return (await openQueue(name, limits)).run(urls);
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
  // Two queues at once, so that both meet the same load of the machine: one with three hosts' jobs,
  // the other with the same jobs on three other hosts and a slow host's besides.
  const fast = (hosts: string[], round: string) =>
    hosts.flatMap((host) => Array.from({ length: 4 }, (_, i) => site.url(host, `/p/${round}-${host}-${i}`)));
  const [besideUrls, aloneUrls] = [fast(FAST, 'beside'), fast(OTHERS, 'alone')];
  // The slow host's jobs are queued first: a worker that kept a slot for the second while it waited
  // for its host would leave two slots of four for the other three hosts (one job at a time each).
  // Two only, each slower than all the others' jobs together, so that what is measured is the slot
  // the second would hold, not the work of opening pages beside the others'.
  const slow = Array.from({ length: 2 }, (_, i) => site.url('127.0.0.2', `/slow/${i}`));
  const queues = await Promise.all([openQueue('beside', { perHost: 1 }), openQueue('alone', { perHost: 1 })]);
  const [beside, alone] = await Promise.all([queues[0].run([...slow, ...besideUrls]), queues[1].run(aloneUrls)]);
  expectEachOnceAndRight(beside.results, [...slow, ...besideUrls]);
  expectEachOnceAndRight(alone.results, aloneUrls);
  const last = (finished: Map<string, number>, urls: string[]) => Math.max(...urls.map((url) => finished.get(url)!));
  const [withSlow, without] = [last(beside.finished, besideUrls), last(alone.finished, aloneUrls)];
  if (process.env.BATCH_HOSTS_REPORT) console.log(`beside the slow host ${withSlow} ms, without it ${without} ms`);
  expect(withSlow, `the other hosts' jobs took ${withSlow} ms beside the slow host, ${without} ms without it`).toBeLessThanOrEqual(
    without * 1.15,
  );
  // The slow host's jobs ran one after the other: the second waited, without a slot.
  expect(last(beside.finished, slow)).toBeGreaterThanOrEqual(2 * SLOW_MS);
  for (const host of ['127.0.0.2', ...FAST, ...OTHERS]) expect(site.peak.perHost.get(host), host).toBe(1);
}, 240_000);
