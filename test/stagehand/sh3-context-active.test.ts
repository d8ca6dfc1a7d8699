// Stagehand 3's active page on real Chromium: context.activePage(), setActivePage(page),
// awaitActivePage(timeoutMs), pages(), newPage(url) and close(), and that sdk.extract/act use the
// active page when none is given.

import { describe, expect, it } from 'vitest';
import { InvalidOptionError, PageClosedError, PageNotFoundError, Sdk, type Page } from '../../src/index.js';
import { startFixtureServers } from '../fixtures/server.js';
import { processAlive, sdkOptions, useBrowser } from '../helpers.js';

const fixture = useBrowser();

async function pageText(sdk: Sdk): Promise<string> {
  return (await sdk.extract({ timeout: 10_000 })).pageText;
}

describe('the active page', () => {
  it('is the page opened last, until setActivePage picks another; extract() and act() go there', async () => {
    const { page, sdk, servers } = fixture;
    const context = sdk.context;
    await page.goto(servers.a.url('/context-frames.html'));
    expect(context.activePage()).toBe(page);
    const second = await context.newPage(servers.b.url('/leaf.html'));
    await second.waitForLoadState('load');
    expect(context.pages()).toEqual([page, second]);
    expect(context.activePage()).toBe(second);
    expect(await pageText(sdk)).toContain('leaf text');

    context.setActivePage(page);
    expect(context.activePage()).toBe(page);
    expect(context.pages()).toEqual([page, second]);
    expect(await pageText(sdk)).toContain('top document');
    // act() replays on the active page too: the click lands in the first page, not in the newest.
    await page.evaluate("document.getElementById('top').onclick = () => { window.clicked = true; }");
    await sdk.act({ selector: 'css=#top', method: 'click' }, { timeout: 10_000 });
    expect(await page.evaluate('window.clicked')).toBe(true);

    context.setActivePage(second);
    expect(await pageText(sdk)).toContain('leaf text');
    await second.close();
    // The page active before it takes over, and the closed page is never given again.
    expect(context.activePage()).toBe(page);
    expect(() => context.setActivePage(second)).toThrow(PageClosedError);
  });

  it('falls back to the most recently active page that is still open, not to the newest', async () => {
    const { page, sdk } = fixture;
    const context = sdk.context;
    const b = await context.newPage();
    const c = await context.newPage();
    context.setActivePage(page);
    context.setActivePage(c);
    context.setActivePage(b);
    // Recency now: page, c, b (most recent last).
    await b.close();
    expect(context.activePage()).toBe(c);
    await c.close();
    expect(context.activePage()).toBe(page);
  });

  it('becomes the popup a page opens; awaitActivePage waits for a popup that is on its way', async () => {
    const { page, sdk, servers } = fixture;
    const context = sdk.context;
    context.setActivePage(page);
    await page.goto(servers.a.url('/popups.html'));
    // Nothing is on its way: the active page at once.
    const started = Date.now();
    expect(await context.awaitActivePage()).toBe(page);
    expect(Date.now() - started).toBeLessThan(500);

    // window.open reaches the browser before evaluate() answers; the popup attaches a moment later.
    await page.evaluate((url: string) => void window.open(url), servers.b.url('/leaf.html?from=open'));
    const popup = await context.awaitActivePage(5000);
    expect(popup).not.toBe(page);
    expect(context.pages()).toContain(popup);
    expect(context.activePage()).toBe(popup);
    await popup.waitForLoadState('load');
    expect(popup.url()).toBe(servers.b.url('/leaf.html?from=open'));

    // A link with target=_blank clicked by act(): the new tab is the active page.
    context.setActivePage(page);
    await sdk.act({ selector: 'css=#blank', method: 'click' }, { timeout: 10_000 });
    const tab = await context.awaitActivePage();
    expect([page, popup]).not.toContain(tab);
    await tab.waitForLoadState('load');
    expect(tab.url()).toContain('from=blank');
    expect(await pageText(sdk)).toContain('leaf text');
    await Promise.all([popup.close(), tab.close()]);
    expect(context.activePage()).toBe(page);
  });

  it('refuses bad arguments with typed errors, and keeps working', async () => {
    const { page, sdk } = fixture;
    const context = sdk.context;
    expect(() => context.setActivePage({} as Page)).toThrow(InvalidOptionError);
    expect(() => context.setActivePage(undefined as unknown as Page)).toThrow(/pass a page of this context/);
    for (const bad of [-1, Number.NaN, '100']) {
      await expect(context.awaitActivePage(bad as number)).rejects.toThrow(InvalidOptionError);
    }
    expect(await context.awaitActivePage(0)).toBe(context.activePage());
    expect(context.activePage()).toBe(page);
  });
});

describe('a context without pages', () => {
  it('awaitActivePage throws PageNotFoundError; a page of another context is refused; close() ends the browser', async () => {
    const servers = await startFixtureServers();
    const sdk = new Sdk(sdkOptions());
    try {
      await sdk.init();
      const context = sdk.context;
      expect(() => context.setActivePage(fixture.page)).toThrow(/belongs to another context/);
      const only = context.pages()[0]!;
      await only.goto(servers.a.url('/leaf.html'));
      await only.close();
      expect(context.activePage()).toBeUndefined();
      await expect(context.awaitActivePage(100)).rejects.toThrow(PageNotFoundError);
      // Cookies still work without a page: through the browser's own session.
      await context.addCookies([{ name: 'kept', value: '1', url: servers.a.url('/') }]);
      expect((await context.cookies()).map((cookie) => cookie.name)).toEqual(['kept']);
      const again = await context.newPage(servers.a.url('/leaf.html'));
      expect(context.activePage()).toBe(again);
      const pid = sdk.browserProcessId()!;
      await context.close();
      expect(
        again.isClosed() ||
          (await again.title().then(
            () => false,
            () => true,
          )),
      ).toBe(true);
      expect(processAlive(pid)).toBe(false);
    } finally {
      await sdk.close();
      await servers.close();
    }
  });
});
