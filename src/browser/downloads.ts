// The folder a local Sdk's downloads go to. Node only (files), loaded when used.

import { constants, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { copyFile, link, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { isLoopbackHost } from './attach.js';
import type { BrowserHandle } from './browser.js';

export interface DownloadFolder {
  /** Where the browser saves downloads; undefined leaves it to the browser (one on another machine). */
  folder: string | undefined;
  /** Removes a folder that was made for this Sdk alone. */
  remove(): Promise<void>;
  /** Moves a file into `folder` (see DownloadPlace.relocate); absent when its disk is not ours. */
  relocate?: (file: string) => Promise<string>;
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
  const local = cdpUrl === undefined || isOnThisMachine(cdpUrl);
  if (named !== undefined) {
    const folder = path.resolve(named);
    mkdirSync(folder, { recursive: true });
    return { folder, remove: async () => undefined, relocate: local ? (file) => moveInto(file, folder) : undefined };
  }
  if (browser.tempProfile) {
    const folder = path.join(browser.tempProfile, 'Downloads');
    mkdirSync(folder, { recursive: true });
    return { folder, remove: async () => undefined };
  }
  if (!local) return { folder: undefined, remove: async () => undefined };
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
    relocate: (file) => moveInto(file, folder),
  };
}

/**
 * Moves a file the browser saved elsewhere into `folder`, never over a file already there (which
 * Chrome itself would overwrite): a taken name gets " (1)", " (2)"... before its extension.
 */
async function moveInto(file: string, folder: string): Promise<string> {
  if (path.dirname(file) === folder) return file;
  const { name, ext } = path.parse(file);
  for (let n = 0; n < 100; n++) {
    const target = path.join(folder, n === 0 ? name + ext : `${name} (${n})${ext}`);
    if (!(await placeAt(file, target))) continue;
    await rm(file, { force: true });
    return target;
  }
  throw new Error(`every name for ${name}${ext} up to " (99)" is taken in ${folder}`);
}

/** Puts a copy of `file` at `target`; false when that name is taken. */
async function placeAt(file: string, target: string): Promise<boolean> {
  // A hard link fails on a taken name, atomically, and copies nothing.
  try {
    await link(file, target);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
  }
  // Across disks (or where hard links are refused): an exclusive copy, which fails on a taken name too.
  try {
    await copyFile(file, target, constants.COPYFILE_EXCL);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
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
