// Batch jobs (src/batch/) through the library API, on a real redis-server and real Chromium: jobs
// added once, the queue's limits in Redis, failures retried or not, the deadline's abort, the
// token account. The multi-process run (three workers, one killed) is batch-workers.test.ts.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueueAccount } from '../../src/batch/account.js';
import { connectRedis } from '../../src/batch/connection.js';
import { BatchQueue, BatchWorker, type BatchResult, type WorkerJobEvent } from '../../src/batch/index.js';
import { jobId } from '../../src/batch/job.js';
import { HOST_RECHECK_MS, HostLimits } from '../../src/batch/limits.js';
import { InvalidOptionError } from '../../src/errors.js';
import { CHROME, TEST_ARGS } from '../helpers.js';
import { startBatchSite, type BatchSite } from '../support/batch-site.js';
import { startFakeModel, type FakeModel } from '../support/fake-model.js';
import { freePort, startRedis, type RedisServer } from '../support/redis.js';

let redis: RedisServer;
let site: BatchSite;
let fake: FakeModel;
let redisUrl: string;

beforeAll(async () => {
  [redis, site, fake] = await Promise.all([freePort().then((port) => startRedis(port)), startBatchSite(), startFakeModel()]);
  redisUrl = `redis://127.0.0.1:${redis.port}`;
});

afterAll(async () => {
  await Promise.all([redis?.stop(), site?.close(), fake?.close()]);
});

async function all<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const each of iterable) out.push(each);
  return out;
}

function startWorker(queue: string, events: WorkerJobEvent[] = [], extra: Partial<Parameters<typeof BatchWorker.start>[0]> = {}) {
  return BatchWorker.start({
    queue,
    redisUrl,
    concurrency: 3,
    sdk: { verbose: 0, disablePino: true, localBrowserLaunchOptions: { executablePath: CHROME, args: TEST_ARGS } },
    model: { modelName: 'openai/gpt-4.1-mini', apiKey: 'test-key', baseURL: fake.url },
    onJob: (event) => events.push(event),
    ...extra,
  });
}

describe('the queue', () => {
  it('adds a job once: the same job again, even on another line or with other limits, adds nothing', async () => {
    const queue = await BatchQueue.open({ queue: 'once', redisUrl });
    try {
      const jobs = [{ url: site.url('127.0.0.1', '/p/a') }, { url: site.url('127.0.0.1', '/p/b'), instruction: 'the title' }];
      expect(await queue.add(jobs)).toEqual({ added: 2, existing: 0, failed: 0 });
      expect(await queue.add([...jobs, { ...jobs[0]!, timeout: 5000 }, { url: site.url('127.0.0.1', '/p/c') }])).toEqual({
        added: 1,
        existing: 3,
        failed: 0,
      });
      expect((await queue.status()).waiting).toBe(3);
      // What it asks makes the id: another instruction is another job.
      expect(jobId({ url: jobs[1]!.url, instruction: 'the title' })).not.toBe(jobId({ url: jobs[1]!.url, instruction: 'the date' }));
    } finally {
      await queue.close();
    }
  });

  it('refuses a bad job before queueing anything, naming the line and the fix', async () => {
    const queue = await BatchQueue.open({ queue: 'bad', redisUrl });
    try {
      await expect(queue.add([{ url: 'https://example.org/' }, { url: 'ftp://example.org/' }])).rejects.toThrow(
        /job 2: `url` must be an http\(s\) URL/,
      );
      await expect(queue.add([{ url: 'https://example.org/', schema: { type: 'string' } }])).rejects.toThrow(
        /a `schema` needs an `instruction`/,
      );
      await expect(queue.add([{ url: 'https://example.org/', colour: 'red' }])).rejects.toThrow(InvalidOptionError);
      // Far down, past the first chunk the queue adds at once: still nothing queued.
      const many = Array.from({ length: 600 }, (_, i) => ({ url: i === 549 ? 'file:///etc/passwd' : `https://example.org/${i}` }));
      await expect(queue.add(many)).rejects.toThrow(/job 550: `url` must be an http\(s\) URL/);
      await expect(
        queue.add(
          (async function* () {
            yield* many;
          })(),
        ),
      ).rejects.toThrow(/job 550/);
      expect((await queue.status()).waiting).toBe(0);
    } finally {
      await queue.close();
    }
  });

  it('refuses a Redis that evicts keys, saying why and what to set', async () => {
    const evicting = await startRedis(await freePort(), ['--maxmemory', '100mb', '--maxmemory-policy', 'allkeys-lru']);
    try {
      await expect(BatchQueue.open({ queue: 'q', redisUrl: `redis://127.0.0.1:${evicting.port}` })).rejects.toThrow(
        /maxmemory-policy allkeys-lru.*noeviction/,
      );
    } finally {
      await evicting.stop();
    }
  });

  it('says which Redis it cannot reach, without its password', async () => {
    const port = await freePort();
    const error = await BatchQueue.open({ queue: 'q', redisUrl: `redis://:hunter2@127.0.0.1:${port}` }).catch((caught: Error) => caught);
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect((error as Error).message).toMatch(new RegExp(`Cannot reach the queue's Redis at redis://\\*\\*\\*@127.0.0.1:${port}`));
    expect((error as Error).message).not.toContain('hunter2');
  });
});

describe('limits across workers, kept in Redis', () => {
  it('holds a host to its number of leases, wakes a job waiting for it on release, and frees one whose holder died when it lapses', async () => {
    const [client, doomed] = await Promise.all([connectRedis(redisUrl), connectRedis(redisUrl)]);
    try {
      const woken: string[] = [];
      const limits = new HostLimits(client, 'leases', 400, async (id) => (woken.push(id), true));
      const a = await limits.take('example.org', 'job-a', 2, 0);
      expect(a.lease).toBeDefined();
      const b = await limits.take('example.org', 'job-b', 2, 0);
      expect(b.lease).toBeDefined();
      // Full: the job is told to wait for a release (looking again by itself after a while), and
      // once put back it is entered among the host's waiting jobs.
      const full = await limits.take('example.org', 'job-c', 2, 0);
      expect(full.lease).toBeUndefined();
      expect(full.untilWoken).toBe(true);
      expect(full.waitMs).toBeGreaterThan(0);
      expect(full.waitMs).toBeLessThanOrEqual(HOST_RECHECK_MS);
      expect(await limits.wait('example.org', 'job-c', 2, 0)).toBe(true);
      // Another host is not held up.
      const d = await limits.take('example.com', 'job-d', 2, 0);
      expect(d.lease).toBeDefined();
      await a.lease!.release();
      expect(woken).toEqual(['job-c']);
      const c = await limits.take('example.org', 'job-c', 2, 0);
      expect(c.lease).toBeDefined();
      await Promise.all([b, c, d].map((taken) => taken.lease!.release()));
      // A holder that died (its connection gone, so nothing renews its leases): they lapse.
      const dead = new HostLimits(doomed, 'leases', 400);
      expect((await dead.take('example.net', 'job-e', 1, 0)).lease).toBeDefined();
      doomed.destroy();
      expect((await limits.take('example.net', 'job-f', 1, 0)).lease).toBeUndefined();
      await new Promise((resolve) => setTimeout(resolve, 450));
      const f = await limits.take('example.net', 'job-f', 1, 0);
      expect(f.lease).toBeDefined();
      await f.lease!.release();
    } finally {
      await client.close();
    }
  });

  it("spaces two jobs' requests to one host by the delay, from when the first one's was answered, by Redis clock", async () => {
    const client = await connectRedis(redisUrl);
    try {
      const woken: string[] = [];
      const limits = new HostLimits(client, 'delay', 10_000, async (id) => (woken.push(id), true));
      const a = await limits.take('slow.example', 'job-a', 0, 300);
      expect(a.lease).toBeDefined();
      // Job a's request is not answered yet: the next waits for it, however long it takes.
      const turn = await limits.take('slow.example', 'job-b', 0, 300);
      expect(turn.lease).toBeUndefined();
      expect(turn.untilWoken).toBe(true);
      expect(await limits.wait('slow.example', 'job-b', 0, 300)).toBe(true);
      await a.lease!.requested();
      expect(woken).toEqual(['job-b']);
      const [seconds, micros] = (await client.sendCommand(['TIME'])) as string[];
      const last = Number(await client.get('tendril:batch:delay:hostlast:slow.example'));
      expect(Number(seconds) * 1000 + Math.floor(Number(micros) / 1000) - last).toBeLessThan(300);
      // Now the delay runs: the next request may come no sooner than 300 ms after it.
      const wait = await limits.take('slow.example', 'job-b', 0, 300);
      expect(wait.lease).toBeUndefined();
      expect(wait.untilWoken).toBe(false);
      expect(wait.waitMs).toBeGreaterThan(0);
      expect(wait.waitMs).toBeLessThanOrEqual(300);
      await a.lease!.release();
      await new Promise((resolve) => setTimeout(resolve, wait.waitMs));
      const b = await limits.take('slow.example', 'job-b', 0, 300);
      expect(b.lease).toBeDefined();
      await b.lease!.release();
    } finally {
      await client.close();
    }
  });
});

describe('a worker', () => {
  it('runs jobs on fresh contexts, retries what another try may mend, not what it cannot, and aborts a job at its deadline', async () => {
    const queue = await BatchQueue.open({ queue: 'failures', redisUrl });
    const events: WorkerJobEvent[] = [];
    fake.script([{ json: { extraction: 'Page /p/model' } }]);
    await queue.add(
      [
        { url: site.url('127.0.0.1', '/p/one') },
        { url: site.url('localhost', '/flaky/1') },
        { url: site.url('127.0.0.1', '/missing') },
        { url: site.url('127.0.0.1', '/hang'), timeout: 1500 },
        { url: site.url('localhost', '/p/model'), instruction: 'What does the heading say?' },
      ],
      { attempts: 3, backoffMs: 50 },
    );
    const hangClosed = site.hangClosed();
    // Progress events, from whichever worker: each job done, each failed for good.
    const seen = { completed: new Set<string>(), failed: new Map<string, string>() };
    let heardAll: () => void;
    const allHeard = new Promise<void>((resolve) => (heardAll = resolve));
    const heard = () => seen.completed.size === 3 && seen.failed.size === 2 && heardAll();
    const stops = [
      await queue.on('completed', (id) => (seen.completed.add(id), heard())),
      await queue.on('failed', (id, error) => (seen.failed.set(id, error!.name), heard())),
    ];
    const worker = await startWorker('failures', events);
    try {
      await worker.untilEmpty();
    } finally {
      await worker.close();
    }
    await allHeard;
    stops.forEach((stop) => stop());
    // The hung request was cut by the job's abort, not left to the server.
    await hangClosed;
    const results = new Map((await all(queue.results())).map((result) => [new URL(result.url).pathname, result]));
    expect(results.size).toBe(5);
    expect(results.get('/p/one')).toMatchObject({ ok: true, attempts: 1, pageText: expect.stringContaining('Page /p/one') });
    // Twice 503, then the page: retried, and right.
    expect(results.get('/flaky/1')).toMatchObject({ ok: true, attempts: 3, pageText: expect.stringContaining('Page /flaky/1') });
    expect(site.hits.get('/flaky/1')).toBe(3);
    // A 404 is for good: one request, one attempt, its typed error.
    expect(results.get('/missing')).toMatchObject({
      ok: false,
      attempts: 1,
      error: { name: 'PageStatusError', message: expect.stringContaining('HTTP 404') },
    });
    expect(site.hits.get('/missing')).toBe(1);
    // A page that never answers: the deadline aborts it each time, and it is retried up to its attempts.
    expect(results.get('/hang')).toMatchObject({
      ok: false,
      attempts: 3,
      error: { name: 'TimeoutError', message: expect.stringContaining('1500 ms') },
    });
    expect(results.get('/p/model')).toMatchObject({ ok: true, attempts: 1, extraction: 'Page /p/model' });
    expect(fake.requests).toHaveLength(1);
    expect(seen.completed).toEqual(new Set(['/p/one', '/flaky/1', '/p/model'].map((page) => results.get(page)!.id)));
    expect(seen.failed).toEqual(
      new Map([
        [results.get('/missing')!.id, 'PageStatusError'],
        [results.get('/hang')!.id, 'TimeoutError'],
      ]),
    );
    const status = await queue.status();
    expect(status).toMatchObject({ waiting: 0, delayed: 0, active: 0, done: 3, failed: 2, retried: 4 });
    expect(
      events
        .filter((event) => event.kind === 'failed' && !event.retry)
        .map((event) => new URL(event.url).pathname)
        .sort(),
    ).toEqual(['/hang', '/missing']);
    await queue.close();
  }, 90_000);

  it('refuses at start a model it could not use, in the words of its options, before any browser or job', async () => {
    const saved = process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_API_KEY;
    const queue = await BatchQueue.open({ queue: 'unusable-model', redisUrl });
    try {
      await queue.add([{ url: site.url('127.0.0.1', '/p/unusable'), instruction: 'The heading' }]);
      const events: WorkerJobEvent[] = [];
      await expect(startWorker('unusable-model', events, { model: { modelName: 'openai/gpt-4.1-mini' } })).rejects.toThrow(
        /^No API key for openai\/gpt-4\.1-mini: pass model: \{ modelName: "openai\/gpt-4\.1-mini", apiKey \} or set OPENAI_API_KEY\./,
      );
      expect(events).toEqual([]);
      expect(site.hits.get('/p/unusable')).toBeUndefined();
      expect(await queue.status()).toMatchObject({ waiting: 1, failed: 0 });
    } finally {
      if (saved !== undefined) process.env.OPENAI_API_KEY = saved;
      await queue.close();
    }
  });

  it('retries the jobs of a browser that was lost, on a new one', async () => {
    const queue = await BatchQueue.open({ queue: 'lost', redisUrl });
    const events: WorkerJobEvent[] = [];
    await queue.add([{ url: site.url('127.0.0.1', '/hang-once/lost') }], { attempts: 2, backoffMs: 50 });
    const arrived = site.hangArrived();
    const worker = await startWorker('lost', events);
    try {
      const first = worker.browserProcessId()!;
      await arrived;
      process.kill(first, 'SIGKILL');
      await worker.untilEmpty();
      expect(worker.browserProcessId()).not.toBe(first);
    } finally {
      await worker.close();
    }
    const [result] = await all(queue.results());
    expect(result).toMatchObject({ ok: true, attempts: 2, pageText: expect.stringContaining('Page /hang-once/lost') });
    expect(events[0]).toMatchObject({ kind: 'failed', retry: true });
    await queue.close();
  }, 60_000);

  it("stops model calls once the queue's token budget is spent, and keeps each job's use and the queue's total", async () => {
    const queue = await BatchQueue.open({ queue: 'budget', redisUrl });
    const client = await connectRedis(redisUrl);
    try {
      await queue.configure({ budgetTokens: 1000 });
      const account = new QueueAccount(client, 'budget');
      await account.settle('none held', 'earlier-job', { promptTokens: 900, completionTokens: 100, totalTokens: 1000 });
      expect(await account.state()).toEqual({ remaining: 0, used: 1000, budget: 1000 });
      fake.reset();
      await queue.add([
        { url: site.url('127.0.0.1', '/p/budget'), instruction: 'What does it say?' },
        { url: site.url('127.0.0.1', '/p/no-model') },
      ]);
      const worker = await startWorker('budget');
      try {
        await worker.untilEmpty();
      } finally {
        await worker.close();
      }
      const results = await all(queue.results());
      const byPath = (path: string) => results.find((result) => result.url.endsWith(path)) as BatchResult;
      expect(byPath('/p/budget')).toMatchObject({ ok: false, attempts: 1, error: { name: 'BudgetExceededError' } });
      // A job that needs no model is not stopped by the budget.
      expect(byPath('/p/no-model')).toMatchObject({ ok: true });
      expect(fake.requests).toHaveLength(0);
      expect((await queue.status()).tokens).toEqual({ used: 1000, budget: 1000 });
      expect(await account.usageOf(['earlier-job', 'never-ran'])).toEqual([
        { promptTokens: 900, completionTokens: 100, totalTokens: 1000 },
        undefined,
      ]);
      // A finished job is run again only when asked; one already waiting is left as it is.
      const again = [{ url: site.url('127.0.0.1', '/p/no-model') }, { url: site.url('127.0.0.1', '/p/new') }];
      expect(await queue.add(again)).toEqual({ added: 1, existing: 1, failed: 0 });
      expect(await queue.add(again, { rerun: true })).toEqual({ added: 1, existing: 1, failed: 0 });
      expect(await queue.status()).toMatchObject({ waiting: 2, done: 0, failed: 1 });
    } finally {
      await client.close();
      await queue.close();
    }
  }, 60_000);
});
