// `tendril batch add|status|results` and `worker` against what users and hostile input give them,
// as real processes on a real Redis: a bad line far down a file, schema files that are not schemas,
// two adders racing, jobs that failed before, a storage state that cannot load, jobs waiting for
// their host, a reader that closes its pipe early.

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchQueue } from '../../src/batch/index.js';
import { failureOf, runCommand } from '../../src/cli/run.js';
import { startBatchSite, type BatchSite } from '../support/batch-site.js';
import { runScript, type Run } from '../support/child.js';
import { CLI, useBatchCli } from '../support/batch-cli.js';

const batch = useBatchCli('tendril-batch-add-');
const { workers, env, cli } = batch;
let site: BatchSite;

beforeAll(async () => {
  site = await startBatchSite(0);
});

afterAll(async () => {
  await site?.close();
});

const file = (name: string, text: string) => {
  const where = path.join(batch.dir, name);
  writeFileSync(where, text);
  return where;
};

async function status(queue: string): Promise<Record<string, number>> {
  return JSON.parse(await cli('batch', 'status', '--queue', queue, '--json')) as Record<string, number>;
}

/** Runs `tendril …` to its end: its exit code, stdout and stderr. */
async function run(args: string[], input?: string): Promise<{ code: number | null; out: string; err: string }> {
  const child = runScript(CLI, args, env(), input);
  const code = await child.exit;
  return { code, out: child.stdout(), err: child.stderr() };
}

/** `tendril …` in this process, as main.ts runs it: the exit code, and what it says on stderr when it fails. */
async function inProcess(args: string[]): Promise<{ code: number; err: string }> {
  return runCommand(args).then(
    (code) => ({ code, err: '' }),
    (error: unknown) => {
      const { code, text } = failureOf(error);
      return { code, err: text };
    },
  );
}

describe('batch add', () => {
  it('queues nothing when any line is bad, however far down the file (and from stdin)', async () => {
    const lines = Array.from({ length: 600 }, (_, i) => (i === 549 ? 'file:///etc/passwd' : site.url('127.0.0.1', `/p/line${i}`)));
    const urls = file('bad-line.txt', `${lines.join('\n')}\n`);
    const fromFile = await run(['batch', 'add', '--queue', 'badline', urls]);
    expect(fromFile.code).toBe(2);
    expect(fromFile.err).toMatch(/bad-line\.txt line 550: `url` must be an http\(s\) URL, not "file:\/\/\/etc\/passwd"/);
    const fromStdin = await run(['batch', 'add', '--queue', 'badline', '-'], `${lines.join('\n')}\n`);
    expect(fromStdin.code).toBe(2);
    expect(fromStdin.err).toMatch(/stdin line 550: `url` must be an http\(s\) URL/);
    expect(await status('badline')).toMatchObject({ waiting: 0, delayed: 0, active: 0, done: 0, failed: 0 });
    // The same file mended: all 600 go in, from stdin as from a file.
    const good = lines.map((line, i) => (i === 549 ? site.url('127.0.0.1', '/p/line549') : line)).join('\n');
    expect(await run(['batch', 'add', '--queue', 'badline', '-'], `${good}\n`)).toMatchObject({
      code: 0,
      out: 'added 600, already there 0\n',
    });
    expect((await status('badline')).waiting).toBe(600);
  }, 60_000);

  it('refuses a --schema file that is not a schema extract() can serve, before queueing anything', async () => {
    const deep = (levels: number) => `${'{ "type": "array", "items": '.repeat(levels)}{ "type": "string" }${' }'.repeat(levels)}`;
    const cases: Array<[string, string, RegExp]> = [
      ['null', 'null', /holds null; it must hold a JSON Schema object/],
      ['anyOf-empty', '{ "anyOf": [] }', /"anyOf" at the root must be a non-empty array of schemas/],
      ['enum-empty', '{ "enum": [] }', /"enum" at the root must be a non-empty array/],
      ['enum-objects', '{ "enum": [{ "a": 1 }] }', /"enum" at the root must be a non-empty array of strings, numbers, booleans or null/],
      ['required-stray', '{ "type": "object", "properties": {}, "required": ["price"] }', /"required" at the root names "price"/],
      [
        'required-string',
        '{ "type": "object", "properties": { "a": { "type": "string" } }, "required": "a" }',
        /"required" at the root must be an array/,
      ],
      ['ref-beside-type', '{ "type": "object", "properties": { "a": { "type": "string", "$ref": "#/$defs/a" } } }', /at a uses "\$ref"/],
      ['oneOf-beside-type', '{ "type": "string", "oneOf": [{ "type": "string" }] }', /uses "oneOf"/],
      ['bounds-crossed', '{ "type": "number", "minimum": 10, "maximum": 1 }', /leave no number between them/],
      ['bound-string', '{ "type": "number", "minimum": "5" }', /"minimum" at the root must be a number, not "5"/],
      // Refused before this change too: they must stay refused.
      ['not-json', '{ type: object', /is not JSON/],
      ['empty', '', /is not JSON/],
      ['array', '[]', /holds an array/],
      ['string', '"object"', /holds a string/],
      ['banana', '{ "type": "banana" }', /has type "banana"/],
      ['dangling-ref', '{ "$ref": "#/$defs/nowhere" }', /uses "\$ref"/],
      ['deep', deep(5000), /nested more than 24 levels/],
    ];
    const urls = file('schema-urls.txt', `${site.url('127.0.0.1', '/p/schema')}\n`);
    // The queue is named by flag, so that a schema let through would be queued where status looks.
    const add = (schema: string) => [
      'batch',
      'add',
      '--queue',
      'schemas',
      '--redis-url',
      env().REDIS_URL,
      '--instruction',
      'The price',
      '--schema',
      schema,
      urls,
    ];
    const expectRefused = (name: string, schema: string, message: RegExp, result: { code: number | null; err: string }) => {
      expect({ name, code: result.code }).toEqual({ name, code: 2 });
      expect(result.err, name).toContain(`--schema ${schema}`);
      expect(result.err, name).toMatch(message);
    };
    // The first as a user runs it, a process of its own; every case then in this process, through
    // the dispatch and the failure report that process ran (src/cli/run.ts), not one process each.
    const [first] = cases;
    const firstSchema = file(`${first![0]}.json`, first![1]);
    expectRefused(first![0], firstSchema, first![2], await run(add(firstSchema)));
    for (const [name, text, message] of cases) {
      const schema = file(`${name}.json`, text);
      expectRefused(name, schema, message, await inProcess(add(schema)));
    }
    expect(await status('schemas')).toMatchObject({ waiting: 0, done: 0, failed: 0 });
  }, 60_000);

  it('counts truly when two processes add the same 120 jobs at the same moment', async () => {
    const urls = file('race.txt', `${Array.from({ length: 120 }, (_, i) => site.url('localhost', `/p/race${i}`)).join('\n')}\n`);
    // Writes wait (reads do not) until both adders have reached their first write: they overlap for sure.
    expect(await batch.redis.cli('CLIENT', 'PAUSE', '60000', 'WRITE')).toBe('OK');
    let adders: Run[] = [];
    try {
      adders = [0, 1].map(() => runScript(CLI, ['batch', 'add', '--queue', 'race', urls], env()));
      for (;;) {
        const blocked = Number(/blocked_clients:(\d+)/.exec(await batch.redis.cli('INFO', 'clients'))![1]);
        if (blocked >= 2) break;
        const exited = await Promise.race([...adders.map((adder) => adder.exit), new Promise((resolve) => setTimeout(resolve, 50, 'on'))]);
        if (exited !== 'on') throw new Error(`an adder exited before its first write: ${adders.map((adder) => adder.stderr()).join('\n')}`);
      }
    } finally {
      await batch.redis.cli('CLIENT', 'UNPAUSE');
    }
    expect(await Promise.all(adders.map((adder) => adder.exit))).toEqual([0, 0]);
    const counts = adders.map((adder) => /^added (\d+), already there (\d+)\n$/.exec(adder.stdout())!.slice(1).map(Number));
    expect(counts.map(([added]) => added!).reduce((a, b) => a + b)).toBe(120);
    for (const [added, existing] of counts) expect(added! + existing!).toBe(120);
    expect((await status('race')).waiting).toBe(120);
  }, 60_000);

  it('says how many of the jobs already there failed, and that --rerun runs them again', async () => {
    const urls = file('failing.txt', ['/p/fine', '/missing/1', '/missing/2'].map((page) => site.url('127.0.0.1', page)).join('\n'));
    expect(await cli('batch', 'add', '--queue', 'failing', urls)).toBe('added 3, already there 0\n');
    const worker = runScript(CLI, ['worker', '--queue', 'failing', '--exit-when-empty', '--quiet'], env());
    workers.push(worker);
    expect(await worker.exit, worker.stderr()).toBe(0);
    expect(await status('failing')).toMatchObject({ done: 1, failed: 2 });
    expect(await cli('batch', 'add', '--queue', 'failing', urls)).toBe(
      'added 0, already there 3 (2 of them failed: --rerun runs them again)\n',
    );
    expect(await cli('batch', 'add', '--queue', 'failing', '--rerun', urls)).toBe('added 3, already there 0\n');
    expect(await status('failing')).toMatchObject({ waiting: 3, done: 0, failed: 0 });
  }, 90_000);
});

describe('worker', () => {
  it('refuses a --storage-state that cannot load at start, naming what to fix, before taking a job', async () => {
    const cases: Array<[string, unknown, RegExp]> = [
      [
        'value-number',
        { cookies: [{ name: 'sid', value: 5, domain: '127.0.0.1', path: '/' }], origins: [] },
        /cookies\[0\]: Cookie "sid" needs a string `value`/,
      ],
      [
        'same-site',
        { cookies: [{ name: 'sid', value: '1', domain: '127.0.0.1', path: '/', sameSite: 'Banana' }] },
        /has sameSite "Banana"/,
      ],
      ['cookies-string', { cookies: 'sid=1' }, /`cookies` is not an array/],
      ['no-place', { cookies: [{ name: 'sid', value: '1' }] }, /cookies\[0\]: Cookie "sid" must have a url, or a domain and a path/],
      ['bad-origin', { origins: [{ origin: 'file:///', localStorage: [] }] }, /origins\[0\]\.origin must be an http\(s\) origin/],
    ];
    const urls = file('state-urls.txt', `${site.url('127.0.0.1', '/p/state')}\n`);
    expect(await cli('batch', 'add', '--queue', 'badstate', urls)).toBe('added 1, already there 0\n');
    for (const [name, state, message] of cases) {
      const stateFile = file(`${name}.json`, JSON.stringify(state));
      const worker = runScript(CLI, ['worker', '--queue', 'badstate', '--exit-when-empty', '--storage-state', stateFile], env());
      workers.push(worker);
      expect({ name, code: await worker.exit }).toEqual({ name, code: 2 });
      expect(worker.stdout(), name).not.toContain('worker ready');
      expect(worker.stderr(), name).toContain(`--storage-state ${stateFile}`);
      expect(worker.stderr(), name).toMatch(message);
      expect(worker.stderr(), name).toMatch(/fix|A storage state is/i);
    }
    // No job was taken, let alone failed.
    expect(await status('badstate')).toMatchObject({ waiting: 1, active: 0, failed: 0 });
  }, 120_000);
});

describe('batch status', () => {
  it('counts jobs that wait for room on their host apart from those running', async () => {
    const urls = file('one-host.txt', [1, 2, 3].map((n) => site.url('127.0.0.1', `/hang/host${n}`)).join('\n'));
    expect(await cli('batch', 'add', '--queue', 'onehost', '--per-host', '1', urls)).toBe('added 3, already there 0\n');
    const arrived = site.hangArrived();
    const worker = runScript(CLI, ['worker', '--queue', 'onehost', '--concurrency', '3', '--quiet'], env());
    workers.push(worker);
    const queue = await BatchQueue.open({ queue: 'onehost', redisUrl: env().REDIS_URL });
    try {
      await arrived;
      // The worker has taken all three: one runs (its page never answers), two wait for the host.
      let status = await queue.status();
      while (status.active + (status.waitingForHost ?? 0) < 3) status = await queue.status();
      expect(status).toMatchObject({ waiting: 0, delayed: 0, active: 1, waitingForHost: 2 });
      expect([1, 2, 3].map((n) => site.hits.get(`/hang/host${n}`) ?? 0).reduce((a, b) => a + b)).toBe(1);
      const text = await cli('batch', 'status', '--queue', 'onehost');
      expect(text).toMatch(/^active {3}1$/m);
      expect(text).toMatch(/^for host 2$/m);
    } finally {
      worker.child.kill('SIGKILL');
      await queue.close();
    }
  }, 90_000);
});

describe('a reader that closes the pipe early', () => {
  /** Runs `tendril …`, reads the first chunk of its stdout and closes the pipe, as `| head` does. */
  async function closedEarly(args: string[]): Promise<{ code: number | null; err: string; read: number }> {
    const child = runScript(CLI, args, env());
    let read = 0;
    child.child.stdout!.once('data', (chunk: Buffer) => {
      read = chunk.length;
      child.child.stdout!.destroy();
    });
    const code = await child.exit;
    return { code, err: child.stderr(), read };
  }

  it('ends batch results and text quietly, with no EPIPE stack', async () => {
    const urls = file('big.txt', `${site.url('127.0.0.1', '/big/1')}\n${site.url('127.0.0.1', '/big/2')}\n`);
    expect(await cli('batch', 'add', '--queue', 'big', urls)).toBe('added 2, already there 0\n');
    const worker = runScript(CLI, ['worker', '--queue', 'big', '--exit-when-empty', '--quiet'], env());
    workers.push(worker);
    expect(await worker.exit, worker.stderr()).toBe(0);
    // Each result is about 400 kB: far more than a pipe holds, so the command is still writing when it closes.
    const results = await closedEarly(['batch', 'results', '--queue', 'big']);
    expect(results.read).toBeGreaterThan(0);
    expect(results).toMatchObject({ code: 0, err: '' });
    // (`tendril text` says what it does on stderr: only an error must not be there.)
    const text = await closedEarly(['text', site.url('127.0.0.1', '/big/3')]);
    expect(text.read).toBeGreaterThan(0);
    expect(text.code).toBe(0);
    expect(text.err).not.toMatch(/EPIPE|Error|\n\s+at /);
  }, 120_000);
});
