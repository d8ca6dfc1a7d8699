// The command line, run as a user runs it: a child process, its output and its exit code.

import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HostedApi } from '../../src/hosted/client/api.js';
import type { FixtureServers } from '../fixtures/server.js';
import { CHROME, processAlive, startDebugChrome, TEST_ARGS, HOSTED_TEST_ENV } from '../helpers.js';
import { waitForLine } from '../support/child.js';
import { cliEnv, finished, runCli as run, useCliSuite } from '../support/cli.js';
import type { FakeModel, FakeRequest } from '../support/fake-model.js';
import { startTestHostedServer } from '../support/hosted.js';

/** Processes whose parent is `pid`, from /proc. */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

describe('tendril hosted serve', () => {
  it('prints its URL once ready, serves sessions, and on SIGTERM ends them, closes their browsers and exits 0', async () => {
    const server = run(['hosted', 'serve', '--port', '0', '--max-sessions', '2', '--quiet'], {
      HOSTED_API_KEYS: 'cli-key',
      CHROME_PATH: CHROME,
      CHROME_ARGS: TEST_ARGS.join(' '),
    });
    try {
      const [, url] = await waitForLine(server, /listening on (http:\/\/\S+)/);
      const api = new HostedApi(url!, 'cli-key', 30_000);
      const session = await api.createSession({ projectId: 'cli' });
      expect(session.status).toBe('RUNNING');
      const browsers = childrenOf(server.child.pid!);
      expect(browsers.length).toBeGreaterThan(0);
      server.child.kill('SIGTERM');
      expect(await server.exit).toBe(0);
      expect(browsers.filter(processAlive)).toEqual([]);
      // It stopped accepting: the port is closed.
      await expect(fetch(`${url}/v1/sessions`)).rejects.toThrow();
    } finally {
      server.child.kill('SIGKILL');
    }
  });

  it('exits 2 with the usage on a wrong command line, and 2 naming the fix on a bad configuration', async () => {
    const unknown = run(['hosted', 'serve', '--prot', '3000']);
    expect(await unknown.exit).toBe(2);
    expect(unknown.stderr()).toMatch(/--prot/);
    expect(unknown.stderr()).toMatch(/tendril hosted serve \[flags\]/);

    const nothing = run([]);
    expect(await nothing.exit).toBe(2);
    expect(nothing.stderr()).toMatch(/Usage: tendril/);

    const noKeys = run(['hosted', 'serve', '--port', '0'], { HOSTED_API_KEYS: '' });
    expect(await noKeys.exit).toBe(2);
    expect(noKeys.stderr()).toMatch(/HOSTED_API_KEYS is empty/);
  });
});

describe('tendril text and tendril extract', () => {
  let fixtures: FixtureServers;
  let fake: FakeModel;
  const dir = useCliSuite('tendril-cli-', (...started) => ([fixtures, fake] = started));
  const env = () => cliEnv(fake, 'sk-cli-test');
  it('text prints the page as text on stdout, progress on stderr, and --selector scopes it', async () => {
    const whole = await finished(run(['text', fixtures.a.url('extract-shop.html')], env()));
    expect(whole.code).toBe(0);
    expect(whole.stdout).toMatch(/heading: Tendril Shop/);
    expect(whole.stdout).toMatch(/link: Details of Widget A/);
    expect(whole.stderr).toMatch(/Opening http:\/\/127\.0\.0\.1/);
    expect(whole.stdout).not.toMatch(/Opening/);

    const scoped = await finished(run(['text', fixtures.a.url('extract-shop.html'), '--selector', 'css=h1', '--quiet'], env()));
    expect(scoped.code).toBe(0);
    expect(scoped.stdout.trim().split('\n')).toHaveLength(1);
    expect(scoped.stdout).toMatch(/heading: Tendril Shop/);
    expect(scoped.stderr).toBe('');
  });

  it("extract prints the model's answer as JSON, and with --schema the value with the page's real link URLs", async () => {
    fake.reset();
    fake.script((request: FakeRequest) =>
      JSON.stringify(request.schema).includes('"link"')
        ? { json: { title: 'Tendril Shop', link: /\[((?:\d+-)?\d+)\] link: Details of Widget A/.exec(request.user)![1] } }
        : { json: { extraction: 'three widgets' } },
    );
    const plain = await finished(run(['extract', fixtures.a.url('extract-shop.html'), 'How many widgets?'], env()));
    expect(plain.code).toBe(0);
    expect(JSON.parse(plain.stdout)).toEqual({ extraction: 'three widgets' });
    expect(fake.requests[0]!.headers.authorization).toBe('Bearer sk-cli-test');

    const schemaFile = path.join(dir, 'schema.json');
    writeFileSync(
      schemaFile,
      JSON.stringify({
        type: 'object',
        properties: { title: { type: 'string' }, link: { type: 'string', format: 'uri' } },
        required: ['title', 'link'],
      }),
    );
    const shaped = await finished(
      run(['extract', fixtures.a.url('extract-shop.html'), 'Title and first link', '--schema', schemaFile], env()),
    );
    expect(shaped.code).toBe(0);
    expect(JSON.parse(shaped.stdout)).toEqual({ title: 'Tendril Shop', link: `${fixtures.a.origin}/products/widget-a?ref=list` });
  });

  it('extract asks no key of a --base-url server, and without either says so before any browser starts', async () => {
    // A server at --base-url may need no key: none of ours is sent, and a bare loopback address is http://.
    fake.reset();
    fake.script([{ json: { extraction: 'keyless' } }]);
    const keyless = { ...env(), MODEL_API_KEY: '', OPENAI_API_KEY: '', MODEL_BASE_URL: '' };
    const bare = fixtures.a.url('extract-shop.html').replace(/^http:\/\//, '');
    const local = await finished(run(['extract', bare, 'How many widgets?', '--base-url', fake.url], keyless));
    expect(local.stderr).toContain(`Opening ${fixtures.a.url('extract-shop.html')}`);
    expect([local.code, JSON.parse(local.stdout)]).toEqual([0, { extraction: 'keyless' }]);
    expect(fake.requests[0]!.headers.authorization).toBe('Bearer unused');
    // Without a key or a --base-url, it says so before any browser starts, in the command line's words.
    const noKey = await finished(run(['extract', bare, 'How many widgets?'], keyless));
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toMatch(/No API key for openai\/gpt-4\.1-mini: set MODEL_API_KEY \(or OPENAI_API_KEY\)\..*--base-url/);
    expect(noKey.stderr).not.toMatch(/Opening|Starting Chromium|apiKey/);
  }, 60_000);

  it('reads through a Chrome it attaches to (--cdp-url) and through the hosted service (--hosted), where the cache answers the second time', async () => {
    const chrome = await startDebugChrome();
    try {
      const attached = await finished(run(['text', fixtures.a.url('extract-shop.html'), '--cdp-url', chrome.wsUrl], env()));
      expect(attached.code).toBe(0);
      expect(attached.stdout).toMatch(/heading: Tendril Shop/);
      expect(attached.stderr).toMatch(/Attaching to Chrome/);
      // Attaching leaves the browser running.
      expect(chrome.alive()).toBe(true);
    } finally {
      await chrome.kill();
    }

    const hosted = await startTestHostedServer({ ...HOSTED_TEST_ENV, HOSTED_API_KEYS: 'cli-hosted-key' });
    try {
      fake.reset();
      fake.script(() => ({ json: { extraction: 'three widgets' } }));
      const hostedEnv = { ...env(), HOSTED_API_KEY: 'cli-hosted-key', HOSTED_PROJECT_ID: '', HOSTED_API_URL: hosted.url }; // no project: the server has none
      const args = ['extract', fixtures.a.url('extract-shop.html'), 'How many widgets?', '--hosted'];
      const first = await finished(run(args, hostedEnv));
      expect(first.code).toBe(0);
      expect(JSON.parse(first.stdout)).toEqual({ extraction: 'three widgets' });
      expect(first.stderr).toMatch(/Creating a hosted session/);
      expect(first.stderr).toMatch(/hosted cache: MISS/);
      const second = await finished(run(args, hostedEnv));
      expect(JSON.parse(second.stdout)).toEqual({ extraction: 'three widgets' });
      expect(second.stderr).toMatch(/hosted cache: HIT/);
      expect(fake.requests).toHaveLength(1);
      expect(hosted.sessions.activeCount).toBe(0);
    } finally {
      await hosted.close();
    }
  });

  it('extract --hosted: a missing key is said before any session starts, and a --base-url server is asked for none', async () => {
    const hosted = await startTestHostedServer({ ...HOSTED_TEST_ENV, HOSTED_API_KEYS: 'cli-hosted-key' });
    try {
      const keyless = {
        ...env(),
        MODEL_API_KEY: '',
        OPENAI_API_KEY: '',
        MODEL_BASE_URL: '',
        HOSTED_API_KEY: 'cli-hosted-key',
        HOSTED_PROJECT_ID: '',
        HOSTED_API_URL: hosted.url,
      };
      const args = ['extract', fixtures.a.url('extract-shop.html'), 'How many widgets?', '--hosted'];
      const noKey = await finished(run(args, keyless));
      expect(noKey.code).toBe(2);
      expect(noKey.stderr).toMatch(/No API key for openai\/gpt-4\.1-mini: set MODEL_API_KEY \(or OPENAI_API_KEY\)\..*--base-url/);
      // Before the session: no step of it was taken.
      expect(noKey.stderr).not.toMatch(/Creating a hosted session|Opening/);
      fake.reset();
      fake.script([{ json: { extraction: 'keyless, hosted' } }]);
      const served = await finished(run([...args, '--base-url', fake.url], keyless));
      expect([served.code, JSON.parse(served.stdout || 'null')], served.stderr).toEqual([0, { extraction: 'keyless, hosted' }]);
      expect(fake.requests).toHaveLength(1);
    } finally {
      await hosted.close();
    }
  }, 90_000);

  it('says so, and exits 1, when a hosted server refuses the page (a loopback one, without HOSTED_ALLOW_NETWORKS)', async () => {
    const hosted = await startTestHostedServer({ HOSTED_API_KEYS: 'cli-hosted-key' });
    try {
      const refused = await finished(
        run(['text', fixtures.a.url('extract-shop.html'), '--hosted'], {
          ...env(),
          HOSTED_API_KEY: 'cli-hosted-key',
          HOSTED_API_URL: hosted.url,
        }),
      );
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toMatch(
        /UrlNotAllowedError: The hosted server refused http:\/\/127\.0\.0\.1:\d+\/extract-shop\.html: 127\.0\.0\.1 is on a private, loopback or link-local network\. .*HOSTED_ALLOW_NETWORKS/,
      );
      expect(hosted.sessions.activeCount).toBe(0);
    } finally {
      await hosted.close();
    }
  }, 60_000);

  it('exits 2 on bad input, 3 when the model fails or does not fit the schema, 1 when the page cannot be reached', async () => {
    const page = fixtures.a.url('extract-shop.html');
    const schemaFile = path.join(dir, 'count.json');
    writeFileSync(
      schemaFile,
      JSON.stringify({ type: 'object', properties: { count: { type: 'integer', minimum: 0 } }, required: ['count'] }),
    );
    const badSchema = path.join(dir, 'bad.json');
    writeFileSync(badSchema, JSON.stringify({ type: 'object', properties: { when: { type: 'date' } } }));
    const cases: Array<[string[], number, RegExp]> = [
      [['text'], 2, /Give the URL/],
      [['text', 'http://[not a url'], 2, /is not a URL/],
      [['extract', page], 2, /Say what to extract/],
      [['extract', page, 'x', '--schema', path.join(dir, 'missing.json')], 2, /cannot be read/],
      [['extract', page, 'x', '--schema', badSchema], 2, /"date"/],
      [['text', page, '--timeout', 'soon'], 2, /--timeout/],
    ];
    for (const [args, code, message] of cases) {
      const result = await finished(run(args, env()));
      expect({ args, code: result.code }).toEqual({ args, code });
      expect(result.stderr).toMatch(message);
    }

    fake.reset();
    fake.script([{ json: { count: -4 } }]);
    const misfit = await finished(run(['extract', page, 'Count the widgets', '--schema', schemaFile], env()));
    expect(misfit.code).toBe(3);
    expect(misfit.stderr).toMatch(/SchemaValidationError/);
    expect(misfit.stdout).toBe('');

    fake.script([
      { status: 500, error: 'model down' },
      { status: 500, error: 'model down' },
      { status: 500, error: 'model down' },
    ]);
    const failed = await finished(run(['extract', page, 'Count the widgets'], env()));
    expect(failed.code).toBe(3);
    expect(failed.stderr).toMatch(/LLMResponseError/);
    expect(failed.stderr).not.toContain('sk-cli-test');

    // Port 9 (discard) has no listener here: the connection is refused.
    const unreachable = await finished(run(['text', 'http://127.0.0.1:9/'], env()));
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(/NavigationError/);
    // A dozen processes, most starting Chromium, and the AI SDK's retry back-off (2 s, then 4 s).
  }, 120_000);
});

describe('--help and --version', () => {
  /** Each command and subcommand, and how its usage begins. */
  const COMMANDS: [string[], RegExp][] = [
    [[], /^Usage: tendril <command>/],
    [['text'], /^tendril text <url>/],
    [['extract'], /^tendril extract <url>/],
    [['mcp'], /^tendril mcp \[flags\]/],
    [['hosted'], /^tendril hosted serve \[flags\]/],
    [['hosted', 'serve'], /^tendril hosted serve \[flags\]/],
    [['relay'], /^tendril relay /],
    [['batch'], /^tendril batch add\|status\|results/],
    [['batch', 'add'], /^tendril batch add --queue/],
    [['batch', 'status'], /^tendril batch status --queue/],
    [['batch', 'results'], /^tendril batch results --queue/],
    [['worker'], /^tendril worker --queue/],
  ];

  it('print the usage of every command and subcommand with --help and with -h, exit 0, and name HOSTED_PROJECT_ID only as optional', async () => {
    const runs = COMMANDS.flatMap(([words, usage]) => (['--help', '-h'] as const).map((flag) => ({ args: [...words, flag], usage })));
    // Four at a time: each is a Node process compiling the command line through tsx.
    for (let from = 0; from < runs.length; from += 4) {
      const batch = runs.slice(from, from + 4);
      const done = await Promise.all(batch.map(({ args }) => finished(run(args))));
      for (const [index, { code, stdout, stderr }] of done.entries()) {
        const { args, usage } = batch[index]!;
        expect({ args, code, stderr }).toEqual({ args, code: 0, stderr: '' });
        expect(stdout).toMatch(usage);
        // A variable the command can do without is said to be optional wherever a usage names it.
        for (const line of stdout.split('\n').filter((each) => each.includes('HOSTED_PROJECT_ID')))
          expect(line).toMatch(/HOSTED_PROJECT_ID optional/);
      }
    }
    // Twenty-four processes, each compiling the command line through tsx.
  }, 300_000);

  it('--version and -v print the version in package.json, and exit 0', async () => {
    const { version } = JSON.parse(readFileSync(path.join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-v']) {
      const { code, stdout, stderr } = await finished(run([flag]));
      expect({ flag, code, stdout, stderr }).toEqual({ flag, code: 0, stdout: `${version}\n`, stderr: '' });
    }
  });
});
