// page_text under a budget, and find. A page's text can run to megabytes (a 10,000-row table): an
// agent gets it in parts, each whole lines under the budget, with a cursor to the next; or only the
// lines that match, each with the lines above it that say where it is.

import { createHash } from 'node:crypto';
import type { Page } from '../../driver/page.js';
import { InvalidOptionError } from '../../errors.js';
import { LINE_ID } from '../../snapshot/ids.js';

/**
 * The default budget of one answer, in characters (about 10,000 tokens of page text). Claude Code,
 * for one, warns when a tool's answer passes 10,000 tokens and cuts it at 25,000; other clients'
 * limits are of the same order. A whole article fits; a huge table comes in parts.
 */
export const DEFAULT_MAX_CHARS = 40_000;
/** The smallest budget taken: less would cut most pages into hundreds of parts. */
export const MIN_MAX_CHARS = 1_000;

/** The text a tab's parts are cut from: its last read, until it is read again. */
const reads = new WeakMap<Page, { text: string; fingerprint: string }>();

function fingerprintOf(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 12);
}

export interface PagePart {
  text: string;
  /** Where the next part starts, to pass back as `cursor`; undefined after the last part. */
  cursor: string | undefined;
  /** The line numbers (from 1) this part holds, and how many the text has. */
  from: number;
  to: number;
  lines: number;
}

/** Remembers a fresh read of the tab and returns its first part. */
export function firstPart(page: Page, text: string, maxChars: number): PagePart {
  const read = { text, fingerprint: fingerprintOf(text) };
  reads.set(page, read);
  return cut(read, 0, maxChars);
}

/** The part a cursor points at, from the read it was made from; a typed error when that read is no longer the tab's last. */
export function nextPart(page: Page, cursor: string, maxChars: number): PagePart {
  const match = /^(\d+)\.([0-9a-f]{12})$/.exec(cursor);
  if (!match)
    throw new InvalidOptionError(
      `\`cursor\` ${JSON.stringify(cursor)} is not one page_text gave; call page_text without a cursor to start again.`,
    );
  const read = reads.get(page);
  if (!read || read.fingerprint !== match[2]) {
    throw new InvalidOptionError(
      'This cursor belongs to an earlier read of the tab (it was read again since, or another tab is current): call page_text without a cursor to read it again.',
    );
  }
  return cut(read, Number(match[1]), maxChars);
}

function cut(read: { text: string; fingerprint: string }, start: number, maxChars: number): PagePart {
  const lines = read.text.split('\n');
  if (start >= lines.length) throw new InvalidOptionError('That cursor is past the end of the page text: the last part was read already.');
  let end = start;
  let size = 0;
  // Whole lines only; a single line longer than the budget still comes whole, alone.
  while (end < lines.length && (end === start || size + lines[end]!.length + 1 <= maxChars)) size += lines[end++]!.length + 1;
  return {
    text: lines.slice(start, end).join('\n'),
    cursor: end < lines.length ? `${end}.${read.fingerprint}` : undefined,
    from: start + 1,
    to: end,
    lines: lines.length,
  };
}

export interface Found {
  text: string;
  matches: number;
  shown: number;
}

/**
 * The lines whose content (after the id) holds every word of `query`, ignoring case, each with the
 * lines it is nested in, in page order and without repeats; at most `maxResults` matches, and no
 * more lines than `maxChars` allows.
 */
export function findLines(pageText: string, query: string, maxResults: number, maxChars: number): Found {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) throw new InvalidOptionError('find needs a `query` with at least one word.');
  const lines = pageText.split('\n');
  const parents = parentsOf(lines);
  const keep = new Set<number>();
  let matches = 0;
  let shown = 0;
  let size = 0;
  for (let i = 0; i < lines.length; i++) {
    const content = lines[i]!.replace(LINE_ID, '').toLowerCase();
    if (!words.every((word) => content.includes(word))) continue;
    matches++;
    if (shown >= maxResults) continue;
    const chain: number[] = [];
    for (let at: number = i; at >= 0 && !keep.has(at); at = parents[at]!) chain.push(at);
    const added = chain.reduce((sum, at) => sum + lines[at]!.length + 1, 0);
    if (shown > 0 && size + added > maxChars) continue;
    for (const at of chain) keep.add(at);
    size += added;
    shown++;
  }
  const text = [...keep]
    .sort((a, b) => a - b)
    .map((at) => lines[at])
    .join('\n');
  return { text, matches, shown };
}

/** For each line, the index of the line it is nested in (fewer leading spaces, above it); -1 at the top. */
function parentsOf(lines: string[]): number[] {
  const parents: number[] = [];
  const open: Array<{ at: number; depth: number }> = [];
  lines.forEach((line, at) => {
    const depth = line.length - line.trimStart().length;
    while (open.length && open[open.length - 1]!.depth >= depth) open.pop();
    parents.push(open.length ? open[open.length - 1]!.at : -1);
    open.push({ at, depth });
  });
  return parents;
}
