// The service worker of the test extension (test/extension/extension-transport.test.ts bundles it with esbuild).
// It drives tabs through ExtensionTransport and our Connection, and exposes `globalThis.harness`,
// whose methods the test calls with Runtime.evaluate. They never reject: each returns plain values,
// errors included, so the test asserts on them and the worker never sees an unhandled rejection.
import { Connection } from '../../src/cdp/connection.js';
import type { CdpSession } from '../../src/cdp/session.js';
import { ExtensionTransport, type ChromeDebuggerApi, type ChromeTabsApi } from '../../src/cdp/extensionTransport.js';
import type { BrowserHandle } from '../../src/browser/browser.js';
import { Context } from '../../src/driver/context.js';
import { Logger } from '../../src/logger.js';
import { captureSnapshot } from '../../src/snapshot/index.js';
import { READER_SOURCE } from '../../src/generated/reader.js';

interface ChromeTab {
  id?: number;
  status?: string;
  url?: string;
}
declare const chrome: {
  debugger: ChromeDebuggerApi;
  tabs: ChromeTabsApi & {
    update(tabId: number, properties: { url: string }): Promise<ChromeTab>;
    get(tabId: number): Promise<ChromeTab>;
    onUpdated: {
      addListener(listener: (tabId: number, change: { status?: string }, tab: ChromeTab) => void): void;
      removeListener(listener: (tabId: number, change: { status?: string }, tab: ChromeTab) => void): void;
    };
  };
};

const TIMEOUT_MS = 10_000;

interface Failure {
  error: { name: string; message: string; code?: number };
}
function failure(error: unknown): Failure {
  const e = error as { name?: string; message?: string; code?: number };
  return { error: { name: e?.name ?? 'Error', message: e?.message ?? String(error), code: e?.code } };
}
async function settle<T>(work: () => Promise<T>): Promise<T | Failure> {
  try {
    return await work();
  } catch (error) {
    return failure(error);
  }
}

function withTimeout<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout>;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** Resolves with the first event of `method` on `session` that `accept` takes. */
function nextEvent<T>(session: CdpSession, method: string, accept: (params: T) => boolean = () => true): Promise<T> {
  return withTimeout(
    new Promise<T>((resolve) => {
      const on = session.on as unknown as (name: string, listener: (params: T) => void) => void;
      const off = session.off as unknown as (name: string, listener: (params: T) => void) => void;
      const listener = (params: T) => {
        if (!accept(params)) return;
        off.call(session, method, listener);
        resolve(params);
      };
      on.call(session, method, listener);
    }),
    `The event ${method}`,
  );
}

/** Opens a tab and resolves once it has loaded (its out-of-process frames included). */
function openTab(url: string): Promise<number> {
  return withTimeout(
    new Promise<number>((resolve, reject) => {
      let id: number | undefined;
      const listener = (tabId: number, change: { status?: string }) => {
        if (tabId !== id || change.status !== 'complete') return;
        chrome.tabs.onUpdated.removeListener(listener);
        resolve(tabId);
      };
      chrome.tabs.onUpdated.addListener(listener);
      chrome.tabs.create({ url }).then((tab) => {
        id = tab.id;
      }, reject);
    }),
    `Loading ${url} in a new tab`,
  );
}

const detachedTabs: Array<{ tabId: number; reason: string }> = [];
const transport = new ExtensionTransport(chrome.debugger, {
  tabs: chrome.tabs,
  timeoutMs: TIMEOUT_MS,
  onTabDetached: (tabId, reason) => detachedTabs.push({ tabId, reason }),
});
const connection = new Connection(transport, { commandTimeoutMs: TIMEOUT_MS });
const root = connection.rootSession;
const rootAttached: Array<{ sessionId: string; type: string; targetId: string; url: string }> = [];
const rootDetached: string[] = [];
root.on('Target.attachedToTarget', (event) =>
  rootAttached.push({
    sessionId: event.sessionId,
    type: event.targetInfo.type,
    targetId: event.targetInfo.targetId,
    url: event.targetInfo.url,
  }),
);
root.on('Target.detachedFromTarget', (event) => rootDetached.push(event.sessionId));

function tabSession(tabId: number): CdpSession {
  const id = transport.sessionOfTab(tabId);
  const session = id === undefined ? undefined : connection.session(id);
  if (!session) throw new Error(`tab ${tabId} has no session`);
  return session;
}

async function evaluate(session: CdpSession, expression: string): Promise<unknown> {
  const { result, exceptionDetails } = await session.send('Runtime.evaluate', { expression, returnByValue: true });
  if (exceptionDetails) throw new Error(`page exception: ${exceptionDetails.text}`);
  return result.value;
}

const children = new Map<number, CdpSession>();

const harness = {
  /** Root emulation before and after a tab is attached: version, auto-attach, getTargets. */
  attach: (url: string) =>
    settle(async () => {
      const version = await root.send('Browser.getVersion');
      await root.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: true });
      const tabId = await openTab(url);
      // Two attaches at once (two callers asking for the same tab) and one after: the same session.
      const [sessionId, together] = await Promise.all([transport.attachTab(tabId), transport.attachTab(tabId)]);
      const again = [together, await transport.attachTab(tabId)];
      const { targetInfos } = await root.send('Target.getTargets');
      return {
        version: version.product,
        tabId,
        sessionId,
        again,
        announced: rootAttached.filter((each) => each.sessionId === sessionId),
        targetInfos,
      };
    }),

  /** The page's own values through its tab session. */
  pageValues: (tabId: number) =>
    settle(async () => {
      const session = tabSession(tabId);
      return {
        title: await evaluate(session, 'document.title'),
        heading: await evaluate(session, "document.querySelector('h1').textContent"),
      };
    }),

  /** Flattened auto-attach on the tab: the out-of-process iframe's session and values in it. */
  oopif: (tabId: number) =>
    settle(async () => {
      const session = tabSession(tabId);
      const attached = nextEvent<{ sessionId: string; targetInfo: { type: string; url: string } }>(
        session,
        'Target.attachedToTarget',
        (event) => event.targetInfo.type === 'iframe',
      );
      await session.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: true });
      const event = await attached;
      const child = session.childSession(event.sessionId);
      if (!child) throw new Error('the Connection made no session for the iframe');
      children.set(tabId, child);
      return {
        type: event.targetInfo.type,
        url: event.targetInfo.url,
        parentId: child.parentId === session.id,
        title: await evaluate(child, 'document.title'),
        secret: await evaluate(child, 'window.secret'),
        origin: await evaluate(child, 'location.origin'),
      };
    }),

  /** Events of the tab session and of the child session, told apart by their sessions. */
  events: (tabId: number) =>
    settle(async () => {
      const session = tabSession(tabId);
      const child = children.get(tabId)!;
      type Console = { type: string; args: Array<{ value?: unknown }> };
      const fromPage = nextEvent<Console>(session, 'Runtime.consoleAPICalled', (event) => event.args[0]?.value === 'hello from the page');
      const fromFrame = nextEvent<Console>(child, 'Runtime.consoleAPICalled', (event) => event.args[0]?.value === 'hello from the iframe');
      await Promise.all([session.send('Runtime.enable'), child.send('Runtime.enable')]);
      await evaluate(session, "console.info('hello from the page', document.title)");
      await evaluate(child, "console.warn('hello from the iframe', document.title)");
      const [page, frame] = await Promise.all([fromPage, fromFrame]);
      return { page: [page.type, page.args[1]?.value], frame: [frame.type, frame.args[1]?.value] };
    }),

  /** Commands chrome.debugger refuses, on the tab and on the emulated root; the session stays usable. */
  refused: (tabId: number) =>
    settle(async () => {
      const session = tabSession(tabId);
      const onTab = await settle(() => session.send('Target.getTargets'));
      const browserOnTab = await settle(() => session.send('Browser.getVersion'));
      const onRoot = await settle(() => root.send('Browser.setDownloadBehavior', { behavior: 'deny' }));
      const badParams = await settle(() => session.send('Runtime.evaluate', { expression: 1 as unknown as string }));
      const after = await evaluate(session, '6 * 7');
      return { onTab, browserOnTab, onRoot, badParams, after };
    }),

  /** A chrome:// tab cannot be attached; an attached tab navigated to one is lost. */
  chromePages: (url: string) =>
    settle(async () => {
      const chromeTab = await openTab('chrome://version');
      const attach = await settle(() => transport.attachTab(chromeTab));
      await chrome.tabs.remove(chromeTab);
      const tabId = await openTab(url);
      const sessionId = await transport.attachTab(tabId);
      const session = tabSession(tabId);
      const title = await evaluate(session, 'document.title');
      const detached = nextEvent<string>(session as unknown as CdpSession, 'detached' as never);
      await chrome.tabs.update(tabId, { url: 'chrome://version' });
      const reason = await detached;
      const later = await settle(() => session.send('Runtime.evaluate', { expression: '1' }));
      await chrome.tabs.remove(tabId);
      return {
        attach,
        title,
        reason,
        later,
        rootSaw: rootDetached.includes(sessionId),
        told: detachedTabs.filter((each) => each.tabId === tabId),
        attachedNow: transport.tabIds().includes(tabId),
      };
    }),

  /** The user closes the tab: the tab and its iframe sessions detach, a command in flight fails. */
  closeTab: (tabId: number) =>
    settle(async () => {
      const session = tabSession(tabId);
      const child = children.get(tabId)!;
      const sessionGone = nextEvent<string>(session, 'detached' as never);
      const childGone = nextEvent<string>(child, 'detached' as never);
      // Runs until the tab goes: it can only end with the detach.
      const inFlight = settle(() => session.send('Runtime.evaluate', { expression: 'new Promise(() => {})', awaitPromise: true }));
      await chrome.tabs.remove(tabId);
      const [reason, childReason, pending] = await Promise.all([sessionGone, childGone, inFlight]);
      const later = await settle(() => session.send('Runtime.evaluate', { expression: '1' }));
      return {
        reason,
        childReason,
        pending,
        later,
        rootSaw: rootDetached.includes(session.id),
        told: detachedTabs.filter((each) => each.tabId === tabId),
        connectionOpen: !connection.closed,
      };
    }),

  /**
   * Our driver unchanged over its own transport: a Context attaches to a tab, reads its frames and
   * its page text, opens a second tab through chrome.tabs, and lets both tabs be when it closes.
   */
  context: (url: string, secondUrl: string) =>
    settle(async () => {
      const own = new ExtensionTransport(chrome.debugger, { tabs: chrome.tabs, timeoutMs: TIMEOUT_MS });
      const ownConnection = new Connection(own, { commandTimeoutMs: TIMEOUT_MS });
      const handle: BrowserHandle = { connection: ownConnection, kind: 'attached', close: async () => ownConnection.close() };
      const tabId = await openTab(url);
      await own.attachTab(tabId);
      const context = new Context(handle, new Logger({ verbose: 0, disablePino: true }), { timeoutMs: TIMEOUT_MS, reader: READER_SOURCE });
      await context.start();
      const page = context.pages()[0]!;
      const frames = page.frames().map((frame) => ({ url: frame.url(), outOfProcess: frame.isOutOfProcess() }));
      const oop = page.frames().find((frame) => frame.isOutOfProcess())!;
      const secret = await oop.evaluate(() => (window as unknown as { secret: string }).secret);
      const { text } = await captureSnapshot(page);
      const second = await context.newPage(secondUrl);
      await second.waitForLoadState('load');
      const secondTitle = await second.title();
      const pages = context.pages().length;
      const tabs = own.tabIds();
      // Page.close goes through Target.closeTarget on the root session: chrome.tabs.remove.
      const third = await context.newPage(secondUrl);
      const thirdTab = own.tabIds().find((id) => !tabs.includes(id))!;
      await third.close();
      const thirdGone = await chrome.tabs.get(thirdTab).then(
        () => false,
        () => true,
      );
      const pagesAfterClose = context.pages().length;
      await handle.close();
      const openAfter = await Promise.all(tabs.map(async (id) => (await chrome.tabs.get(id)).url));
      return {
        frames,
        secret,
        text,
        secondTitle,
        pages,
        thirdGone,
        pagesAfterClose,
        openAfter,
        attachedAfter: own.tabIds().length,
        closed: ownConnection.closed,
      };
    }),
};

(globalThis as { harness?: typeof harness }).harness = harness;
// The test waits for this line (or finds `harness` already set) before calling anything.
console.info('tendril test harness ready');
