// The service worker of the test extension (test/extension/extension-transport.test.ts bundles it with esbuild).
// It drives tabs through ExtensionTransport and our Connection, and exposes `globalThis.harness`,
// whose methods the test calls with Runtime.evaluate. They never reject: each returns plain values,
// errors included, so the test asserts on them and the worker never sees an unhandled rejection.
import { Connection } from '../../src/cdp/connection.js';
import type { CdpSession } from '../../src/cdp/session.js';
import { ExtensionTransport, type ChromeDebuggerApi, type ChromeTabsApi, type DebuggerSource } from '../../src/cdp/extensionTransport.js';
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

/**
 * chrome.debugger as it behaves under load: it sends a command's answer and the events after it by
 * two channels, and an answer can arrive after those events. Here each session's Page.getFrameTree
 * answer is held back until that session has announced a main world (or for TIMEOUT_MS at most),
 * which the Runtime.enable sent after it makes it do.
 */
function lateFrameTrees(api: ChromeDebuggerApi): { api: ChromeDebuggerApi; heldBack: () => number } {
  type Listener = Parameters<ChromeDebuggerApi['onEvent']['addListener']>[0];
  const key = (source: DebuggerSource) => `${source.tabId}/${source.sessionId ?? ''}`;
  const announced = new Set<string>();
  const waiting = new Map<string, Array<() => void>>();
  const wrapped = new Map<Listener, Listener>();
  let held = 0;
  const late: ChromeDebuggerApi = {
    attach: (target, version) => api.attach(target, version),
    detach: (target) => api.detach(target),
    getTargets: () => api.getTargets(),
    onDetach: api.onDetach,
    onEvent: {
      addListener(listener) {
        const each: Listener = (source, method, params) => {
          listener(source, method, params);
          const context = (params as { context?: { auxData?: { isDefault?: boolean } } } | undefined)?.context;
          if (method !== 'Runtime.executionContextCreated' || !context?.auxData?.isDefault) return;
          announced.add(key(source));
          for (const release of waiting.get(key(source)) ?? []) release();
          waiting.delete(key(source));
        };
        wrapped.set(listener, each);
        api.onEvent.addListener(each);
      },
      removeListener(listener) {
        const each = wrapped.get(listener);
        if (each) api.onEvent.removeListener(each);
      },
    },
    async sendCommand(target, method, params) {
      const result = await api.sendCommand(target, method, params);
      if (method !== 'Page.getFrameTree' || announced.has(key(target))) return result;
      held++;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, TIMEOUT_MS);
        const list = waiting.get(key(target)) ?? [];
        list.push(() => {
          clearTimeout(timer);
          resolve();
        });
        waiting.set(key(target), list);
      });
      return result;
    },
  };
  return { api: late, heldBack: () => held };
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

  /**
   * Our driver on a loaded tab whose frame trees come after the events that followed them (see
   * lateFrameTrees): each frame still gets its document's state and its main world.
   */
  lateTrees: (url: string) =>
    settle(async () => {
      const late = lateFrameTrees(chrome.debugger);
      const own = new ExtensionTransport(late.api, { tabs: chrome.tabs, timeoutMs: TIMEOUT_MS });
      const ownConnection = new Connection(own, { commandTimeoutMs: TIMEOUT_MS });
      const handle: BrowserHandle = { connection: ownConnection, kind: 'attached', close: async () => ownConnection.close() };
      const tabId = await openTab(url);
      try {
        await own.attachTab(tabId);
        const context = new Context(handle, new Logger({ verbose: 0, disablePino: true }), {
          timeoutMs: TIMEOUT_MS,
          reader: READER_SOURCE,
        });
        await context.start();
        const page = context.pages()[0]!;
        const oop = page.frames().find((frame) => frame.isOutOfProcess())!;
        const loaded = await settle(() => page.waitForLoadState('load', { timeoutMs: 3000 }).then(() => true));
        const title = await settle(() => page.title());
        const secret = await settle(() => oop.evaluate(() => (window as unknown as { secret: string }).secret));
        return { heldBack: late.heldBack(), loaded, title, secret };
      } finally {
        await handle.close();
        await chrome.tabs.remove(tabId);
      }
    }),
};

(globalThis as { harness?: typeof harness }).harness = harness;
// The test waits for this line (or finds `harness` already set) before calling anything.
console.info('tendril test harness ready');
