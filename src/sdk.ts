import { attachToBrowser } from './browser/attach.js';
import type { BrowserHandle } from './browser/browser.js';
import { openExtensionBrowser } from './browser/extension.js';
import { matchForeignPage } from './driver/foreignPage.js';
import { watchDownloads } from './driver/download.js';
import { WATCH_SOURCE } from './driver/shadowWatch/generated.js';
import { connectHosted } from './hosted/client/api.js';
import { hostedService } from './hosted/client/service.js';
import type { Logger } from './logger.js';
import { SdkCore, type OpenedBrowser, type SdkBridge, type SdkRuntime } from './sdkCore.js';
import { checkEnvOptions, sessionPolicy } from './sdkOptions.js';
import type { SdkEnv, SdkOptions } from './types.js';
import { isNode } from './util/env.js';

const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;

/**
 * The package's main entry: every env. What needs Node (launching, the download folder, the
 * connectURL() bridge) is imported only when used, so the HOSTED path also runs where Node is absent
 * (an edge runtime, whose bundle swaps those modules for stubs: scripts/edge-stubs.mjs).
 */
const fullRuntime: SdkRuntime = {
  envs: ['LOCAL', 'HOSTED', 'EXTENSION'],
  refuseEnv: (env) => `env ${JSON.stringify(env)} is not available.`,
  checkEnv: checkEnvOptions,
  policy: sessionPolicy,
  noBridge: (env) =>
    env === 'EXTENSION'
      ? 'connectURL() is not available with env "EXTENSION": it serves a WebSocket from Node, which an extension does not have. Use sdk.context.pages().'
      : 'connectURL() is not available here: it needs Node (its WebSocket server) and a local or attached browser.',
  open,
  foreignPage: matchForeignPage,
};

async function open(env: SdkEnv, options: SdkOptions, logger: Logger, cdpTimeoutMs: number): Promise<OpenedBrowser> {
  if (env === 'EXTENSION') return { browser: await openExtensionBrowser(options.extension, logger, cdpTimeoutMs) };
  const launch = options.localBrowserLaunchOptions ?? {};
  const connectTimeoutMs = launch.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  if (env === 'HOSTED') {
    const browser = await connectHosted(options, logger, connectTimeoutMs, cdpTimeoutMs);
    return { browser, startBridge: () => startBridgeOn(browser, logger), service: hostedService(browser, options, logger), closedRootWatch: WATCH_SOURCE };
  }
  const browser = launch.cdpUrl
    ? await attachToBrowser(launch.cdpUrl, launch.cdpHeaders, connectTimeoutMs, logger, cdpTimeoutMs)
    : // Launching needs Node (child processes, files): loaded only when used.
      await (await import('./browser/launch.js')).launchChrome(launch, logger, cdpTimeoutMs);
  try {
    const startBridge = () => startBridgeOn(browser, logger);
    return { browser, viewport: launch.viewport, startBridge, closedRootWatch: WATCH_SOURCE, ...(await downloads(browser, options.downloadsPath, launch.cdpUrl)) };
  } catch (error) {
    await browser.close();
    throw error;
  }
}

/**
 * Where the Sdk's downloads go (see SdkOptions.downloadsPath). Without Node (an edge runtime),
 * files cannot be managed here: the browser's own choice stands, and downloads are still reported.
 */
async function downloads(browser: BrowserHandle, named: string | undefined, cdpUrl: string | undefined): Promise<Pick<OpenedBrowser, 'downloads' | 'removeDownloads'>> {
  if (!isNode()) return { downloads: { folder: named, watch: watchDownloads } };
  const { downloadFolder } = await import('./browser/downloads.js');
  const made = downloadFolder(browser, named, cdpUrl);
  return { downloads: { folder: made.folder, watch: watchDownloads }, removeDownloads: made.remove };
}

async function startBridgeOn(browser: BrowserHandle, logger: Logger): Promise<SdkBridge | undefined> {
  if (!isNode()) return undefined;
  try {
    const { CdpBridge } = await import('./browser/bridge.js');
    return await CdpBridge.start(browser.connection, logger);
  } catch (error) {
    logger.error('bridge', `connectURL() will not be available: ${(error as Error).message}`);
    return undefined;
  }
}

/**
 * The client. `init()` gets a browser (launches Chrome, attaches to `cdpUrl`, opens a hosted
 * session, or, inside a Chrome extension, attaches to its tabs), `context` holds its pages,
 * `close()` lets it go.
 */
export class Sdk extends SdkCore {
  constructor(options: SdkOptions = {}) {
    super(options, fullRuntime);
  }
}
