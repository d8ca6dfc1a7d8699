// Phase two: the kept items become indented lines with ids, and every id gets an entry in a compact
// XPath table (parent entry + one step), which the host expands only for the ids it is asked about.

import { BREAK, type Item } from './walk.js';
import type { CaptureResult } from './types.js';

const FRAME_MARK = '\u0001';

export class Renderer {
  readonly lines: string[] = [];
  readonly xp: Array<number | string> = [];
  readonly nodes: number[] = [];
  readonly links: Array<number | string> = [];
  readonly frames: Array<number | string> = [];
  readonly #entries = new Map<Element, number>();
  readonly #steps = new Map<Element, string>();
  readonly #indents: string[] = [''];

  constructor(private readonly frame: number) {}

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
        this.#line(level, 'StaticText', item.text.trim(), '', item.el);
      } else if (item.k === 3) {
        this.#line(level, 'Iframe', item.name, '', item.el);
        this.frames.push(item.key, this.entryOf(item.el));
        this.lines.push(this.#indent(level + 1) + FRAME_MARK + item.key);
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

  result(needsScan: boolean): CaptureResult {
    return { text: this.lines.join('\n'), xp: this.xp, nodes: this.nodes, links: this.links, frames: this.frames, needsScan };
  }

  #line(level: number, role: string, name: string, states: string, el: Element): number {
    const id = this.nodes.length;
    this.nodes.push(this.entryOf(el));
    this.lines.push(`${this.#indent(level)}[${this.frame}-${id}] ${role}${name ? `: ${name}` : ''}${states}`);
    return id;
  }

  #indent(level: number): string {
    while (this.#indents.length <= level) this.#indents.push(this.#indents[this.#indents.length - 1] + '  ');
    return this.#indents[level]!;
  }

  /** The XPath entry of `el`, creating entries for its ancestors as needed (iteratively). */
  entryOf(el: Element): number {
    const known = this.#entries.get(el);
    if (known !== undefined) return known;
    const chain: Element[] = [];
    let cursor: Element | null = el;
    while (cursor && !this.#entries.has(cursor)) {
      chain.push(cursor);
      cursor = composedParent(cursor);
    }
    let parent = cursor ? this.#entries.get(cursor)! : -1;
    for (let i = chain.length - 1; i >= 0; i--) {
      const each = chain[i]!;
      const entry = this.xp.length / 2;
      this.xp.push(parent, this.#stepOf(each));
      this.#entries.set(each, entry);
      parent = entry;
    }
    return parent;
  }

  /** `name` or `name[k]` among the same-named children of one parent. */
  #stepOf(el: Element): string {
    const cached = this.#steps.get(el);
    if (cached !== undefined) return cached;
    const name = el.localName;
    const container = el.parentNode as ParentNode | null;
    if (!container || container.childElementCount <= 16) {
      // Few siblings: counting them is cheaper than remembering a whole family.
      let position = 1;
      for (let s = el.previousElementSibling; s; s = s.previousElementSibling) if (s.localName === name) position++;
      let more = position > 1;
      for (let s = el.nextElementSibling; s && !more; s = s.nextElementSibling) if (s.localName === name) more = true;
      return more ? `${name}[${position}]` : name;
    }
    // Many siblings (a table body, a long list): one pass names them all.
    const siblings = container.children;
    const totals = new Map<string, number>();
    for (let i = 0; i < siblings.length; i++) {
      const each = siblings[i]!.localName;
      totals.set(each, (totals.get(each) ?? 0) + 1);
    }
    const seen = new Map<string, number>();
    for (let i = 0; i < siblings.length; i++) {
      const sibling = siblings[i]!;
      const each = sibling.localName;
      const position = (seen.get(each) ?? 0) + 1;
      seen.set(each, position);
      this.#steps.set(sibling, totals.get(each)! > 1 ? `${each}[${position}]` : each);
    }
    return this.#steps.get(el) ?? name;
  }
}

/** The parent in XPath terms: a shadow tree's top elements answer to their host. */
function composedParent(el: Element): Element | null {
  const parent = el.parentNode;
  if (!parent) return null;
  if (parent.nodeType === 1) return parent as Element;
  if (parent.nodeType === 11 && (parent as ShadowRoot).host) return (parent as ShadowRoot).host;
  return null;
}
