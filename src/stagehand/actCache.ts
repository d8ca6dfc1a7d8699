// `cacheDir`: act(instruction) keeps the action it performed, by instruction, page and variable
// names, in a JSON file of the folder; the next act() with the same ones replays it without a model
// (and, where the page changed so that it no longer fits, asks the model again, as act(action) does).
// Node only: loaded when a Stagehand has a cacheDir.

import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ObserveResult } from '../types.js';

interface Entry {
  instruction: string;
  url: string;
  action: ObserveResult;
}

export class ActCache {
  constructor(private readonly folder: string) {}

  /** The page counts without its query and fragment: a search term or a session id changes no layout. */
  #file(instruction: string, url: string, variables: string[]): string {
    let page = url;
    try {
      const parsed = new URL(url);
      page = parsed.origin + parsed.pathname;
    } catch {
      // about:blank and the like stay as they are.
    }
    const key = createHash('sha256')
      .update(JSON.stringify([instruction.trim(), page, [...variables].sort()]))
      .digest('hex')
      .slice(0, 32);
    return path.join(this.folder, `act-${key}.json`);
  }

  async get(instruction: string, url: string, variables: string[]): Promise<ObserveResult | undefined> {
    try {
      const entry = JSON.parse(await readFile(this.#file(instruction, url, variables), 'utf8')) as Entry;
      const { action } = entry;
      return typeof action?.selector === 'string' && typeof action.method === 'string' && Array.isArray(action.arguments)
        ? action
        : undefined;
    } catch {
      // No entry, or one this version cannot read: the model is asked.
      return undefined;
    }
  }

  /** Written to a temporary name first: two processes sharing the folder never read half a file. */
  async set(instruction: string, url: string, variables: string[], action: ObserveResult): Promise<void> {
    const file = this.#file(instruction, url, variables);
    await mkdir(this.folder, { recursive: true });
    const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
    await writeFile(temporary, JSON.stringify({ instruction, url, action } satisfies Entry, null, 2));
    await rename(temporary, file);
  }
}
