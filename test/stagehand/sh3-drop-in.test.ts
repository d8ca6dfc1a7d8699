// What Stagehand 3.7.3 does that its programs lean on, through the Stagehand entry: goto() to a host
// the network cannot reach resolves null on Chrome's error page (the Sdk throws NavigationError),
// context.conn and page.mainSession are the browser's and the page's DevTools sessions (an isolated
// context's too), and a frameLocator() whose frame is not there fails in Stagehand's words.
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NavigationError, Sdk, Stagehand, StagehandElementNotFoundError, type StagehandPage } from '../../src/index.js';
import { startFixtureServers, type FixtureServers } from '../fixtures/server.js';
import { sdkOptions } from '../helpers.js';

/** nowhere.invalid never resolves, without asking a DNS server. */
const NO_SUCH_HOST = '--host-resolver-rules=MAP nowhere.invalid ~NOTFOUND';

let servers: FixtureServers;
let stagehand: Stagehand;
let sdk: Sdk;
let closedPort: number;
beforeAll(async () => {
  const { localBrowserLaunchOptions } = sdkOptions();
  const args = [...(localBrowserLaunchOptions?.args ?? []), NO_SUCH_HOST];
  stagehand = new Stagehand({ verbose: 0, disablePino: true, localBrowserLaunchOptions: { ...localBrowserLaunchOptions, args } });
  sdk = new Sdk(sdkOptions({ localBrowserLaunchOptions: { args } }));
  // A port nobody listens on: taken, then given back.
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closedPort = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  [servers] = await Promise.all([startFixtureServers(), stagehand.init(), sdk.init()]);
});
afterAll(async () => {
  await Promise.all([servers?.close(), stagehand?.close(), sdk?.close()]);
});

describe('goto() to a host the network cannot reach', () => {
  it("resolves null on Chrome's error page through the Stagehand entry, and the page goes on working", async () => {
    const page = stagehand.context.pages()[0]!;
    for (const url of ['http://nowhere.invalid/', `http://127.0.0.1:${closedPort}/`]) {
      expect(await page.goto(url)).toBeNull();
      expect(page.url()).toBe('chrome-error://chromewebdata/');
    }
    const response = await page.goto(servers.a.url('/act-plain.html'));
    expect(response?.status()).toBe(200);
    expect(page.url()).toBe(servers.a.url('/act-plain.html'));
  });

  it('throws NavigationError through the Sdk, naming the URL', async () => {
    const page = sdk.context.pages()[0]!;
    for (const url of ['http://nowhere.invalid/', `http://127.0.0.1:${closedPort}/`]) {
      const error = await page.goto(url).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(NavigationError);
      expect(error).toMatchObject({ url });
    }
  });
});

describe('the DevTools sessions Stagehand 3 exposes', () => {
  it('context.conn sends to the browser and to a session, and listens to browser events', async () => {
    const { conn } = stagehand.context;
    const version = (await conn.send('Browser.getVersion')) as { product: string };
    expect(version.product).toMatch(/Chrom/);
    const page = stagehand.context.pages()[0] as StagehandPage;
    const title = (await conn.send('Runtime.evaluate', { expression: 'document.title', returnByValue: true }, page.mainSession.id)) as {
      result: { value: string };
    };
    expect(title.result.value).toBe(await page.title());
    const created: string[] = [];
    const onCreated = (params: unknown) => created.push((params as { targetInfo: { targetId: string } }).targetInfo.targetId);
    conn.on('Target.targetCreated', onCreated);
    await conn.send('Target.setDiscoverTargets', { discover: true });
    const opened = await stagehand.context.newPage();
    expect(created).toContain(opened.targetId());
    conn.off('Target.targetCreated', onCreated);
    const seen = created.length;
    await (await stagehand.context.newPage()).close();
    expect(created).toHaveLength(seen);
    await opened.close();
    await expect(conn.send('Browser.getVersion', {}, 'no-such-session')).rejects.toThrow(/no session of this browser/);
  });

  it("page.mainSession is the page's session: send, on, off", async () => {
    const page = stagehand.context.pages()[0] as StagehandPage;
    await page.goto(servers.a.url('/act-plain.html'));
    const { result } = await page.mainSession.send('Runtime.evaluate', { expression: '6 * 7', returnByValue: true });
    expect(result.value).toBe(42);
    const messages: string[] = [];
    const onConsole = (event: { args: Array<{ value?: unknown }> }) => messages.push(String(event.args[0]?.value));
    page.mainSession.on('Runtime.consoleAPICalled', onConsole);
    await page.mainSession.send('Runtime.enable');
    await page.evaluate(() => console.log('from the page'));
    expect(messages).toContain('from the page');
    page.mainSession.off('Runtime.consoleAPICalled', onConsole);
    // An Sdk's page has no mainSession: Tendril's own classes keep their surface.
    expect('mainSession' in sdk.context.pages()[0]!).toBe(false);
    expect('conn' in sdk.context).toBe(false);
  });

  it('an isolated context made from a Stagehand has them too: it is a StagehandContext, whose pages are StagehandPages', async () => {
    const isolated = await stagehand.newContext();
    try {
      const page = await isolated.newPage(servers.a.url('/act-plain.html'));
      await page.waitForLoadState('load');
      expect(isolated.constructor).toBe(stagehand.context.constructor);
      expect(page.constructor).toBe(stagehand.context.pages()[0]!.constructor);
      const { result } = (await isolated.conn.send(
        'Runtime.evaluate',
        { expression: 'location.pathname', returnByValue: true },
        page.mainSession.id,
      )) as { result: { value: string } };
      expect(result.value).toBe('/act-plain.html');
      // Made from an Sdk: Tendril's own.
      const plain = await sdk.newContext();
      expect('conn' in plain).toBe(false);
      await plain.close();
    } finally {
      await isolated.close();
    }
  });
});

describe('frameLocator() whose frame is not there', () => {
  it("fails in Stagehand 3.7.3's words, as its StagehandElementNotFoundError", async () => {
    const page = stagehand.context.pages()[0]!;
    await page.goto(servers.a.url('/act-plain.html'));
    const error = await page
      .frameLocator('iframe#nope')
      .locator('p')
      .click({ timeout: 2000 } as never)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StagehandElementNotFoundError);
    expect((error as Error).message).toBe('Could not find an element for the given xPath(s): iframe#nope');
  });
});
