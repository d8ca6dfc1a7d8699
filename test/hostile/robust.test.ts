// Malformed input, honest errors, nothing left behind: act(action) with bad fields, a script that
// never yields, calls after the browser died, and programs that end without close().

import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  BrowserLaunchError,
  ConnectionClosedError,
  InvalidOptionError,
  Sdk,
  TimeoutError,
  UnknownKeyError,
  type ActionInput,
  type LogLine,
} from '../../src/index.js';
import { descendants, profileOf, sdkOptions, useBrowser, waitUntilGone } from '../helpers.js';
import { WRAPPER } from '../../src/browser/launch.js';

const browser = useBrowser();

describe('act(action) with malformed input', () => {
  /** A valid act(action) on the same page: the session is still usable. */
  async function stillWorks(): Promise<void> {
    const clicks = () => browser.page.evaluate(() => (window as unknown as { topClicks: number }).topClicks);
    const before = await clicks();
    expect((await browser.sdk.act({ selector: '#top', method: 'click' })).success).toBe(true);
    expect(await clicks()).toBe(before + 1);
  }

  it('names `arguments` when they are not an array of strings, or missing where the method needs them', async () => {
    await browser.page.goto(browser.servers.a.url('/act.html'));
    const bad: Array<[string, unknown]> = [
      ['a string', { selector: '#name', method: 'fill', arguments: 'x' }],
      ['a number inside', { selector: '#name', method: 'fill', arguments: [1] }],
      ['fill without', { selector: '#name', method: 'fill' }],
      ['fill with none', { selector: '#name', method: 'fill', arguments: [] }],
      ['type without', { selector: '#note', method: 'type' }],
      ['press without', { selector: '#name', method: 'press' }],
      ['press with an empty key', { selector: '#name', method: 'press', arguments: [''] }],
      ['selectOption without', { selector: '#size', method: 'selectOption' }],
      ['scrollTo with no percentage', { selector: '#spacer', method: 'scrollTo', arguments: ['halfway'] }],
    ];
    for (const [what, action] of bad) {
      const error = await browser.sdk.act(action as ActionInput).catch((e: unknown) => e);
      expect(error, what).toBeInstanceOf(InvalidOptionError);
      expect((error as Error).message, what).toMatch(/`arguments`/);
      await stillWorks();
    }
    // Nothing of the refused actions reached the page.
    expect(await browser.page.evaluate(() => (document.getElementById('name') as HTMLInputElement).value)).toBe('old value');
    expect(await browser.page.evaluate(() => (document.getElementById('size') as HTMLSelectElement).value)).toBe('s');
  });

  it('names `method` when it is unknown or not a string, and lists the valid ones', async () => {
    await browser.page.goto(browser.servers.a.url('/act.html'));
    for (const method of ['tap', 42]) {
      const error = await browser.sdk.act({ selector: '#top', method } as unknown as ActionInput).catch((e: unknown) => e);
      expect(error, String(method)).toBeInstanceOf(InvalidOptionError);
      expect((error as Error).message).toMatch(/`method`/);
      expect((error as Error).message).toContain('selectOption');
      await stillWorks();
    }
  });

  it('refuses an unknown key with UnknownKeyError before touching the page', async () => {
    await browser.page.goto(browser.servers.a.url('/act.html'));
    // The last one is only known once its variable is filled in.
    for (const keys of ['Entr', 'Control+Entr', '%key%']) {
      const error = await browser.sdk
        .act({ selector: '#note', method: 'press', arguments: [keys] }, { variables: { key: 'Entr' } })
        .catch((e: unknown) => e);
      expect(error, keys).toBeInstanceOf(UnknownKeyError);
      expect(error, keys).toBeInstanceOf(InvalidOptionError);
      expect((error as UnknownKeyError).key).toBe('Entr');
      expect((error as Error).message).toContain('Enter');
      // The field was not even focused.
      expect(await browser.page.evaluate(() => document.activeElement?.id ?? '')).not.toBe('note');
      await stillWorks();
    }
    // A real key still goes through: Enter in the form's field submits it.
    await browser.sdk.act({ selector: '#name', method: 'press', arguments: ['Enter'] });
    expect(await browser.page.evaluate(() => document.getElementById('form-state')!.textContent)).toBe('submitted old value');
  });
});

describe('a script that never yields', () => {
  it('is stopped when its evaluation times out, in the page and in an out-of-process iframe', async () => {
    const lines: LogLine[] = [];
    const sdk = new Sdk(sdkOptions({ cdpTimeoutMs: 1500, verbose: 2, logger: (line) => lines.push(line) }));
    await sdk.init();
    const terminations = () => lines.filter((line) => /terminating its script/.test(line.message)).length;
    try {
      const page = sdk.context.pages()[0]!;
      await page.goto(browser.servers.a.url('/frames.html'));
      const oop = page.frames().find((frame) => frame.isOutOfProcess());
      expect(oop).toBeDefined();
      // Only awaiting a promise leaves the renderer free: nothing is stopped then.
      await expect(page.evaluate(() => new Promise(() => undefined))).rejects.toBeInstanceOf(TimeoutError);
      expect(await page.evaluate('1 + 1')).toBe(2);
      expect(terminations()).toBe(0);
      const spins: Array<[string, () => Promise<unknown>, () => Promise<unknown>]> = [
        ['expression in the page', () => page.evaluate('for (;;) {}'), () => page.evaluate('1 + 1')],
        [
          'function in the page',
          () =>
            page.evaluate(() => {
              for (;;) {
                // never yields
              }
            }),
          () => page.evaluate(() => 1 + 1),
        ],
        ['expression in the OOPIF', () => oop!.evaluate('for (;;) {}'), () => oop!.evaluate('1 + 1')],
      ];
      for (const [what, spin, next] of spins) {
        await expect(spin(), what).rejects.toBeInstanceOf(TimeoutError);
        // A renderer still spinning would let this time out too (after 1500 ms).
        const started = Date.now();
        expect(await next(), what).toBe(2);
        expect(Date.now() - started, what).toBeLessThan(1000);
      }
      expect(terminations()).toBe(spins.length);
      expect(await page.title()).toBe('Frames');
    } finally {
      await sdk.close();
    }
  });
});

describe('after the browser died', () => {
  it('every call says the browser connection is closed', async () => {
    const sdk = new Sdk(sdkOptions());
    await sdk.init();
    try {
      const page = sdk.context.pages()[0]!;
      await page.goto(browser.servers.a.url('/leaf.html'));
      const pending = page.evaluate(() => new Promise(() => undefined)).catch((error: unknown) => error);
      await page.evaluate(() => 1);
      process.kill(sdk.browserProcessId()!, 'SIGKILL');
      // The pending command fails once the connection has noticed.
      expect(await pending).toBeInstanceOf(ConnectionClosedError);
      const calls: Record<string, () => Promise<unknown>> = {
        'sdk.extract()': () => sdk.extract(),
        'sdk.extract({ page })': () => sdk.extract({ page }),
        'sdk.act(action)': () => sdk.act({ selector: '.go', method: 'click' }),
        'sdk.observe()': () => sdk.observe(),
        'sdk.context.newPage()': () => sdk.context.newPage(),
        'page.title()': () => page.title(),
        'page.goto()': () => page.goto(browser.servers.a.url('/leaf.html')),
        'page.waitForLoadState()': () => page.waitForLoadState(),
      };
      for (const [what, call] of Object.entries(calls)) {
        const error = await call().catch((e: unknown) => e);
        expect(error, what).toBeInstanceOf(ConnectionClosedError);
        expect((error as Error).message, what).toMatch(/browser connection is closed/);
      }
    } finally {
      await sdk.close();
    }
  });
});

describe('a browser that fails to start', () => {
  it('is reported with its exit status and its last output, and its profile is removed', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tendril-test-fake-chrome-'));
    try {
      // Stands in for a Chrome that cannot start (a missing library, no display): it says why and exits.
      const fake = path.join(dir, 'chrome');
      writeFileSync(
        fake,
        `#!/bin/sh\nprintf '%s\\n' "$@" > '${dir}/args'\necho 'chrome: error while loading shared libraries: libnss3.so' >&2\nexit 127\n`,
        { mode: 0o755 },
      );
      const sdk = new Sdk(sdkOptions({ localBrowserLaunchOptions: { executablePath: fake } }));
      const started = Date.now();
      const error = await sdk.init().catch((e: unknown) => e);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(error).toBeInstanceOf(BrowserLaunchError);
      expect((error as Error).message).toMatch(/exited during start-up \(exit code 127\)/);
      expect((error as Error).message).toContain('libnss3.so');
      const profile = readFileSync(path.join(dir, 'args'), 'utf8')
        .split('\n')
        .find((arg) => arg.startsWith('--user-data-dir='))!
        .slice('--user-data-dir='.length);
      expect(profile.startsWith(path.join(os.tmpdir(), 'tendril-profile-'))).toBe(true);
      expect(existsSync(profile)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it("reports the exit status of one that fails at once, before its wrapper's first look", () => {
    // The sh that runs Chrome once looked with `kill -0` before waiting: a Chrome that had failed
    // and been reaped by then was reported as exit code 0 (a few starts in a hundred).
    const statuses = new Set<number | null>();
    for (let attempt = 0; attempt < 200; attempt++) {
      statuses.add(
        spawnSync('/bin/sh', ['-c', WRAPPER, 'tendril-chrome', '/bin/false'], { stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'] }).status,
      );
    }
    expect([...statuses]).toEqual([1]);
  });
});

describe('a program that ends without close()', () => {
  /** Runs the fixture, lets it end the way `how` says, and reports what it left behind. */
  async function runAndEnd(how: 'exit' | 'throw', url: string) {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join('test', 'fixtures', 'exit-without-close.ts'), how, url], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const exited = once(child, 'exit');
    const line = await new Promise<string>((resolve, reject) => {
      let text = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        if (text.includes('\n')) resolve(text.split('\n')[0]!);
      });
      void exited.then(([code]) => reject(new Error(`the fixture exited early with ${code}`)));
    });
    const { pid } = JSON.parse(line) as { pid: number };
    const profile = profileOf(pid)!;
    const wrapper = Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
    const tree = [wrapper, pid, ...descendants(pid)];
    expect(existsSync(profile)).toBe(true);
    // Nobody reads the program's error output any more, as when its reader (a pipe, a terminal) went first.
    child.stderr!.destroy();
    child.stdin!.end('go\n');
    const [code] = await exited;
    const left = await waitUntilGone(tree, 10_000);
    const deadline = Date.now() + 5000;
    while (existsSync(profile) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    return { how, code, processesLeft: left, profileLeft: existsSync(profile) };
  }

  it('leaves no temporary profile and no Chrome process behind, after process.exit() or an uncaught exception', async () => {
    const url = browser.servers.b.url('/leaf.html');
    const runs = await Promise.all((['exit', 'exit', 'exit', 'throw', 'throw', 'throw'] as const).map((how) => runAndEnd(how, url)));
    expect(runs).toEqual([
      { how: 'exit', code: 0, processesLeft: [], profileLeft: false },
      { how: 'exit', code: 0, processesLeft: [], profileLeft: false },
      { how: 'exit', code: 0, processesLeft: [], profileLeft: false },
      { how: 'throw', code: 1, processesLeft: [], profileLeft: false },
      { how: 'throw', code: 1, processesLeft: [], profileLeft: false },
      { how: 'throw', code: 1, processesLeft: [], profileLeft: false },
    ]);
  }, 90_000);
});
