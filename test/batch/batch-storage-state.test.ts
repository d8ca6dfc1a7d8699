// `tendril worker --storage-state FILE`, end to end: real worker processes on a real Redis, on a
// loopback login site (cookie + localStorage token). Every job of the worker given the state is
// logged in, even after one of its jobs logged in as someone else in its own context; the jobs of a
// worker without it are logged out, even after one of them logged in: no job's context leaks into another's.

import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runScript } from '../support/child.js';
import { startLoginSite, type LoginSite } from '../support/login-site.js';
import { CLI, useBatchCli } from '../support/batch-cli.js';

const batch = useBatchCli('tendril-batch-state-');
const { workers, env, cli } = batch;
let site: LoginSite;

beforeAll(async () => {
  site = await startLoginSite();
});

afterAll(async () => {
  await site?.close();
});

/** Adds the URLs to the queue in order, runs one worker on it until it is empty, returns each URL's page text. */
async function runQueue(queue: string, urls: string[], workerArgs: string[]): Promise<Map<string, string>> {
  const file = path.join(batch.dir, `${queue}.txt`);
  writeFileSync(file, `${urls.join('\n')}\n`);
  expect(await cli('batch', 'add', '--queue', queue, file)).toBe(`added ${urls.length}, already there 0\n`);
  // Concurrency 2: jobs share the browser at once as well as one after another.
  const worker = runScript(CLI, ['worker', '--queue', queue, '--concurrency', '2', '--exit-when-empty', ...workerArgs], env());
  workers.push(worker);
  expect(await worker.exit, worker.stderr()).toBe(0);
  const out = path.join(batch.dir, `${queue}.jsonl`);
  expect(await cli('batch', 'results', '--queue', queue, '--out', out)).toBe('');
  const results = readFileSync(out, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { url: string; ok: boolean; pageText?: string });
  expect(
    results.every((result) => result.ok),
    JSON.stringify(results),
  ).toBe(true);
  return new Map(results.map((result) => [result.url, result.pageText ?? '']));
}

it('every job of a worker with --storage-state is logged in; a worker without it is not; nothing leaks between jobs', async () => {
  const stateFile = path.join(batch.dir, 'state.json');
  writeFileSync(stateFile, JSON.stringify(site.login('ada')));
  // First in each queue, a job that logs in as someone else in its own context; the /app jobs after it
  // (and beside it) must not see that login.
  const apps = (tag: string) => Array.from({ length: 6 }, (_, i) => `${site.a}/app?job=${tag}${i}`);
  const [withState, without] = await Promise.all([
    runQueue('state', [`${site.a}/login?user=eve`, ...apps('s')], ['--storage-state', stateFile]),
    runQueue('bare', [`${site.a}/login?user=mallory`, ...apps('b')], []),
  ]);

  expect(withState.get(`${site.a}/login?user=eve`)).toContain('saved');
  expect(without.get(`${site.a}/login?user=mallory`)).toContain('saved');
  for (const url of apps('s')) expect(withState.get(url), url).toContain('logged in as ada');
  for (const url of apps('b')) expect(without.get(url), url).toContain('logged out');
  // The logins did happen on the server: their sessions exist, and no page showed them.
  expect([...site.sessions.values()].map((session) => session.user).sort()).toEqual(['ada', 'eve', 'mallory']);
  for (const text of [...withState.values(), ...without.values()]) expect(text).not.toMatch(/eve|mallory/);
}, 120_000);
