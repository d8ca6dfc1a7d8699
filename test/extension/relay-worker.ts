// The service worker of the relay test extension (test/relay.test.ts bundles it with esbuild): the
// extension side of `tendril relay`, as the example extension runs it, with `globalThis.harness`
// for the test to play the user (connect, share a tab, stop sharing). Methods never reject.
import type { ChromeDebuggerApi, ChromeTabsApi } from '../../src/cdp/extensionTransport.js';
import { RelayBridge, type RelayStatus } from '../../src/relay/bridge.js';

interface ChromeTab {
  id?: number;
  url?: string;
}
declare const chrome: {
  debugger: ChromeDebuggerApi;
  tabs: ChromeTabsApi & {
    get(tabId: number): Promise<ChromeTab>;
    query(filter: Record<string, never>): Promise<ChromeTab[]>;
    onUpdated: {
      addListener(listener: (tabId: number, change: { status?: string }) => void): void;
      removeListener(listener: (tabId: number, change: { status?: string }) => void): void;
    };
  };
};

const statuses: RelayStatus[] = [];
const bridge = new RelayBridge({ debugger: chrome.debugger, tabs: chrome.tabs, timeoutMs: 10_000, onChange: (status) => statuses.push(status) });

async function settle<T>(work: () => Promise<T>): Promise<T | { error: { name: string; message: string } }> {
  try {
    return await work();
  } catch (error) {
    const e = error as Error;
    return { error: { name: e?.name ?? 'Error', message: e?.message ?? String(error) } };
  }
}

function openTab(url: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    let id: number | undefined;
    const timer = setTimeout(() => reject(new Error(`${url} did not load within 10 s`)), 10_000);
    const listener = (tabId: number, change: { status?: string }) => {
      if (tabId !== id || change.status !== 'complete') return;
      chrome.tabs.onUpdated.removeListener(listener);
      clearTimeout(timer);
      resolve(tabId);
    };
    chrome.tabs.onUpdated.addListener(listener);
    chrome.tabs.create({ url }).then((tab) => {
      id = tab.id;
    }, reject);
  });
}

const harness = {
  connect: (url: string) => settle(async () => (await bridge.connect(url), bridge.status())),
  disconnect: () => settle(async () => (bridge.disconnect(), bridge.status())),
  openAndShare: (url: string) =>
    settle(async () => {
      const tabId = await openTab(url);
      await bridge.share(tabId);
      return tabId;
    }),
  share: (tabId: number) => settle(async () => (await bridge.share(tabId), bridge.status())),
  unshare: (tabId: number) => settle(async () => (await bridge.unshare(tabId), bridge.status())),
  status: () => settle(async () => bridge.status()),
  /** Every open tab's URL: what the user still has. */
  tabs: () => settle(async () => (await chrome.tabs.query({})).map((tab) => ({ id: tab.id, url: tab.url }))),
  /** Every status the bridge reported, oldest first. */
  history: () => settle(async () => statuses),
};

(globalThis as { harness?: typeof harness }).harness = harness;
console.info('tendril relay harness ready');
