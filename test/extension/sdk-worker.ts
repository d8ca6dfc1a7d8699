// The service worker of the test extension of test/extension/extension.test.ts (which bundles it, zod and the AI
// SDK included, from `tendril/extension`'s source). It runs `new Sdk({ env: "EXTENSION" })` and exposes
// `globalThis.harness`, whose methods the test calls with Runtime.evaluate. They never reject: each
// returns plain values, errors included, so the test asserts on them and the worker never sees an
// unhandled rejection (which, before the script has run, crashes the extension's renderer).
import { z } from 'zod';
import { Sdk, type ActionInput, type ModelConfiguration, type Page } from '../../src/extension.js';

interface ChromeTab {
  id?: number;
  url?: string;
}
declare const chrome: {
  tabs: {
    create(properties: { url: string; active?: boolean }): Promise<ChromeTab>;
    query(filter: object): Promise<ChromeTab[]>;
    remove(tabId: number): Promise<void>;
    onUpdated: {
      addListener(listener: (tabId: number, change: { status?: string }) => void): void;
      removeListener(listener: (tabId: number, change: { status?: string }) => void): void;
    };
  };
  debugger: { getTargets(): Promise<Array<{ tabId?: number; attached: boolean; url: string }>> };
};

const TIMEOUT_MS = 10_000;

interface Failure {
  error: { name: string; message: string };
}
async function settle<T>(work: () => Promise<T>): Promise<T | Failure> {
  try {
    return await work();
  } catch (error) {
    const e = error as { name?: string; message?: string };
    return { error: { name: e?.name ?? 'Error', message: e?.message ?? String(error) } };
  }
}

/** Opens a tab and resolves with its id once it has loaded (its out-of-process frames included). */
function openTab(url: string, active = true): Promise<number> {
  let timer: ReturnType<typeof setTimeout>;
  let listener: (tabId: number, change: { status?: string }) => void;
  const loaded = new Promise<number>((resolve, reject) => {
    let id: number | undefined;
    listener = (tabId, change) => {
      if (tabId === id && change.status === 'complete') resolve(tabId);
    };
    chrome.tabs.onUpdated.addListener(listener);
    chrome.tabs.create({ url, active }).then((tab) => {
      id = tab.id;
    }, reject);
    timer = setTimeout(() => reject(new Error(`Loading ${url} in a new tab took over ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
  });
  return loaded.finally(() => {
    clearTimeout(timer);
    chrome.tabs.onUpdated.removeListener(listener);
  });
}

const sdks = new Map<string, Sdk>();
const running = new Map<string, Promise<unknown>>();

function sdkNamed(name: string): Sdk {
  const sdk = sdks.get(name);
  if (!sdk) throw new Error(`no Sdk named ${name}`);
  return sdk;
}

/** The Sdk's page showing `url` (its first page when no url is given). */
function pageOf(sdk: Sdk, url?: string): Page {
  const page = url === undefined ? sdk.context.pages()[0] : sdk.context.pages().find((each) => each.url() === url);
  if (!page)
    throw new Error(
      `no page at ${url}; pages: ${sdk.context
        .pages()
        .map((each) => each.url())
        .join(', ')}`,
    );
  return page;
}

/** The schema of the extract test: it has to be built here, where extract() runs. */
const PRODUCT = z.object({
  name: z.string(),
  price: z.number(),
  tags: z.array(z.string()),
  link: z.string().url(),
});

const harness = {
  openTab: (url: string, active?: boolean) => settle(() => openTab(url, active)),
  closeTab: (tabId: number) => settle(() => chrome.tabs.remove(tabId).then(() => true)),

  /** `new Sdk({ env: "EXTENSION", ... })` and init(); the urls of its pages. */
  init: (name: string, options: { tabIds?: number[]; model?: ModelConfiguration; modelServer?: { url: string; apiKey: string } }) =>
    settle(async () => {
      const extension = options.tabIds ? { tabIds: options.tabIds } : undefined;
      const sdk = new Sdk({
        env: 'EXTENSION',
        verbose: 0,
        disablePino: true,
        extension,
        model: options.model,
        modelServer: options.modelServer,
      });
      await sdk.init();
      sdks.set(name, sdk);
      return { pages: sdk.context.pages().map((page) => page.url()) };
    }),

  pageText: (name: string, url?: string) =>
    settle(async () => {
      const sdk = sdkNamed(name);
      return (await sdk.extract({ page: pageOf(sdk, url) })).pageText;
    }),

  extract: (name: string, instruction: string, url?: string) =>
    settle(async () => {
      const sdk = sdkNamed(name);
      return sdk.extract(instruction, PRODUCT, { page: pageOf(sdk, url) });
    }),

  /** extract(instruction) with a model given for the call. */
  extractWith: (name: string, instruction: string, model: ModelConfiguration) =>
    settle(async () => {
      const sdk = sdkNamed(name);
      return sdk.extract(instruction, { model, page: pageOf(sdk) });
    }),

  observe: (name: string, instruction: string, url?: string) =>
    settle(async () => {
      const sdk = sdkNamed(name);
      return sdk.observe(instruction, { page: pageOf(sdk, url) });
    }),

  act: (name: string, what: string | ActionInput, url?: string) =>
    settle(async () => {
      const sdk = sdkNamed(name);
      return sdk.act(what, { page: pageOf(sdk, url) });
    }),

  /** Starts act(instruction) and returns at once; `finish` waits for it. */
  startAct: (name: string, instruction: string, url?: string) =>
    settle(async () => {
      const sdk = sdkNamed(name);
      const page = pageOf(sdk, url);
      running.set(
        name,
        settle(() => sdk.act(instruction, { page })),
      );
      return true;
    }),
  finish: (name: string) => settle(async () => running.get(name)),

  newPage: (name: string, url: string) =>
    settle(async () => {
      const sdk = sdkNamed(name);
      const page = await sdk.context.newPage(url);
      await page.waitForLoadState('load');
      return { url: page.url(), title: await page.title(), pages: sdk.context.pages().length };
    }),

  pages: (name: string) =>
    settle(async () =>
      sdkNamed(name)
        .context.pages()
        .map((page) => page.url()),
    ),

  /**
   * Stagehand's context methods through chrome.debugger (no browser session): a cookie, an init
   * script and an extra header, then what the page's next load (an /echo-headers page) saw.
   */
  contextExtras: (name: string, url: string) =>
    settle(async () => {
      const context = sdkNamed(name).context;
      await context.clearCookies();
      await context.addCookies([{ name: 'ext', value: '1', url }]);
      await context.addInitScript(() => {
        (globalThis as { initMark?: string }).initMark = 'from the extension';
      });
      await context.setExtraHTTPHeaders({ 'x-ext': 'on' });
      const page = pageOf(sdkNamed(name));
      await page.goto(url);
      const echoed = await page.evaluate<Record<string, string>>("JSON.parse(document.getElementById('headers').textContent)");
      const seen = {
        cookies: (await context.cookies(url)).map((cookie) => cookie.name),
        cookieHeader: echoed.cookie,
        header: echoed['x-ext'],
        initMark: await page.evaluate('window.initMark'),
        fromPath: await settle(() => context.addInitScript({ path: '/init.js' })),
      };
      await context.setExtraHTTPHeaders({});
      await context.clearCookies();
      return { ...seen, cleared: (await context.cookies()).length };
    }),

  /** close(): the urls of the tabs open after it, and of those the debugger is still attached to. */
  close: (name: string) =>
    settle(async () => {
      await sdkNamed(name).close();
      sdks.delete(name);
      const [tabs, targets] = await Promise.all([chrome.tabs.query({}), chrome.debugger.getTargets()]);
      return {
        open: tabs.map((tab) => tab.url),
        attached: targets.filter((each) => each.attached && each.tabId !== undefined).map((each) => each.url),
      };
    }),

  /** What the entry refuses: other envs, launch options, connectURL(). */
  refusals: (name: string) =>
    settle(async () => ({
      local: await settle(async () => new Sdk({ env: 'LOCAL' }) && 'no error'),
      launchOptions: await settle(async () => new Sdk({ env: 'EXTENSION', localBrowserLaunchOptions: { headless: true } }) && 'no error'),
      connectUrl: await settle(async () => sdkNamed(name).connectURL()),
    })),
};

(globalThis as { harness?: typeof harness }).harness = harness;
// The test waits for this line (or finds `harness` already set) before calling anything.
console.info('tendril sdk harness ready');
