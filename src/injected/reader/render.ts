// Phase two: the kept items become indented lines with ids. Each id stays with its element in the
// page (engine/ids.ts), so XPaths are built later, only for the ids asked about, and an id acted on
// is its element, not a position.

import { clean } from './text.js';
import { BREAK, type Item } from './items.js';
import type { CaptureResult, EngineLike, ViewportReport } from './types.js';

export const FRAME_MARK = '\u0001';

/** The indentation of a line at each depth, one space per level (kept: a page has few depths). */
const INDENTS: string[] = [''];

export function indent(level: number): string {
  while (INDENTS.length <= level) INDENTS.push(INDENTS[INDENTS.length - 1] + ' ');
  return INDENTS[level]!;
}

/**
 * A view of the text (viewport, interactive) sees every line as it is made, with the line's element at
 * hand: what it needs of the page (boxes, attributes) is read in the same call, never in a round trip
 * per node. Ids are given to every line whatever the view keeps, so a view's ids are the full text's.
 */
export interface Lens {
  /** The lens writes the text itself (the renderer then keeps no lines of its own). */
  readonly replacesText: boolean;
  /** Every line in order: its number, depth, text without indentation, role, name and element. */
  line(id: number, level: number, body: string, role: string, name: string, el: Element): void;
  /** A child frame's place, right after its Iframe line (the line at `level`). */
  frame(key: string, el: Element, level: number): void;
  /** The view's text; null to keep the renderer's. */
  text(): string | null;
  report(): ViewportReport | undefined;
}

export class Renderer {
  readonly lines: string[] = [];
  readonly links: Array<number | string> = [];
  readonly frames: Array<number | string> = [];

  constructor(
    private readonly frame: number,
    private readonly ids: EngineLike['ids'],
    private readonly lens: Lens | null = null,
  ) {}

  /** A line of its own for the page itself (the main frame of an unscoped capture). */
  rootLine(title: string): void {
    this.#line(0, 'RootWebArea', title, '', document.documentElement);
  }

  render(items: Item[], depth: number): void {
    // Two parallel stacks rather than a stack of pairs: on a page of 100k nodes the pairs are garbage.
    const stack: Item[] = [];
    const levels: number[] = [];
    for (let i = items.length - 1; i >= 0; i--) {
      if (items[i] === BREAK) continue;
      stack.push(items[i]!);
      levels.push(depth);
    }
    while (stack.length) {
      const item = stack.pop()!;
      const level = levels.pop()!;
      if (item === BREAK) continue;
      if (item.k === 1) {
        const text = clean(item.text);
        if (text) this.#line(level, 'StaticText', text, '', item.el);
      } else if (item.k === 3) {
        const id = this.#line(level, 'Iframe', item.name, '', item.el);
        this.frames.push(item.key, id);
        if (!this.lens?.replacesText) this.lines.push(indent(level + 1) + FRAME_MARK + item.key);
        this.lens?.frame(item.key, item.el, level);
      } else {
        const id = this.#line(level, item.role, item.name, item.states, item.el);
        if (item.href !== undefined) this.links.push(id, item.href);
        for (let i = item.kids.length - 1; i >= 0; i--) {
          stack.push(item.kids[i]!);
          levels.push(level + 1);
        }
      }
    }
  }

  result(scan: CaptureResult['scan']): CaptureResult {
    const text = this.lens?.text() ?? this.lines.join('\n');
    const result: CaptureResult = { text, links: this.links, frames: this.frames, scan };
    const viewport = this.lens?.report();
    if (viewport) result.viewport = viewport;
    return result;
  }

  #line(level: number, role: string, name: string, states: string, el: Element): number {
    const id = this.ids.idOf(el);
    // The top document's ids go without their frame (see snapshot/ids.ts).
    const body = `${this.frame ? `[${this.frame}-${id}]` : `[${id}]`} ${role}${name ? `: ${name}` : ''}${states}`;
    if (!this.lens?.replacesText) this.lines.push(indent(level) + body);
    this.lens?.line(id, level, body, role, name, el);
    return id;
  }
}
