import { describe, expect, it } from 'vitest';
import { TimeoutError, type Page } from '../../src/index.js';
import { useBrowser } from '../helpers.js';
import { excerpt, findLines, lines, mustFind, parentOf } from '../support/snapshot-text.js';

const fixture = useBrowser();

/**
 * Each test gets a page of its own (a crashed or stuck renderer must not take the next test
 * with it), and names it in extract({ page }). The page is closed afterwards unless `keep`.
 */
async function onOwnPage(test: (page: Page) => Promise<void>, keep = false): Promise<void> {
  const page = await fixture.sdk.context.newPage();
  try {
    await test(page);
  } finally {
    if (!keep) await page.close();
  }
}

describe('extract() on hard pages', () => {
  it('handles a DOM nested 5,000 levels deep', async () => {
    await onOwnPage(async (page) => {
      await page.goto(fixture.servers.a.url('/snap-deep.html'));
      expect(
        await page.evaluate(() => {
          let depth = 0;
          for (let node = document.getElementById('root')!.firstElementChild; node; node = node.firstElementChild) depth++;
          return depth;
        }),
      ).toBe(5001);
      const { pageText } = await fixture.sdk.extract({ page, timeout: 50_000 });
      expect(pageText).toContain('top of deep page');
      const bottom = mustFind(pageText, undefined, 'bottom text');
      // The labelled sections are regions, each inside the one before; the text sits in the deepest.
      const regions = findLines(pageText, 'region', /^L\d+$/);
      expect(
        regions.map((line) => line.name),
        excerpt(pageText),
      ).toEqual(Array.from({ length: 10 }, (_, i) => `L${(i + 1) * 500}`));
      const all = lines(pageText);
      for (let i = 1; i < regions.length; i++) expect(parentOf(all, regions[i]!)).toEqual(regions[i - 1]);
      expect(parentOf(all, bottom)?.name).toBe('L5000');
    });
  }, 60_000);

  it('includes all of 300 iframes', async () => {
    await onOwnPage(async (page) => {
      await page.goto(fixture.servers.a.url('/snap-many.html'), { timeoutMs: 50_000 });
      expect(page.frames()).toHaveLength(301);
      const { pageText } = await fixture.sdk.extract({ page, timeout: 50_000 });
      const missing = Array.from({ length: 300 }, (_, i) => i).filter((i) => !new RegExp(`frame-${i}(?!\\d)`).test(pageText));
      expect(missing).toEqual([]);
      expect(findLines(pageText, 'Iframe')).toHaveLength(300);
    });
  }, 60_000);

  it('survives iframes being added and removed all the time', async () => {
    await onOwnPage(async (page) => {
      await page.goto(fixture.servers.a.url('/snap-churn.html'));
      await page.evaluate(() => (window as unknown as { startChurn(): void }).startChurn());
      const crossLoads = () => page.evaluate(() => (window as unknown as { crossLoads: number }).crossLoads);
      try {
        // At least 5 extracts, and more until cross-origin (out-of-process) iframes have come and
        // gone a few times: on a busy machine each of them takes longer to load.
        for (let i = 0; i < 5 || ((await crossLoads()) <= 2 && i < 60); i++) {
          const { pageText } = await fixture.sdk.extract({ page });
          expect(pageText, excerpt(pageText)).toContain('churn stable text');
          // Frames that stay put are always there, whatever comes and goes around them.
          expect(pageText, excerpt(pageText)).toContain('same origin frame text');
          expect(pageText, excerpt(pageText)).toContain('nest level three text');
        }
        expect(await crossLoads()).toBeGreaterThan(2);
      } finally {
        await page.evaluate(() => (window as unknown as { stopChurn(): void }).stopChurn()).catch(() => undefined);
      }
    });
  }, 60_000);

  it('survives an iframe that keeps navigating', async () => {
    type NavWindow = { startNav(): void; stopNav(): void; navLoads: number };
    await onOwnPage(async (page) => {
      await page.goto(fixture.servers.a.url('/snap-navloop.html'));
      await page.evaluate(() => (window as unknown as NavWindow).startNav());
      try {
        // Wait (on the iframe's load events) until the loop has committed a few documents.
        await page.evaluate(
          () =>
            new Promise<void>((resolve) => {
              const nav = document.getElementById('nav')!;
              const check = () => {
                if ((window as unknown as NavWindow).navLoads >= 4) resolve();
                else nav.addEventListener('load', check, { once: true });
              };
              check();
            }),
        );
        const loads = () => page.evaluate(() => (window as unknown as NavWindow).navLoads);
        const before = await loads();
        // Read until the loop has committed two more documents meanwhile (and at least five times),
        // so the reads overlap its navigations however fast either runs on a busy machine.
        let reads = 0;
        while (reads < 5 || (await loads()) < before + 2) {
          expect(reads, 'the iframe stopped navigating while the page was read').toBeLessThan(200);
          const { pageText } = await fixture.sdk.extract({ page });
          expect(pageText).toContain('navloop stable text');
          // The sibling out-of-process iframe is not navigating: it is always there.
          expect(pageText).toContain('nest level three text');
          reads++;
        }
      } finally {
        await page.evaluate(() => (window as unknown as NavWindow).stopNav()).catch(() => undefined);
      }
    });
  }, 60_000);

  it('does not wait for an iframe that is still loading', async () => {
    await onOwnPage(async (page) => {
      await page.goto(fixture.servers.a.url('/snap-frame-same.html'));
      // The frame's document is served 4 s late; extract reads what is there now.
      await page.evaluate((src: string) => {
        const frame = document.createElement('iframe');
        frame.src = src;
        document.body.appendChild(frame);
      }, fixture.servers.b.url('/snap-frame-late.html?delay=4000'));
      const started = Date.now();
      const { pageText } = await fixture.sdk.extract({ page, timeout: 3000 });
      expect(Date.now() - started).toBeLessThan(3000);
      expect(pageText).toContain('same origin frame text');
      expect(pageText).not.toContain('late frame text');
    });
  });

  it('leaves out an out-of-process iframe that never yields, after half the timeout', async () => {
    await onOwnPage(async (page) => {
      // The main frame is healthy; the cross-origin iframe spins once loaded.
      await page.goto(fixture.servers.a.url('/snap-busy-oopif.html'));
      expect(page.frames().some((frame) => frame.isOutOfProcess())).toBe(true);
      const started = Date.now();
      const { pageText } = await fixture.sdk.extract({ page, timeout: 3000 });
      const elapsed = Date.now() - started;
      // Half of the 3 s for the stuck frame, then the rest is returned without it.
      expect(elapsed).toBeGreaterThanOrEqual(1400);
      expect(elapsed).toBeLessThan(3000);
      expect(pageText).toContain('healthy main frame text');
      expect(findLines(pageText, 'Iframe')).toHaveLength(1);
    }, true);
  });

  it('gives up on a page whose main thread never returns, within the timeout, and stays usable', async () => {
    // The stuck page is left open: its renderer never answers again (the browser goes at afterAll).
    await onOwnPage(async (busy) => {
      // Load completes, then the page spins (setTimeout 0 after load): goto returns, nothing after can run there.
      await busy.goto(fixture.servers.a.url('/snap-busy.html'));
      const started = Date.now();
      const outcome = await fixture.sdk.extract({ page: busy, timeout: 1500 }).catch((error: unknown) => error);
      const elapsed = Date.now() - started;
      expect(outcome).toBeInstanceOf(TimeoutError);
      expect(elapsed).toBeLessThan(1500 + 1500);
    }, true);

    // Another page (on the other origin, so in another renderer process) still works.
    await onOwnPage(async (other) => {
      await other.goto(fixture.servers.b.url('/snap-after-busy.html'));
      const { pageText } = await fixture.sdk.extract({ page: other, timeout: 10_000 });
      expect(pageText).toContain('after busy text');
      expect(pageText).not.toContain('busy page text');
    });
  }, 60_000);
});
