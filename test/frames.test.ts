import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sdk, type Frame, type Page } from '../src/index.js';
import { startFixtureServers, type FixtureServers } from './fixtures/server.js';
import { sdkOptions } from './helpers.js';

let servers: FixtureServers;
let sdk: Sdk;
let page: Page;

beforeAll(async () => {
  servers = await startFixtureServers();
  sdk = new Sdk(sdkOptions());
  await sdk.init();
  page = sdk.context.pages()[0]!;
});

afterAll(async () => {
  await sdk?.close();
  await servers?.close();
});

function byUrl(frames: Frame[], fragment: string): Frame {
  const found = frames.find((frame) => frame.url().includes(fragment));
  if (!found) throw new Error(`no frame with ${fragment}; have ${frames.map((f) => f.url()).join(', ')}`);
  return found;
}

describe('frame tree', () => {
  it('shows frames of every kind with the right parents', async () => {
    await page.goto(servers.a.url('/frames.html'));
    const frames = page.frames();
    const main = page.mainFrame();
    expect(frames[0]).toBe(main);
    expect(main.parentFrame()).toBeNull();
    expect(main.url()).toBe(servers.a.url('/frames.html'));

    const child = byUrl(frames, '/child.html');
    const grand = byUrl(frames, 'leaf.html?in=child');
    const srcdoc = byUrl(frames, 'about:srcdoc');
    const oop = byUrl(frames, `${servers.b.origin}/oop.html`);
    const backInside = byUrl(frames, 'leaf.html?in=oop');
    const scripted = byUrl(frames, 'leaf.html?by=script');

    expect(child.parentFrame()).toBe(main);
    expect(grand.parentFrame()).toBe(child);
    expect(srcdoc.parentFrame()).toBe(main);
    expect(oop.parentFrame()).toBe(main);
    expect(backInside.parentFrame()).toBe(oop);
    expect(scripted.parentFrame()).toBe(main);
    expect(frames).toHaveLength(7);

    // The localhost frame and the 127.0.0.1 frame inside it are out-of-process; the others are not.
    expect(oop.isOutOfProcess()).toBe(true);
    expect(backInside.isOutOfProcess()).toBe(true);
    expect(child.isOutOfProcess()).toBe(false);
    expect(srcdoc.isOutOfProcess()).toBe(false);
    expect(main.childFrames()).toEqual(expect.arrayContaining([child, srcdoc, oop, scripted]));
    expect(child.name()).toBe('same');
  });

  it('evaluates inside an out-of-process iframe, in its own world', async () => {
    await page.goto(servers.a.url('/frames.html'));
    const oop = byUrl(page.frames(), '/oop.html');
    expect(await oop.evaluate(() => location.origin)).toBe(servers.b.origin);
    expect(await oop.evaluate('window.secret')).toBe('oop-world');
    expect(await oop.evaluate((n: number) => document.querySelectorAll('p').length + n, 10)).toBe(11);
    const nested = byUrl(page.frames(), 'leaf.html?in=oop');
    expect(await nested.evaluate(() => document.getElementById('leaf')!.textContent)).toBe('leaf text');
    expect(await page.evaluate(() => (window as unknown as { secret?: string }).secret)).toBeUndefined();
  });

  it('goto waits for load of every frame, out-of-process ones included', async () => {
    await page.goto(servers.a.url('/slow-frames.html'));
    const slow = byUrl(page.frames(), '/slow-child.html');
    expect(slow.isOutOfProcess()).toBe(true);
    // The child's script is served 400 ms late; load of the child waits for it.
    expect(await slow.evaluate(() => [document.readyState, (window as unknown as { markerLoaded?: boolean }).markerLoaded])).toEqual([
      'complete',
      true,
    ]);
  });

  it('goto with waitUntil commit returns before the page loads', async () => {
    await page.goto(servers.a.url('/slow-child.html'), { waitUntil: 'commit' });
    expect(page.url()).toBe(servers.a.url('/slow-child.html'));
    await page.goto(servers.a.url('/slow-child.html'), { waitUntil: 'domcontentloaded' });
    expect(await page.evaluate(() => document.readyState)).not.toBe('loading');
  });

  it('reports navigation failures and deadlines as typed errors, and stays usable', async () => {
    const { NavigationError, TimeoutError } = await import('../src/index.js');
    await expect(page.goto('http://127.0.0.1:1/')).rejects.toBeInstanceOf(NavigationError);
    await expect(page.goto(servers.a.url('/leaf.html?delay=5000'), { timeoutMs: 300 })).rejects.toBeInstanceOf(TimeoutError);
    await page.goto(servers.a.url('/leaf.html'));
    expect(await page.title()).toBe('Leaf');
  });

  it('surfaces page exceptions as SdkEvalError', async () => {
    const { SdkEvalError } = await import('../src/index.js');
    await page.goto(servers.a.url('/leaf.html'));
    await expect(page.evaluate(() => {
      throw new Error('boom in page');
    })).rejects.toThrow(SdkEvalError);
    await expect(page.evaluate('(() => { throw new Error("boom in page") })()')).rejects.toThrow(/boom in page/);
    expect(await page.evaluate(() => Promise.resolve(7))).toBe(7);
  });

  it('evaluates functions that bundlers rewrote with keepNames (__name helpers)', async () => {
    // What tsx or esbuild --keep-names emit for a named inner function.
    const rewritten = new Function('arg', 'const inner = __name(function inner() { return arg * 3; }, "inner"); return inner();') as (
      arg: number,
    ) => number;
    expect(await page.evaluate(rewritten, 14)).toBe(42);
    expect(await page.locator('p').evaluate(new Function('el', 'return __name((x) => x.tagName, "f")(el)') as (el: Element) => string)).toBe('P');
  });

  it('opens and closes pages', async () => {
    const before = sdk.context.pages().length;
    const extra = await sdk.context.newPage();
    expect(sdk.context.pages()).toHaveLength(before + 1);
    await extra.goto(servers.b.url('/leaf.html'));
    expect(await extra.title()).toBe('Leaf');
    await extra.close();
    expect(extra.isClosed()).toBe(true);
    expect(sdk.context.pages()).toHaveLength(before);
    await expect(extra.goto(servers.b.url('/leaf.html'))).rejects.toThrow(/closed/);
  });

  it('sees popups as pages', async () => {
    await page.goto(servers.a.url('/leaf.html'));
    const before = sdk.context.pages().length;
    const opened = new Promise<Page>((resolve) => sdk.context.once('page', resolve));
    await page.evaluate((url: string) => void window.open(url), servers.b.url('/child.html'));
    const popup = await opened;
    expect(sdk.context.pages()).toHaveLength(before + 1);
    expect(sdk.context.pages()).toContain(popup);
    await popup.waitForLoadState('load');
    expect(popup.url()).toBe(servers.b.url('/child.html'));
    expect(await popup.title()).toBe('Child');
    await popup.close();
  });
});
