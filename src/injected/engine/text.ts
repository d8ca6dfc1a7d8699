// `text=…` selectors (as Stagehand's locators take them): the innermost elements whose text (as
// rendered, innerText; a hidden element's own) contains the words, ignoring case and runs of white
// space, in the composed tree.

import { isElement, type ShadowRegistry } from './composed.js';
import type { Outcome } from './types.js';

/** Never rendered as text of their own: not candidates, and nothing inside them is. */
const SKIPPED = new Set(['head', 'script', 'style', 'template', 'noscript', 'title', 'link', 'meta']);
/** Hold everything: walked through, never a match themselves. */
const THROUGH = new Set(['html', 'body']);

const norm = (text: string) => text.replace(/\s+/g, ' ').trim().toLowerCase();

export function resolveText(raw: string, shadows: ShadowRegistry, doc: Document, all: boolean): Outcome {
  let needle = raw.trim();
  if (needle.length > 1 && (needle[0] === '"' || needle[0] === "'") && needle.endsWith(needle[0])) needle = needle.slice(1, -1);
  const goal = norm(needle);
  if (!goal) return { kind: 'syntax', message: 'empty text= selector' };
  const out: Element[] = [];
  // Only branches that may hold the words are walked: those whose text (rendered, or hidden, or in
  // a shadow tree) can contain them. A match none of whose descendants matches is innermost.
  const visit = (el: Element): boolean => {
    const tag = el.localName;
    if (SKIPPED.has(tag) || (!all && out.length)) return false;
    const through = THROUGH.has(tag);
    const matches = !through && norm((el as HTMLElement).innerText ?? el.textContent ?? '').includes(goal);
    const root = shadows.rootOf(el);
    if (!through && !matches && !root && !norm(el.textContent ?? '').includes(goal)) return false;
    let inner = false;
    const kids = [...(root ? Array.from(root.children) : []), ...Array.from(el.children)];
    for (const kid of kids) if (isElement(kid) && visit(kid)) inner = true;
    if (matches && !inner) out.push(el);
    return inner || matches;
  };
  if (doc.documentElement) visit(doc.documentElement);
  if (all) return { kind: 'all', elements: out };
  return out[0] ? { kind: 'found', element: out[0] } : { kind: 'none' };
}
