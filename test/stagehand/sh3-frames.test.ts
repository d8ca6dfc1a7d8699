// Stagehand 3's Frame (frame.d.ts, screenshot aside), FrameLocator and deepLocator: on frames.html,
// whose iframes are same-origin, srcdoc, out of process (with a closed shadow root and an iframe
// back to the first origin inside), and one added by script.

import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ContentFrameNotFoundError,
  ElementNotFoundError,
  InvalidOptionError,
  Sdk,
  SdkIframeError,
  TimeoutError,
  type Frame,
} from '../../src/index.js';
import { startFixtureServers, type FixtureServers } from '../fixtures/server.js';
import { startDebugChrome, useBrowser, type DebugChrome } from '../helpers.js';

const fixture = useBrowser();
const frame = (query: string): Frame => fixture.page.frames().find((each) => each.url().includes(query))!;

describe('frames, as Stagehand names them', () => {
  beforeAll(async () => {
    await fixture.page.goto(fixture.servers.a.url('/frames.html'));
  });

  it('have frameId, pageId, sessionId, and say the browser is not remote when we launched it', () => {
    const main = fixture.page.mainFrame();
    const oop = frame('oop.html');
    const leaf = frame('leaf.html?in=oop');
    expect(main.frameId).toBe(main.id);
    expect(oop.frameId).toBe(oop.id);
    for (const each of [main, oop, leaf, frame('child.html')]) expect(each.pageId).toBe(main.id);
    expect(main.pageId).toBe(fixture.page.targetId());
    expect(oop.sessionId).not.toBe(main.sessionId);
    // The leaf is back on the first origin, so in a process of its own again, not in the top one's session.
    expect(leaf.sessionId).not.toBe(oop.sessionId);
    expect(frame('child.html').sessionId).toBe(main.sessionId);
    expect(main.isBrowserRemote()).toBe(false);
  });

  it('make locators that start in their own document, out-of-process and closed shadow roots included', async () => {
    expect(await frame('child.html').locator('#c').textContent()).toBe('same-origin child');
    expect(await frame('oop.html').locator('#o').innerText()).toBe('cross-origin child');
    expect(await frame('oop.html').locator('#inside').textContent()).toBe('closed in oopif');
    // It continues into the frames below it, and getFrame() says where it started.
    const deeper = frame('oop.html').locator('#back >> #leaf');
    expect(await deeper.textContent()).toBe('leaf text');
    expect(deeper.getFrame()).toBe(frame('oop.html'));
    expect((await deeper.frame()).url()).toContain('leaf.html?in=oop');
    // A selector of another document finds nothing here.
    await expect(frame('oop.html').locator('h1').count()).resolves.toBe(0);
    await expect(frame('oop.html').locator('h1').textContent()).rejects.toThrow(
      /No element matches the selector "h1" in the frame .*oop\.html/,
    );
  });

  it('find the node at a point of their own viewport', async () => {
    const at = await frame('oop.html')
      .locator('#o')
      .evaluate((node) => {
        const rect = node.getBoundingClientRect();
        return { x: rect.x + 5, y: rect.y + rect.height / 2 };
      });
    const node = await frame('oop.html').getNodeAtLocation(at.x, at.y);
    expect(node.localName).toBe('p');
    expect(node.attributes).toEqual(['id', 'o']);
    const top = await fixture.page.locator('h1').evaluate((h1) => {
      const rect = h1.getBoundingClientRect();
      return { x: rect.x + 5, y: rect.y + rect.height / 2 };
    });
    const h1 = await fixture.page.mainFrame().getNodeAtLocation(top.x, top.y);
    expect(h1.localName).toBe('h1');
    await expect(fixture.page.mainFrame().getNodeAtLocation(Number.NaN, 1)).rejects.toThrow(InvalidOptionError);
  });

  it("read their accessibility tree, with their frames' trees when asked", async () => {
    const names = (nodes: Array<{ name?: { value?: unknown } }>) => nodes.map((node) => String(node.name?.value ?? ''));
    const own = names(await frame('oop.html').getAccessibilityTree());
    expect(own).toContain('cross-origin child');
    expect(own).not.toContain('leaf text');
    const all = names(await frame('oop.html').getAccessibilityTree(true));
    expect(all).toContain('cross-origin child');
    expect(all).toContain('leaf text');
  });

  it('say so when a locator is used in a frame that was detached', async () => {
    const child = frame('child.html');
    const locator = child.locator('#c');
    expect(await locator.count()).toBe(1);
    await fixture.page.evaluate(() => document.getElementById('same')!.remove());
    expect(child.isDetached()).toBe(true);
    await expect(locator.count()).rejects.toThrow(SdkIframeError);
    await expect(locator.textContent()).rejects.toThrow(/was detached; take a new one from page\.frames\(\)/);
    expect(await fixture.page.locator('#oop >> #o').count()).toBe(1);
  });

  it('wait for a load state, at once when it was reached, with a deadline when it never is', async () => {
    await fixture.page.goto(fixture.servers.a.url('/slow-frames.html'), { waitUntil: 'domcontentloaded' });
    // The top frame's load waits for its frames' (the child's script comes 400 ms late).
    await fixture.page.mainFrame().waitForLoadState('load');
    expect(
      await frame('slow-child.html').evaluate(
        () => (window as unknown as { markerLoaded?: boolean }).markerLoaded === true && document.readyState,
      ),
    ).toBe('complete');
    await frame('slow-child.html').waitForLoadState('load', 1000);
    await fixture.page.mainFrame().waitForLoadState('DOMContentLoaded' as never);
    await expect(fixture.page.mainFrame().waitForLoadState('idle' as never)).rejects.toThrow(InvalidOptionError);
    await fixture.page.goto(fixture.servers.a.url('/frame-hanging.html'), { waitUntil: 'domcontentloaded' });
    const started = Date.now();
    await expect(fixture.page.mainFrame().waitForLoadState('load', 300)).rejects.toThrow(TimeoutError);
    expect(Date.now() - started).toBeLessThan(3000);
    await fixture.page.mainFrame().waitForLoadState('domcontentloaded', 5000);
  });
});

describe("getNodeAtLocation's coordinates", () => {
  it("are those DOM.getNodeForLocation takes: the document's, which scrolling does not move", async () => {
    await fixture.page.goto(fixture.servers.a.url('/sh3-locators.html'));
    await fixture.page.evaluate(() => window.scrollTo(0, 150));
    const at = await fixture.page.locator('#top-para').evaluate((node) => {
      const rect = node.getBoundingClientRect();
      return { x: rect.x + 5, y: rect.y + rect.height / 2 + window.scrollY };
    });
    expect((await fixture.page.mainFrame().getNodeAtLocation(at.x, at.y)).attributes).toContain('top-para');
  });
});

describe('frameLocator and deepLocator', () => {
  beforeAll(async () => {
    await fixture.page.goto(fixture.servers.a.url('/frames.html'));
  });

  it('frameLocator enters iframes by selector, nested, out of process too, and resolves the frame', async () => {
    const oop = fixture.page.frameLocator('#oop');
    expect(await oop.locator('#o').textContent()).toBe('cross-origin child');
    expect(await oop.frameLocator('#back').locator('#leaf').textContent()).toBe('leaf text');
    expect((await oop.frameLocator('iframe[name="back"]').resolveFrame()).url()).toContain('leaf.html?in=oop');
    expect(await fixture.page.frameLocator('xpath=/html/body/iframe[1]').frameLocator('#grand').locator('button.go').count()).toBe(1);
    expect((await oop.resolveFrame()).isOutOfProcess()).toBe(true);
    await expect(fixture.page.frameLocator('h1').locator('p').textContent()).rejects.toThrow(ContentFrameNotFoundError);
    await expect(fixture.page.frameLocator('#missing').locator('p').count()).rejects.toThrow(ElementNotFoundError);
  });

  it('deepLocator takes >> hops (CSS or XPath parts) and deep XPaths, with nth and count in the last frame', async () => {
    expect(await fixture.page.deepLocator('iframe#oop >> iframe#back >> button.go').textContent()).toBe('Leaf button');
    expect(await fixture.page.deepLocator('xpath=//iframe[@id="oop"] >> //p[@id="o"]').textContent()).toBe('cross-origin child');
    expect(await fixture.page.deepLocator('/html/body/iframe[3]/html/body/p').textContent()).toBe('cross-origin child');
    expect(await fixture.page.deepLocator('//iframe[@id="oop"]//iframe[@id="back"]/html/body/p').textContent()).toBe('leaf text');
    expect(await fixture.page.deepLocator('#oop >> #host').count()).toBe(1);
    expect(await fixture.page.deepLocator('#oop >> iframe, p').count()).toBe(2);
    expect(
      await fixture.page
        .deepLocator('#oop >> iframe, p')
        .nth(1)
        .evaluate((node) => node.localName),
    ).toBe('iframe');
    // A part before the last that is no iframe is refused, as in Stagehand (page.locator would look inside it).
    await expect(fixture.page.deepLocator('h1 >> p').count()).rejects.toThrow(ContentFrameNotFoundError);
    expect(() => fixture.page.deepLocator('#oop >> ')).toThrow(InvalidOptionError);
  });

  it('page.locator keeps its own >> (into iframes, or inside an element) and count() counts across shadow roots', async () => {
    expect(await fixture.page.locator('#oop >> #o').textContent()).toBe('cross-origin child');
    await fixture.page.goto(fixture.servers.a.url('/shadow.html'));
    expect(await fixture.page.locator('button').count()).toBe(2);
    expect(await fixture.page.locator('//button').count()).toBe(2);
    expect(await fixture.page.locator('button').nth(1).textContent()).toBe('closed button');
    expect(await fixture.page.locator('#slot-host >> span').count()).toBe(1);
  });
});

describe('an attached browser', () => {
  let servers: FixtureServers;
  let chrome: DebugChrome;
  let sdk: Sdk;

  beforeAll(async () => {
    [servers, chrome] = await Promise.all([startFixtureServers(), startDebugChrome()]);
    sdk = new Sdk({ verbose: 0, disablePino: true, localBrowserLaunchOptions: { cdpUrl: chrome.wsUrl } });
    await sdk.init();
  });

  afterAll(async () => {
    await sdk?.close();
    await chrome?.kill();
    await servers?.close();
  });

  it('may be remote: files given by path are read here and sent into the page', async () => {
    const page = sdk.context.pages()[0]!;
    await page.goto(servers.a.url('/sh3-locators.html'));
    expect(page.mainFrame().isBrowserRemote()).toBe(true);
    const folder = mkdtempSync(path.join(os.tmpdir(), 'tendril-upload-'));
    const file = path.join(folder, 'notes.md');
    writeFileSync(file, '# twelve b\n');
    await page.deepLocator('#oop >> #oop-file').setInputFiles(file);
    expect(await page.deepLocator('#oop >> #oop-log').textContent()).toBe('file:notes.md/11/application/octet-stream;');
  });
});
