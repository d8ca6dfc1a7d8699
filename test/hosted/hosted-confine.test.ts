// A hosted session stays inside the public web, tried as a hostile client would: against the real
// hosted server on loopback (a Chromium per session), through REST navigate, the Sdk in env HOSTED,
// raw CDP on connectUrl, Playwright and Puppeteer. A refused URL is a UrlNotAllowedError (REST, Sdk)
// or a CDP error starting "Refused by the hosted server:" (connectUrl); the session goes on.

import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBody, HEADERS, type Session } from '../../protocol/index.js';
import { HostedApi } from '../../src/hosted/client/api.js';
import { readServerConfig } from '../../src/hosted/server/config.js';
import { startHostedServer, type HostedServer } from '../../src/hosted/server/http.js';
import { HOSTED_REFUSAL, Sdk, UrlNotAllowedError } from '../../src/index.js';
import { Logger } from '../../src/logger.js';
import type { LogLine } from '../../src/types.js';
import { startFixtureServers, type FixtureServers } from '../fixtures/server.js';
import { CHROME, processAlive, TEST_ARGS, HOSTED_TEST_ENV } from '../helpers.js';

const KEY = 'confine-test-key-8c1e';
const DEADLINE_MS = 15_000;
let server: HostedServer;
let fixtures: FixtureServers;
let api: HostedApi;
const serverLog: LogLine[] = [];

/** URLs no session may load: the server's files, the browser's own pages, and what shows them. */
const nonWeb = () => [
  'file:///etc/passwd',
  'FILE:///etc/passwd',
  ' file:///etc/passwd',
  'chrome://version',
  'about:version',
  `view-source:${fixtures.a.url('confine.html')}`,
  'devtools://devtools/bundled/inspector.html',
  'chrome-extension://abcdefghijklmnopabcdefghijklmnop/x.html',
];

interface Reply {
  result?: Record<string, any>;
  error?: { code: number; message: string };
  sessionId?: string;
}
interface CdpEvent {
  method: string;
  params: any;
  sessionId?: string;
}

/** A bare DevTools client over `ws`: sends exactly what a test writes, nothing of its own. */
class RawCdp {
  readonly events: CdpEvent[] = [];
  #next = 1;
  readonly #pending = new Map<number, (reply: Reply) => void>();
  readonly #listeners = new Set<(event: CdpEvent) => void>();

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString());
      if (typeof message.id === 'number') {
        this.#pending.get(message.id)?.(message);
        this.#pending.delete(message.id);
        return;
      }
      this.events.push(message);
      for (const listener of this.#listeners) listener(message);
    });
  }

  static open(url: string): Promise<RawCdp> {
    const socket = new WebSocket(url);
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(new RawCdp(socket)));
      socket.once('error', reject);
    });
  }

  /** The reply as it came: a result or an error. */
  send(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<Reply> {
    const id = this.#next++;
    this.socket.send(JSON.stringify({ id, method, params, ...(sessionId === undefined ? {} : { sessionId }) }));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${method} got no answer within ${DEADLINE_MS} ms`)), DEADLINE_MS);
      this.#pending.set(id, (reply) => {
        clearTimeout(timer);
        resolve(reply);
      });
    });
  }

  async ok(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<Record<string, any>> {
    const reply = await this.send(method, params, sessionId);
    if (reply.error) throw new Error(`${method} failed: ${reply.error.message}`);
    return reply.result!;
  }

  /** The first event (already received or to come) named `method` that passes `test`. */
  waitFor(method: string, test: (params: any) => boolean = () => true): Promise<any> {
    const seen = this.events.find((event) => event.method === method && test(event.params));
    if (seen) return Promise.resolve(seen.params);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#listeners.delete(listener);
        reject(new Error(`no ${method} within ${DEADLINE_MS} ms`));
      }, DEADLINE_MS);
      const listener = (event: CdpEvent) => {
        if (event.method !== method || !test(event.params)) return;
        clearTimeout(timer);
        this.#listeners.delete(listener);
        resolve(event.params);
      };
      this.#listeners.add(listener);
    });
  }

  close(): void {
    this.socket.close();
  }
}

function expectRefused(reply: Reply, pattern: RegExp): void {
  expect(reply.error, JSON.stringify(reply)).toBeDefined();
  expect(reply.error!.code).toBe(-32000);
  expect(reply.error!.message.startsWith(HOSTED_REFUSAL), reply.error!.message).toBe(true);
  expect(reply.error!.message).toMatch(pattern);
}

/** Attaches (flat) to the session's first page. */
async function attachPage(cdp: RawCdp): Promise<{ sessionId: string; targetId: string }> {
  const { targetInfos } = await cdp.ok('Target.getTargets');
  const page = (targetInfos as Array<{ type: string; targetId: string }>).find((info) => info.type === 'page')!;
  const { sessionId } = await cdp.ok('Target.attachToTarget', { targetId: page.targetId, flatten: true });
  await cdp.ok('Page.enable', {}, sessionId);
  await cdp.ok('Page.setLifecycleEventsEnabled', { enabled: true }, sessionId);
  return { sessionId, targetId: page.targetId };
}

/** Navigates the page and resolves once the new document's DOMContentLoaded has fired. */
async function navigate(cdp: RawCdp, sessionId: string, url: string): Promise<void> {
  const { loaderId } = await cdp.ok('Page.navigate', { url }, sessionId);
  await cdp.waitFor('Page.lifecycleEvent', (event) => event.loaderId === loaderId && event.name === 'DOMContentLoaded');
}

async function evaluate(cdp: RawCdp, sessionId: string, expression: string): Promise<unknown> {
  return (await cdp.ok('Runtime.evaluate', { expression, returnByValue: true }, sessionId)).result.value;
}

const operationOptions = { bypassCache: true, timeoutMs: 30_000, onLog: () => undefined };

beforeAll(async () => {
  const config = readServerConfig({
    ...HOSTED_TEST_ENV,
    PORT: '0',
    HOSTED_API_KEYS: KEY,
    MAX_SESSIONS: '4',
    CHROME_PATH: CHROME,
    // Chrome's omnibox WebUI back (Tendril's launch turns it off): its pages are the browser's
    // own interface that the guard must keep from a client.
    CHROME_ARGS: [...TEST_ARGS, '--enable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup'].join(' '),
  });
  [server, fixtures] = await Promise.all([
    startHostedServer(config, new Logger({ verbose: 1, disablePino: true, logger: (line) => serverLog.push(line) })),
    startFixtureServers(),
  ]);
  api = new HostedApi(server.url, KEY, 30_000);
});
afterAll(async () => {
  await server?.close();
  await fixtures?.close();
});

describe('REST navigate', () => {
  it('refuses file:, chrome:, about:, view-source: and other non-web URLs with UrlNotAllowedError (403 forbidden); the session goes on', async () => {
    const session = await api.createSession({ projectId: 'p' });
    try {
      for (const url of nonWeb()) {
        const error = await api.operation(session.id, 'navigate', { url }, operationOptions).catch((e: unknown) => e);
        expect(error, url).toBeInstanceOf(UrlNotAllowedError);
        expect((error as Error).message).toMatch(/^Navigation to .* is not allowed: a hosted session loads only web URLs/);
      }
      const response = await fetch(`${server.url}/v1/sessions/${session.id}/navigate`, {
        method: 'POST',
        headers: { [HEADERS.apiKey]: KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ url: 'file:///etc/passwd' }),
      });
      expect(response.status).toBe(403);
      const { error } = ErrorBody.parse(await response.json());
      expect(error).toMatchObject({ code: 'forbidden', name: 'UrlNotAllowedError' });
      expect(error.message).toMatch(/file:\/\/\/etc\/passwd is not allowed: .*file: URLs read the server's own files/);

      const reached = await api.operation(session.id, 'navigate', { url: fixtures.a.url('confine.html') }, operationOptions);
      expect(reached.data).toEqual({ url: fixtures.a.url('confine.html') });
    } finally {
      await api.releaseSession(session.id);
    }
  });
});

describe('the Sdk in env "HOSTED"', () => {
  it('page.goto to a file: or chrome: URL raises UrlNotAllowedError, and the page stays as it was', async () => {
    const sdk = new Sdk({ env: 'HOSTED', apiKey: KEY, projectId: 'p', hostedApiUrl: server.url, verbose: 0, disablePino: true });
    await sdk.init();
    try {
      const page = sdk.context.pages()[0]!;
      await page.goto(fixtures.a.url('confine.html'));
      for (const url of ['file:///etc/passwd', 'chrome://version']) {
        const error = await page.goto(url).catch((e: unknown) => e);
        expect(error, url).toBeInstanceOf(UrlNotAllowedError);
        expect((error as UrlNotAllowedError).url).toBe(url);
        expect((error as Error).message).toMatch(/^Page\.navigate to .* is not allowed: a hosted session loads only web URLs/);
      }
      expect(page.url()).toBe(fixtures.a.url('confine.html'));
      const { pageText } = await sdk.extract();
      expect(pageText).toContain('Upload');
      expect(pageText).not.toContain('root:');
    } finally {
      await sdk.close();
    }
  });
});

describe('raw CDP on connectUrl', () => {
  let session: Session;
  let cdp: RawCdp;
  let page: { sessionId: string; targetId: string };

  beforeAll(async () => {
    session = await api.createSession({ projectId: 'p' });
  });
  afterAll(async () => {
    if (session) await api.releaseSession(session.id);
  });
  // A client of its own for each test, on the same session.
  const connect = async () => {
    cdp = await RawCdp.open(session.connectUrl);
    page = await attachPage(cdp);
    await navigate(cdp, page.sessionId, fixtures.a.url('confine.html'));
  };

  it('refuses non-web URLs in Page.navigate, Target.createTarget and Network.loadNetworkResource, and loads web ones', async () => {
    await connect();
    try {
      for (const url of nonWeb()) {
        expectRefused(
          await cdp.send('Page.navigate', { url }, page.sessionId),
          /: Page\.navigate to .* is not allowed: a hosted session loads only web URLs/,
        );
        expectRefused(await cdp.send('Target.createTarget', { url }), /Target\.createTarget to .* is not allowed/);
      }
      const { frameTree } = await cdp.ok('Page.getFrameTree', {}, page.sessionId);
      const load = { frameId: frameTree.frame.id, url: 'file:///etc/passwd', options: { disableCache: true, includeCredentials: false } };
      expectRefused(await cdp.send('Network.loadNetworkResource', load, page.sessionId), /file: URLs read the server's own files/);
      expect(await evaluate(cdp, page.sessionId, 'location.href')).toBe(fixtures.a.url('confine.html'));
      // Only Chrome's own interface (browser_ui targets, chrome: pages by design) shows anything but the web.
      const { targetInfos } = await cdp.ok('Target.getTargets');
      const shown = (targetInfos as Array<{ type: string; url: string }>)
        .filter((info) => info.type !== 'browser_ui')
        .map((info) => info.url);
      expect(
        shown.filter((url) => !/^(https?:|about:blank)/.test(url)),
        JSON.stringify(targetInfos),
      ).toEqual([]);

      // What stays allowed.
      expect((await cdp.ok('Browser.getVersion')).product).toMatch(/Chrome/);
      await navigate(cdp, page.sessionId, fixtures.b.url('confine.html'));
      expect(await evaluate(cdp, page.sessionId, 'document.title')).toBe('Confine');
      // Gone before the next test's client lists the pages: a tab still closing is the first page
      // it could attach to, and it never answers (seen under load: Page.enable got no answer).
      await cdp.ok('Target.setDiscoverTargets', { discover: true });
      const { targetId } = await cdp.ok('Target.createTarget', { url: fixtures.a.url('confine.html') });
      await cdp.ok('Target.closeTarget', { targetId });
      await cdp.waitFor('Target.targetDestroyed', (event) => event.targetId === targetId);
    } finally {
      cdp.close();
    }
  });

  it('lets a paused request go on, but not to a non-web URL (Fetch.continueRequest)', async () => {
    await connect();
    try {
      await cdp.ok('Fetch.enable', { patterns: [{ urlPattern: '*?paused' }] }, page.sessionId);
      const paused = cdp.waitFor('Fetch.requestPaused');
      const target = fixtures.a.url('confine.html?paused');
      const navigation = cdp.send('Page.navigate', { url: target }, page.sessionId);
      const { requestId } = await paused;
      expectRefused(
        await cdp.send('Fetch.continueRequest', { requestId, url: 'file:///etc/passwd' }, page.sessionId),
        /Fetch\.continueRequest to file:/,
      );
      await cdp.ok('Fetch.continueRequest', { requestId }, page.sessionId);
      const { error, result } = await navigation;
      expect(error).toBeUndefined();
      await cdp.waitFor('Page.lifecycleEvent', (event) => event.loaderId === result!.loaderId && event.name === 'DOMContentLoaded');
      expect(await evaluate(cdp, page.sessionId, 'location.href')).toBe(target);
      await cdp.ok('Fetch.disable', {}, page.sessionId);
    } finally {
      cdp.close();
    }
  });

  it('refuses history navigation to a non-web entry, and keeps the commands behind that check in order', async () => {
    await connect();
    const record = server.sessions.get(session.id);
    const own = record.browser!.connection;
    // A file: entry left in the history by a way the guard does not see: the server's own
    // connection, with its watch of the session's pages paused.
    await own.rootSession.send('Target.setDiscoverTargets', { discover: false });
    try {
      const { sessionId } = await own.rootSession.send('Target.attachToTarget', { targetId: page.targetId, flatten: true });
      await own.session(sessionId)!.send('Page.navigate', { url: 'file:///etc/passwd' });
      await own.rootSession.send('Target.detachFromTarget', { sessionId });
      await navigate(cdp, page.sessionId, fixtures.b.url('confine.html'));
    } finally {
      await own.rootSession.send('Target.setDiscoverTargets', { discover: true });
    }
    try {
      const { entries } = await cdp.ok('Page.getNavigationHistory', {}, page.sessionId);
      const planted = (entries as Array<{ id: number; url: string }>).find((entry) => entry.url.startsWith('file:'))!;
      expectRefused(
        await cdp.send('Page.navigateToHistoryEntry', { entryId: planted.id }, page.sessionId),
        /navigateToHistoryEntry to file:\/\/\/etc\/passwd is not allowed/,
      );
      expect(await evaluate(cdp, page.sessionId, 'location.href')).toBe(fixtures.b.url('confine.html'));

      // A web entry goes, and a navigation sent right behind it (its check not yet done) comes after
      // it: reversed, the history navigation would win.
      const web = (entries as Array<{ id: number; url: string }>).find((entry) => entry.url === fixtures.a.url('confine.html'))!;
      const after = fixtures.a.url('confine.html?after');
      const back = cdp.send('Page.navigateToHistoryEntry', { entryId: web.id }, page.sessionId);
      const then = cdp.send('Page.navigate', { url: after }, page.sessionId);
      expect((await back).error).toBeUndefined();
      const { error, result } = await then;
      expect(error).toBeUndefined();
      await cdp.waitFor('Page.lifecycleEvent', (event) => event.loaderId === result!.loaderId && event.name === 'DOMContentLoaded');
      expect(await evaluate(cdp, page.sessionId, 'location.href')).toBe(after);
    } finally {
      cdp.close();
    }
  });

  it('refuses server files: DOM.setFileInputFiles and Input.dispatchDragEvent with data.files', async () => {
    await connect();
    try {
      const { result } = await cdp.ok('Runtime.evaluate', { expression: 'document.getElementById("upload")' }, page.sessionId);
      const set = await cdp.send('DOM.setFileInputFiles', { files: ['/etc/passwd'], objectId: result.objectId }, page.sessionId);
      expectRefused(set, /its files are paths on the server's disk/);
      const drag = { type: 'dragEnter', x: 20, y: 20, data: { items: [], files: ['/etc/passwd'], dragOperationsMask: 1 } };
      expectRefused(await cdp.send('Input.dispatchDragEvent', drag, page.sessionId), /data\.files are paths on the server's disk/);
      expect(await evaluate(cdp, page.sessionId, 'document.getElementById("upload").files.length')).toBe(0);
      // The same domains serve what stays inside the page.
      await cdp.ok('Input.dispatchMouseEvent', { type: 'mouseMoved', x: 20, y: 20 }, page.sessionId);
      expect((await cdp.ok('DOM.getDocument', {}, page.sessionId)).root.nodeName).toBe('#document');
    } finally {
      cdp.close();
    }
  });

  it("refuses ways around the guard: exposeDevToolsProtocol, sendMessageToTarget, sessions it did not open, Chrome's own UI, contexts with a proxy", async () => {
    await connect();
    const other = await RawCdp.open(session.connectUrl);
    try {
      expectRefused(
        await cdp.send('Target.exposeDevToolsProtocol', { targetId: page.targetId, bindingName: 'cdp' }),
        /a DevTools channel of its own/,
      );
      expect(await evaluate(cdp, page.sessionId, 'typeof window.cdp')).toBe('undefined');
      const wrapped = JSON.stringify({ id: 1, method: 'Page.navigate', params: { url: 'file:///etc/passwd' } });
      expectRefused(await cdp.send('Target.sendMessageToTarget', { message: wrapped, sessionId: page.sessionId }), /flatten: true/);
      // The server's own browser session (the empty id) and another client's page session.
      expectRefused(await cdp.send('Target.setDiscoverTargets', { discover: false }, ''), /a session this connection did not open/);
      const theirs = await attachPage(other);
      expectRefused(await cdp.send('Runtime.evaluate', { expression: '1' }, theirs.sessionId), /a session this connection did not open/);
      // Chrome's own interface (chrome: pages with privileged bindings) is not the client's to drive.
      const { targetInfos } = await cdp.ok('Target.getTargets');
      const ui = (targetInfos as Array<{ type: string; targetId: string }>).find((info) => info.type === 'browser_ui')!;
      for (const method of ['Target.attachToTarget', 'Target.activateTarget', 'Target.closeTarget']) {
        expectRefused(
          await cdp.send(method, { targetId: ui.targetId, flatten: true }),
          /the target is part of the browser's own interface/,
        );
      }
      await other.ok('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: true });
      const attached = other.events
        .filter((event) => event.method === 'Target.attachedToTarget')
        .map((event) => event.params.targetInfo.type);
      expect(attached).toContain('page');
      expect(attached).not.toContain('browser_ui');
      expectRefused(
        await cdp.send('Target.createBrowserContext', { proxyServer: 'http://127.0.0.1:9' }),
        /proxyServer would take the context's requests around/,
      );
      expectRefused(
        await cdp.send('Target.createBrowserContext', { originsWithUniversalNetworkAccess: ['http://127.0.0.1'] }),
        /originsWithUniversalNetworkAccess/,
      );
      const { browserContextId } = await cdp.ok('Target.createBrowserContext', {});
      await cdp.ok('Target.createTarget', { url: fixtures.a.url('confine.html'), browserContextId });
      await cdp.ok('Target.disposeBrowserContext', { browserContextId });
    } finally {
      other.close();
      cdp.close();
    }
  });

  it("refuses the domains and Browser commands that reach the server, and allows the session's own", async () => {
    await connect();
    const pid = server.sessions.get(session.id).browser!.pid!;
    try {
      const cases: Array<[string, Record<string, unknown>, RegExp]> = [
        ['SystemInfo.getProcessInfo', {}, /lists its processes/],
        ['SystemInfo.getInfo', {}, /the server's hardware/],
        ['Tethering.bind', { port: 9333 }, /opens ports on the server/],
        ['Extensions.loadUnpacked', { path: '/tmp' }, /extensions from the server's folders/],
        ['Tracing.start', {}, /the browser's command line/],
        ['Memory.getBrowserSamplingProfile', {}, /the server's libraries/],
        ['Browser.getBrowserCommandLine', {}, /of the Browser domain only the commands about the session's own windows/],
        ['Browser.getHistograms', {}, /act on the browser process on the server/],
        ['Browser.executeBrowserCommand', { commandId: 'openTabSearch' }, /act on the browser process on the server/],
        ['Browser.crash', {}, /REQUEST_RELEASE/],
        ['Browser.crashGpuProcess', {}, /REQUEST_RELEASE/],
        ['Browser.close', {}, /REQUEST_RELEASE/],
        ['Nonexistent.command', {}, /not on the hosted server's list of domains/],
      ];
      for (const [method, params, pattern] of cases) expectRefused(await cdp.send(method, params), pattern);
      expect(processAlive(pid)).toBe(true);
      expect(server.sessions.get(session.id).status).toBe('RUNNING');
      expect((await cdp.ok('Browser.getVersion')).product).toMatch(/Chrome/);
      const { windowId } = await cdp.ok('Browser.getWindowForTarget', { targetId: page.targetId });
      expect((await cdp.ok('Browser.getWindowBounds', { windowId })).bounds.width).toBeGreaterThan(0);
      await cdp.ok('Browser.grantPermissions', { permissions: ['geolocation'] });
      // Refusals are logged by method only.
      expect(serverLog).toContainEqual(
        expect.objectContaining({
          message: 'Refused a command on connectUrl',
          auxiliary: { session: session.id, method: 'Browser.close' },
        }),
      );
    } finally {
      cdp.close();
    }
  });

  it("sends downloads to the session's own folder whatever folder the client names, new contexts included", async () => {
    const record = server.sessions.get(session.id);
    const folder = record.downloadsDir!;
    const chosen = await mkdtemp(path.join(os.tmpdir(), 'confine-chosen-'));
    await connect();
    try {
      await cdp.ok('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: chosen, eventsEnabled: true });
      const completed = cdp.waitFor('Browser.downloadProgress', (event) => event.state === 'completed');
      await cdp.send('Page.navigate', { url: fixtures.a.url('download/first.txt') }, page.sessionId);
      await completed;
      expect(await readdir(folder)).toContain('first.txt');

      // A new context downloads there too, with no setting of the client's.
      const { browserContextId } = await cdp.ok('Target.createBrowserContext', {});
      await cdp.ok('Target.createTarget', { url: fixtures.a.url('download/second.txt'), browserContextId });
      await expect.poll(() => readdir(folder), { timeout: DEADLINE_MS }).toContain('second.txt');
      await cdp.ok('Target.disposeBrowserContext', { browserContextId });
      expect(await readdir(chosen)).toEqual([]);
    } finally {
      cdp.close();
      await rm(chosen, { recursive: true, force: true });
    }
  });
});

describe("the server's watch on its sessions' pages", () => {
  it('closes a page that shows a non-web URL however it got there, and logs it', async () => {
    const session = await api.createSession({ projectId: 'p' });
    const cdp = await RawCdp.open(session.connectUrl);
    try {
      await cdp.ok('Target.setDiscoverTargets', { discover: true });
      const record = server.sessions.get(session.id);
      // A way the guard does not see: the server's own connection.
      const { targetId } = await record.browser!.connection.rootSession.send('Target.createTarget', { url: 'file:///etc/passwd' });
      await cdp.waitFor('Target.targetDestroyed', (event) => event.targetId === targetId);
      expect(serverLog).toContainEqual(
        expect.objectContaining({
          message: 'A session target showed a non-web page; closing it',
          auxiliary: { session: session.id, type: 'page', scheme: 'file:' },
        }),
      );
      expect(record.status).toBe('RUNNING');
      // Chrome's own interface is left alone.
      expect(serverLog.filter((line) => line.auxiliary?.type === 'browser_ui')).toEqual([]);
      const { sessionId } = await attachPage(cdp);
      await navigate(cdp, sessionId, fixtures.a.url('confine.html'));
    } finally {
      cdp.close();
      await api.releaseSession(session.id);
    }
  });
});

describe('Playwright and Puppeteer on connectUrl', () => {
  it('Playwright connectOverCDP drives the session, in its default and a new context, and gets the refusal of a file: URL', async () => {
    const session = await api.createSession({ projectId: 'p' });
    const browser = await chromium.connectOverCDP(session.connectUrl);
    try {
      const context = browser.contexts()[0]!;
      const page = context.pages()[0] ?? (await context.newPage());
      await page.goto(fixtures.a.url('confine.html'));
      expect(await page.title()).toBe('Confine');
      await expect(page.goto('file:///etc/passwd')).rejects.toThrow(
        /Refused by the hosted server: Page\.navigate to file:\/\/\/etc\/passwd is not allowed/,
      );
      expect(page.url()).toBe(fixtures.a.url('confine.html'));
      const fresh = await browser.newContext();
      const other = await fresh.newPage();
      await other.goto(fixtures.b.url('confine.html'));
      expect(await other.title()).toBe('Confine');
      await fresh.close();
    } finally {
      await browser.close();
      await api.releaseSession(session.id);
    }
  });

  it('Puppeteer connect drives the session and gets the refusal of a file: URL', async () => {
    const session = await api.createSession({ projectId: 'p' });
    const browser = await puppeteer.connect({ browserWSEndpoint: session.connectUrl });
    try {
      const page = await browser.newPage();
      await page.goto(fixtures.a.url('confine.html'));
      expect(await page.title()).toBe('Confine');
      await expect(page.goto('file:///etc/passwd')).rejects.toThrow(
        /Refused by the hosted server: Page\.navigate to file:\/\/\/etc\/passwd is not allowed/,
      );
      expect(page.url()).toBe(fixtures.a.url('confine.html'));
      expect(await browser.version()).toMatch(/Chrome/);
    } finally {
      await browser.disconnect();
      await api.releaseSession(session.id);
    }
  });
});
