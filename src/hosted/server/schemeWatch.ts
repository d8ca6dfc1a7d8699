// The second line behind the connectUrl guard: whatever way a session's browser came to show a
// non-web page (file:, chrome:, devtools:...): a command the guard did not foresee, a browser
// shortcut, a Chrome bug, the server watches every target of its session browser and closes one
// that commits such a URL. Chrome itself keeps web pages from opening them.

import type { Protocol } from 'devtools-protocol';
import type { BrowserHandle } from '../../browser/browser.js';
import type { Logger } from '../../logger.js';
import { BROWSER_UI, targetUrlAllowed } from './webUrl.js';

const WATCH_TIMEOUT_MS = 10_000;

/**
 * Starts watching the session browser's targets (on the server's own connection, which no client
 * can reach). Resolves once the watch is on; never rejects: a failure is logged.
 */
export async function watchSchemes(browser: BrowserHandle, logger: Logger, sessionId: string): Promise<void> {
  const root = browser.connection.rootSession;
  const closing = new Set<string>();
  const check = ({ targetInfo }: { targetInfo: Protocol.Target.TargetInfo }) => {
    // Chrome's own UI is left alone: the guard keeps clients from attaching to it.
    if (['browser', 'tab', BROWSER_UI].includes(targetInfo.type) || targetUrlAllowed(targetInfo.url) || closing.has(targetInfo.targetId))
      return;
    closing.add(targetInfo.targetId);
    // The scheme only: the rest of the URL may hold what is not the log's to keep.
    const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(targetInfo.url)?.[0] ?? '?';
    logger.error('hosted', 'A session target showed a non-web page; closing it', { session: sessionId, type: targetInfo.type, scheme });
    root.send('Target.closeTarget', { targetId: targetInfo.targetId }, { timeoutMs: WATCH_TIMEOUT_MS }).catch((error: Error) => {
      logger.error('hosted', `Could not close a session target that showed a non-web page: ${error.message}`, { session: sessionId });
    });
  };
  root.on('Target.targetCreated', check);
  root.on('Target.targetInfoChanged', check);
  root.on('Target.targetDestroyed', ({ targetId }) => closing.delete(targetId));
  try {
    await root.send('Target.setDiscoverTargets', { discover: true }, { timeoutMs: WATCH_TIMEOUT_MS });
  } catch (error) {
    logger.error('hosted', `Could not watch the session browser's pages: ${(error as Error).message}`, { session: sessionId });
  }
}
