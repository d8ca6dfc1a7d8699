// `tendril worker` processes and their model and browser settings, as users run them: a server at
// --base-url asked for no key; a named model that cannot be used ends the worker before it takes a
// job; a worker with no model hands instruction jobs back (never fails them) for one that has it;
// --chrome-args and CHROME_ARGS reach the Chromium the worker launches.

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFixtureServers, type FixtureServers } from '../fixtures/server.js';
import { startBatchSite, type BatchSite } from '../support/batch-site.js';
import { CLI, useBatchCli } from '../support/batch-cli.js';
import { runScript, type Run } from '../support/child.js';
import { startFakeModel, type FakeModel } from '../support/fake-model.js';

const batch = useBatchCli('tendril-worker-model-');
const { workers, env, cli } = batch;
let site: BatchSite;
let fake: FakeModel;
let fixtures: FixtureServers;

beforeAll(async () => {
  [site, fake, fixtures] = await Promise.all([startBatchSite(5), startFakeModel(), startFixtureServers()]);
});
afterAll(async () => {
  await Promise.all([site?.close(), fake?.close(), fixtures?.close()]);
});

/** No provider key anywhere, and no model named: what a newcomer's shell has. */
const keyless = () => ({ ...env(), MODEL_API_KEY: '', OPENAI_API_KEY: '', MODEL_BASE_URL: '', MODEL_NAME: '', CHROME_ARGS: '' });

function worker(args: string[], extra: Record<string, string> = {}): Run {
  const run = runScript(CLI, ['worker', ...args], { ...keyless(), ...extra });
  workers.push(run);
  return run;
}

async function results(queue: string): Promise<Array<Record<string, unknown>>> {
  const out = await cli('batch', 'results', '--queue', queue);
  return out
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

it('runs instruction jobs on a --base-url server with no key, and asks it for none', async () => {
  fake.reset();
  fake.script(() => ({ json: { extraction: 'the keyless answer' } }));
  const file = path.join(batch.dir, 'keyless.txt');
  writeFileSync(file, `${site.url('127.0.0.1', '/p/keyless')}\n`);
  await cli('batch', 'add', '--queue', 'keyless', '--instruction', 'What does the heading say?', file);
  const run = worker(['--queue', 'keyless', '--exit-when-empty', '--base-url', fake.url]);
  expect(await run.exit, run.stderr()).toBe(0);
  expect(await results('keyless')).toEqual([expect.objectContaining({ ok: true, attempts: 1, extraction: 'the keyless answer' })]);
  expect(fake.requests.map((request) => request.headers.authorization)).toEqual(['Bearer unused']);
}, 90_000);

it('ends at start, exit 2, when the model it is given cannot be used, in the words of the command line', async () => {
  const named = worker(['--queue', 'never', '--model', 'openai/gpt-4.1-mini']);
  const local = worker(['--queue', 'never', '--model', 'openai-compatible/llama3.2']);
  expect(await Promise.all([named.exit, local.exit])).toEqual([2, 2]);
  expect(named.stderr()).toMatch(/No API key for openai\/gpt-4\.1-mini: set MODEL_API_KEY \(or OPENAI_API_KEY\)\..*--base-url/);
  expect(local.stderr()).toMatch(
    /openai-compatible\/llama3\.2 needs the server's address: --base-url http:\/\/host:port\/v1 \(or MODEL_BASE_URL\)/,
  );
  for (const run of [named, local]) {
    expect(run.stdout()).not.toContain('worker ready');
    // Not the library's words: a command line has no `model: { … }`.
    expect(run.stderr()).not.toMatch(/apiKey|modelName/);
  }
}, 60_000);

it('with no model, hands instruction jobs back instead of failing them (and --exit-when-empty ends), and a worker with a model then runs them', async () => {
  fake.reset();
  fake.script(() => ({ json: { extraction: 'answered later' } }));
  const file = path.join(batch.dir, 'mixed.txt');
  writeFileSync(file, `${site.url('127.0.0.1', '/p/needs-model')}\n`);
  await cli('batch', 'add', '--queue', 'mixed', '--instruction', 'What does the heading say?', file);
  const text = path.join(batch.dir, 'text.txt');
  writeFileSync(text, `${site.url('localhost', '/p/plain')}\n`);
  await cli('batch', 'add', '--queue', 'mixed', text);
  // --exit-when-empty: once all that is left is what it cannot run, it exits (and leaves that queued).
  const bare = worker(['--queue', 'mixed', '--exit-when-empty']);
  expect(await bare.exit, bare.stderr()).toBe(0);
  expect(bare.stdout()).toContain('worker ready');
  expect(bare.stderr()).toMatch(/tendril worker: no model \(No API key for openai\/gpt-4\.1-mini: set MODEL_API_KEY/);
  // The page job ran; the instruction job went back, saying why, and was not failed.
  expect(bare.stderr()).toMatch(/^done .*\/p\/plain/m);
  expect(bare.stderr()).toMatch(/^handed back .*\/p\/needs-model: MissingLLMConfigurationError: This worker has no model/m);
  expect(bare.stderr()).not.toMatch(/^failed /m);
  const status = JSON.parse(await cli('batch', 'status', '--queue', 'mixed', '--json')) as Record<string, number>;
  expect(status).toMatchObject({ done: 1, failed: 0, retried: 0 });
  expect(status.waiting! + status.delayed!).toBe(1);
  // A worker that has a model takes it, as its first attempt.
  const able = worker(['--queue', 'mixed', '--exit-when-empty', '--base-url', fake.url]);
  expect(await able.exit, able.stderr()).toBe(0);
  const byPath = new Map((await results('mixed')).map((result) => [new URL(result.url as string).pathname, result]));
  expect(byPath.get('/p/needs-model')).toMatchObject({ ok: true, attempts: 1, extraction: 'answered later' });
  expect(byPath.get('/p/plain')).toMatchObject({ ok: true, pageText: expect.stringContaining('Page /p/plain') });
}, 120_000);

it('passes --chrome-args, or else CHROME_ARGS, to the Chromium it launches', async () => {
  const file = path.join(batch.dir, 'agents.txt');
  writeFileSync(file, `${fixtures.a.url('echo-headers')}\n`);
  await cli('batch', 'add', '--queue', 'flag-args', file);
  await cli('batch', 'add', '--queue', 'env-args', file);
  const flag = worker(['--queue', 'flag-args', '--exit-when-empty', '--chrome-args=--user-agent="Flag Probe/1"']);
  const variable = worker(['--queue', 'env-args', '--exit-when-empty'], { CHROME_ARGS: "--user-agent='Env Probe/2'" });
  expect(await Promise.all([flag.exit, variable.exit])).toEqual([0, 0]);
  const [byFlag] = await results('flag-args');
  const [byVariable] = await results('env-args');
  // The page shows the request's headers: the user agent is the one the switch set.
  expect(byFlag!.pageText).toContain('"user-agent":"Flag Probe/1"');
  expect(byVariable!.pageText).toContain('"user-agent":"Env Probe/2"');
}, 90_000);
