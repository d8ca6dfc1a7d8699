// The hostile web: dialogs, frames that fail or hang, navigations that never answer, new tabs and
// downloads. Nothing here may hang Tendril.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import CDP from 'chrome-remote-interface';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  InvalidOptionError,
  NavigationError,
  Sdk,
  TimeoutError,
  type Dialog,
  type Download,
  type LogLine,
  type Page,
} from '../../src/index.js';
import { startFixtureServers, type FixtureServers } from '../fixtures/server.js';
import { sdkOptions, startDebugChrome } from '../helpers.js';

let servers: FixtureServers;
let sdk: Sdk;
let page: Page;
const lines: LogLine[] = [];

beforeAll(async () => {
  servers = await startFixtureServers();
  sdk = new Sdk(sdkOptions({ verbose: 1, logger: (line) => lines.push(line) }));
  await sdk.init();
  page = sdk.context.pages()[0]!;
});
afterAll(async () => {
  await sdk?.close();
  await servers?.close();
});

const text = async (target: Page = page) => (await sdk.extract({ page: target, timeout: 5000 })).pageText;
const logged = (pattern: RegExp) => lines.filter((line) => pattern.test(line.message + ' ' + JSON.stringify(line.auxiliary ?? {})));

describe('JavaScript dialogs', () => {
  it('answers an alert() while the page is parsed, logs it, and reads the whole page', async () => {
    lines.length = 0;
    await page.goto(servers.a.url('/dialog-load.html'), { timeoutMs: 5000 });
    expect(await text()).toContain('After the alert');
    const seen = logged(/dialog/i);
    expect(seen.some((line) => JSON.stringify(line.auxiliary).includes('hello from the parser'))).toBe(true);
    expect(seen.some((line) => line.auxiliary?.type === 'alert')).toBe(true);
  });

  it('answers a dialog opened after load before the next extract()', async () => {
    await page.goto(servers.a.url('/leaf.html'), { timeoutMs: 5000 });
    await page.evaluate(() => void setTimeout(() => alert('late alert'), 0));
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 10)));
    expect(await text()).toContain('leaf text');
  });

  it('lets act() click a button whose handler opens confirm() and prompt(): dismissed by default', async () => {
    await page.goto(servers.a.url('/dialog-click.html'), { timeoutMs: 5000 });
    await sdk.act({ selector: 'css=#confirm', method: 'click' }, { timeout: 5000 });
    expect(await page.locator('#state').textContent()).toBe('confirm said false');
    await sdk.act({ selector: 'css=#prompt', method: 'click' }, { timeout: 5000 });
    expect(await page.locator('#state').textContent()).toBe('prompt said null');
  });

  it('accepts beforeunload, so a page the user clicked can be left with goto()', async () => {
    await page.goto(servers.a.url('/dialog-click.html'), { timeoutMs: 5000 });
    lines.length = 0;
    // A real click gives the page the user activation that beforeunload dialogs need.
    await sdk.act({ selector: 'css=#alert', method: 'click' }, { timeout: 5000 });
    await page.goto(servers.a.url('/leaf.html'), { timeoutMs: 5000 });
    expect(page.url()).toContain('/leaf.html');
    expect(logged(/dialog/i).map((line) => line.auxiliary?.type)).toEqual(expect.arrayContaining(['alert', 'beforeunload']));
  });

  it('answers a dialog of an out-of-process iframe', async () => {
    lines.length = 0;
    await page.goto(servers.a.url('/dialog-frame.html'), { timeoutMs: 5000 });
    expect(page.frames().some((frame) => frame.isOutOfProcess())).toBe(true);
    const pageText = await text();
    expect(pageText).toContain('Outer page');
    expect(pageText).toContain('After the alert');
    expect(logged(/dialog/i).some((line) => JSON.stringify(line.auxiliary).includes('hello from the parser'))).toBe(true);
  });

  it('page.on("dialog") decides instead: accept(text) answers a prompt, and the default stays off', async () => {
    await page.goto(servers.a.url('/dialog-click.html'), { timeoutMs: 5000 });
    const seen: Array<{ type: string; message: string; defaultValue: string }> = [];
    const off = page.on('dialog', (dialog: Dialog) => {
      seen.push({ type: dialog.type(), message: dialog.message(), defaultValue: dialog.defaultValue() });
      void (dialog.type() === 'prompt' ? dialog.accept('Ada') : dialog.accept());
    });
    try {
      await sdk.act({ selector: 'css=#prompt', method: 'click' }, { timeout: 5000 });
      expect(await page.locator('#state').textContent()).toBe('prompt said Ada');
      await sdk.act({ selector: 'css=#confirm', method: 'click' }, { timeout: 5000 });
      expect(await page.locator('#state').textContent()).toBe('confirm said true');
      expect(seen.slice(0, 2)).toEqual([
        { type: 'prompt', message: 'Your name?', defaultValue: 'nobody' },
        { type: 'confirm', message: 'Are you sure?', defaultValue: '' },
      ]);
    } finally {
      off();
    }
  });

  it('a handler that never answers does not hang: the dialog is dismissed at the operation deadline', async () => {
    const quick = new Sdk(sdkOptions({ cdpTimeoutMs: 1500 }));
    await quick.init();
    try {
      const p = quick.context.pages()[0]!;
      await p.goto(servers.a.url('/dialog-click.html'), { timeoutMs: 5000 });
      const ignored: Dialog[] = [];
      p.on('dialog', (dialog) => void ignored.push(dialog));
      const started = Date.now();
      const outcome = await quick.act({ selector: 'css=#confirm', method: 'click' }, { timeout: 8000 }).then(
        () => 'done',
        (error: unknown) => error,
      );
      expect(Date.now() - started).toBeLessThan(8000);
      expect(ignored).toHaveLength(1);
      // Whatever the click reported, the page is usable again and the dialog was dismissed.
      expect(await p.locator('#state').textContent()).toBe('confirm said false');
      expect(outcome === 'done' || outcome instanceof TimeoutError).toBe(true);
      expect(await p.title()).toBe('Dialogs on click');
    } finally {
      await quick.close();
    }
  });

  it('answers dialogs of a page that was open before Tendril attached', async () => {
    const chrome = await startDebugChrome();
    try {
      const client = await CDP({ port: chrome.port });
      await client.Page.navigate({ url: servers.a.url('/dialog-click.html') });
      await client.close();
      const attached = new Sdk(sdkOptions({ localBrowserLaunchOptions: { cdpUrl: chrome.wsUrl } }));
      await attached.init();
      try {
        const p = attached.context.pages().find((each) => each.url().includes('dialog-click.html'))!;
        expect(p).toBeDefined();
        await attached.act({ selector: 'css=#confirm', method: 'click' }, { page: p, timeout: 5000 });
        expect(await p.locator('#state').textContent()).toBe('confirm said false');
        await p.evaluate(() => void setTimeout(() => alert('later'), 0));
        expect((await attached.extract({ page: p, timeout: 5000 })).pageText).toContain('confirm said false');
      } finally {
        await attached.close();
      }
    } finally {
      await chrome.kill();
    }
  });
});

describe('frames that fail or hang', () => {
  it('domcontentloaded and load do not wait for frames that ended on an error page', async () => {
    await page.goto(servers.a.url('/frame-failing.html'), { waitUntil: 'domcontentloaded', timeoutMs: 5000 });
    await page.goto(servers.a.url('/frame-failing.html'), { waitUntil: 'load', timeoutMs: 5000 });
    await page.goto(servers.a.url('/frame-failing.html'), { timeoutMs: 5000 });
    const pageText = await text();
    expect(pageText).toContain('The product page text.');
    expect(pageText).toContain('leaf text');
  });

  it("shows a frame that ended on Chrome's error page as its Iframe line, without the error page's text", async () => {
    await page.goto(servers.a.url('/frame-failing.html'), { timeoutMs: 5000 });
    const failed = page.frames().filter((frame) => frame.url().startsWith('chrome-error:'));
    expect(failed).toHaveLength(2);
    const pageText = await text();
    expect(pageText.match(/\] Iframe/g)).toHaveLength(4);
    expect(pageText).toContain('leaf text');
    // Chrome's words, not the site's: "The webpage at http://127.0.0.1:9/ad.html might be temporarily down…"
    expect(pageText).not.toContain('ad.html');
  });

  it('the default goto resolves when a frame never answers, logs it, and keeps late frames', async () => {
    await page.goto(servers.a.url('/frame-hanging.html'), { waitUntil: 'domcontentloaded', timeoutMs: 3000 });
    lines.length = 0;
    const started = Date.now();
    await page.goto(servers.a.url('/frame-hanging.html'), { timeoutMs: 20_000 });
    const took = Date.now() - started;
    expect(took).toBeLessThan(12_000);
    expect(logged(/still loading/i).length).toBeGreaterThan(0);
    const pageText = await text();
    expect(pageText).toContain('The article text.');
    expect(pageText).toContain('leaf text');
  });

  it('an explicit waitUntil "load" keeps its strict meaning: TimeoutError when a frame never loads', async () => {
    const error = await page.goto(servers.a.url('/frame-hanging.html'), { waitUntil: 'load', timeoutMs: 1500 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(await page.title()).toBe('Hanging frame');
  });

  it('after a goto that timed out on a server that never answers, the page is usable', async () => {
    await page.goto(servers.a.url('/dialog-click.html'), { timeoutMs: 5000 });
    const error = await page.goto(servers.b.url('/hang'), { timeoutMs: 1000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    const started = Date.now();
    expect(await page.title()).toBe('Dialogs on click');
    expect(await text()).toContain('idle');
    await sdk.act({ selector: 'css=#alert', method: 'click' }, { timeout: 5000 });
    expect(await page.locator('#state').textContent()).toBe('alert closed');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('after a javascript: URL, the page is usable', async () => {
    await page.goto(servers.a.url('/leaf.html'), { timeoutMs: 5000 });
    await page.goto('javascript:void 0', { timeoutMs: 2000 }).catch((e: unknown) => e);
    expect(await page.title()).toBe('Leaf');
    expect(await text()).toContain('leaf text');
  });

  it('checks goto and waitForLoadState options at once', async () => {
    const url = servers.a.url('/leaf.html');
    const started = Date.now();
    await expect(page.goto(url, { waitUntil: 'networkidle0' as never })).rejects.toBeInstanceOf(InvalidOptionError);
    await expect(page.goto(url, { waitUntil: 'networkidle0' as never })).rejects.toThrow(/waitUntil/);
    await expect(page.goto(url, { timeoutMs: -1 })).rejects.toThrow(/timeoutMs/);
    await expect(page.goto(url, { timeoutMs: Number.NaN })).rejects.toBeInstanceOf(InvalidOptionError);
    await expect(page.goto(url, { timeoutMs: '5' as never })).rejects.toBeInstanceOf(InvalidOptionError);
    await expect(page.waitForLoadState('done' as never)).rejects.toBeInstanceOf(InvalidOptionError);
    await expect(page.waitForLoadState('load', { timeoutMs: -5 })).rejects.toBeInstanceOf(InvalidOptionError);
    await expect(page.goto('not a url')).rejects.toBeInstanceOf(NavigationError);
    expect(Date.now() - started).toBeLessThan(1000);
    // 0 means no limit, as in Playwright.
    await page.goto(url, { timeoutMs: 0 });
    await page.waitForLoadState('load', { timeoutMs: 0 });
    expect(await page.title()).toBe('Leaf');
  });
});

describe('what goto() returns', () => {
  it('the main document response: status, URL and headers; null where nothing was fetched', async () => {
    const ok = await page.goto(servers.a.url('/leaf.html'), { timeoutMs: 5000 });
    expect(ok?.status()).toBe(200);
    expect(ok?.ok()).toBe(true);
    expect(ok?.url()).toBe(servers.a.url('/leaf.html'));
    expect(ok?.headers()['x-fixture']).toBe('leaf.html');
    expect(ok?.headers()['content-type']).toContain('text/html');

    const missing = await page.goto(servers.a.url('/leaf.html?status=404'), { timeoutMs: 5000 });
    expect(missing?.status()).toBe(404);
    expect(missing?.ok()).toBe(false);
    const broken = await page.goto(servers.a.url('/leaf.html?status=500'), { timeoutMs: 5000 });
    expect(broken?.status()).toBe(500);

    const target = servers.b.url('/leaf.html?after=redirect');
    const redirected = await page.goto(servers.a.url(`/redirect-to?to=${encodeURIComponent(target)}`), { timeoutMs: 5000 });
    expect(redirected?.status()).toBe(200);
    expect(redirected?.url()).toBe(target);

    expect(await page.goto(servers.b.url('/leaf.html?after=redirect#part'), { timeoutMs: 5000 })).toBeNull();
    expect(await page.goto('about:blank', { timeoutMs: 5000 })).toBeNull();
  });
});

describe('new tabs and downloads', () => {
  it('a target=_blank link clicked by act() gives a page on context.on("page") that extract() reads', async () => {
    await page.goto(servers.a.url('/popups.html'), { timeoutMs: 5000 });
    const announced = new Promise<Page>((resolve) => sdk.context.once('page', resolve));
    await sdk.act({ selector: 'css=#blank', method: 'click' }, { timeout: 5000 });
    const popup = await announced;
    expect(sdk.context.pages()).toContain(popup);
    await popup.waitForLoadState('load', { timeoutMs: 5000 });
    expect(popup.url()).toContain('from=blank');
    expect((await sdk.extract({ page: popup, timeout: 5000 })).pageText).toContain('leaf text');
    await popup.close();
  });

  it('window.open(url, "_blank", "noopener") gives a page too', async () => {
    await page.goto(servers.a.url('/popups.html'), { timeoutMs: 5000 });
    const announced = new Promise<Page>((resolve) => sdk.context.once('page', resolve));
    await sdk.act({ selector: 'css=#open', method: 'click' }, { timeout: 5000 });
    const popup = await announced;
    expect(sdk.context.pages()).toContain(popup);
    await popup.waitForLoadState('load', { timeoutMs: 5000 });
    expect(popup.url()).toContain('from=noopener');
    expect((await sdk.extract({ page: popup, timeout: 5000 })).pageText).toContain('leaf text');
    await popup.close();
  });

  it('closes a page that reloads itself, also when the close meets the commit of one of its reloads', async () => {
    // Chrome answers such a close with success and keeps the tab (crbug.com/536385539); closing
    // right as a reload commits meets that race most of the time.
    for (let round = 0; round < 8; round++) {
      const looping = await sdk.context.newPage();
      let commits = 0;
      const third = new Promise<void>((resolve) => looping.session.on('Page.frameNavigated', () => ++commits === 3 && resolve()));
      await looping.goto(servers.a.url(`/snap-odd-refresh.html?run=close-${round}-${Date.now()}`), { waitUntil: 'commit' });
      const started = await third.then(() => Date.now());
      await looping.close();
      expect(Date.now() - started).toBeLessThan(5000);
      // Closed means Chrome detached the tab's session: the target is gone.
      expect(looping.isClosed()).toBe(true);
      expect(sdk.context.pages()).not.toContain(looping);
    }
  });

  it('lets the workers of a page run: a shared worker and a service worker start and fetch', async () => {
    await page.goto(servers.a.url('/workers.html'), { timeoutMs: 5000 });
    // A service worker used to stay paused: it was detached from before it had been let run.
    expect(await page.evaluate('window.done')).toEqual({ shared: 'opaque', service: 'opaque' });
  });

  it('saves downloads in a folder of the Sdk, reports them, and removes the folder on close()', async () => {
    const own = new Sdk(sdkOptions());
    await own.init();
    let folder: string;
    try {
      const p = own.context.pages()[0]!;
      await p.goto(servers.a.url('/popups.html'), { timeoutMs: 5000 });
      const announced = new Promise<Download>((resolve) => p.once('download', resolve));
      await own.act({ selector: 'css=#file', method: 'click' }, { timeout: 5000 });
      const download = await announced;
      expect(download.suggestedFilename()).toBe('report.csv');
      expect(download.url()).toBe(servers.a.url('/download/report.csv'));
      const saved = await download.path();
      folder = path.dirname(saved);
      expect(path.basename(saved)).toBe('report.csv');
      expect(saved.startsWith(os.tmpdir())).toBe(true);
      expect(saved.startsWith(os.homedir() + path.sep + 'Downloads')).toBe(false);
      expect(readFileSync(saved, 'utf8')).toBe('contents of report.csv');
      expect(await download.failure()).toBeNull();
    } finally {
      await own.close();
    }
    expect(existsSync(folder)).toBe(false);
  });

  it('saves downloads in the folder the user names, and keeps them', async () => {
    const folder = mkdtempSync(path.join(os.tmpdir(), 'tendril-test-downloads-'));
    const own = new Sdk(sdkOptions({ downloadsPath: folder }));
    await own.init();
    try {
      const p = own.context.pages()[0]!;
      await p.goto(servers.a.url('/popups.html'), { timeoutMs: 5000 });
      const announced = new Promise<Download>((resolve) => p.once('download', resolve));
      await own.act({ selector: 'css=#file', method: 'click' }, { timeout: 5000 });
      const saved = await (await announced).path();
      expect(saved).toBe(path.join(folder, 'report.csv'));
      await own.close();
      expect(readFileSync(saved, 'utf8')).toBe('contents of report.csv');
    } finally {
      await own.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
