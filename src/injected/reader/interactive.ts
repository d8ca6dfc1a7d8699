// The interactive view: only the lines one can act on, each with what tells it apart from its twins,
// the text of its row or list item, else the name of its group, form or dialog, else the heading
// above it. A table with an "Edit" button per row then reads as one "Edit" per row, each with the
// row's text, not as a hundred identical buttons.

import { FRAME_MARK, indent, type Lens } from './render.js';
import { clean, textOf } from './text.js';

/** Roles a user acts on by their nature. */
const ACTING_ROLES = new Set([
  'link',
  'button',
  'checkbox',
  'radio',
  'switch',
  'textbox',
  'searchbox',
  'combobox',
  'listbox',
  'option',
  'slider',
  'spinbutton',
  'tab',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'treeitem',
]);
/** Kept for what they hold: the page, and each frame (its content goes under its line). */
const STRUCTURE = new Set(['RootWebArea', 'Iframe']);
/** Ancestors whose text says which one of many alike this is (an article's text is too long: its name only). */
const ROWS = new Set(['row', 'listitem', 'treeitem']);
/** Ancestors whose name says what an element is for. */
const GROUPS = new Set([
  'group',
  'radiogroup',
  'form',
  'dialog',
  'alertdialog',
  'region',
  'navigation',
  'search',
  'toolbar',
  'menu',
  'menubar',
  'tablist',
  'tabpanel',
  'complementary',
  'table',
  'list',
  'article',
]);
const CONTEXT_MAX = 80;

interface Open {
  role: string;
  name: string;
  el: Element;
  /** Lines kept at and above this one: the indentation of its kept descendants. */
  depth: number;
  /** A row's text when its line has no name (cells holding more than text), or a fieldset's legend; read once. */
  text?: string;
}

export class InteractiveLens implements Lens {
  readonly replacesText = true;
  readonly #lines: string[] = [];
  /** The lines above the current one, by level. */
  readonly #chain: Open[] = [];
  /** The last heading so far, in document order. */
  #heading = '';
  /** Where the context last written came from: lines in one row follow each other, and it is said once. */
  #said: unknown = null;

  line(_id: number, level: number, body: string, role: string, name: string, el: Element): void {
    const chain = this.#chain;
    chain.length = level;
    const above = level > 0 ? (chain[level - 1]?.depth ?? 0) : 0;
    const keep =
      STRUCTURE.has(role) ||
      ACTING_ROLES.has(role) ||
      actsOnClick(el) ||
      (role === 'StaticText' && !!el.parentElement && actsOnClick(el.parentElement));
    chain[level] = { role, name, el, depth: keep ? above + 1 : above };
    if (role === 'heading') this.#heading = name;
    if (!keep) return;
    let line = indent(above) + body;
    // An option's context is the list line just above it.
    const context = STRUCTURE.has(role) || role === 'option' ? null : this.#context(level, name);
    if (context && context.of !== this.#said) line += ` (${context.said})`;
    if (context) this.#said = context.of;
    this.#lines.push(line);
  }

  frame(key: string, _el: Element, level: number): void {
    this.#lines.push(indent(this.#chain[level]?.depth ?? 0) + FRAME_MARK + key);
  }

  text(): string {
    return this.#lines.join('\n');
  }

  report(): undefined {
    return undefined;
  }

  /** What the context says, and which ancestor (or heading) it comes from. */
  #context(level: number, name: string): { said: string; of: unknown } | null {
    for (let i = level - 1; i >= 0; i--) {
      const open = this.#chain[i];
      if (!open) continue;
      if (ROWS.has(open.role)) {
        const text = open.name || (open.text ??= textOf(open.el));
        const said = text && text !== name ? describe(open.role, text, name) : '';
        if (said) return { said, of: open.el };
      } else if (GROUPS.has(open.role)) {
        // A fieldset is named by its legend, which the text shows as a line of its own.
        const text = open.name || (open.text ??= open.el.localName === 'fieldset' ? legendOf(open.el) : '');
        const said = text && text !== name ? describe(open.role, text, name) : '';
        if (said) return { said, of: open.el };
      }
    }
    const said = this.#heading && this.#heading !== name ? describe('heading', this.#heading, name) : '';
    return said ? { said, of: this.#heading } : null;
  }
}

function legendOf(fieldset: Element): string {
  const legend = Array.from(fieldset.children).find((child) => child.localName === 'legend');
  return legend ? textOf(legend) : '';
}

/** The context's text without the element's own name (a list item's text repeats its link's). */
function describe(role: string, text: string, name: string): string {
  let short = clean(text);
  // Only at either end: inside, the name may be part of another word.
  if (name && short.length > name.length) {
    if (short.startsWith(name)) short = short.slice(name.length);
    else if (short.endsWith(name)) short = short.slice(0, -name.length);
    short = short.replace(/^[\s|,:;.·–—-]+|[\s|,:;·–—-]+$/g, '');
  }
  if (!short) return '';
  return `${role}: ${short.length > CONTEXT_MAX ? short.slice(0, CONTEXT_MAX - 1) + '…' : short}`;
}

/**
 * An element scripts made clickable or editable without a role saying so: an inline click
 * handler, a place in the tab order, or the host of an editable region. (Handlers added with
 * addEventListener cannot be seen from here.)
 */
function actsOnClick(el: Element): boolean {
  if (!el.hasAttributes()) return false;
  if (el.hasAttribute('onclick')) return true;
  const tabindex = el.getAttribute('tabindex');
  if (tabindex !== null && tabindex.trim() !== '' && Number(tabindex) >= 0) return true;
  const editable = el.getAttribute('contenteditable');
  return editable !== null && editable !== 'false' && (el as HTMLElement).isContentEditable;
}
