// The rest of Stagehand's page surface: on/off('console') with ConsoleMessage (from every frame,
// out-of-process ones too), sendCDP, targetId() beside Tendril's string field, mainFrameId,
// setViewportSize, reload, goForward, goBack with and without waitUntil, waitForLoadState's numeric deadline.
import { describe, expect, it } from 'vitest';
import { InvalidOptionError, ProtocolError, Sdk, type ConsoleMessage, type Frame, type Page, type StagehandPage } from '../../src/index.js';
import { sdkOptions, useBrowser } from '../helpers.js';

const fixture = useBrowser({}, { stagehand: true });

function frameOf(page: Page, fragment: string): Frame {
  const found = page.frames().find((frame) => frame.url().includes(fragment));
  if (!found) throw new Error(`no frame with ${fragment}`);
  return found;
}

describe("page.on('console')", () => {
  it('hands over every console call of the page, from each of its frames, until off()', async () => {
    const { servers } = fixture;
    const page = fixture.page as StagehandPage;
    await page.goto(servers.a.url('/sh3-page.html'));
    const seen: ConsoleMessage[] = [];
    const listener = (message: ConsoleMessage) => seen.push(message);
    const another: string[] = [];
    // Stagehand's on() gives the page back, for chaining.
    expect(page.on('console', listener).on('console', (message) => another.push(message.text()))).toBe(page);
    await page.evaluate(() => console.log('top', 1, { a: 2 }, null));
    await frameOf(page, 'in=same').evaluate(() => console.error('from the same-origin frame'));
    await frameOf(page, 'in=oop').evaluate(() => console.warn('from the out-of-process frame'));
    await page.evaluate(() => setTimeout(() => (window as unknown as { say(text: string): void }).say('later'), 0));
    await expect.poll(() => seen.length).toBe(4);
    expect(seen.map((message) => [message.type(), message.text()])).toEqual([
      ['log', 'top 1 Object null'],
      ['error', 'from the same-origin frame'],
      ['warning', 'from the out-of-process frame'],
      ['info', 'later'],
    ]);
    const [first] = seen;
    expect(first!.args().map((arg) => arg.type)).toEqual(['string', 'number', 'object', 'object']);
    expect(first!.page()).toBe(page);
    expect(first!.timestamp()).toBeGreaterThan(Date.now() - 60_000);
    expect(String(first)).toBe('top 1 Object null');
    expect(first!.raw().type).toBe('log');
    expect(seen[3]!.location().url).toBe(servers.a.url('/sh3-page.html'));
    expect(another).toHaveLength(4);

    const once: string[] = [];
    expect(page.once('console', (message) => once.push(message.text()))).toBe(page);
    expect(page.off('console', listener)).toBe(page);
    await page.evaluate(() => console.log('after off'));
    await page.evaluate(() => console.log('and again'));
    await expect.poll(() => another.length).toBe(6);
    expect(seen).toHaveLength(4);
    expect(once).toEqual(['after off']);
  });

  it('keeps the other events as they were, and refuses an event a page does not have', () => {
    const { page } = fixture;
    const off = page.on('dialog', () => undefined);
    expect(typeof off).toBe('function');
    off();
    expect(() => page.on('request' as 'console', () => undefined)).toThrow(InvalidOptionError);
  });
});

describe("Tendril's own page.on('console')", () => {
  it('returns the function that stops listening, as every other event does; once() too', async () => {
    const sdk = new Sdk(sdkOptions());
    try {
      await sdk.init();
      const page = sdk.context.pages()[0]!;
      await page.goto(fixture.servers.a.url('/sh3-page.html'));
      const seen: string[] = [];
      const stop = page.on('console', (message) => seen.push(message.text()));
      expect(typeof stop).toBe('function');
      const onceOnly: string[] = [];
      const stopOnce = page.once('console', (message) => onceOnly.push(message.text()));
      expect(typeof stopOnce).toBe('function');
      await page.evaluate(() => console.log('first'));
      await expect.poll(() => seen).toEqual(['first']);
      stop();
      await page.evaluate(() => console.log('second'));
      // A marker listened to after: once it arrives, "second" has been dispatched to every listener.
      const marker = new Promise<void>((resolve) => page.on('console', (message) => message.text() === 'third' && resolve()));
      await page.evaluate(() => console.log('third'));
      await marker;
      expect(seen).toEqual(['first']);
      expect(onceOnly).toEqual(['first']);
    } finally {
      await sdk.close();
    }
  });
});

describe('page.sendCDP(), targetId(), mainFrameId()', () => {
  it("sends a command on the page's own session; a refused one is a ProtocolError", async () => {
    const { page, servers } = fixture;
    await page.goto(servers.a.url('/sh3-page.html'));
    const { result } = await page.sendCDP<{ result: { value: number } }>('Runtime.evaluate', {
      expression: 'innerWidth + 1',
      returnByValue: true,
    });
    expect(result.value).toBe((await page.evaluate<number>('innerWidth')) + 1);
    await expect(page.sendCDP('Nothing.atAll')).rejects.toBeInstanceOf(ProtocolError);
    await expect(page.sendCDP('Runtime.evaluate', { expression: 3 })).rejects.toBeInstanceOf(ProtocolError);
    await expect(page.sendCDP('evaluate')).rejects.toBeInstanceOf(InvalidOptionError);
    await expect(page.sendCDP('Runtime.evaluate', 'x' as unknown as object)).rejects.toBeInstanceOf(InvalidOptionError);
    expect(await page.sendCDP('Page.getFrameTree')).toMatchObject({ frameTree: { frame: { id: page.mainFrameId() } } });
  });

  it('names the target, called (Stagehand) or used as the string it was (Tendril)', async () => {
    const { page, sdk } = fixture;
    const id = page.targetId();
    expect(id).toMatch(/^[0-9A-F]{32}$/);
    expect(page.mainFrameId()).toBe(id);
    expect(page.mainFrameId()).toBe(page.mainFrame().id);
    expect(`${page.targetId}`).toBe(id);
    expect(JSON.stringify({ page: page.targetId })).toBe(JSON.stringify({ page: id }));
    expect(page.targetId == (id as unknown as typeof page.targetId)).toBe(true);
    expect(await sdk.context.pageOfTarget(`${page.targetId}`, 1000)).toBe(page);
    // The id Chrome knows the tab by.
    const { targetInfo } = await page.sendCDP<{ targetInfo: { targetId: string } }>('Target.getTargetInfo');
    expect(targetInfo.targetId).toBe(id);
  });
});

describe('page.setViewportSize()', () => {
  it('sets the viewport, and refuses sizes that are none', async () => {
    const { sdk, servers } = fixture;
    const page = await sdk.context.newPage();
    try {
      await page.goto(servers.a.url('/sh3-page.html'));
      await page.setViewportSize(640, 480);
      expect(await page.evaluate('[innerWidth, innerHeight, devicePixelRatio]')).toEqual([640, 480, 1]);
      await page.setViewportSize(500, 400, { deviceScaleFactor: 2 });
      expect(await page.evaluate('[innerWidth, innerHeight, devicePixelRatio]')).toEqual([500, 400, 2]);
      await expect(page.setViewportSize(0, 400)).rejects.toBeInstanceOf(InvalidOptionError);
      await expect(page.setViewportSize(400, 400, { deviceScaleFactor: -1 })).rejects.toBeInstanceOf(InvalidOptionError);
    } finally {
      await page.close();
    }
  });
});

describe('reload, goBack, goForward', () => {
  it('reloads the document and resolves with its response', async () => {
    const { page, servers } = fixture;
    await page.goto(servers.a.url('/sh3-page.html'));
    await page.evaluate(() => ((window as unknown as { mark: number }).mark = 1));
    const response = await page.reload();
    expect(response?.status()).toBe(200);
    expect(response?.url()).toBe(servers.a.url('/sh3-page.html'));
    expect(await page.evaluate('typeof mark')).toBe('undefined');
    // The page was read whole again: its out-of-process frame too.
    expect(await page.locator('#oop >> #inner').textContent()).toBe('Frame button');
    const again = await page.reload({ waitUntil: 'load', ignoreCache: true, timeoutMs: 10_000 });
    expect(again?.ok()).toBe(true);
    await expect(page.reload({ waitUntil: 'done' as 'load' })).rejects.toBeInstanceOf(InvalidOptionError);
  });

  it('goes back and forward, resolving with the response or null in both forms, as 3.7.3 does', async () => {
    const { sdk, servers } = fixture;
    const page = await sdk.context.newPage();
    try {
      expect(await page.goForward()).toBeNull();
      expect(await page.goBack({ waitUntil: 'load' })).toBeNull();
      expect(await page.goBack()).toBeNull();
      await page.goto(servers.a.url('/sh3-page.html'));
      await page.goto(servers.b.url('/sh3-frame.html?in=top'));
      // Fetched again, or restored from the back-forward cache (no response then).
      const first = await page.goBack();
      if (first) expect(first.url()).toBe(servers.a.url('/sh3-page.html'));
      expect(page.url()).toBe(servers.a.url('/sh3-page.html'));
      const forward = await page.goForward({ waitUntil: 'domcontentloaded' });
      expect(page.url()).toBe(servers.b.url('/sh3-frame.html?in=top'));
      // Fetched again, or restored from the back-forward cache (no response then).
      if (forward) expect(forward.status()).toBe(200);
      expect(await page.goForward()).toBeNull();
      const back = await page.goBack({ waitUntil: 'load' });
      if (back) expect(back.url()).toBe(servers.a.url('/sh3-page.html'));
      expect(page.url()).toBe(servers.a.url('/sh3-page.html'));
      expect(await page.locator('#oop >> #inner').textContent()).toBe('Frame button');
      await page.waitForLoadState('load', 5000);
      await expect(page.waitForLoadState('load', -1)).rejects.toBeInstanceOf(InvalidOptionError);
    } finally {
      await page.close();
    }
  });
});
