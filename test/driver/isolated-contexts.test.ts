// sdk.newContext(): browser contexts isolated from the Sdk's own and from each other, in one real
// Chromium: their own tabs, cookies and storage; extract and act take their pages; close() disposes
// everything in them; downloads and the domainPolicy reach them; an attached browser keeps nothing
// of them once the Sdk lets it go.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import CDP from 'chrome-remote-interface';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContextClosedError, DomainPolicyError, InvalidOptionError, Sdk, type Download, type Page } from '../../src/index.js';
import { withDeadline } from '../../src/util/time.js';
import { startFixtureServers, type FixtureServers } from '../fixtures/server.js';
import { sdkOptions, startDebugChrome } from '../helpers.js';

let servers: FixtureServers;
let sdk: Sdk;
let downloads: string;
beforeAll(async () => {
  downloads = mkdtempSync(path.join(os.tmpdir(), 'tendril-test-isolated-'));
  servers = await startFixtureServers();
  // 127.0.0.1 only: localhost (the other fixture origin) is refused in every context.
  sdk = new Sdk(sdkOptions({ downloadsPath: downloads, domainPolicy: { allow: ['127.0.0.1'] } }));
  await sdk.init();
});
afterAll(async () => {
  await sdk?.close();
  await servers?.close();
  rmSync(downloads, { recursive: true, force: true });
});

/** What the page's own script sees of its cookies and storage. */
function stateOf(page: Page): Promise<string> {
  return page.evaluate<string>("document.cookie + ' | ' + (localStorage.getItem('who') ?? '-')");
}

async function remember(page: Page, who: string): Promise<void> {
  await page.goto(servers.a.url(`leaf.html?who=${who}`));
  await page.evaluate(`document.cookie = 'who=${who}; path=/'; localStorage.setItem('who', '${who}')`);
}

type Client = Awaited<ReturnType<typeof CDP>>;

/** The browser contexts the browser itself has, and the ids of the tabs in each, asked over the test's own connection. */
async function browserContextsOf(client: Client): Promise<Map<string, string[]>> {
  const { browserContextIds } = await client.send('Target.getBrowserContexts');
  const { targetInfos } = await client.send('Target.getTargets');
  return new Map(
    browserContextIds.map((id) => [
      id,
      targetInfos.filter((info) => info.type === 'page' && info.browserContextId === id).map((info) => info.targetId),
    ]),
  );
}

describe('sdk.newContext()', () => {
  it('gives each context its own tabs, cookies and storage; extract and act take its pages; close() disposes it all', async () => {
    const main = sdk.context.pages()[0]!;
    const [one, two] = await Promise.all([sdk.newContext(), sdk.newContext()]);
    expect(one.pages()).toEqual([]);
    const [pageOne, pageTwo] = await Promise.all([one.newPage(), two.newPage()]);
    // Each context lists its own page only; the Sdk's own context none of them.
    expect(one.pages()).toEqual([pageOne]);
    expect(two.pages()).toEqual([pageTwo]);
    expect(sdk.context.pages()).toEqual([main]);

    await Promise.all([remember(main, 'main'), remember(pageOne, 'one'), remember(pageTwo, 'two')]);
    expect(await Promise.all([stateOf(main), stateOf(pageOne), stateOf(pageTwo)])).toEqual([
      'who=main | main',
      'who=one | one',
      'who=two | two',
    ]);
    expect((await one.cookies()).map((cookie) => `${cookie.name}=${cookie.value}`)).toEqual(['who=one']);
    expect((await sdk.context.cookies()).map((cookie) => `${cookie.name}=${cookie.value}`)).toEqual(['who=main']);
    // The cookie each context sends with its requests is its own.
    await Promise.all([pageOne.goto(servers.a.url('echo-headers')), pageTwo.goto(servers.a.url('echo-headers'))]);
    const sent = (page: Page) => page.evaluate<string>("JSON.parse(document.getElementById('headers').textContent).cookie");
    expect(await Promise.all([sent(pageOne), sent(pageTwo)])).toEqual(['who=one', 'who=two']);

    // The Sdk's operations take an isolated context's page, and leave the others alone.
    await pageOne.goto(servers.a.url('act.html'));
    const acted = await sdk.act({ selector: '#top', method: 'click' }, { page: pageOne });
    expect(acted.success).toBe(true);
    expect((await sdk.extract({ page: pageOne, selector: '#top-state' })).pageText).toMatch(/top clicked 1/);
    expect((await sdk.extract({ page: main })).pageText).not.toMatch(/top clicked/);

    // A popup opened in a context stays in it.
    await pageTwo.goto(servers.a.url('popups.html'));
    const popup = new Promise<Page>((resolve) => two.once('page', resolve));
    await sdk.act({ selector: '#open', method: 'click' }, { page: pageTwo });
    // Awaited first: pages() is a copy taken when it is called.
    const opened = await withDeadline(popup, 10_000, 'Waiting for the popup');
    expect(two.pages()).toContain(opened);
    expect(sdk.context.pages()).toEqual([main]);
    expect(one.pages()).toEqual([pageOne]);

    // close(): its pages are closed, and its cookies are gone with it; the others keep theirs.
    await one.close();
    expect(pageOne.isClosed()).toBe(true);
    expect(one.pages()).toEqual([]);
    await expect(one.newPage()).rejects.toThrow(ContextClosedError);
    await expect(sdk.extract({ page: pageOne })).rejects.toThrow(InvalidOptionError);
    expect(await stateOf(pageTwo)).toBe('who=two | two');
    expect(await stateOf(main)).toBe('who=main | main');
    await two.close();
    expect(two.pages()).toEqual([]);
    // A new context starts empty.
    const three = await sdk.newContext();
    const pageThree = await three.newPage(servers.a.url('leaf.html'));
    await pageThree.waitForLoadState('load');
    expect(await stateOf(pageThree)).toBe(' | -');
    expect(await three.cookies()).toEqual([]);
    await three.close();
  }, 60_000);

  it('reads, sets and clears (all, or by a filter) the cookies of a context with no page open', async () => {
    const context = await sdk.newContext();
    try {
      await context.addCookies([
        { name: 'keep', value: 'k', url: servers.a.url('/') },
        { name: 'drop', value: 'd', url: servers.a.url('/') },
      ]);
      expect((await context.cookies()).map((cookie) => cookie.name).sort()).toEqual(['drop', 'keep']);
      await context.clearCookies({ name: 'drop' });
      expect((await context.cookies()).map((cookie) => cookie.name)).toEqual(['keep']);
      // Its first page sends the one kept; the Sdk's own context has none of them.
      const page = await context.newPage(servers.a.url('echo-headers'));
      await page.waitForLoadState('load');
      expect(await page.evaluate<string>("JSON.parse(document.getElementById('headers').textContent).cookie")).toBe('keep=k');
      expect((await sdk.context.cookies()).map((cookie) => cookie.name)).not.toContain('keep');
      await page.close();
      await context.clearCookies();
      expect(await context.cookies()).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("saves a context's downloads in the Sdk's folder, reported on its page, and holds it to the domainPolicy", async () => {
    const context = await sdk.newContext();
    try {
      const page = await context.newPage(servers.a.url('download-link.html?name=isolated.txt'));
      // newPage(url) resolves once the tab is attached, as Stagehand's does; its document loads after.
      await page.waitForLoadState('load');
      const download = withDeadline(new Promise<Download>((resolve) => page.once('download', resolve)), 10_000, 'Waiting for the download');
      await sdk.act({ selector: '#file', method: 'click' }, { page });
      const file = await (await download).path();
      expect(path.dirname(file)).toBe(downloads);
      expect(readFileSync(file, 'utf8')).toBe('contents of isolated.txt');
      // localhost is not allowed: not in a new tab, nor by a navigation of the context's page.
      await expect(context.newPage(servers.b.url('leaf.html'))).rejects.toThrow(DomainPolicyError);
      await expect(page.goto(servers.b.url('leaf.html'))).rejects.toThrow(DomainPolicyError);
      expect(page.url()).toBe(servers.a.url('download-link.html?name=isolated.txt'));
    } finally {
      await context.close();
    }
  });
});

describe('isolated contexts in an attached browser', () => {
  it('are disposed by close(), and by the Sdk letting the browser go, leaving the browser as it was', async () => {
    const chrome = await startDebugChrome();
    const client = await CDP({ target: chrome.wsUrl });
    try {
      const attached = new Sdk({ verbose: 0, disablePino: true, localBrowserLaunchOptions: { cdpUrl: chrome.wsUrl } });
      await attached.init();
      const [closed, kept] = await Promise.all([attached.newContext(), attached.newContext()]);
      const [closedPage, keptPage] = await Promise.all([
        closed.newPage(servers.a.url('leaf.html')),
        kept.newPage(servers.a.url('leaf.html')),
      ]);
      const made = await browserContextsOf(client);
      expect([...made.values()].sort()).toEqual([[closedPage.targetId()], [keptPage.targetId()]].sort());
      await closed.close();
      // Its tab went with it; the other context and its tab are still there.
      expect([...(await browserContextsOf(client)).values()]).toEqual([[keptPage.targetId()]]);

      // The Sdk only detaches from a browser it attached to: Chrome disposes the contexts it made.
      await client.send('Target.setDiscoverTargets', { discover: true });
      const gone = new Promise<void>((resolve) =>
        client.on('Target.targetDestroyed', ({ targetId }) => targetId === keptPage.targetId() && resolve()),
      );
      await attached.close();
      await withDeadline(gone, 5000, 'Waiting for the tab of the context to go');
      expect(await browserContextsOf(client)).toEqual(new Map());
      expect(chrome.alive()).toBe(true);
    } finally {
      await client.close();
      await chrome.kill();
    }
  }, 60_000);
});
