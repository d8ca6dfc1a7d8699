// Phase one of a capture: one walk over the composed tree (shadow roots entered, slots followed) that
// keeps what a user can perceive and folds away what adds nothing. Iterative, so a DOM thousands of
// levels deep cannot exhaust the call stack.

import { authorName, ariaStates, describeControl, KEEP_EMPTY, LEAF_ROLES, PASS_THROUGH, roleOf } from './roles.js';
import { clean, squash } from './text.js';
import {
  BREAK,
  contentText,
  edge,
  inFlow,
  isBlank,
  onlyText,
  proseWithLinks,
  pushNode,
  pushText,
  startLists,
  type FrameItem,
  type Item,
  type NodeItem,
} from './items.js';
import { hrefOf, startLinks } from './links.js';
import type { EngineLike } from './types.js';

/** An element whose children are being walked. */
interface Open {
  el: Element;
  tag: string;
  /** Children are read by sibling links (an index into a live NodeList costs a binding call each)... */
  next: Node | null;
  /** ...or from a list when they are not siblings (a slot's assigned nodes). */
  list: Node[] | null;
  i: number;
  /**
   * Where its content goes: a list of its own, or, for a box that adds no node, its parent's (which
   * saves copying everything inside a stack of plain boxes up one level at a time).
   */
  items: Item[];
  /** '' for a box that adds no node. */
  role: string;
  visible: boolean;
  /** Display is inline (or contents): its text flows into its neighbours'. Null until needed. */
  inline: boolean | null;
  /** May host a closed root, which its first element child, when it comes, will tell. */
  askFirstChild: boolean;
  /** Inside a table used for layout: its rows and cells are plain boxes. */
  layout: boolean;
  /** A label's text already names its control. */
  dropText: boolean;
  /**
   * The text of an element without element children, read whole: one native call instead of a
   * wrapper and a step of the walk for each of its text nodes (null while its children are walked).
   */
  text: string | null;
}

const SKIP = new Set([
  'script',
  'style',
  'template',
  'noscript',
  'head',
  'meta',
  'link',
  'title',
  'base',
  'param',
  'source',
  'track',
  'hr',
  'canvas',
  'video',
  'audio',
  'object',
  'embed',
  'map',
  'datalist',
]);
const SHADOW_HOSTS = new Set([
  'article',
  'aside',
  'blockquote',
  'div',
  'footer',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'main',
  'nav',
  'p',
  'section',
  'span',
]);
const TABLE_PARTS = new Set(['row', 'cell', 'columnheader', 'rowheader', 'table']);
const LANDMARKS = new Set(['navigation', 'banner', 'contentinfo', 'complementary', 'main', 'region', 'form', 'search']);
const VISIBLE: CheckVisibilityOptions = { visibilityProperty: true };

export class Walker {
  /** Elements that may host a closed shadow root (the walk cannot tell; the host can scan). */
  readonly suspects: Element[] = [];
  /** Rendered elements seen: a measure of the document's size. */
  elements = 0;

  constructor(
    private readonly engine: EngineLike,
    private readonly frames: Map<Element, string>,
  ) {}

  walk(root: Element): Item[] {
    const top: Open = {
      el: root,
      tag: '',
      next: null,
      list: [root],
      i: 0,
      items: [],
      role: '',
      visible: true,
      inline: false,
      askFirstChild: false,
      layout: false,
      dropText: false,
      text: null,
    };
    startLists();
    startLinks();
    const stack: Open[] = [top];
    while (stack.length) {
      const open = stack[stack.length - 1]!;
      let node: Node | null;
      if (open.list) node = open.i < open.list.length ? open.list[open.i++]! : null;
      else if ((node = open.next)) open.next = node.nextSibling;
      if (node) {
        if (node.nodeType === 3) {
          if (open.visible && !open.dropText)
            pushText(open.items, squash((node as Text).data), open.list ? (node.parentElement ?? open.el) : open.el);
        } else if (node.nodeType === 1) {
          const child = this.enter(node as Element, open);
          if (child) stack.push(child);
        }
        continue;
      }
      stack.pop();
      if (open !== top) this.leave(open, stack[stack.length - 1]!);
    }
    return top.items;
  }

  private enter(el: Element, parent: Open): Open | null {
    const tag = el.localName;
    // The parent's question (see mayHostClosedRoot) is answered here, from this element's own
    // visibility check, rather than by a check of its own.
    const asked = parent.askFirstChild;
    parent.askFirstChild = false;
    const skipped = SKIP.has(tag);
    const attributes = !skipped && el.hasAttributes();
    if (skipped || (attributes && el.getAttribute('aria-hidden') === 'true')) {
      if (asked && unrendered(el)) this.suspects.push(parent.el);
      return null;
    }
    // One native check answers "rendered and visible" for nearly every element; the computed style,
    // which costs an object and two strings, is read only when it says no, to tell display:none
    // (skip the subtree) from visibility:hidden or display:contents (children may still show).
    let visible = true;
    let inline: boolean | null = null;
    if (!el.checkVisibility(VISIBLE)) {
      const style = getComputedStyle(el);
      if (style.display === 'none') return null;
      visible = style.visibility === 'visible';
      inline = inFlow(style);
      // Not rendered at all (visibility aside), though not display:none: a child a shadow root left out.
      if (asked && (visible || !el.checkVisibility())) this.suspects.push(parent.el);
    }
    this.elements++;
    switch (tag) {
      case 'iframe':
      case 'frame': {
        const key = this.frames.get(el);
        if (key !== undefined && visible) {
          const name = clean(el.getAttribute('title') || el.getAttribute('name'));
          pushNode(parent.items, { k: 3, key, name, el });
        }
        return null;
      }
      case 'input':
      case 'textarea':
      case 'select':
        if (visible) this.control(el, tag, parent.items);
        return null;
      case 'img':
        if (visible) image(el, authorName(el) || clean(el.getAttribute('alt')) || clean(el.getAttribute('title')), parent.items);
        return null;
      case 'svg':
        if (visible) image(el, authorName(el) || (el.getAttribute('role') === 'img' || hasTitle(el) ? svgTitle(el) : ''), parent.items);
        return null;
      case 'br':
        if (visible) pushText(parent.items, ' ', el);
        return null;
    }
    const root = this.engine.rootOf(el);
    let next: Node | null = null;
    let list: Node[] | null = null;
    let askFirstChild = false;
    let text: string | null = null;
    if (root) next = root.firstChild;
    else if (tag === 'slot') list = (el as HTMLSlotElement).assignedNodes({ flatten: true });
    else if (tag === 'details' && !(el as HTMLDetailsElement).open) list = Array.from(el.children).filter((c) => c.localName === 'summary');
    else {
      // Text nodes (and comments) only: textContent is their data joined, which is what the walk
      // would gather from them one by one.
      if (el.childElementCount === 0) text = el.textContent;
      else next = el.firstChild;
      askFirstChild = this.mayHostClosedRoot(el, tag);
    }
    if (attributes && el.getAttribute('hidden') === 'until-found') {
      next = list = null;
      text = null;
      if (askFirstChild && el.firstElementChild && unrendered(el.firstElementChild)) this.suspects.push(el);
      askFirstChild = false;
    }
    const layout = tag === 'table' ? isLayoutTable(el as HTMLTableElement) : parent.layout;
    let role = visible ? roleOf(el, tag) : '';
    if (layout && TABLE_PARTS.has(role) && !el.hasAttribute('role')) role = '';
    const dropText = tag === 'label' && !!(el as HTMLLabelElement).control;
    const open: Open = {
      el,
      tag,
      next,
      list,
      i: 0,
      items: role ? [] : parent.items,
      role,
      visible,
      inline,
      askFirstChild,
      layout,
      dropText,
      text,
    };
    // A generic box adds no line, but a block one keeps its text apart from its neighbours'.
    if (!role) edge(open);
    if (text && visible && !dropText) pushText(open.items, squash(text), el);
    return open;
  }

  private leave(open: Open, parent: Open): void {
    const { el, tag, items, role } = open;
    // No element child came to answer: an empty box that takes space may draw a shadow root's content.
    if (open.askFirstChild && !clean(open.text ?? el.textContent) && takesSpace(el)) this.suspects.push(el);
    if (!role) {
      edge(open);
      return;
    }
    let name = authorName(el);
    const states = ariaStates(el, role, tag);
    // A node is a boundary: blank text kept for merging across inline elements has no use here.
    let kids: Item[] = items.length && isBlank(items[0]) ? items.slice(1) : items;
    if (LEAF_ROLES.has(role)) {
      const content = contentText(kids);
      // An author's name (aria-label) wins, but visible words it leaves out are kept beside it.
      kids = name && content && !name.includes(content) ? [{ k: 1, text: content, el }] : [];
      name ||= content || clean(el.getAttribute('title'));
    } else if (!name && onlyText(kids)) {
      name = contentText(kids);
      kids = [];
    } else if (!name && proseWithLinks(kids)) {
      // Running text with links in it reads as one sentence; the links stay as children, to follow.
      name = contentText(kids);
      kids = kids.filter((item) => item !== BREAK && item.k === 0);
    }
    let nodes = kids.length ? kids.filter((item) => item !== BREAK) : kids;
    if (role === 'row' && !name && !states) {
      const row = foldRow(nodes);
      if (row) [name, nodes] = row;
    }
    // A landmark holding one unnamed list (a menu): its items sit in the landmark directly.
    const only = nodes.length === 1 ? (nodes[0] as Exclude<Item, typeof BREAK>) : null;
    if (LANDMARKS.has(role) && only?.k === 0 && only.role === 'list' && !only.name && !only.states) nodes = only.kids;
    if (!name && !states && PASS_THROUGH.has(role) && nodes.length === 1 && (nodes[0] as Exclude<Item, typeof BREAK>).k !== 1) {
      pushNode(parent.items, nodes[0] as NodeItem | FrameItem);
      return;
    }
    if (!name && nodes.length === 0 && !KEEP_EMPTY.has(role) && role !== 'link') return;
    const node: NodeItem = { k: 0, role, name, states, el, kids: nodes };
    if (role === 'link') node.href = hrefOf(el);
    pushNode(parent.items, node);
  }

  private control(el: Element, tag: string, items: Item[]): void {
    const control = describeControl(el, tag);
    if (!control) return;
    const node: NodeItem = { k: 0, role: control.role, name: control.name, states: control.states, el, kids: [] };
    for (const option of control.options ?? []) {
      node.kids.push({ k: 0, role: 'option', name: option.name, states: option.states, el: option.el, kids: [] });
    }
    pushNode(items, node);
  }

  /**
   * Page script cannot see closed shadow roots. Custom elements, and boxes that take space while
   * showing none of their own content, are where one may hide; the host scans for them. A custom
   * element is a suspect at once (true is returned for a plain box, whose first element child, or
   * the lack of one, answers later: a light child that a root leaves unslotted is not rendered).
   */
  private mayHostClosedRoot(el: Element, tag: string): boolean {
    const custom = tag.includes('-');
    if (!custom && !SHADOW_HOSTS.has(tag)) return false;
    if (this.engine.isScanned(el)) return false;
    if (custom) this.suspects.push(el);
    return !custom;
  }
}

/**
 * The element's box has width and height. The offset sizes cost half a bounding rectangle (no object,
 * no transforms), and a box scaled away by a transform only costs a needless probe.
 */
function takesSpace(el: Element): boolean {
  if (!(el instanceof HTMLElement)) {
    const box = el.getBoundingClientRect();
    return box.width > 0 && box.height > 0;
  }
  return el.offsetWidth > 0 && el.offsetHeight > 0;
}

/** Not rendered, though not display:none either. */
function unrendered(el: Element): boolean {
  return !el.checkVisibility() && getComputedStyle(el).display !== 'none';
}

const CELLS = new Set(['cell', 'gridcell', 'columnheader', 'rowheader']);

/**
 * A table row reads best as one line, its cells' text joined by " | " (a header row the same way,
 * so columns line up). The row keeps as children what can be acted on or followed inside its cells
 * (links, buttons, fields). Rows whose cells hold more structure than that stay as they are.
 */
function foldRow(cells: Item[]): [string, Item[]] | null {
  if (!cells.length) return null;
  const texts: string[] = [];
  const kids: Item[] = [];
  for (const cell of cells) {
    if (cell === BREAK || cell.k !== 0 || !CELLS.has(cell.role) || cell.states) return null;
    for (const kid of cell.kids) {
      if (kid === BREAK || kid.k !== 0 || (kid.kids.length > 0 && !KEEP_EMPTY.has(kid.role))) return null;
      if (kid.role !== 'image') kids.push(kid);
    }
    texts.push(cell.name || contentText(cell.kids));
  }
  return [texts.join(' | '), kids];
}

function image(el: Element, name: string, items: Item[]): void {
  if (name) pushNode(items, { k: 0, role: 'image', name, states: '', el, kids: [] });
}

function hasTitle(svg: Element): boolean {
  return svg.firstElementChild?.localName === 'title';
}

function svgTitle(svg: Element): string {
  const title = Array.from(svg.children).find((c) => c.localName === 'title');
  return title ? clean(title.textContent) : '';
}

function isLayoutTable(table: HTMLTableElement): boolean {
  if (table.hasAttribute('role') || table.querySelector('th,caption,thead,tfoot')) return false;
  return table.rows.length <= 1 || table.querySelector('table') !== null;
}
