// Stagehand's page.snapshot() (a StagehandPage's, page.ts): the page text extract() reads (every
// frame, out-of-process ones too, and open and closed shadow roots), with the XPath of each line's
// element and the URL of each link, keyed by the ids the text shows (`12` for the top document,
// `2-5` for frame 2).

import { InvalidOptionError } from '../errors.js';
import type { Page } from '../driver/page.js';
import { captureSnapshot } from '../snapshot/capture.js';
import { idKey, LINE_ID, lineId, shownId } from '../snapshot/ids.js';
import { StagehandSnapshotError } from './errors.js';

/** Stagehand's SnapshotResult: the text and its two maps, both keyed by the ids the text shows. */
export interface SnapshotResult {
  /** The page as text, one node per line (docs/page-text.md). */
  formattedTree: string;
  /** Id → absolute XPath of the element, through iframes and shadow roots. */
  xpathMap: Record<string, string>;
  /** Id of a link → its absolute URL. */
  urlMap: Record<string, string>;
}

export interface PageSnapshotOptions {
  /** false: the top document only, each iframe a line without its content. Default true. */
  includeIframes?: boolean;
}

function checkOptions(options: unknown): boolean {
  if (options === undefined || options === null) return true;
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw new InvalidOptionError(
      `page.snapshot(options): options must be an object such as { includeIframes: false }, not ${JSON.stringify(options)}.`,
    );
  }
  const unknown = Object.keys(options).filter((name) => name !== 'includeIframes');
  if (unknown.length)
    throw new InvalidOptionError(
      `page.snapshot(options): unknown option ${unknown.map((name) => `\`${name}\``).join(', ')}; the one option is \`includeIframes\`.`,
    );
  const { includeIframes } = options as PageSnapshotOptions;
  if (includeIframes !== undefined && typeof includeIframes !== 'boolean') {
    throw new InvalidOptionError(
      `page.snapshot(options): \`includeIframes\` must be true or false, not ${JSON.stringify(includeIframes)}.`,
    );
  }
  return includeIframes !== false;
}

/** StagehandPage.snapshot(). */
export async function snapshotOf(page: Page, options?: PageSnapshotOptions): Promise<SnapshotResult> {
  const includeIframes = checkOptions(options);
  try {
    const snap = await captureSnapshot(page, { logger: page.logger });
    // Every line starts with its id; a frame's lines are those of a frame number above 0.
    const ids: string[] = [];
    const kept = snap.text.split('\n').filter((line) => {
      const match = LINE_ID.exec(line);
      if (!match) return includeIframes;
      const [frame, node] = lineId(match);
      if (frame > 0 && !includeIframes) return false;
      ids.push(`${frame}-${node}`);
      return true;
    });
    const xpathMap: Record<string, string> = {};
    for (const [id, xpath] of await snap.xpathsOf(ids)) xpathMap[shownId(id)] = xpath;
    const urlMap: Record<string, string> = {};
    for (const [id, url] of snap.links()) if (includeIframes || idKey(id).startsWith('0-')) urlMap[shownId(id)] = url;
    return { formattedTree: kept.join('\n'), xpathMap, urlMap };
  } catch (error) {
    throw new StagehandSnapshotError(error);
  }
}
