import { describe, expect, it } from 'vitest';
import type { Frame, LogLine, Page } from '../../src/index.js';
import { useBrowser } from '../helpers.js';

const lines: LogLine[] = [];
const fixture = useBrowser({ verbose: 2, logger: (line) => lines.push(line) });

function byUrl(frames: Frame[], fragment: string): Frame {
  const found = frames.find((frame) => frame.url().includes(fragment));
  if (!found) throw new Error(`no frame with ${fragment}; have ${frames.map((f) => f.url()).join(', ')}`);
  return found;
}

describe('frame tree', () => {
  it('shows frames of every kind with the right parents', async () => {
    await fixture.page.goto(fixture.servers.a.url('/frames.html'));
    const frames = fixture.page.frames();
    const main = fixture.page.mainFrame();
    expect(frames[0]).toBe(main);
    expect(main.parentFrame()).toBeNull();
    expect(main.url()).toBe(fixture.servers.a.url('/frames.html'));

    const child = byUrl(frames, '/child.html');
    const grand = byUrl(frames, 'leaf.html?in=child');
    const srcdoc = byUrl(frames, 'about:srcdoc');
    const oop = byUrl(frames, `${fixture.servers.b.origin}/oop.html`);
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

    // Loading the page again replaces every frame; none of the old document's may linger,
    // out-of-process ones included (their targets detach only later).
    await fixture.page.goto(fixture.servers.a.url('/frames.html'));
    const again = fixture.page.frames();
    expect(again).toHaveLength(7);
    expect(again.some((frame) => frame.isDetached())).toBe(false);
    expect(again).not.toContain(oop);
    expect(oop.isDetached()).toBe(true);
  });

  it('knows the iframe element that holds each frame, out-of-process ones included', async () => {
    await fixture.page.goto(fixture.servers.a.url('/frames.html'));
    expect(await fixture.page.mainFrame().ownerElementId()).toBeNull();
    for (const [fragment, id] of [
      ['/oop.html', 'oop'],
      ['leaf.html?in=oop', 'back'],
      ['/child.html', 'same'],
    ] as const) {
      const frame = byUrl(fixture.page.frames(), fragment);
      const owner = await frame.ownerElementId();
      // Described in the parent's own session: the element lives in the parent's document.
      const { node } = await frame.parentFrame()!.session.send('DOM.describeNode', { backendNodeId: owner! });
      expect(node.localName).toBe('iframe');
      expect(node.attributes).toEqual(expect.arrayContaining(['id', id]));
      expect(node.frameId).toBe(frame.id);
    }
  });

  it('evaluates inside an out-of-process iframe, in its own world', async () => {
    await fixture.page.goto(fixture.servers.a.url('/frames.html'));
    const oop = byUrl(fixture.page.frames(), '/oop.html');
    expect(await oop.evaluate(() => location.origin)).toBe(fixture.servers.b.origin);
    expect(await oop.evaluate('window.secret')).toBe('oop-world');
    expect(await oop.evaluate((n: number) => document.querySelectorAll('p').length + n, 10)).toBe(11);
    const nested = byUrl(fixture.page.frames(), 'leaf.html?in=oop');
    expect(await nested.evaluate(() => document.getElementById('leaf')!.textContent)).toBe('leaf text');
    expect(await fixture.page.evaluate(() => (window as unknown as { secret?: string }).secret)).toBeUndefined();
  });

  it('goto waits for load of every frame, out-of-process ones included', async () => {
    await fixture.page.goto(fixture.servers.a.url('/slow-frames.html'));
    const slow = byUrl(fixture.page.frames(), '/slow-child.html');
    expect(slow.isOutOfProcess()).toBe(true);
    // The child's script is served 400 ms late; load of the child waits for it.
    expect(await slow.evaluate(() => [document.readyState, (window as unknown as { markerLoaded?: boolean }).markerLoaded])).toEqual([
      'complete',
      true,
    ]);
  });

  it('goto readies every frame for reading while it waits for load, so the read after it creates no world', async () => {
    const sent = (method: string) => lines.filter((line) => line.message.includes('→') && line.message.endsWith(` ${method}`)).length;
    await fixture.page.goto(fixture.servers.a.url('/frames.html'), { waitUntil: 'load' });
    expect(fixture.page.frames()).toHaveLength(7);
    lines.length = 0;
    const { pageText } = await fixture.sdk.extract();
    for (const text of ['from srcdoc', 'cross-origin child', 'closed in oopif', 'leaf text']) expect(pageText).toContain(text);
    expect(sent('Runtime.callFunctionOn')).toBeGreaterThan(0);
    expect(sent('Page.createIsolatedWorld')).toBe(0);
    // A navigation that returns at domcontentloaded leaves that work to the read.
    await fixture.page.goto(fixture.servers.a.url('/frames.html'), { waitUntil: 'domcontentloaded' });
    await fixture.page.waitForLoadState('load');
    lines.length = 0;
    await fixture.sdk.extract();
    expect(sent('Page.createIsolatedWorld')).toBeGreaterThan(0);
  });

  it('goto follows a page that replaces itself by script before it loads', async () => {
    const started = Date.now();
    await fixture.page.goto(fixture.servers.a.url('/redirect.html'), { timeoutMs: 15_000 });
    // The first document's load never fires (its image takes 20 s); the one it went to loads at once.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(fixture.page.url()).toBe(fixture.servers.b.url('/leaf.html?from=redirect'));
    expect(await fixture.page.evaluate(() => document.readyState)).toBe('complete');
  });

  it('goto with waitUntil commit returns before the page loads', async () => {
    await fixture.page.goto(fixture.servers.a.url('/slow-child.html'), { waitUntil: 'commit' });
    expect(fixture.page.url()).toBe(fixture.servers.a.url('/slow-child.html'));
    await fixture.page.goto(fixture.servers.a.url('/slow-child.html'), { waitUntil: 'domcontentloaded' });
    expect(await fixture.page.evaluate(() => document.readyState)).not.toBe('loading');
  });

  it('reports navigation failures and deadlines as typed errors, and stays usable', async () => {
    const { NavigationError, TimeoutError } = await import('../../src/index.js');
    await expect(fixture.page.goto('http://127.0.0.1:1/')).rejects.toBeInstanceOf(NavigationError);
    await expect(fixture.page.goto(fixture.servers.a.url('/leaf.html?delay=5000'), { timeoutMs: 300 })).rejects.toBeInstanceOf(
      TimeoutError,
    );
    await fixture.page.goto(fixture.servers.a.url('/leaf.html'));
    expect(await fixture.page.title()).toBe('Leaf');
  });

  it('surfaces page exceptions as SdkEvalError', async () => {
    const { SdkEvalError } = await import('../../src/index.js');
    await fixture.page.goto(fixture.servers.a.url('/leaf.html'));
    await expect(
      fixture.page.evaluate(() => {
        throw new Error('boom in page');
      }),
    ).rejects.toThrow(SdkEvalError);
    await expect(fixture.page.evaluate('(() => { throw new Error("boom in page") })()')).rejects.toThrow(/boom in page/);
    expect(await fixture.page.evaluate(() => Promise.resolve(7))).toBe(7);
  });

  it('evaluates functions that bundlers rewrote with keepNames (__name helpers)', async () => {
    // What tsx or esbuild --keep-names emit for a named inner function.
    const rewritten = new Function('arg', 'const inner = __name(function inner() { return arg * 3; }, "inner"); return inner();') as (
      arg: number,
    ) => number;
    expect(await fixture.page.evaluate(rewritten, 14)).toBe(42);
    expect(
      await fixture.page.locator('p').evaluate(new Function('el', 'return __name((x) => x.tagName, "f")(el)') as (el: Element) => string),
    ).toBe('P');
  });

  it('opens and closes pages', async () => {
    const before = fixture.sdk.context.pages().length;
    const extra = await fixture.sdk.context.newPage();
    expect(fixture.sdk.context.pages()).toHaveLength(before + 1);
    await extra.goto(fixture.servers.b.url('/leaf.html'));
    expect(await extra.title()).toBe('Leaf');
    await extra.close();
    expect(extra.isClosed()).toBe(true);
    expect(fixture.sdk.context.pages()).toHaveLength(before);
    await expect(extra.goto(fixture.servers.b.url('/leaf.html'))).rejects.toThrow(/closed/);
  });

  it('sees popups as pages', async () => {
    await fixture.page.goto(fixture.servers.a.url('/leaf.html'));
    const before = fixture.sdk.context.pages().length;
    const opened = new Promise<Page>((resolve) => fixture.sdk.context.once('page', resolve));
    await fixture.page.evaluate((url: string) => void window.open(url), fixture.servers.b.url('/child.html'));
    const popup = await opened;
    expect(fixture.sdk.context.pages()).toHaveLength(before + 1);
    expect(fixture.sdk.context.pages()).toContain(popup);
    await popup.waitForLoadState('load');
    expect(popup.url()).toBe(fixture.servers.b.url('/child.html'));
    expect(await popup.title()).toBe('Child');
    await popup.close();
  });
});
