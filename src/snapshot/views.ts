// The host's part of the views. viewport: each frame said which of its lines show in its own window;
// here a child frame's lines are kept only where they also show through its iframe, as far up as the
// top page, and every kept line keeps the lines it sits under so the text still reads as a tree.
// delta: the last full text each page gave its caller, to compare the next one with.

import type { Page } from '../driver/page.js';
import { intersect, isEmpty, overlaps, translate, type Rect } from '../injected/reader/rect.js';
import { diffPageText, firstRead } from './delta.js';
import { LINE_ID, lineId } from './ids.js';
import type { FramePart } from './snapshot.js';

/** A frame's lines kept: those shown in its window, those within a rect of it, all, or none. */
type Region = 'window' | 'all' | 'none' | Rect;

/** The full text cut down to the lines that show in the viewport (and the top dialog's). */
export function viewportText(text: string, parts: readonly FramePart[]): string {
  const regions = new Map<FramePart, Region>();
  const keepers = new Map<number, (node: number) => boolean>();
  for (const part of parts) keepers.set(part.ordinal, keeperOf(part, regionOf(part, regions)));
  return keepWithAncestors(text, (frame, node) => keepers.get(frame)?.(node) ?? false);
}

function regionOf(part: FramePart, regions: Map<FramePart, Region>): Region {
  let region = regions.get(part);
  if (region !== undefined) return region;
  region = 'window';
  const parent = part.parent;
  if (parent) {
    const above = regionOf(parent.part, regions);
    const frames = parent.part.result.viewport?.frames ?? [];
    const at = frames.indexOf(part.frame.id);
    if (above === 'none' || at < 0) region = 'none';
    else if (above === 'all' || frames[at + 7] === 1)
      region = 'all'; // inside the top dialog: all of it
    else {
      const [left, top, vLeft, vTop, vRight, vBottom] = frames.slice(at + 1, at + 7) as number[];
      // Where the iframe shows in its parent (already cut to the parent's window), cut again by what
      // of the parent shows further up, then in the child's own coordinates.
      let shown: Rect = { left: vLeft!, top: vTop!, right: vRight!, bottom: vBottom! };
      if (above !== 'window') shown = intersect(shown, above);
      region = isEmpty(shown) ? 'none' : translate(shown, -left!, -top!);
    }
  }
  regions.set(part, region);
  return region;
}

function keeperOf(part: FramePart, region: Region): (node: number) => boolean {
  if (region === 'all') return () => true;
  if (region === 'none') return () => false;
  const report = part.result.viewport;
  const kept = new Set<number>(report?.dialog ?? []);
  const shown = report?.shown ?? [];
  for (let i = 0; i < shown.length; i += 5) {
    const box = { left: shown[i + 1]!, top: shown[i + 2]!, right: shown[i + 3]!, bottom: shown[i + 4]! };
    if (region === 'window' || overlaps(box, region)) kept.add(shown[i]!);
  }
  return (node) => kept.has(node);
}

/** The lines `keep` accepts, with every line above them in the tree (by indentation). */
export function keepWithAncestors(text: string, keep: (frame: number, node: number) => boolean): string {
  if (!text) return text;
  const lines = text.split('\n');
  const kept = new Uint8Array(lines.length);
  const open: Array<{ indent: number; index: number }> = [];
  lines.forEach((line, index) => {
    const indent = line.length - line.trimStart().length;
    while (open.length && open[open.length - 1]!.indent >= indent) open.pop();
    const id = LINE_ID.exec(line);
    if (id && keep(...lineId(id))) {
      kept[index] = 1;
      // Once an ancestor is kept, so are the ones above it.
      for (let i = open.length - 1; i >= 0 && !kept[open[i]!.index]; i--) kept[open[i]!.index] = 1;
    }
    open.push({ indent, index });
  });
  return lines.filter((_, index) => kept[index]).join('\n');
}

/**
 * The last full page text each page gave its caller (`extract()`, or `view: "delta"`), per selector:
 * what an agent holds, so the next delta is against that. Texts the caller never saw whole
 * (instruction extracts, act, observe, the viewport and interactive views) leave it as it is.
 */
/** Texts kept per page for `delta`, one per selector, the most recently read. */
const REMEMBERED_SELECTORS = 8;

export class PageTexts {
  readonly #texts = new WeakMap<Page, Map<string, string>>();

  /** Remembers `text` and answers with it, or with the delta from the one remembered before. */
  take(page: Page, selector: string | undefined, text: string, delta: boolean): string {
    let texts = this.#texts.get(page);
    if (!texts) this.#texts.set(page, (texts = new Map()));
    const key = selector ?? '';
    const previous = texts.get(key);
    texts.delete(key);
    texts.set(key, text);
    // A page read under many selectors keeps the latest few, not one text per selector ever used.
    if (texts.size > REMEMBERED_SELECTORS) texts.delete(texts.keys().next().value!);
    if (!delta) return text;
    return previous === undefined ? firstRead(text) : diffPageText(previous, text);
  }
}
