// The relay side of the example: the user connects the extension to a `tendril relay` and shares
// tabs; a client of the relay (a Tendril Sdk with its cdpUrl, Playwright, Puppeteer) then drives
// them. The settings survive the service worker being stopped: it reconnects when it starts again.
import { RelayBridge, type ChromeDebuggerApi, type ChromeTabsApi, type RelayStatus } from 'tendril/extension-relay';
import { RELAY_KEY, type RelayAnswer, type RelayRequest, type RelaySettings, type RelayView, type SharedTab } from './jobs.js';

interface ChromeTab {
  id?: number;
  title?: string;
  url?: string;
}
declare const chrome: {
  debugger: ChromeDebuggerApi;
  tabs: ChromeTabsApi & {
    get(tabId: number): Promise<ChromeTab>;
    query(filter: { active?: boolean; lastFocusedWindow?: boolean }): Promise<ChromeTab[]>;
  };
  storage: { local: { get(key: string): Promise<Record<string, unknown>>; set(items: Record<string, unknown>): Promise<void> } };
};

const bridge = new RelayBridge({ debugger: chrome.debugger, tabs: chrome.tabs, onChange: (status) => void remember(status) });
let settings: RelaySettings | undefined;
let restoring: Promise<void> | undefined;

async function saved(): Promise<RelaySettings | undefined> {
  return (await chrome.storage.local.get(RELAY_KEY))[RELAY_KEY] as RelaySettings | undefined;
}

async function remember(status: RelayStatus): Promise<void> {
  if (!settings || restoring) return;
  settings = { ...settings, connected: status.connection !== 'disconnected' || settings.connected, shared: status.shared };
  await chrome.storage.local.set({ [RELAY_KEY]: settings });
}

async function view(): Promise<RelayView> {
  const status = bridge.status();
  const shared: SharedTab[] = [];
  for (const id of status.shared) {
    const tab = await chrome.tabs.get(id).catch(() => undefined);
    if (tab) shared.push({ id, title: tab.title ?? '', url: tab.url ?? '' });
  }
  const out: RelayView = { connection: status.connection, driven: status.driven, shared };
  if (settings?.url) out.url = settings.url.replace(/token=[^&]+/, 'token=…');
  if (status.error) out.error = status.error;
  return out;
}

async function activeTab(): Promise<number> {
  const [tab] = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
  if (tab?.id === undefined) throw new Error('There is no active tab to share.');
  return tab.id;
}

async function handle(request: RelayRequest): Promise<void> {
  await restoring;
  switch (request.kind) {
    case 'status':
      return;
    case 'connect': {
      settings = { url: request.url.trim(), connected: true, shared: bridge.status().shared };
      await chrome.storage.local.set({ [RELAY_KEY]: settings });
      await bridge.connect(settings.url);
      // The active tab is shared by default.
      if (bridge.status().shared.length === 0) await bridge.share(await activeTab());
      return;
    }
    case 'disconnect':
      if (settings) settings = { ...settings, connected: false };
      bridge.disconnect();
      if (settings) await chrome.storage.local.set({ [RELAY_KEY]: settings });
      return;
    case 'share':
      return bridge.share(request.tabId ?? (await activeTab()));
    case 'unshare':
      return bridge.unshare(request.tabId);
  }
}

/** Runs one request of the panel; never rejects: a failure is in the answer. */
export async function relay(request: RelayRequest): Promise<RelayAnswer> {
  try {
    await handle(request);
    return { ok: true, view: await view() };
  } catch (error) {
    return { ok: false, error: (error as Error).message, view: await view() };
  }
}

/** A worker that was stopped while connected connects again, with the tabs it shared that still exist. */
async function restore(): Promise<void> {
  settings = await saved();
  if (!settings?.connected) return;
  const { url, shared } = settings;
  await bridge.connect(url).catch(() => undefined);
  for (const tabId of shared) await bridge.share(tabId).catch(() => undefined);
}
restoring = restore().finally(() => {
  restoring = undefined;
});
