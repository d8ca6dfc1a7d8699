// The lists of items a walk builds for each node, and where text runs join: whether two runs of
// words flow into one (inline boxes, blank text between them) or stay apart (block boxes, nodes).

import { LEAF_ROLES } from './roles.js';
import { clean } from './text.js';

export interface NodeItem {
  k: 0;
  role: string;
  name: string;
  states: string;
  el: Element;
  kids: Item[];
  href?: string;
}
export interface TextItem {
  k: 1;
  text: string;
  el: Element;
}
export interface FrameItem {
  k: 3;
  key: string;
  name: string;
  el: Element;
}
/** Separates text runs that must not merge (block boundaries, nodes between them). */
export const BREAK = 2;
export type Item = NodeItem | TextItem | FrameItem | typeof BREAK;

/**
 * Whether the element's text runs on with its neighbours' as one line of text would. Taking a box
 * out of the flow (absolute, fixed, float) makes its computed display a block one, so display
 * answers for those; an inline box clipped away (the visually hidden pattern without
 * positioning) shows nothing between its neighbours, whose text must not glue onto its own.
 */
export function inFlow(style: CSSStyleDeclaration): boolean {
  const display = style.display;
  return display === 'contents' || (display === 'inline' && style.clipPath === 'none');
}

/** The visible text of items, nested nodes included (their names, else their own content). */
export function contentText(items: Item[]): string {
  const only = items.length === 1 ? items[0]! : BREAK;
  if (only !== BREAK && only.k === 1) return clean(only.text);
  let out = '';
  const lists: Item[][] = [items];
  const at: number[] = [0];
  while (lists.length) {
    const list = lists[lists.length - 1]!;
    const i = at[at.length - 1]!;
    if (i >= list.length) {
      lists.pop();
      at.pop();
      continue;
    }
    at[at.length - 1] = i + 1;
    const item = list[i]!;
    if (item === BREAK) {
      // Links sit inside running text, which carries its own spaces; other boundaries get one, and
      // so does a link taken out of the line.
      const [before, after] = [list[i - 1], list[i + 1]];
      const link = isLink(before) && isText(after) ? before : isText(before) && isLink(after) ? after : undefined;
      if (!link || !inFlow(getComputedStyle((link as NodeItem).el))) out += ' ';
    } else if (item.k === 1) {
      out = join(out, item.text);
    } else if (item.k === 0) {
      if (item.name) out = item.role === 'link' ? join(out, item.name) : `${out} ${item.name} `;
      else if (item.kids.length) {
        lists.push(item.kids);
        at.push(0);
      }
    }
  }
  return clean(out);
}

const WORD_END = /[\p{L}\p{N}]$/u;
const WORD_START = /^[\p{L}\p{N}]/u;

/** A link's name is trimmed, so where it meets text, a space between two words has to come back. */
function join(out: string, piece: string): string {
  return WORD_END.test(out) && WORD_START.test(piece) ? `${out} ${piece}` : out + piece;
}

export function isBlank(item: Item | undefined): boolean {
  return item !== undefined && item !== BREAK && item.k === 1 && !item.text.trim();
}

function isText(item: Item | undefined): boolean {
  return item !== undefined && item !== BREAK && item.k === 1;
}

function isLink(item: Item | undefined): boolean {
  return item !== undefined && item !== BREAK && item.k === 0 && item.role === 'link';
}

/** Text and leaf nodes (links, buttons, images, fields) only, with some text among them. */
export function proseWithLinks(items: Item[]): boolean {
  let text = false;
  for (const item of items) {
    if (item === BREAK) continue;
    if (item.k === 1) text = true;
    else if (item.k !== 0 || !LEAF_ROLES.has(item.role) || item.kids.length) return false;
  }
  return text;
}

export function onlyText(items: Item[]): boolean {
  let text = false;
  for (const item of items) {
    if (item === BREAK) continue;
    if (item.k !== 1) return false;
    text = true;
  }
  return text;
}

/** A generic box of the walk: it adds no node, its content goes into `items`. */
export interface Box {
  el: Element;
  items: Item[];
  /** Display is inline (or contents); null until read. */
  inline: boolean | null;
}

/**
 * Where a generic box starts or ends right after text, its display decides whether the text that
 * comes next runs on or starts anew. Reading a computed style costs more than the rest of a box,
 * so it is read only there (see pushText): nearly all boxes start and end next to other boxes.
 */
let edgesIn: Item[] | null = null;
let edgesAt = 0;
const edges: Box[] = [];

export function edge(open: Box): void {
  const items = open.items;
  const last = items[items.length - 1];
  if (last === undefined || last === BREAK || last.k !== 1) return;
  if (edgesIn !== items || edgesAt !== items.length) {
    edgesIn = items;
    edgesAt = items.length;
    edges.length = 0;
  }
  edges.push(open);
}

function isBlock(open: Box): boolean {
  return !(open.inline ??= inFlow(getComputedStyle(open.el)));
}

/** Forgets what the last walk left in the state below. */
export function startLists(): void {
  edgesIn = null;
  blankIn = null;
}

/** A list whose last push was blank text after a boundary, at that length (see pushText). */
let blankIn: Item[] | null = null;
let blankAt = 0;

export function pushText(items: Item[], text: string, el: Element): void {
  let last = items[items.length - 1];
  const blank = !text.trim();
  // Blank text runs on either way: only words decide whether the boxes passed since are blocks.
  if (!blank && last !== undefined && last !== BREAK && last.k === 1 && edgesIn === items && edgesAt === items.length) {
    edgesIn = null;
    if (edges.some(isBlock)) items.push((last = BREAK));
  }
  if (last !== undefined && last !== BREAK && last.k === 1) last.text += text;
  // Blank text right after a boundary is left out, but remembered: where the boundary is an inline
  // link (`<a>Inc.</a><b> </b><b>Then</b>`), it is the only space between the words on each side.
  else if (!blank) items.push({ k: 1, text: blankIn === items && blankAt === items.length ? ` ${text}` : text, el });
  // Blank text opening a list (`word<b> </b>word`) can merge into the text around it later.
  else if (items.length === 0) items.push({ k: 1, text, el });
  else {
    blankIn = items;
    blankAt = items.length;
  }
}

/** A boundary between runs of text: two in a row say no more than one. */
export function pushBreak(items: Item[]): void {
  if (items[items.length - 1] !== BREAK) items.push(BREAK);
}

export function pushNode(items: Item[], node: NodeItem | FrameItem): void {
  pushBreak(items);
  items.push(node, BREAK);
}
