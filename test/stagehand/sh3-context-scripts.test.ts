// Stagehand 3's context.addInitScript / page.addInitScript and context.setExtraHTTPHeaders /
// page.setExtraHTTPHeaders, on real Chromium. context-frames.html (127.0.0.1) holds a same-origin
// iframe and an out-of-process one (localhost), which holds another out-of-process frame back on
// 127.0.0.1: each of these has a session of its own or shares the page's, and each must get the
// scripts and headers, whether it existed when they were set or appeared later.

import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InvalidOptionError, type Frame, type Page } from '../../src/index.js';
import { useBrowser } from '../helpers.js';

const fixture = useBrowser();

/**
 * The frames of context-frames.html: the top document, the same-origin iframe, the out-of-process
 * one, its own child (in its process), and the out-of-process one nested in it.
 */
function framesOf(page: Page): Record<'top' | 'same' | 'oop' | 'oopChild' | 'nested', Frame> {
  const find = (part: string) => {
    const found = page.frames().find((frame) => frame.url().includes(part));
    if (!found)
      throw new Error(
        `no frame with ${part}: ${page
          .frames()
          .map((frame) => frame.url())
          .join(', ')}`,
      );
    return found;
  };
  return {
    top: page.mainFrame(),
    same: find('in=same'),
    oop: find('/context-oop.html'),
    oopChild: find('in=oop'),
    nested: find('in=nested'),
  };
}

/** The headers the fixture server saw for the frame's document (an /echo-headers page). */
function documentHeaders(frame: Frame): Promise<Record<string, string>> {
  return frame.evaluate("JSON.parse(document.getElementById('headers').textContent)");
}

/** The headers of a request the frame makes now (a fetch of /echo-headers on its own origin). */
function fetchHeaders(frame: Frame): Promise<Record<string, string>> {
  return frame.evaluate(async () => {
    const html = await (await fetch('/echo-headers?by=fetch')).text();
    return JSON.parse(new DOMParser().parseFromString(html, 'text/html').getElementById('headers')!.textContent!);
  });
}

function errorOf(work: () => Promise<unknown>): Promise<unknown> {
  return work().then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('addInitScript', () => {
  it('context.addInitScript(fn, arg) runs in every frame of every page from their next document on, before the page’s own scripts', async () => {
    const { page, sdk, servers } = fixture;
    const context = sdk.context;
    await page.goto(servers.a.url('/leaf.html'));
    await context.addInitScript(
      (arg: { mark: string }) => {
        const scope = globalThis as unknown as { ctxMark?: string; ranEarly?: boolean };
        scope.ctxMark = `${arg.mark}@${location.host}`;
        scope.ranEarly = document.querySelector('p') === null;
      },
      { mark: 'ctx' },
    );
    // The document already shown does not run it.
    expect(await page.evaluate('window.ctxMark')).toBeUndefined();

    await page.goto(servers.a.url('/context-frames.html'));
    const frames = framesOf(page);
    expect(frames.oop.isOutOfProcess()).toBe(true);
    expect(frames.nested.isOutOfProcess()).toBe(true);
    for (const [name, frame] of Object.entries(frames)) {
      expect(await frame.evaluate('window.ctxMark'), name).toBe(`ctx@${new URL(frame.url()).host}`);
      expect(await frame.evaluate('window.ranEarly'), name).toBe(true);
    }

    // A page opened later has it from its first document, and so does a popup.
    const opened = await context.newPage(servers.b.url('/context-oop.html'));
    await opened.waitForLoadState('load');
    expect(await opened.evaluate('window.ctxMark')).toBe(`ctx@${new URL(servers.b.origin).host}`);
    const nested = opened.frames().find((frame) => frame.url().includes('in=nested'))!;
    expect(nested.isOutOfProcess()).toBe(true);
    expect(await nested.evaluate('window.ctxMark')).toBe(`ctx@${new URL(servers.a.origin).host}`);
    const popupShown = new Promise<Page>((resolve) => context.once('page', resolve));
    await page.evaluate((url: string) => void window.open(url), servers.b.url('/leaf.html?popup=1'));
    const popup = await popupShown;
    await popup.waitForLoadState('load');
    expect(await popup.evaluate('window.ctxMark')).toBe(`ctx@${new URL(servers.b.origin).host}`);
    await Promise.all([opened.close(), popup.close()]);
  });

  it('page.addInitScript applies to that page only, in its out-of-process frames too; the same source twice runs once', async () => {
    const { page, sdk, servers } = fixture;
    const other = await sdk.context.newPage();
    await other.addInitScript('window.ownCount = (window.ownCount || 0) + 1;');
    await other.addInitScript('window.ownCount = (window.ownCount || 0) + 1;');
    await other.addInitScript({ content: 'window.fromContent = location.pathname;' });
    await other.goto(servers.a.url('/context-frames.html'));
    for (const [name, frame] of Object.entries(framesOf(other))) {
      expect(await frame.evaluate('window.ownCount'), name).toBe(1);
      expect(await frame.evaluate('window.fromContent'), name).toBe(new URL(frame.url()).pathname);
    }
    await page.goto(servers.a.url('/context-frames.html'));
    for (const frame of Object.values(framesOf(page))) expect(await frame.evaluate('window.ownCount')).toBeUndefined();
    await other.close();
  });

  it('reads { path } from a file, named after it in stack traces', async () => {
    const { sdk, servers } = fixture;
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'tendril-init-')), 'init-from-file.js');
    writeFileSync(file, 'window.fromFile = new Error("here").stack;');
    const page = await sdk.context.newPage();
    await page.addInitScript({ path: file });
    await page.goto(servers.a.url('/leaf.html'));
    expect(await page.evaluate('window.fromFile')).toContain('init-from-file.js');
    await page.close();
  });

  it('refuses what it cannot run with InvalidOptionError, and keeps working', async () => {
    const { page, sdk, servers } = fixture;
    const cases: Array<[() => Promise<unknown>, RegExp]> = [
      [() => sdk.context.addInitScript('window.x = 1', 5 as never), /`arg` is only for a function script/],
      [() => sdk.context.addInitScript(42 as never), /pass a function, the source as a string, or \{ path \} or \{ content \}/],
      [() => sdk.context.addInitScript({} as never), /pass a function/],
      [() => page.addInitScript({ path: '/no/such/init-script.js' }), /page\.addInitScript: could not read \/no\/such\/init-script\.js/],
      [() => page.addInitScript((arg: unknown) => arg, (() => 1) as never), /`arg` must be JSON-serialisable/],
    ];
    for (const [work, message] of cases) {
      const error = await errorOf(work);
      expect(error).toBeInstanceOf(InvalidOptionError);
      expect((error as Error).message).toMatch(message);
    }
    await page.goto(servers.a.url('/leaf.html'));
    expect(await page.evaluate('window.x')).toBeUndefined();
    expect(await page.title()).toBe('Leaf');
  });
});

describe('setExtraHTTPHeaders', () => {
  it('context.setExtraHTTPHeaders reaches the frames a page has and every later document, page and frame', async () => {
    const { page, sdk, servers } = fixture;
    await page.goto(servers.a.url('/context-frames.html'));
    await sdk.context.setExtraHTTPHeaders({ 'X-Context': 'c1' });
    // Sessions that were there when the headers were set: the page's, and each out-of-process frame's.
    for (const [name, frame] of Object.entries(framesOf(page))) expect((await fetchHeaders(frame))['x-context'], name).toBe('c1');

    // The documents of a new load, frames adopted afresh included.
    await page.goto(servers.a.url('/echo-headers'));
    expect((await documentHeaders(page.mainFrame()))['x-context']).toBe('c1');
    await page.goto(servers.a.url('/context-frames.html'));
    const frames = framesOf(page);
    for (const name of ['same', 'oopChild', 'nested'] as const) expect((await documentHeaders(frames[name]))['x-context'], name).toBe('c1');

    // A new page's first request.
    const opened = await sdk.context.newPage(servers.b.url('/echo-headers'));
    await opened.waitForLoadState('load');
    expect((await documentHeaders(opened.mainFrame()))['x-context']).toBe('c1');

    // A popup's first request.
    const popupShown = new Promise<Page>((resolve) => sdk.context.once('page', resolve));
    await page.evaluate((url: string) => void window.open(url), servers.b.url('/echo-headers?popup'));
    const popup = await popupShown;
    await popup.waitForLoadState('load');
    expect((await documentHeaders(popup.mainFrame()))['x-context']).toBe('c1');
    await popup.close();

    // Replaced, then taken away.
    await sdk.context.setExtraHTTPHeaders({ 'x-other': 'o' });
    const replaced = await fetchHeaders(frames.nested);
    expect(replaced['x-other']).toBe('o');
    expect(replaced['x-context']).toBeUndefined();
    await sdk.context.setExtraHTTPHeaders({});
    expect((await fetchHeaders(opened.mainFrame()))['x-other']).toBeUndefined();
    await opened.close();
  });

  it('page.setExtraHTTPHeaders adds to the context’s on that page only, and wins on a shared name', async () => {
    const { page, sdk, servers } = fixture;
    const other = await sdk.context.newPage();
    await sdk.context.setExtraHTTPHeaders({ 'x-context': 'c2', 'x-shared': 'from-context' });
    await other.setExtraHTTPHeaders({ 'X-Page': 'p', 'X-Shared': 'from-page' });
    await other.goto(servers.a.url('/context-frames.html'));
    await page.goto(servers.a.url('/context-frames.html'));
    for (const [name, frame] of Object.entries(framesOf(other))) {
      const headers = await fetchHeaders(frame);
      expect([headers['x-context'], headers['x-page'], headers['x-shared']], name).toEqual(['c2', 'p', 'from-page']);
    }
    for (const [name, frame] of Object.entries(framesOf(page))) {
      const headers = await fetchHeaders(frame);
      expect([headers['x-context'], headers['x-page'], headers['x-shared']], name).toEqual(['c2', undefined, 'from-context']);
    }
    // The page's own taken away: the context's stand again.
    await other.setExtraHTTPHeaders({});
    expect((await fetchHeaders(framesOf(other).oop))['x-shared']).toBe('from-context');
    await sdk.context.setExtraHTTPHeaders({});
    await other.close();
  });

  it('refuses malformed headers with InvalidOptionError before sending any', async () => {
    const { page, sdk, servers } = fixture;
    const cases: Array<[() => Promise<unknown>, RegExp]> = [
      [() => sdk.context.setExtraHTTPHeaders('x-a: 1' as never), /pass an object of header names to string values/],
      [() => sdk.context.setExtraHTTPHeaders({ 'bad name': 'v' }), /"bad name" is not a valid HTTP header name/],
      [() => page.setExtraHTTPHeaders({ 'x-n': 5 as never }), /page\.setExtraHTTPHeaders: the value of header "x-n" must be a string/],
      [() => page.setExtraHTTPHeaders({ 'x-split': 'a\r\nx-injected: 1' }), /without line breaks/],
    ];
    for (const [work, message] of cases) {
      const error = await errorOf(work);
      expect(error).toBeInstanceOf(InvalidOptionError);
      expect((error as Error).message).toMatch(message);
    }
    await page.goto(servers.a.url('/echo-headers'));
    const headers = await documentHeaders(page.mainFrame());
    expect(headers['x-injected']).toBeUndefined();
    expect(headers['bad name']).toBeUndefined();
  });
});
