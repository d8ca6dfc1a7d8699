// env "LOCAL": a Chrome this Sdk launches, or one it attaches to by `cdpUrl`. What needs Node
// (launching, the download folder, the connectURL() bridge) is imported only when used, so that
// attaching by a ws:// URL also runs where Node is absent (an edge runtime's bundle swaps those
// modules for stubs: scripts/edge-stubs.mjs).

import { attachToBrowser } from '../browser/attach.js';
import type { BrowserHandle } from '../browser/browser.js';
import { checkLaunchOptions } from '../browser/launchOptions.js';
import { watchDownloads } from '../driver/download.js';
import { StorageKeeper } from '../driver/storageState.js';
import { WATCH_SOURCE } from '../generated/watch.js';
import { InvalidOptionError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { SdkOptions } from '../types.js';
import { checkDomainPolicy, type CheckedPolicy } from '../util/domainPolicy.js';
import { isNode } from '../util/env.js';
import type { Environment, OpenedBrowser, SdkBridge } from './types.js';

export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;

export const local: Environment = {
  name: 'LOCAL',
  check: (options) => {
    refuseExtensionOptions(options);
    checkLaunchOptions(options.localBrowserLaunchOptions);
  },
  policy: (options, own) => {
    checkSessionPolicy(options);
    return own;
  },
  modelsOnService: false,
  launches: (options) => !options.localBrowserLaunchOptions?.cdpUrl,
  startStep: (options) => (options.localBrowserLaunchOptions?.cdpUrl ? 'Attaching to Chrome…' : 'Starting Chromium…'),
  noBridge: 'connectURL() is not available here: it needs Node (its WebSocket server) and a local or attached browser.',
  open,
};

async function open(options: SdkOptions, logger: Logger, cdpTimeoutMs: number): Promise<OpenedBrowser> {
  const launch = options.localBrowserLaunchOptions ?? {};
  const connectTimeoutMs = launch.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const browser = launch.cdpUrl
    ? await attachToBrowser(launch.cdpUrl, launch.cdpHeaders, connectTimeoutMs, logger, cdpTimeoutMs)
    : // Launching needs Node (child processes, files): loaded only when used.
      await (await import('../browser/launch.js')).launchChrome(launch, logger, cdpTimeoutMs);
  try {
    const startBridge = () => startBridgeOn(browser, logger);
    return {
      browser,
      viewport: launch.viewport,
      startBridge,
      closedRootWatch: WATCH_SOURCE,
      readFile: nodeReadFile(),
      storage: StorageKeeper,
      ...(await downloads(browser, options.downloadsPath, launch.cdpUrl)),
    };
  } catch (error) {
    await browser.close();
    throw error;
  }
}

/** `extension` options are for env "EXTENSION" only. */
export function refuseExtensionOptions(options: SdkOptions): void {
  if (options.extension !== undefined) {
    throw new InvalidOptionError(
      `\`extension\` options are for env "EXTENSION" (inside a Chrome extension), not ${JSON.stringify(options.env ?? 'LOCAL')}.`,
    );
  }
}

/** A hosted session's domainPolicy is checked whatever the env, so a typo never waits for a switch to HOSTED. */
export function checkSessionPolicy(options: SdkOptions): CheckedPolicy | undefined {
  try {
    return checkDomainPolicy(options.hostedSessionCreateParams?.domainPolicy);
  } catch (error) {
    throw new InvalidOptionError(`hostedSessionCreateParams.${(error as Error).message}`);
  }
}

/**
 * Where the Sdk's downloads go (see SdkOptions.downloadsPath). Without Node (an edge runtime),
 * files cannot be managed here: the browser's own choice stands, and downloads are still reported.
 * An attached browser may have other clients, whose download settings meet ours (driver/downloadKeeper.ts).
 */
async function downloads(
  browser: BrowserHandle,
  named: string | undefined,
  cdpUrl: string | undefined,
): Promise<Pick<OpenedBrowser, 'downloads' | 'removeDownloads'>> {
  const shared = browser.kind === 'attached';
  if (!isNode()) return { downloads: { folder: named, shared, watch: watchDownloads } };
  const { downloadFolder } = await import('../browser/downloads.js');
  const made = downloadFolder(browser, named, cdpUrl);
  return {
    downloads: { folder: made.folder, shared, relocate: shared ? made.relocate : undefined, watch: watchDownloads },
    removeDownloads: made.remove,
  };
}

/** How addInitScript({ path }) reads its file: with Node only (see ContextOptions.readFile). */
export function nodeReadFile(): ((file: string) => Promise<string>) | undefined {
  if (!isNode()) return undefined;
  return async (file) => (await import('../browser/textFile.js')).readTextFile(file);
}

/** The connectURL() bridge on a browser of this machine's or a hosted one; undefined without Node. */
export async function startBridgeOn(browser: BrowserHandle, logger: Logger): Promise<SdkBridge | undefined> {
  if (!isNode()) return undefined;
  try {
    const { CdpBridge } = await import('../browser/cdpBridge.js');
    return await CdpBridge.start(browser.connection, logger);
  } catch (error) {
    logger.error('bridge', `connectURL() will not be available: ${(error as Error).message}`);
    return undefined;
  }
}
