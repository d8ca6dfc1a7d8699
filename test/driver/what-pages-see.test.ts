// What a page can tell of Tendril: of the closed-root watch, what it would see in a Chrome that runs
// no watch at all; of the browser, what a Chrome with a debugging port shows it (navigator.webdriver).
import CDP from 'chrome-remote-interface';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sdk } from '../../src/index.js';
import { sdkOptions, startDebugChrome, TEST_ARGS, useBrowser, type DebugChrome } from '../helpers.js';
import { excerpt } from '../support/snapshot-text.js';

const fixture = useBrowser();
const PAGE = '/shadow-watch-stealth.html';

interface Record {
  calls: string[];
  conversions: number;
  [key: string]: unknown;
}

let plain: DebugChrome;
beforeAll(async () => {
  plain = await startDebugChrome();
});
afterAll(async () => {
  await plain?.kill();
});

/** `expression` on `url` in a Chrome that Tendril never touched: what Chrome itself shows a page. */
async function plainly<T>(url: string, expression: string): Promise<T> {
  const target = await CDP.New({ port: plain.port });
  const client = await CDP({ port: plain.port, target: target.id });
  try {
    await client.Page.enable();
    const loaded = client.Page.loadEventFired();
    await client.Page.navigate({ url });
    await loaded;
    const { result } = await client.Runtime.evaluate({ expression, returnByValue: true, timeout: 5000 });
    return result.value as T;
  } finally {
    await client.close();
    await CDP.Close({ port: plain.port, id: target.id });
  }
}

describe('the closed-root watch, as a suspicious page sees it', () => {
  it('calls nothing the page hooked, fails as natively, and its functions describe themselves as native', async () => {
    const url = fixture.servers.a.url(PAGE);
    const native = await plainly<Record>(url, 'window.record');
    // The page's hooks work (they saw its own call), and Chrome itself calls none of them.
    expect(native.calls).toEqual(['Reflect.apply']);
    expect(native.conversions).toBe(1);
    expect(JSON.stringify(native.twice)).toContain('attachTwice');

    await fixture.page.goto(url);
    const watched = (await fixture.page.evaluate(() => (window as unknown as { record: unknown }).record)) as Record;
    // The watch ran in this document: it counted the closed root and the parse that may hold one.
    expect(fixture.page.mainFrame().mainWorld?.closedRoots).toMatchObject({ attached: 1, declarative: 1 });
    // Soft: a failure lists every difference at once.
    for (const key of Object.keys(native)) expect.soft(watched[key], key).toEqual(native[key]);
    expect(Object.keys(watched).sort()).toEqual(Object.keys(native).sort());

    // And the watch still did its job: the closed roots the page attached and parsed are read.
    const { pageText } = await fixture.sdk.extract({ page: fixture.page });
    expect(pageText, excerpt(pageText)).toMatch(/first closed words[\s\S]*first light/);
    expect(pageText, excerpt(pageText)).toMatch(/declared words[\s\S]*parsed light/);
    expect(await fixture.page.evaluate(() => document.getElementById('first')!.shadowRoot)).toBeNull();
  });
});

describe('navigator.webdriver', () => {
  const webdriver = () => navigator.webdriver;

  it('is false in a launched Chrome, in every frame, as in a Chrome started with a debugging port', async () => {
    await fixture.page.goto(fixture.servers.a.url('/frames.html'));
    const frames = fixture.page.frames();
    expect(frames.length).toBeGreaterThanOrEqual(4);
    for (const frame of frames) expect(await frame.evaluate(webdriver), frame.url()).toBe(false);
  });

  it('stays true when the caller launches with --enable-automation', async () => {
    const sdk = new Sdk(sdkOptions({ localBrowserLaunchOptions: { args: [...TEST_ARGS, '--enable-automation'] } }));
    try {
      await sdk.init();
      const page = sdk.context.pages()[0]!;
      await page.goto(fixture.servers.a.url('/child.html'));
      expect(await page.evaluate(webdriver)).toBe(true);
    } finally {
      await sdk.close();
    }
  });

  it('is left as Chrome has it in a browser Tendril attaches to', async () => {
    const url = fixture.servers.a.url('/child.html');
    // This Chrome was started with --remote-debugging-port=0, for which Chrome itself sets it.
    const native = await plainly<boolean>(url, 'navigator.webdriver');
    expect(native).toBe(true);
    const sdk = new Sdk(sdkOptions({ localBrowserLaunchOptions: { cdpUrl: plain.wsUrl } }));
    try {
      await sdk.init();
      const page = await sdk.context.newPage();
      await page.goto(url);
      expect(await page.evaluate(webdriver)).toBe(native);
    } finally {
      await sdk.close();
    }
  });
});
