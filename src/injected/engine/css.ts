// CSS resolution with ` >> ` as the frame separator. querySelector cannot see into shadow roots, so each part
// falls back to querying every reachable shadow root in composed document order.

import type { Outcome } from './types.js';
import { ShadowRegistry, isFrameElement, type TreeNode } from './composed.js';

/** The first match; with `all`, every match of the last part (after the first of each part before it). */
export function resolveCss(selector: string, shadows: ShadowRegistry, doc: Document, all = false): Outcome {
  const split = splitParts(selector);
  if (typeof split === 'string') return { kind: 'syntax', message: split };
  const parts = split;

  // Validate every part up front, so a bad later part is reported even when an earlier part finds nothing.
  const probe = doc.createDocumentFragment();
  for (let i = 0; i < parts.length; i++) {
    try {
      probe.querySelector(parts[i]);
    } catch (e) {
      if ((e as { name?: unknown } | null)?.name !== 'SyntaxError') throw e;
      const where = `CSS part ${i + 1} of ${parts.length} ${JSON.stringify(parts[i])}`;
      return { kind: 'syntax', message: `${where}: ${errorText(e)}` };
    }
  }

  let scope: Document | Element = doc;
  for (let i = 0; i < parts.length; i++) {
    if (all && i === parts.length - 1) return { kind: 'all', elements: queryAllComposed(scope, parts[i], shadows) };
    const found = queryComposed(scope, parts[i], shadows);
    if (!found) return { kind: 'none' };
    if (i === parts.length - 1) return { kind: 'found', element: found };
    if (isFrameElement(found)) {
      return { kind: 'hop', hop: { frame: found, rest: parts.slice(i + 1).join(' >> ') } };
    }
    // A non-frame element before ">>" scopes the next part to its (composed) subtree.
    scope = found;
  }
  return { kind: 'none' };
}

function queryComposed(scope: Document | Element, part: string, shadows: ShadowRegistry): Element | null {
  const light = scope.querySelector(part);
  if (light) return light;
  for (const root of shadows.rootsUnder(scope as TreeNode)) {
    const hit = root.querySelector(part);
    if (hit) return hit;
  }
  return null;
}

/** In the order queryComposed looks: the light DOM's matches, then each shadow root's. */
function queryAllComposed(scope: Document | Element, part: string, shadows: ShadowRegistry): Element[] {
  const out = Array.from(scope.querySelectorAll(part));
  for (const root of shadows.rootsUnder(scope as TreeNode)) out.push(...Array.from(root.querySelectorAll(part)));
  return out;
}

/**
 * Splits on `>>` outside strings, brackets and parentheses; surrounding whitespace is optional. `>>` can never
 * be valid CSS there, so splitting on it loses nothing. The parts come trimmed, empty ones included. An
 * unterminated string is left for querySelector to judge (CSS closes it at the end of input). Also the host's
 * reading of deepLocator's hops (driver/locatorApi.ts).
 */
export function splitHops(selector: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote = '';
  let start = 0;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (c === '\\') {
      i++;
    } else if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === '[' || c === '(') {
      depth++;
    } else if ((c === ']' || c === ')') && depth > 0) {
      depth--;
    } else if (c === '>' && selector[i + 1] === '>' && depth === 0) {
      parts.push(selector.slice(start, i));
      start = i + 2;
      i++;
    }
  }
  parts.push(selector.slice(start));
  return parts.map((p) => p.trim());
}

/** splitHops, or an error message when a part is empty. */
function splitParts(selector: string): string[] | string {
  const trimmed = splitHops(selector);
  const empty = trimmed.findIndex((p) => !p);
  if (empty >= 0) {
    return trimmed.length === 1
      ? 'empty CSS selector'
      : `CSS part ${empty + 1} of ${trimmed.length} is empty in ${JSON.stringify(selector)}`;
  }
  return trimmed;
}

function errorText(e: unknown): string {
  return String((e as { message?: unknown }).message ?? e);
}
