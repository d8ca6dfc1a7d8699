// Malformed input, honest errors, nothing left behind: act(action) with bad fields, a script that
// never yields, calls after the browser died, and programs that end without close().

import { describe, expect, it } from 'vitest';
import { ConnectionClosedError, InvalidOptionError, Sdk, TimeoutError, UnknownKeyError, type ActionInput, type LogLine } from '../src/index.js';
import { sdkOptions, useBrowser } from './helpers.js';

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
      const error = await browser.sdk.act({ selector: '#note', method: 'press', arguments: [keys] }, { variables: { key: 'Entr' } }).catch((e: unknown) => e);
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
