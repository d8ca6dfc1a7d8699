// The switches every launch adds to spare a job's browser work that no page needs, and the merging
// of feature lists (Chrome keeps only the last --disable-features, --enable-features or
// --disable-blink-features it is given, so a caller's list must not replace Tendril's, nor the other
// way round).
import net from 'node:net';
import CDP from 'chrome-remote-interface';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromeArgs } from '../../src/browser/launch.js';
import { Sdk } from '../../src/index.js';
import { startFixtureServers, type FixtureServers } from '../fixtures/server.js';
import { sdkOptions, TEST_ARGS } from '../helpers.js';

const OMNIBOX = '--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup';
const NO_SPARE = '--disable-features=SpareRendererForSitePerProcess';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

interface Launched {
  sdk: Sdk;
  /** A second DevTools client on the browser target, to see what Chrome itself has open. */
  browser: CDP.Client;
}

/** An Sdk with the caller's own feature lists among its args, and a DevTools port for a second client. */
async function launch(ignoreDefaultArgs?: string[]): Promise<Launched> {
  const port = await freePort();
  const args = [...TEST_ARGS, '--disable-features=TendrilNoSuchFeature', '--disable-blink-features=EyeDropperAPI'];
  const sdk = new Sdk(sdkOptions({ localBrowserLaunchOptions: { port, args, ignoreDefaultArgs } }));
  await sdk.init();
  const version = (await (await fetch(`http://127.0.0.1:${port}/json/version`)).json()) as { webSocketDebuggerUrl: string };
  return { sdk, browser: await CDP({ target: version.webSocketDebuggerUrl }) };
}

async function browserPages(browser: CDP.Client): Promise<string[]> {
  const { targetInfos } = await browser.send('Target.getTargets');
  return targetInfos.map((each) => each.url);
}

let servers: FixtureServers;
let spared: Launched;
let kept: Launched;
beforeAll(async () => {
  servers = await startFixtureServers();
  spared = await launch();
  kept = await launch([OMNIBOX, NO_SPARE]);
});
afterAll(async () => {
  for (const each of [spared, kept]) {
    await each?.browser.close();
    await each?.sdk.close();
  }
  await servers?.close();
});

describe("the launch's switches", () => {
  it("merge each feature list of the caller's with Tendril's into one, in the place of the first", () => {
    const args = chromeArgs(
      { args: ['--disable-features=Mine', '--enable-features=A', '--enable-features=B,A', '--disable-blink-features=Theirs'] },
      '/tmp/profile',
    );
    expect(args.filter((arg) => arg.startsWith('--disable-features='))).toEqual([
      '--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,SpareRendererForSitePerProcess,Mine',
    ]);
    expect(args.filter((arg) => arg.startsWith('--enable-features='))).toEqual(['--enable-features=A,B']);
    expect(args.filter((arg) => arg.startsWith('--disable-blink-features='))).toEqual([
      '--disable-blink-features=Theirs,AutomationControlled',
    ]);
    expect(chromeArgs({ ignoreDefaultArgs: [OMNIBOX] }, '/tmp/profile').some((arg) => arg.includes('Omnibox'))).toBe(false);
    // A feature the caller enables is not disabled by Tendril's defaults (Chrome disables one named in both).
    const enabled = chromeArgs({ args: ['--enable-features=WebUIOmniboxPopup', '--disable-features=Mine'] }, '/tmp/profile');
    expect(enabled.filter((arg) => /^--(enable|disable)-features=/.test(arg))).toEqual([
      '--disable-features=WebUIOmniboxAimPopup,SpareRendererForSitePerProcess,Mine',
      '--enable-features=WebUIOmniboxPopup',
    ]);
  });

  it("keep Chrome's omnibox pages out of every new context, though the caller passes --disable-features of its own", async () => {
    for (const { sdk, browser } of [spared, kept]) {
      const context = await sdk.newContext();
      const page = await context.newPage();
      await page.goto(servers.a.url('/frames.html'));
      const urls = await browserPages(browser);
      await context.close();
      const omnibox = urls.filter((url) => url.startsWith('chrome://omnibox-popup'));
      // Without the switch (ignoreDefaultArgs), Chrome opens them: the check sees what it would miss.
      if (sdk === kept.sdk) expect(omnibox.length).toBeGreaterThan(0);
      else expect(omnibox).toEqual([]);
    }
  });

  it("leave the caller's --disable-blink-features in force beside Tendril's own", async () => {
    const page = spared.sdk.context.pages()[0]!;
    await page.goto(servers.a.url('/frames.html'));
    // The caller's (EyeDropperAPI, which Chrome gives loopback pages) and Tendril's (AutomationControlled).
    expect(await page.evaluate(() => ({ eyeDropper: 'EyeDropper' in window, webdriver: navigator.webdriver }))).toEqual({
      eyeDropper: false,
      webdriver: false,
    });
  });

  it('leave what a page reads the same: frames, an out-of-process frame, open and closed shadow roots', async () => {
    const texts: string[] = [];
    for (const { sdk } of [spared, kept]) {
      const page = sdk.context.pages()[0]!;
      for (const path of ['/frames.html', '/shadow.html']) {
        await page.goto(servers.a.url(path));
        texts.push((await sdk.extract({ page })).pageText);
      }
    }
    expect(texts[0]!.length).toBeGreaterThan(100);
    expect(texts.slice(2)).toEqual(texts.slice(0, 2));
  });
});
