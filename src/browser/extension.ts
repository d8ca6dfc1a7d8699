import { Connection } from '../cdp/connection.js';
import { ExtensionTransport, type ChromeDebuggerApi, type ChromeTabsApi } from '../cdp/extensionTransport.js';
import { BrowserConnectError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { ExtensionOptions } from '../types.js';
import { withDeadline } from '../util/time.js';
import type { BrowserHandle } from './browser.js';

/** The parts of `chrome` used here; read from the global, so nothing of @types/chrome is needed. */
interface ChromeApis {
  debugger?: ChromeDebuggerApi;
  tabs?: ChromeTabsApi & { query(filter: { active: boolean; lastFocusedWindow: boolean }): Promise<Array<{ id?: number }>> };
}

/** The browser an extension runs in, as far as chrome.debugger reaches: the tabs it attached to. */
class ExtensionBrowser implements BrowserHandle {
  readonly kind = 'attached' as const;
  constructor(
    readonly connection: Connection,
    readonly transport: ExtensionTransport,
  ) {}
  async close(): Promise<void> {
    // The tabs are the user's: the transport only detaches from them.
    this.connection.close();
  }
}

/**
 * env "EXTENSION": attaches chrome.debugger to the named tabs (default: the active tab of the last
 * focused window) and presents them as the pages of a browser. Fails, attached to nothing, when
 * one of them cannot be debugged.
 */
export async function openExtensionBrowser(
  options: ExtensionOptions | undefined,
  logger: Logger,
  timeoutMs: number,
): Promise<BrowserHandle> {
  const chrome = (globalThis as { chrome?: ChromeApis }).chrome;
  if (!chrome?.debugger || !chrome.tabs) {
    throw new BrowserConnectError(
      'env "EXTENSION" runs inside a Chrome extension (service worker or page) with the "debugger" and "tabs" ' +
        `permissions, and ${chrome ? 'chrome.debugger or chrome.tabs is missing: add both to the manifest\'s "permissions"' : 'there is no `chrome` here'}. ` +
        'Outside an extension, use env "LOCAL" or "HOSTED".',
    );
  }
  const tabIds = options?.tabIds ?? [await activeTab(chrome.tabs, timeoutMs)];
  const transport = new ExtensionTransport(chrome.debugger, {
    tabs: chrome.tabs,
    timeoutMs,
    onTabDetached: (tabId, reason) => logger.info('browser', 'Lost a tab', { tabId, reason }),
  });
  const connection = new Connection(transport, {
    commandTimeoutMs: timeoutMs,
    trace: logger.verbose >= 2 ? (line) => logger.debug('cdp', line) : undefined,
  });
  try {
    // One at a time: the first tab that cannot be debugged stops the rest, and all are let go.
    for (const tabId of new Set(tabIds)) await transport.attachTab(tabId);
  } catch (error) {
    connection.close();
    throw error;
  }
  logger.info('browser', 'Attached to tabs through chrome.debugger', { tabIds });
  return new ExtensionBrowser(connection, transport);
}

async function activeTab(tabs: NonNullable<ChromeApis['tabs']>, timeoutMs: number): Promise<number> {
  const found = await withDeadline(tabs.query({ active: true, lastFocusedWindow: true }), timeoutMs, 'Finding the active tab');
  const id = found[0]?.id;
  if (id === undefined) {
    throw new BrowserConnectError('There is no active tab in a focused window to attach to; name the tabs with `extension: { tabIds }`.');
  }
  return id;
}
