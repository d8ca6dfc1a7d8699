// Absolute XPaths for elements, in the form our selector engine resolves: one step per element,
// `name[k]` only when a parent has several children of that name, a shadow tree's top elements as
// children of their host. Built only for the ids the host asks about, after the capture.

export class XPathBuilder {
  readonly #paths = new Map<Element, string>();
  readonly #steps = new Map<Element, string>();

  /** Iterative: a DOM thousands of levels deep must not exhaust the call stack. */
  of(el: Element): string {
    const chain: Element[] = [];
    let cursor: Element | null = el;
    while (cursor && !this.#paths.has(cursor)) {
      chain.push(cursor);
      cursor = composedParent(cursor);
    }
    let path = cursor ? this.#paths.get(cursor)! : '';
    for (let i = chain.length - 1; i >= 0; i--) {
      path += '/' + this.#stepOf(chain[i]!);
      this.#paths.set(chain[i]!, path);
    }
    return path;
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
export function composedParent(el: Element): Element | null {
  const parent = el.parentNode;
  if (!parent) return null;
  if (parent.nodeType === 1) return parent as Element;
  if (parent.nodeType === 11 && (parent as ShadowRoot).host) return (parent as ShadowRoot).host;
  return null;
}
