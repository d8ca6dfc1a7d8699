// `tendril relay` for real: the relay as its own process (the CLI), Chromium with the example
// extension (npm run build:extension) connected to it as its user would connect it, a Tendril Sdk
// attached through the relay's cdpUrl, and chrome-remote-interface as an independent client.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { request } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import CDP from 'chrome-remote-interface';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserConnectError, ConnectionClosedError, PageClosedError, Sdk, TargetClosedError } from '../../src/index.js';
// @ts-expect-error: a plain ES module, without types
import { buildExampleExtension } from '../../scripts/build-extension.mjs';
import type { BrowserHandle } from '../../src/browser/browser.js';
import { launchChrome } from '../../src/browser/launch.js';
import { Logger } from '../../src/logger.js';
import { startFixtureServers, type FixtureServers } from '../fixtures/server.js';
import { CHROME, TEST_ARGS } from '../helpers.js';
import { loadExtension, type LoadedExtension } from './load.js';
import { startFakeModel, type FakeModel, type FakeRequest } from '../support/fake-model.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.join(HERE, '..', '..');
const STEP_TIMEOUT_MS = 15_000;

interface RelayProcess {
  child: ChildProcess;
  extensionUrl: string;
  cdpUrl: string;
  stdout: string;
  stderr: string;
}

/** Runs `tendril relay --port 0` and reads the two addresses it prints. */
function startRelayProcess(): Promise<RelayProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli/main.ts'), 'relay', '--port', '0'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const relay = { child, extensionUrl: '', cdpUrl: '', stdout: '', stderr: '' };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the relay printed no addresses within 20 s: ${relay.stdout} ${relay.stderr}`)),
      20_000,
    );
    child.stderr!.on('data', (chunk: Buffer) => (relay.stderr += chunk.toString()));
    child.stdout!.on('data', (chunk: Buffer) => {
      relay.stdout += chunk.toString();
      const extension = /^\s+(ws:\/\/\S+\/extension\?token=\S+)$/m.exec(relay.stdout);
      const cdp = /^\s+(ws:\/\/\S+\/devtools\/browser\?token=\S+)$/m.exec(relay.stdout);
      if (extension && cdp) {
        clearTimeout(timer);
        resolve({ ...relay, extensionUrl: extension[1]!, cdpUrl: cdp[1]! });
      }
    });
    child.once('exit', (code) => reject(new Error(`the relay exited (${code}): ${relay.stderr}`)));
  });
}

/** A WebSocket upgrade request, answered with a status and body instead of a socket. */
function upgrade(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url.replace(/^ws/, 'http'));
    const req = request(target, {
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
      },
    });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 101, body: '' });
    });
    req.on('error', reject);
    req.end();
  });
}

function withToken(url: string, token: string): string {
  const u = new URL(url);
  u.searchParams.set('token', token);
  return u.toString();
}

let servers: FixtureServers;
let fake: FakeModel;
let browser: BrowserHandle;
let ext: LoadedExtension;
let relay: RelayProcess;
let extensionDir: string;
let sdk: Sdk | undefined;
let sharedTab: number;
const model = () => ({ modelName: 'openai/gpt-4.1-mini', apiKey: 'sk-relay-test', baseURL: fake.url });
const attach = () => new Sdk({ verbose: 0, disablePino: true, localBrowserLaunchOptions: { cdpUrl: relay.cdpUrl } });

/** The extension's relay side, as its side panel asks it (examples/extension/relay.ts). */
type Answer = { ok: boolean; error?: string; view: { connection: string; driven: boolean; shared: Array<{ id: number; url: string }> } };
const ask = (request: Record<string, unknown>) => ext.call<Answer>('relay', request);

/** `promise`, or a failure naming `what` after STEP_TIMEOUT_MS. */
function step<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${STEP_TIMEOUT_MS} ms`)), STEP_TIMEOUT_MS);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** Evaluates `expression` (a promise) in the extension's service worker. */
async function inWorker<T>(expression: string): Promise<T> {
  const { result, exceptionDetails } = await ext.worker.send(
    'Runtime.evaluate',
    { expression, awaitPromise: true, returnByValue: true },
    { timeoutMs: STEP_TIMEOUT_MS },
  );
  if (exceptionDetails) throw new Error(exceptionDetails.exception?.description ?? exceptionDetails.text);
  return result.value as T;
}

/** Opens a tab in the user's browser and resolves with its id once it has loaded. */
const openTab = (url: string) =>
  inWorker<number>(`new Promise((resolve, reject) => {
    let id;
    const listener = (tabId, change) => {
      if (tabId !== id || change.status !== 'complete') return;
      chrome.tabs.onUpdated.removeListener(listener);
      resolve(tabId);
    };
    chrome.tabs.onUpdated.addListener(listener);
    chrome.tabs.create({ url: ${JSON.stringify(url)} }).then((tab) => { id = tab.id; }, reject);
  })`);
const openTabs = () =>
  inWorker<Array<{ id: number; url: string }>>('chrome.tabs.query({}).then((tabs) => tabs.map((tab) => ({ id: tab.id, url: tab.url })))');

beforeAll(async () => {
  extensionDir = mkdtempSync(path.join(os.tmpdir(), 'tendril-test-relay-extension-'));
  [servers, fake, relay] = await Promise.all([
    startFixtureServers(),
    startFakeModel(),
    startRelayProcess(),
    buildExampleExtension(extensionDir),
  ]);
  browser = await launchChrome(
    {
      executablePath: CHROME,
      args: [...TEST_ARGS, '--enable-unsafe-extension-debugging', '--disable-breakpad', '--disable-crash-reporter'],
    },
    new Logger({ verbose: 0, disablePino: true }),
    STEP_TIMEOUT_MS,
  );
  ext = await loadExtension(browser, extensionDir, {
    readyLine: 'tendril example ready',
    timeoutMs: STEP_TIMEOUT_MS,
    global: 'tendrilExample',
  });
});

afterAll(async () => {
  await sdk?.close().catch(() => undefined);
  relay?.child.kill('SIGKILL');
  await browser?.close();
  await Promise.all([servers?.close(), fake?.close()]);
  if (extensionDir) rmSync(extensionDir, { recursive: true, force: true });
});

describe('tendril relay', () => {
  it('refuses a wrong token with 401 and nothing else, and a client while no extension is connected', async () => {
    const wrong = 'x'.repeat(32);
    for (const url of [withToken(relay.cdpUrl, wrong), withToken(relay.extensionUrl, wrong), relay.cdpUrl.replace(/\?.*$/, '')]) {
      expect(await upgrade(url)).toEqual({ status: 401, body: '' });
    }
    // Each token opens its own door only.
    const extensionToken = new URL(relay.extensionUrl).searchParams.get('token')!;
    expect((await upgrade(withToken(relay.cdpUrl, extensionToken))).status).toBe(401);
    // The right token before the user connected the extension: says what is missing.
    const early = await upgrade(relay.cdpUrl);
    expect(early.status).toBe(503);
    expect(early.body).toMatch(/No Tendril extension is connected/);
    const refusedClient = await attach()
      .init()
      .catch((error: unknown) => error);
    expect(refusedClient).toBeInstanceOf(BrowserConnectError);
    expect((refusedClient as Error).message).toMatch(/HTTP 503, No Tendril extension is connected/);
    // The extension with a wrong token is refused too, and says so.
    const refused = await ask({ kind: 'connect', url: withToken(relay.extensionUrl, wrong) });
    expect(refused.ok).toBe(false);
    expect(refused.error).toMatch(/refused the connection/);
    expect(refused.error).not.toContain(wrong);
    expect(refused.view.connection).toBe('disconnected');
    // Tokens reach no log line of the relay.
    const tokens = [extensionToken, new URL(relay.cdpUrl).searchParams.get('token')!];
    for (const token of tokens) expect(relay.stderr).not.toContain(token);
  });

  it('gives an attached Sdk the shared tab, read completely: out-of-process frames and closed shadow roots', async () => {
    // The user opens a tab, connects the extension (the active tab is shared by default).
    sharedTab = await openTab(servers.a.url('/frames.html'));
    const connected = await ask({ kind: 'connect', url: relay.extensionUrl });
    expect(connected).toMatchObject({ ok: true, view: { connection: 'connected', driven: false, shared: [{ id: sharedTab }] } });
    sdk = attach();
    await sdk.init();
    const pages = sdk.context.pages();
    expect(pages.map((page) => page.url())).toEqual([servers.a.url('/frames.html')]);
    const oop = pages[0]!.frames().find((frame) => frame.isOutOfProcess());
    expect(oop?.url()).toBe(`${servers.b.origin}/oop.html`);
    const { pageText } = await sdk.extract();
    for (const text of ['Top', 'from srcdoc', 'cross-origin child', 'closed in oopif', 'leaf text']) expect(pageText).toContain(text);
    expect((await ask({ kind: 'status' })).view).toMatchObject({ connection: 'connected', driven: true, shared: [{ id: sharedTab }] });
  });

  it('clicks inside an out-of-process iframe with act(), and observe() then act(action) click in a closed shadow root', async () => {
    const page = sdk!.context.pages()[0]!;
    await page.goto(servers.a.url('act.html'));
    fake.script((request: FakeRequest) => {
      const id = [...request.user.matchAll(/\[((?:\d+-)?\d+)\] button: Frame button/g)].at(-1)?.[1];
      if (!id) throw new Error(`no frame button in the prompt:\n${request.user}`);
      return { json: { elementId: id, method: 'click', arguments: [], description: 'click Frame button' } };
    });
    expect((await sdk!.act('click the button in the partner frame', { model: model() })).success).toBe(true);
    const frame = page.frames().find((each) => each.isOutOfProcess() && each.url().includes('localhost'))!;
    expect(await frame.evaluate(() => document.getElementById('frame-state')!.textContent)).toBe('frame clicked 1');

    // observe() finds the closed shadow root's button; act(action) replays it without the model.
    fake.script((request: FakeRequest) => {
      const id = /\[((?:\d+-)?\d+)\] button: Shadow button/.exec(request.user)?.[1];
      if (!id) throw new Error(`no shadow button in the prompt:\n${request.user}`);
      return { json: { elements: [{ elementId: id, description: 'the shadow button', method: 'click', arguments: [] }] } };
    });
    const [action] = await sdk!.observe('the shadow button', { model: model() });
    expect(action?.selector).toMatch(/^xpath=\/html/);
    const requests = fake.requests.length;
    expect((await sdk!.act(action!)).success).toBe(true);
    expect(fake.requests.length).toBe(requests);
    expect(await page.evaluate(() => (document.getElementById('closed-host') as HTMLElement).dataset.state)).toBe('shadow clicked');
  });

  it(
    'opens new tabs in the user browser, and a tab the user stops sharing detaches with a clear error',
    async () => {
      // Each hop (tabs.create, the debugger's attach, the relay, the client) is slow on a loaded machine:
      // every step has a deadline of its own, shorter than the test's, so a failure names its step.
      const second = await step(sdk!.context.newPage(servers.b.url('/leaf.html')), 'newPage()');
      await second.waitForLoadState('load', { timeoutMs: STEP_TIMEOUT_MS });
      expect(await second.evaluate(() => document.getElementById('leaf')!.textContent)).toBe('leaf text');
      const secondTab = (await openTabs()).find((tab) => tab.url === servers.b.url('/leaf.html'))!;
      expect(secondTab).toBeDefined();
      expect((await ask({ kind: 'status' })).view.shared.map((tab) => tab.id).sort()).toEqual([sharedTab, secondTab.id].sort());

      // The user presses "Stop sharing" on it.
      const closed = new Promise<void>((resolve) => second.once('close', () => resolve()));
      expect((await ask({ kind: 'unshare', tabId: secondTab.id })).ok).toBe(true);
      await step(closed, "the page's close event after unshare");
      const error = await second.evaluate(() => 1).catch((e: unknown) => e);
      expect(error instanceof PageClosedError || error instanceof TargetClosedError, String(error)).toBe(true);
      expect((error as Error).message).toMatch(/stopped sharing/);
      // The tab itself stays open, and the first page works on.
      expect((await openTabs()).some((tab) => tab.id === secondTab.id)).toBe(true);
      expect(sdk!.context.pages()).toHaveLength(1);
      expect(await sdk!.context.pages()[0]!.evaluate(() => document.title)).toBeTruthy();
    },
    4 * STEP_TIMEOUT_MS,
  );

  it('close() only detaches, and chrome-remote-interface as another client lists the shared tab', async () => {
    await sdk!.close();
    sdk = undefined;
    expect((await openTabs()).some((tab) => tab.id === sharedTab)).toBe(true);
    // The relay hears of the first client's departure a moment after close() returns.
    let client: CDP.Client | undefined;
    for (let attempt = 0; !client; attempt++) {
      client = await CDP({ target: relay.cdpUrl, local: true }).catch((error: Error) => {
        if (attempt > 40 || !/409/.test(error.message)) throw error;
        return undefined;
      });
    }
    try {
      const { targetInfos } = await client.Target.getTargets();
      expect(targetInfos.map((info) => info.url)).toContain(servers.a.url('act.html'));
    } finally {
      await client.close();
    }
  });

  it('killing the relay ends the client with ConnectionClosedError within a second and leaves the tabs open', async () => {
    let attached: Sdk | undefined;
    for (let attempt = 0; !attached; attempt++) {
      const next = attach();
      attached = await next.init().then(
        () => next,
        (error: Error) => {
          if (attempt > 40 || !/HTTP 409/.test(error.message)) throw error;
          return undefined;
        },
      );
    }
    sdk = attached;
    const page = sdk.context.pages()[0]!;
    const pending = page.evaluate(() => new Promise(() => undefined)).catch((error: unknown) => error);
    const killed = Date.now();
    relay.child.kill('SIGKILL');
    const error = await pending;
    expect(Date.now() - killed).toBeLessThan(1000);
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect((await openTabs()).some((tab) => tab.id === sharedTab)).toBe(true);
  });
});
