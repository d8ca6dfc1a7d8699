// What one job leaves to the next in the same worker slot, in each isolation mode: a real
// `tendril worker --concurrency 1` process on a real Redis, on the fixture servers' two origins.
// Job A, on origin X with a frame of origin Y, writes every kind of state a page can (cookies by
// script and by Set-Cookie, local and session storage, IndexedDB, Cache Storage, OPFS, a service
// worker, an HTTP-cached response, and asks for client hints); job B, next in the same slot, reads
// each on X and on Y. Then a job logs in with HTTP auth, and the next one asks for it; then a job
// that fails, and the next one. Each job is added once the one before it has finished, so they
// run in this order. With `fresh` every row of every read is empty; with `recycle` exactly the rows
// docs/batch.md lists as shared are not, and after the auth job and the failed one the context was
// replaced: nothing at all is shared.

import { afterAll, beforeAll, it } from 'vitest';
import { BatchQueue, type BatchJob, type BatchResult } from '../../src/batch/index.js';
import { startFixtureServers, type FixtureServers } from '../fixtures/server.js';
import { runScript, waitForLine } from '../support/child.js';
import { CLI, useBatchCli } from '../support/batch-cli.js';

const batch = useBatchCli('tendril-isolation-');
let servers: FixtureServers;

beforeAll(async () => {
  servers = await startFixtureServers();
});

afterAll(async () => {
  await servers?.close();
});

/** Every row the reader reports, on X and on Y. */
const READ_ROWS = [
  'cookie-script',
  'cookie-header',
  'localStorage',
  'sessionStorage',
  'indexedDB',
  'cacheStorage',
  'opfs',
  'serviceWorker',
  'httpCache',
  'clientHints',
  'connection',
  'httpAuth',
];
/**
 * What recycle shares, as docs/batch.md says: client hints a site asked for as the page (Chrome
 * ignores a third-party frame's Accept-CH); and kept-alive connections, below.
 */
const SHARED = new Set(['X clientHints']);
/** A kept-alive connection is reused when Chrome's pool still holds it, which a loaded machine may not: may, not must. */
const MAY_SHARE = new Set(['X connection', 'Y connection']);

function rowsOf(result: BatchResult | undefined): Map<string, string> {
  const rows = new Map<string, string>();
  for (const [, where, name, value] of (result?.pageText ?? '').matchAll(/row (X|Y) (\S+) = \[(.*?)\]/g))
    rows.set(`${where} ${name}`, value!);
  return rows;
}

/** A worker in `isolation`, one job at a time; `run` adds a job, waits until it has finished, and returns its result. */
async function slot(isolation: string) {
  const queueName = `iso-${isolation}`;
  const worker = runScript(CLI, ['worker', '--queue', queueName, '--concurrency', '1', '--isolation', isolation], batch.env());
  batch.workers.push(worker);
  await waitForLine(worker, /worker ready/);
  const queue = await BatchQueue.open({ queue: queueName, redisUrl: batch.env().REDIS_URL });
  let n = 0;
  return {
    async run(mode: string, extra = ''): Promise<BatchResult> {
      const url = servers.a.url(`/isolation.html?mode=${mode}&key=${isolation}-${++n}&cache=${isolation}${extra}`);
      await queue.add([{ url } satisfies BatchJob], { attempts: 1 });
      await queue.drained();
      for await (const result of queue.results()) if (result.url === url) return result;
      throw new Error(`no result for ${url}: ${worker.stderr()}`);
    },
    async stop(): Promise<number | null> {
      await queue.close();
      worker.child.kill('SIGTERM');
      return worker.exit;
    },
  };
}

// The two modes at once, each with its own worker and queue: the file takes as long as one.
it.concurrent.for(['fresh', 'recycle'])(
  '--isolation %s: the next job in the slot sees what docs/batch.md says of the one before',
  { timeout: 60_000 },
  async (isolation, { expect }) => {
    const { run, stop } = await slot(isolation);
    const expectShared = (rows: Map<string, string>, shared: Set<string>, may = new Set<string>()) => {
      expect([...rows.keys()].sort()).toEqual(READ_ROWS.flatMap((name) => [`X ${name}`, `Y ${name}`]).sort());
      const seen = [...rows].filter(([, value]) => value !== '').map(([row]) => row);
      const detail = JSON.stringify(Object.fromEntries(rows));
      expect(seen.filter((row) => !may.has(row)).sort(), detail).toEqual([...shared].sort());
    };

    // A leaves every trace, and each write took (else an empty read would prove nothing).
    const wrote = await run('write', '&accept-ch=Sec-CH-UA-Platform-Version');
    expect(wrote.ok, JSON.stringify(wrote.error)).toBe(true);
    const written = rowsOf(wrote);
    expect(written.size).toBe(18);
    for (const [row, value] of written) expect(value, row).toMatch(/^(A|iso|iso\.txt|http:\/\/.*isolation-sw\.js|js=A|served 1)$/);
    expect(written.get('X httpCache')).toBe('served 1');

    const read = await run('read');
    expect(read.ok, JSON.stringify(read.error)).toBe(true);
    expectShared(rowsOf(read), isolation === 'recycle' ? SHARED : new Set(), isolation === 'recycle' ? MAY_SHARE : new Set());

    // HTTP auth: the login took, and the next job does not have it (recycle replaced the context).
    const login = await run('auth');
    expect(login.ok, JSON.stringify(login.error)).toBe(true);
    expect(rowsOf(login).get('X httpAuth')).toBe('200');
    const afterLogin = await run('read');
    expectShared(rowsOf(afterLogin), new Set());

    // A job that fails (its page answers 500, after writing everything): the next one gets a new context too.
    const failed = await run('write', '&accept-ch=Sec-CH-UA-Platform-Version&status=500');
    expect(failed.ok).toBe(false);
    expect(failed.error?.name).toBe('PageStatusError');
    const afterFailure = await run('read');
    expectShared(rowsOf(afterFailure), new Set());

    expect(await stop()).toBe(0);
  },
);
