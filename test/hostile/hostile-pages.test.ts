// Pages that fight the library: built-ins replaced under evaluate(), a document that stops its own
// loading, a read given up on and tried again at once.

import { describe, expect, it } from 'vitest';
import { useBrowser } from '../helpers.js';

const browser = useBrowser();

describe('page.evaluate(fn) on a page that replaced Function.prototype.apply, call, bind, toString and Reflect.apply', () => {
  it('returns what the function returns, not the page’s values', async () => {
    const page = browser.page;
    await page.goto(browser.servers.a.url('/poisoned.html'));
    // The page really did replace them: its own calls go through the replacements.
    expect(
      await page.evaluate('[Math.max.apply(null, [1, 2]), Math.max.call(null, 1, 2), typeof Reflect.apply(Math.max, null, [1])]'),
    ).toEqual(['POISON', 'HOOKED', 'string']);
    expect(await page.evaluate('6 * 7')).toBe(42);
    expect(await page.evaluate(() => 6 * 7)).toBe(42);
    expect(await page.evaluate((n: number) => n * 2, 21)).toBe(42);
    expect(await page.evaluate(async (word: string) => `${await Promise.resolve(word)}!`, 'awaited')).toBe('awaited!');
    // `this` is the page's global object, as for a function the page itself calls.
    expect(
      await page.evaluate(function (this: unknown) {
        return this === window;
      }),
    ).toBe(true);
    // A named inner function (bundlers with keepNames wrap it in a helper call) works too.
    expect(
      await page.evaluate(() => {
        function inner(): number {
          return 7;
        }
        return inner() * 6;
      }),
    ).toBe(42);
    // In a frame too, and the page text is read as usual.
    expect(await page.mainFrame().evaluate(() => document.title)).toBe('Poisoned built-ins');
    const { pageText } = await browser.sdk.extract();
    expect(pageText).toContain('This page replaces what a careless evaluate would go through.');
  });
});

describe('a document that calls window.stop() while it is parsed', () => {
  it('is a loaded document for the default goto, and for waitUntil "load": goto resolves and the page reads', async () => {
    const page = browser.page;
    const url = browser.servers.a.url('/stopped.html');
    // Far less than the 30 s default, so that waiting for an event that never comes fails fast.
    const response = await page.goto(url, { timeoutMs: 8000 });
    expect(response?.status()).toBe(200);
    expect((await browser.sdk.extract()).pageText).toContain('Everything worth reading came before the stop.');
    await page.goto('about:blank');
    await page.goto(url, { waitUntil: 'load', timeoutMs: 8000 });
    expect(await page.title()).toBe('Stopped while parsing');
  });
});

describe('a read that timed out, tried again at once', () => {
  it('is not hit by the stop of the first attempt: every retry reads the whole page', async () => {
    const page = browser.page;
    await page.goto(browser.servers.a.url('/extract-table.html?rows=30000'));
    const whole = (await browser.sdk.extract()).pageText;
    expect(whole).toContain('Item 30000');
    // Short deadlines end the first read while its script still runs in the renderer; the retry
    // then waits behind it, which is where the stop of the first used to land.
    for (const timeout of [50, 100, 150, 50, 100, 150]) {
      await expect(browser.sdk.extract({ timeout })).rejects.toThrow(/timed out/);
      const again = await browser.sdk.extract({ timeout: 30_000 });
      expect(again.pageText).toBe(whole);
    }
    // And the page itself still answers.
    expect(await page.evaluate(() => document.querySelectorAll('tr').length)).toBe(30001);
  });
});
