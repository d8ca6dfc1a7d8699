// Each hosted session's own folder: its profile, its downloads, and the HOME its browser sees, so
// nothing a session writes lands in the server user's home, and all of it goes when the session
// ends (the launch wrapper removes it even if the server itself dies). The browser also gets a
// clean environment: the server's own (API keys, signing secret, REDIS_URL) is none of its business.

import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { BrowserHandle } from '../../browser/browser.js';
import type { Logger } from '../../logger.js';

export interface Workspace {
  dir: string;
  profileDir: string;
  downloadsDir: string;
  /** The whole environment of the session's browser. */
  env: NodeJS.ProcessEnv;
  remove(): Promise<void>;
}

// What a browser needs to run and render text the way the server's locale says, and nothing else.
const PASSED_ON = ['PATH', 'LANG', 'LANGUAGE', 'LC_ALL', 'LC_CTYPE', 'TZ', 'FONTCONFIG_PATH', 'FONTCONFIG_FILE'];

export async function makeWorkspace(): Promise<Workspace> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'tendril-session-'));
  const profileDir = path.join(dir, 'profile');
  const downloadsDir = path.join(dir, 'downloads');
  const tmp = path.join(dir, 'tmp');
  await Promise.all([mkdir(profileDir), mkdir(downloadsDir), mkdir(tmp)]);
  const env: NodeJS.ProcessEnv = {};
  for (const name of PASSED_ON) if (process.env[name] !== undefined) env[name] = process.env[name];
  Object.assign(env, {
    HOME: dir,
    TMPDIR: tmp,
    XDG_CONFIG_HOME: path.join(dir, '.config'),
    XDG_CACHE_HOME: path.join(dir, '.cache'),
    XDG_DATA_HOME: path.join(dir, '.local', 'share'),
  });
  return {
    dir,
    profileDir,
    downloadsDir,
    env,
    remove: () => rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }).catch(() => undefined),
  };
}

/**
 * Sends the browser's downloads to the session's folder and cancels any that would take the
 * session past `maxBytes` over all its files (or removes it, when it finished first). A client's own setDownloadBehavior is rewritten to
 * the same folder on the connectUrl bridge (cdpGuard.ts), with events kept on.
 */
export async function confineDownloads(
  browser: BrowserHandle,
  folder: string,
  maxBytes: number,
  logger: Logger,
  session: string,
): Promise<void> {
  const root = browser.connection.rootSession;
  const received = new Map<string, number>();
  const cancelled = new Set<string>();
  root.on('Browser.downloadWillBegin', (event) => {
    received.set(event.guid, 0);
    logger.info('hosted', 'A session page started a download', { session, file: event.suggestedFilename });
  });
  const remove = (event: { guid: string; filePath?: string }) => {
    const file = event.filePath ?? path.join(folder, event.guid);
    if (path.dirname(path.resolve(file)) === path.resolve(folder)) void rm(file, { force: true }).catch(() => undefined);
  };
  root.on('Browser.downloadProgress', (event) => {
    if (cancelled.has(event.guid)) {
      // The cancel lost the race with the last bytes (loopback is fast): the file goes instead.
      if (event.state === 'completed') remove(event);
      return;
    }
    received.set(event.guid, Math.max(event.receivedBytes, event.state === 'completed' ? event.totalBytes : 0));
    let total = 0;
    for (const bytes of received.values()) total += bytes;
    // A download that announces more than is left is stopped at once, not when it gets there.
    const announced = event.state === 'inProgress' && event.totalBytes > 0 ? total - event.receivedBytes + event.totalBytes : total;
    if (event.state === 'canceled' || (total <= maxBytes && announced <= maxBytes)) return;
    cancelled.add(event.guid);
    received.set(event.guid, 0);
    if (event.state === 'inProgress') {
      logger.info('hosted', `A session download was cancelled: it would take the session past its ${maxBytes}-byte download limit`, {
        session,
      });
      void root.sendQuiet('Browser.cancelDownload', { guid: event.guid });
      return;
    }
    // It finished before the cancel could land (a fast link): the file goes instead.
    logger.info('hosted', `A session download was removed: it took the session past its ${maxBytes}-byte download limit`, { session });
    remove(event);
  });
  await root.send('Browser.setDownloadBehavior', sessionDownloads(folder));
}

/** The download setting of a session's browser: saved into its folder, each under a name of the browser's choosing, reported. */
export function sessionDownloads(folder: string) {
  return { behavior: 'allowAndName' as const, downloadPath: folder, eventsEnabled: true };
}
