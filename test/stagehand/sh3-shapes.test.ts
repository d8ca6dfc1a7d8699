// One shape per method on each entry's classes: goBack() and goForward() resolve as goto() does (the
// response, or null) on the Sdk's pages and the Stagehand entry's alike; the response has one address
// method, serverAddr(), and headers() with lower-case names; the Stagehand entry's response joins a
// repeated header as 3.7.3 does and adds allHeaders(); frameLocator()'s types say what each entry's
// locators are. Both browsers run without the back-forward cache, so every history move fetches its
// document and has a response to check (with the cache, a move may resolve null: page-capture.test.ts).
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import {
  Sdk,
  Stagehand,
  type Frame,
  type Locator,
  type NavigationResponse,
  type Page,
  type StagehandFrameLocator,
  type StagehandLocator,
  type StagehandPage,
  type StagehandResponse,
} from '../../src/index.js';
import { sdkOptions } from '../helpers.js';

const NO_BFCACHE = '--disable-features=BackForwardCache';

let server: Server;
let origin: string;
let sdk: Sdk;
let stagehand: Stagehand;
beforeAll(async () => {
  // Pages with a header sent twice (Chrome joins the two values with a newline), and an iframe.
  server = createServer((req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.setHeader('X-Twice', ['one', 'two']);
    const name = (req.url ?? '/').slice(1) || 'home';
    res.end(
      name === 'framed'
        ? '<!doctype html><title>Framed</title><p id="inner">inside</p>'
        : `<!doctype html><title>${name}</title><h1>${name}</h1><iframe id="child" src="/framed"></iframe>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const { localBrowserLaunchOptions } = sdkOptions();
  const args = [...(localBrowserLaunchOptions?.args ?? []), NO_BFCACHE];
  sdk = new Sdk(sdkOptions({ localBrowserLaunchOptions: { args } }));
  stagehand = new Stagehand({ verbose: 0, disablePino: true, localBrowserLaunchOptions: { ...localBrowserLaunchOptions, args } });
  await Promise.all([sdk.init(), stagehand.init()]);
});
afterAll(async () => {
  await Promise.all([sdk?.close(), stagehand?.close()]);
  await new Promise<void>((resolve) => server?.close(() => resolve()));
});

/** Walks a new page's history both ways; what each call resolved with. */
async function walkHistory(page: Page) {
  const nothingBefore = await page.goBack();
  const nothingAfter = await page.goForward({ waitUntil: 'load' });
  const blankUrl = page.url();
  await page.goto(`${origin}/first`);
  await page.goto(`${origin}/second`);
  const back = await page.goBack();
  const backUrl = page.url();
  const forward = await page.goForward({ waitUntil: 'load' });
  const forwardUrl = page.url();
  const pastTheEnd = await page.goForward();
  const backAgain = await page.goBack({ waitUntil: 'domcontentloaded', timeoutMs: 10_000 });
  return { nothingBefore, nothingAfter, blankUrl, back, backUrl, forward, forwardUrl, pastTheEnd, backAgain };
}

describe('goBack() and goForward()', () => {
  it("resolve with the document's response as goto() does, or null with no entry to go to, on an Sdk's page", async () => {
    const page = await sdk.context.newPage();
    try {
      expectTypeOf(page.goBack).returns.toEqualTypeOf<Promise<NavigationResponse | null>>();
      expectTypeOf(page.goForward).returns.toEqualTypeOf<Promise<NavigationResponse | null>>();
      const walk = await walkHistory(page);
      expect([walk.nothingBefore, walk.nothingAfter, walk.blankUrl]).toEqual([null, null, 'about:blank']);
      expect([walk.back?.url(), walk.back?.status(), walk.backUrl]).toEqual([`${origin}/first`, 200, `${origin}/first`]);
      expect([walk.forward?.url(), walk.forward?.ok(), walk.forwardUrl]).toEqual([`${origin}/second`, true, `${origin}/second`]);
      expect(walk.pastTheEnd).toBeNull();
      expect(walk.backAgain?.url()).toBe(`${origin}/first`);
      // Tendril's own response: not Stagehand's.
      expect('body' in walk.back!).toBe(false);
    } finally {
      await page.close();
    }
  });

  it("resolve with Stagehand's Response, or null, on a Stagehand's page (3.7.3's shape)", async () => {
    const page = await stagehand.context.newPage();
    try {
      expectTypeOf(page.goBack).returns.toEqualTypeOf<Promise<StagehandResponse | null>>();
      expectTypeOf(page.goForward).returns.toEqualTypeOf<Promise<StagehandResponse | null>>();
      const walk = await walkHistory(page);
      expect([walk.nothingBefore, walk.nothingAfter, walk.blankUrl]).toEqual([null, null, 'about:blank']);
      expect([walk.back?.url(), walk.back?.status(), walk.backUrl]).toEqual([`${origin}/first`, 200, `${origin}/first`]);
      expect([walk.forward?.url(), walk.forwardUrl]).toEqual([`${origin}/second`, `${origin}/second`]);
      expect(walk.pastTheEnd).toBeNull();
      const backAgain = walk.backAgain as StagehandResponse;
      expect(await backAgain.text()).toContain('<h1>first</h1>');
      expect(backAgain.frame()).toBe(page.mainFrame());
    } finally {
      await page.close();
    }
  });
});

describe("goto()'s response", () => {
  const port = () => Number(new URL(origin).port);

  it("has one address method, serverAddr(), and headers() with lower-case names, on an Sdk's page", async () => {
    const page = sdk.context.pages()[0]!;
    const response = (await page.goto(`${origin}/home`))!;
    expectTypeOf(response.serverAddr).returns.toEqualTypeOf<Promise<{ ipAddress: string; port: number } | null>>();
    expect(await response.serverAddr()).toEqual({ ipAddress: '127.0.0.1', port: port() });
    expect('remoteAddress' in response).toBe(false);
    const headers = response.headers();
    expect(headers['content-type']).toBe('text/html; charset=utf-8');
    // As Chrome reports a header sent twice: one value a line.
    expect(headers['x-twice']).toBe('one\ntwo');
    expect(Object.keys(headers).every((name) => name === name.toLowerCase())).toBe(true);
    expect('allHeaders' in response).toBe(false);
  });

  it("joins a repeated header as 3.7.3's headers() does, and has allHeaders() with the names as sent, on a Stagehand's page", async () => {
    const page = stagehand.context.pages()[0]!;
    const response = (await page.goto(`${origin}/home`))!;
    expect(await response.serverAddr()).toEqual({ ipAddress: '127.0.0.1', port: port() });
    expect('remoteAddress' in response).toBe(false);
    const headers = response.headers();
    expect(headers['x-twice']).toBe('one, two');
    expect(headers['content-type']).toBe('text/html; charset=utf-8');
    expect(Object.keys(headers).every((name) => name === name.toLowerCase())).toBe(true);
    const all = await response.allHeaders();
    expect(all['X-Twice']).toBe('one\ntwo');
    expect(all['x-twice']).toBeUndefined();
    expect(await response.headerValues('x-twice')).toEqual(['one', 'two']);
  });
});

describe('frameLocator() of each entry', () => {
  it("is typed and built as the entry's own: Tendril's Locator on an Sdk, StagehandLocator on a Stagehand", async () => {
    const sdkPage = sdk.context.pages()[0]!;
    const stagehandPage = stagehand.context.pages()[0]!;
    await Promise.all([sdkPage.goto(`${origin}/home`), stagehandPage.goto(`${origin}/home`)]);

    const plain = sdkPage.frameLocator('#child');
    expectTypeOf(plain.locator('p')).toEqualTypeOf<Locator>();
    expectTypeOf(plain.frameLocator('iframe').locator('p')).toEqualTypeOf<Locator>();
    expectTypeOf(plain.resolveFrame()).toEqualTypeOf<Promise<Frame>>();
    expect(await plain.locator('#inner').textContent()).toBe('inside');
    expect((await plain.resolveFrame()).url()).toBe(`${origin}/framed`);
    expect('resolveNode' in plain.locator('#inner')).toBe(false);

    const theirs = stagehandPage.frameLocator('#child');
    expectTypeOf(stagehandPage).toEqualTypeOf<StagehandPage>();
    expectTypeOf(theirs).toEqualTypeOf<StagehandFrameLocator>();
    expectTypeOf(theirs.frameLocator('iframe')).toEqualTypeOf<StagehandFrameLocator>();
    expectTypeOf(theirs.locator('p')).toEqualTypeOf<StagehandLocator>();
    expectTypeOf(theirs.resolveFrame()).toEqualTypeOf<Promise<Frame>>();
    expect(await theirs.locator('#inner').textContent()).toBe('inside');
    expect(typeof theirs.locator('#inner').resolveNode).toBe('function');
  });
});
