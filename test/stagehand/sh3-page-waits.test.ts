// page.waitForTimeout() and page.waitForSelector(): every state, in the top document, a same-origin
// iframe, an out-of-process iframe (` >> ` and an XPath past the <iframe>), open and closed shadow
// roots, an iframe that comes later; timeouts, bad selectors and bad options.
import { beforeEach, describe, expect, it } from 'vitest';
import { InvalidOptionError, SelectorSyntaxError, TimeoutError, type Frame, type Page } from '../../src/index.js';
import { useBrowser } from '../helpers.js';

const fixture = useBrowser();

function frameOf(page: Page, fragment: string): Frame {
  const found = page.frames().find((frame) => frame.url().includes(fragment));
  if (!found) throw new Error(`no frame with ${fragment}`);
  return found;
}

/** Has the page (or a frame) add `html` to its body, or to a shadow root of sh3-waits.html's, after `ms`. */
function later(where: Page | Frame, html: string, ms = 200, into: 'body' | 'open' | 'closed' = 'body'): Promise<unknown> {
  return where.evaluate(
    ([i, h, m]) =>
      setTimeout(() => {
        if (i === 'body') document.body.insertAdjacentHTML('beforeend', h);
        else (window as unknown as { later(a: string, b: string, c: number): void }).later(i, h, 0);
      }, m),
    [into, html, ms] as [string, string, number],
  );
}

beforeEach(async () => {
  await fixture.page.goto(fixture.servers.a.url('/sh3-waits.html'));
});

describe('page.waitForTimeout()', () => {
  it('waits that long, and refuses what is not a duration', async () => {
    const started = Date.now();
    await fixture.page.waitForTimeout(60);
    expect(Date.now() - started).toBeGreaterThanOrEqual(59);
    await expect(fixture.page.waitForTimeout(-1)).rejects.toBeInstanceOf(InvalidOptionError);
    await expect(fixture.page.waitForTimeout('1' as unknown as number)).rejects.toBeInstanceOf(InvalidOptionError);
  });
});

describe('page.waitForSelector()', () => {
  it('resolves at once for what is there, and waits for what comes, in the top document', async () => {
    const { page } = fixture;
    expect(await page.waitForSelector('#here')).toBe(true);
    await later(page, '<p id="late">late</p>');
    expect(await page.waitForSelector('//p[@id="late"]', { timeout: 5000 })).toBe(true);
    expect(await page.locator('#late').textContent()).toBe('late');
  });

  it('waits inside a same-origin iframe and an out-of-process one, by CSS hops and by XPath', async () => {
    const { page } = fixture;
    await later(frameOf(page, 'in=same'), '<p id="in-same">same</p>');
    expect(await page.waitForSelector('#same >> #in-same', { timeout: 5000 })).toBe(true);
    await later(frameOf(page, 'in=oop'), '<p id="in-oop">oop</p>');
    expect(await page.waitForSelector('/html/body/iframe[2]/html/body/p[@id="in-oop"]', { timeout: 5000 })).toBe(true);
    await later(frameOf(page, 'in=oop'), '<p id="in-oop-2">oop</p>');
    expect(await page.waitForSelector('iframe#oop >> #in-oop-2', { state: 'attached', timeout: 5000 })).toBe(true);
  });

  it('waits for an iframe that is not there yet, and for what comes into it', async () => {
    const { page, servers } = fixture;
    await later(page, `<iframe id="late-frame" src="${servers.b.url('/sh3-frame.html?in=late')}"></iframe>`, 300);
    expect(await page.waitForSelector('#late-frame >> #inner', { timeout: 8000 })).toBe(true);
    expect(frameOf(page, 'in=late').isOutOfProcess()).toBe(true);
  });

  it('waits inside open and closed shadow roots, unless told not to pierce them', async () => {
    const { page } = fixture;
    await later(page, '<b id="in-open">open</b>', 200, 'open');
    expect(await page.waitForSelector('#in-open', { timeout: 5000 })).toBe(true);
    await later(page, '<b id="in-closed">closed</b>', 200, 'closed');
    expect(await page.waitForSelector('#in-closed', { timeout: 5000 })).toBe(true);
    await expect(page.waitForSelector('#in-open', { pierceShadow: false, timeout: 300 })).rejects.toBeInstanceOf(TimeoutError);
    // An element in a closed root is no absent element.
    await expect(page.waitForSelector('#in-closed', { state: 'detached', timeout: 300 })).rejects.toBeInstanceOf(TimeoutError);
  });

  it('waits for each state: visible, hidden, attached, detached', async () => {
    const { page } = fixture;
    // Attached but not shown, then shown.
    await expect(page.waitForSelector('#hidden-now', { timeout: 300 })).rejects.toBeInstanceOf(TimeoutError);
    expect(await page.waitForSelector('#hidden-now', { state: 'attached' })).toBe(true);
    expect(await page.waitForSelector('#hidden-now', { state: 'hidden' })).toBe(true);
    void page.evaluate(() => setTimeout(() => document.getElementById('hidden-now')!.classList.remove('gone'), 200));
    expect(await page.waitForSelector('#hidden-now', { state: 'visible', timeout: 5000 })).toBe(true);
    void page.evaluate(() => setTimeout(() => (document.getElementById('here')!.style.visibility = 'hidden'), 200));
    expect(await page.waitForSelector('#here', { state: 'hidden', timeout: 5000 })).toBe(true);
    void page.evaluate(() => setTimeout(() => document.getElementById('here')!.remove(), 200));
    expect(await page.waitForSelector('#here', { state: 'detached', timeout: 5000 })).toBe(true);
    // No element at all is hidden, and detached.
    expect(await page.waitForSelector('#never', { state: 'hidden' })).toBe(true);
    expect(await page.waitForSelector('#never', { state: 'detached' })).toBe(true);
  });

  it('fails on time with TimeoutError, and at once for a bad selector or option', async () => {
    const { page } = fixture;
    const started = Date.now();
    const error = await page.waitForSelector('#never', { timeout: 400 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TimeoutError);
    // Stagehand's message starts "waitForSelector: Timeout", which code may match.
    expect((error as Error).message).toMatch(/^waitForSelector: Timeout 400 ms: "#never" is still not visible/);
    expect(Date.now() - started).toBeLessThan(3000);
    await expect(page.waitForSelector('//p[')).rejects.toBeInstanceOf(SelectorSyntaxError);
    await expect(page.waitForSelector('#here', { state: 'shown' as 'visible' })).rejects.toThrow(
      /"attached", "detached", "visible", "hidden"/,
    );
    await expect(page.waitForSelector('#here', { timeout: -5 })).rejects.toBeInstanceOf(InvalidOptionError);
    await expect(page.waitForSelector('')).rejects.toBeInstanceOf(InvalidOptionError);
    expect(await page.waitForSelector('#here')).toBe(true);
  });

  it('keeps waiting across a navigation of the page', async () => {
    const { page, servers } = fixture;
    void page.evaluate((url) => setTimeout(() => (location.href = url), 200), servers.a.url('/sh3-frame.html?in=top'));
    expect(await page.waitForSelector('#inner', { timeout: 8000 })).toBe(true);
    expect(page.url()).toContain('in=top');
  });
});
