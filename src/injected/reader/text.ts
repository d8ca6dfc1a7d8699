// Text normalisation and the small text lookups names need.

// Control characters are dropped along with whitespace runs: a page must never be able to forge the
// \u0001 marker the host uses for child frames, or break a line.
const SPACE_RUN = /[\s\u0000-\u001f\u007f\u00a0\u200b]+/g;

// What SPACE_RUN would change: anything of it but a lone space. Most runs of words have nothing else,
// and a replace() that finds matches builds a new string even when each space stays a space.
const NEEDS_SQUASH = /[\u0000-\u001f\u007f\u00a0\u1680\u2000-\u200b\u2028\u2029\u202f\u205f\u3000\ufeff]| {2}/;

export function squash(text: string): string {
  return NEEDS_SQUASH.test(text) ? text.replace(SPACE_RUN, ' ') : text;
}

export function clean(text: string | null | undefined): string {
  return text ? squash(text).trim() : '';
}

/** Quoted state values (`[value="..."]`): one line, quotes escaped. */
export function quote(text: string): string {
  return `"${clean(text).replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

const SKIP_TEXT = new Set(['script', 'style', 'template', 'noscript']);

/** Text under `el` in document order, leaving out `exclude` (a control inside its own label). */
export function textOf(el: Element, exclude?: Element | null): string {
  let out = '';
  const stack: Node[] = [el];
  while (stack.length) {
    const node = stack.pop()!;
    if (node.nodeType === 3) {
      out += (node as Text).data + ' ';
      continue;
    }
    if (node.nodeType !== 1 || node === exclude) continue;
    const child = node as Element;
    if (SKIP_TEXT.has(child.localName)) continue;
    if (child !== el && child.localName === 'img') out += (child.getAttribute('alt') ?? '') + ' ';
    for (let c = child.lastChild; c; c = c.previousSibling) stack.push(c);
  }
  return clean(out);
}

/** Text of the elements named by an IDREF list (aria-labelledby), looked up in el's own tree. */
export function textOfIds(el: Element, ids: string): string {
  const root = el.getRootNode() as Document | ShadowRoot;
  const parts: string[] = [];
  for (const id of ids.split(/\s+/)) {
    if (!id) continue;
    const target = root.getElementById?.(id);
    if (target) parts.push(target.getAttribute('aria-label') || textOf(target));
  }
  return clean(parts.join(' '));
}
