import { describe, expect, it } from 'vitest';
import { TimeoutError, type Page } from '../../src/index.js';
import { useBrowser } from '../helpers.js';
import { excerpt, findLines, mustFind } from '../support/snapshot-text.js';

const fixture = useBrowser();

describe('closed shadow roots deep in a document', () => {
  for (const depth of [150, 400]) {
    it(`reads a closed root under plain DOM ${depth} levels deep`, async () => {
      await fixture.page.goto(fixture.servers.a.url(`/snap-odd-closed-deep.html?depth=${depth}`));
      const { pageText } = await fixture.sdk.extract({ page: fixture.page, timeout: 20_000 });
      expect(pageText).toContain('above the deep closed root');
      mustFind(pageText, undefined, `deep closed text ${depth}`);
      mustFind(pageText, 'button', 'deep closed button');
    });
  }

  it('finds an element in a closed root 400 levels deep by selector', async () => {
    // A new document: no capture has told the selector engine about its closed roots yet.
    await fixture.page.goto(fixture.servers.a.url('/snap-odd-closed-deep.html?depth=400'));
    expect(await fixture.page.locator('//button').textContent()).toBe('deep closed button');
  });

  it('reads every root of a chain of 1,000 nested closed roots, in order', async () => {
    await fixture.page.goto(fixture.servers.a.url('/snap-odd-closed-chain.html?count=1000'));
    const { pageText } = await fixture.sdk.extract({ page: fixture.page, timeout: 40_000 });
    const levels = findLines(pageText, undefined, /^chain level \d+$/).map((line) => Number(line.name!.slice(12)));
    expect(levels.length, excerpt(pageText)).toBe(1000);
    expect(levels).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
    mustFind(pageText, undefined, 'chain bottom');
  }, 60_000);
});

describe('word boundaries of inline text', () => {
  it('keeps text taken out of the inline flow apart from its neighbours, and true inline runs together', async () => {
    await fixture.page.goto(fixture.servers.a.url('/snap-odd-words.html'));
    const { pageText } = await fixture.sdk.extract({ page: fixture.page });
    // The visually hidden label is still read, as a word of its own.
    expect(pageText).toContain('Credit Kevin Frayer/Getty Images');
    expect(pageText).not.toMatch(/CreditKevin/);
    expect(pageText).toMatch(/Beijing\.\s*Credit/);
    expect(pageText).not.toMatch(/Beijing\.Credit/);
    for (const [glued, words] of [
      ['Pricewas12', /Price was 12 euros/],
      ['Photoby', /Photo by Anna/],
      ['Photo:Credit', /Photo: Credit Kevin/],
      ['OpenMenu', /Open Menu door|Open door[\s\S]*Menu|Menu[\s\S]*Open door/],
      ['LeftRight', /Left Right middle|Right Left middle/],
      ['OneTwo', /One Two Three/],
      ['AlphaBeta', /Alpha[\s\S]*Beta[\s\S]*Gamma/],
    ] as const) {
      expect(pageText, excerpt(pageText)).not.toContain(glued);
      expect(pageText, excerpt(pageText)).toMatch(words);
    }
    expect(pageText).not.toMatch(/BetaGamma/);
    mustFind(pageText, 'paragraph', 'ac');
    mustFind(pageText, 'paragraph', 'xy');
    mustFind(pageText, 'paragraph', 'unbelievable');
    mustFind(pageText, 'paragraph', 'See Paris, France, or Lyon.');
  });
});

describe('a page that reloads itself in a loop', () => {
  let runs = 0;

  /**
   * A page of its own, closed afterwards: a goto away from a page in the middle of reloading
   * itself races its reloads (see the test that stops the loop first).
   */
  async function onLoopPage(path: string, test: (page: Page, run: string) => Promise<void>): Promise<void> {
    const page = await fixture.sdk.context.newPage();
    const run = `r${++runs}-${Date.now()}`;
    try {
      // Only the commit: these documents mostly never reach load.
      await page.goto(fixture.servers.a.url(`${path}${path.includes('?') ? '&' : '?'}run=${run}`), { waitUntil: 'commit' });
      await test(page, run);
    } finally {
      await page.close();
    }
  }

  it('meta refresh 0: reads the text of a document that holds still, on every call', async () => {
    // The first 8 documents refresh as soon as they load; after them, every third holds 300 ms.
    await onLoopPage('/snap-odd-refresh.html?instant=8&every=3&hold=300', async (page) => {
      for (let i = 0; i < 3; i++) {
        const { pageText } = await fixture.sdk.extract({ page, timeout: 10_000 });
        expect(pageText).toMatch(/refreshing page text, document \d+/);
      }
    });
  });

  it('location.reload(): reads the newest document that holds still, on every call', async () => {
    // The first 8 documents reload before any of them is parsed; after them, every third holds 300 ms.
    await onLoopPage('/snap-odd-reload.html?instant=8&every=3&hold=300', async (page) => {
      for (let i = 0; i < 3; i++) {
        const { pageText } = await fixture.sdk.extract({ page, timeout: 10_000 });
        expect(pageText).toMatch(/reloading page text, document (9|\d\d+), held/);
      }
    });
  });

  /**
   * A page that asks for another document while a read is waiting in its renderer's queue: the
   * read runs in the old document, which is then still there, and returns before the new one comes.
   */
  async function leaving(to: string, timeout = 10_000): Promise<{ pageText: string; ms: number }> {
    const page = await fixture.sdk.context.newPage();
    try {
      await page.goto(fixture.servers.a.url('/snap-odd-leaving.html'));
      expect((await fixture.sdk.extract({ page })).pageText).toContain('the document that leaves');
      await page.evaluate(`leave(${JSON.stringify(to)}, 300)`);
      const started = Date.now();
      const { pageText } = await fixture.sdk.extract({ page, timeout });
      return { pageText, ms: Date.now() - started };
    } finally {
      await page.close();
    }
  }

  it('reads the document a page asked for when it comes within a moment, not the one on its way out', async () => {
    const { pageText } = await leaving('/snap-shadow.html?delay=400');
    expect(pageText).toContain('light dom text');
    expect(pageText).not.toContain('the document that leaves');
  });

  it('waits for the document a page asked for while its navigation is under way, past the moment a navigation only asked for gets', async () => {
    // The server holds the new document back 1.5 s: longer than REPLACEMENT_WAIT_MS (1 s) after the read.
    const { pageText } = await leaving('/snap-shadow.html?delay=1500');
    expect(pageText).toContain('light dom text');
    expect(pageText).not.toContain('the document that leaves');
  });

  it('returns the read in hand, before its timeout, when the navigation under way never brings a document', async () => {
    const { pageText, ms } = await leaving('/hang', 3000);
    expect(pageText).toContain('the document that leaves');
    // It waited for the navigation as long as the call could (a TimeoutError would have thrown).
    expect(ms).toBeGreaterThanOrEqual(2500);
    expect(ms).toBeLessThan(3500);
  });

  it('gives a navigation under way that never brings a document 5 s at most, though the call may take longer', async () => {
    const { pageText, ms } = await leaving('/hang', 30_000);
    expect(pageText).toContain('the document that leaves');
    // REPLACEMENT_UNDERWAY_MS (5 s) after the read, not the call's 30 s.
    expect(ms).toBeGreaterThanOrEqual(4500);
    expect(ms).toBeLessThan(12_000);
  });

  it('reads the document that stays, without waiting, when the one it asked for never comes (a 204)', async () => {
    const { pageText, ms } = await leaving('/snap-shadow.html?status=204');
    expect(pageText).toContain('the document that leaves');
    // The read returns after the page's 300 ms of work; waiting out REPLACEMENT_WAIT_MS (1 s) on top
    // would mean the 204 went unnoticed.
    expect(ms).toBeLessThan(1200);
  });

  it('looks a selector scope up again in the document that replaced it', async () => {
    await onLoopPage('/snap-odd-reload.html?instant=8&every=3&hold=300', async (page) => {
      const { pageText } = await fixture.sdk.extract({ page, selector: '#text', timeout: 10_000 });
      expect(pageText).toMatch(/^\[(?:\d+-)?\d+\] (paragraph|StaticText): reloading page text, document (9|\d\d+), held$/);
    });
  });

  it('gives one TimeoutError naming the loop, after the timeout, when no document holds still; the page stays usable', async () => {
    await onLoopPage('/snap-odd-reload.html', async (page, run) => {
      const started = Date.now();
      const outcome = await fixture.sdk.extract({ page, timeout: 1500 }).catch((error: unknown) => error);
      const elapsed = Date.now() - started;
      expect(outcome).toBeInstanceOf(TimeoutError);
      expect((outcome as Error).message).toMatch(/kept navigating/);
      expect((outcome as Error).message).toMatch(/navigate it elsewhere/);
      // It kept trying until the timeout, and not much longer.
      expect(elapsed).toBeGreaterThanOrEqual(1400);
      expect(elapsed).toBeLessThan(2500);
      // The loop ends when told (through storage the two pages share), then the page goes on as usual.
      await fixture.page.goto(fixture.servers.a.url('/snap-shadow.html'));
      await fixture.page.evaluate((key: string) => localStorage.setItem(key, '1'), `stop-${run}`);
      await page.waitForLoadState('load', { timeoutMs: 10_000 });
      await page.goto(fixture.servers.a.url('/snap-shadow.html'));
      const { pageText } = await fixture.sdk.extract({ page });
      expect(pageText).toContain('light dom text');
    });
  });
});
