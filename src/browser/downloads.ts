// The folder a local Sdk's downloads go to. Node only (files), loaded when used.

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { isLoopbackHost } from './attach.js';
import type { BrowserHandle } from './browser.js';

export interface DownloadFolder {
  /** Where the browser saves downloads; undefined leaves it to the browser (one on another machine). */
  folder: string | undefined;
  /** Removes a folder that was made for this Sdk alone. */
  remove(): Promise<void>;
}

// Folders made here and not removed yet: a program that ends without close() leaves none behind.
const made = new Set<string>();
let exitHook = false;

/**
 * `named`: the user's folder, made if missing and kept. Otherwise a temporary one: inside the
 * temporary profile of a browser we launched (it goes with the profile), or a folder of its own
 * for a browser on this machine; none for a browser elsewhere, whose disk we cannot reach.
 */
export function downloadFolder(browser: BrowserHandle, named: string | undefined, cdpUrl: string | undefined): DownloadFolder {
  if (named !== undefined) {
    const folder = path.resolve(named);
    mkdirSync(folder, { recursive: true });
    return { folder, remove: async () => undefined };
  }
  if (browser.tempProfile) {
    const folder = path.join(browser.tempProfile, 'Downloads');
    mkdirSync(folder, { recursive: true });
    return { folder, remove: async () => undefined };
  }
  if (cdpUrl !== undefined && !isOnThisMachine(cdpUrl)) return { folder: undefined, remove: async () => undefined };
  const folder = mkdtempSync(path.join(os.tmpdir(), 'tendril-downloads-'));
  made.add(folder);
  if (!exitHook) {
    exitHook = true;
    process.on('exit', () => {
      for (const each of made) rmSync(each, { recursive: true, force: true });
    });
  }
  return {
    folder,
    remove: async () => {
      made.delete(folder);
      await rm(folder, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }).catch(() => undefined);
    },
  };
}

/** A cdpUrl on loopback, or a DevToolsActivePort file: the browser shares this machine's disk. */
function isOnThisMachine(cdpUrl: string): boolean {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(cdpUrl)) return true;
  try {
    return isLoopbackHost(new URL(cdpUrl).hostname);
  } catch {
    return false;
  }
}
