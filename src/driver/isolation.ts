// Isolated browser contexts (Target.createBrowserContext): each has its own cookies, storage, cache
// and tabs, as an incognito window does, in the one browser the Sdk holds. The Sdk's own Context
// attaches to every target of the browser (auto-attach on the browser session, which reaches new
// contexts too), so it must leave an isolated context's targets to the Context that owns them:
// which targets are whose is told by targetInfo.browserContextId.

import type { CdpSession } from '../cdp/session.js';
import { ProtocolError, SdkStateError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { DownloadPlace } from './download.js';

/** Makes a browser context; a browser without a browser session (an extension's) cannot. */
export async function createBrowserContext(root: CdpSession): Promise<string> {
  try {
    // Chrome disposes it when our connection ends, even if this process dies without closing it:
    // nothing of it stays behind in a browser we attached to.
    const { browserContextId } = await root.send('Target.createBrowserContext', { disposeOnDetach: true });
    return browserContextId;
  } catch (error) {
    if (!(error instanceof ProtocolError)) throw error;
    throw new SdkStateError(
      `newContext(): this browser cannot make an isolated context (${error.message}). A browser reached through an extension has tab ` +
        'sessions only; launch or attach to a browser (env "LOCAL") for isolated contexts.',
      { cause: error },
    );
  }
}

/**
 * Chrome keeps one download setting per browser context: a new one would save where the browser
 * decides, unreported. It gets the Sdk's folder, and reports its downloads on the browser session,
 * where the Sdk's one watcher (download.ts) hands them to the page they came from.
 */
export async function isolatedDownloads(
  root: CdpSession,
  place: DownloadPlace | undefined,
  browserContextId: string,
  logger: Logger,
): Promise<void> {
  if (!place) return;
  const { folder } = place;
  await root
    .send('Browser.setDownloadBehavior', {
      behavior: folder === undefined ? 'default' : 'allow',
      downloadPath: folder,
      browserContextId,
      eventsEnabled: true,
    })
    .catch((error: unknown) => {
      if (!(error instanceof ProtocolError)) throw error;
      logger.info('download', 'This browser does not report the downloads of an isolated context', { reason: error.message });
    });
}

/** Closes every page of the context and forgets its cookies, storage and cache. */
export async function disposeBrowserContext(root: CdpSession, browserContextId: string): Promise<void> {
  await root.send('Target.disposeBrowserContext', { browserContextId }).catch((error: unknown) => {
    // Gone already (the browser closed it, or another client did): what close() wanted.
    if (!(error instanceof ProtocolError)) throw error;
  });
}

/** Starts an isolated context with its storage state; one that fails to start is disposed, not left half made. */
export async function startIsolated(
  context: { start(): Promise<void>; setStorageState(state: unknown): Promise<unknown>; close(): Promise<void> },
  storageState: unknown,
): Promise<void> {
  try {
    await context.start();
    await context.setStorageState(storageState);
  } catch (error) {
    await context.close();
    throw error;
  }
}
