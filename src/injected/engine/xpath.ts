// XPath resolution. Native document.evaluate is exact and fast but stops at shadow boundaries and frame
// boundaries, so it runs first and our composed-tree evaluator (for the subset in xpath-parse.ts) runs only
// when native finds nothing.

import type { Hop, Outcome } from './types.js';
import { ShadowRegistry, isElement, isFrameElement, isHtmlElement, isShadowRoot, type TreeNode } from './composed.js';
import { parseXPath, stepsToSource, type NodeTest, type Predicate, type Step } from './xpath-parse.js';

/** The first match; with `all`, every one (those native evaluation finds, else the composed tree's). */
export function resolveXPath(expr: string, shadows: ShadowRegistry, doc: Document, all = false): Outcome {
  let nativeSyntaxError = false;
  try {
    if (all) {
      const hits = doc.evaluate(expr, doc, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
      const elements = new Set<Element>();
      for (let i = 0; i < hits.snapshotLength; i++) {
        const element = elementFor(hits.snapshotItem(i)!);
        if (element) elements.add(element);
      }
      if (elements.size) return { kind: 'all', elements: [...elements] };
    } else {
      const hit = doc.evaluate(expr, doc, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
      const element = hit && elementFor(hit);
      if (element) return { kind: 'found', element };
    }
  } catch (e) {
    // Other failures (a non-node result such as count(), an unbound namespace prefix) are not malformed
    // selectors: they just cannot name an element, which our own parser will confirm.
    nativeSyntaxError = (e as { name?: unknown } | null)?.name === 'SyntaxError';
  }
  const parsed = parseXPath(expr);
  if (!parsed.ok) {
    return nativeSyntaxError ? { kind: 'syntax', message: `invalid XPath ${JSON.stringify(expr)}: ${parsed.error}` } : { kind: 'none' };
  }
  return new ComposedEvaluator(shadows, doc).run(parsed.steps, all);
}

/** Callers act on elements, so text and attribute hits stand for the element that holds them. */
function elementFor(node: Node): Element | null {
  if (isElement(node)) return node;
  if (node.nodeType === Node.ATTRIBUTE_NODE) return (node as Attr).ownerElement;
  return node.parentElement;
}

class ComposedEvaluator {
  // Position of every composed-tree node, built on first need: compareDocumentPosition cannot order nodes
  // that sit in different shadow trees.
  private order: Map<Node, number> | null = null;

  constructor(
    private readonly shadows: ShadowRegistry,
    private readonly doc: Document,
  ) {}

  run(steps: readonly Step[], all: boolean): Outcome {
    let current: TreeNode[] = [this.doc];
    let hop: Hop | null = null;
    for (let i = 0; i < steps.length && current.length; i++) {
      const step = steps[i];
      const context = step.separator === '//' ? this.descendantsOrSelf(current) : current;
      current = this.applyStep(step, context);
      // Remember the earliest frame that could carry the rest of the path, but keep going: a match in this
      // document wins, the same way native evaluation would have found it first.
      if (!hop && i < steps.length - 1) {
        const frame = current.find(isFrameElement);
        if (frame) hop = { frame, rest: stepsToSource(steps.slice(i + 1)) };
      }
    }
    const elements = current.filter(isElement);
    if (all && elements.length) return { kind: 'all', elements };
    if (elements[0]) return { kind: 'found', element: elements[0] };
    return hop ? { kind: 'hop', hop } : { kind: 'none' };
  }

  private applyStep(step: Step, context: readonly TreeNode[]): TreeNode[] {
    const out: TreeNode[] = [];
    for (const node of context) {
      // Predicates filter per context node, so positions count within one parent's children (XPath rules).
      // A shadow host has two child lists; positions count within each.
      for (let list of this.axisLists(node, step)) {
        for (const predicate of step.predicates) list = filter(list, predicate);
        for (const n of list) out.push(n);
      }
    }
    return context.length > 1 ? this.sortUnique(out) : out;
  }

  /**
   * At a shadow host a child step looks at both child lists: the shadow root's and the light ones,
   * positions counting within each. So `/html/body/my-app/main` reaches into my-app's shadow tree
   * without a special syntax, and a path through slotted light content still works. Native evaluation
   * runs first, so a path that exists in the light DOM never gets here.
   */
  private axisLists(node: TreeNode, step: Step): TreeNode[][] {
    if (step.axis !== 'child') return [this.axisNodes(node, step)];
    const light = filterChildren(node.children, step.test);
    const root = isElement(node) ? this.shadows.rootOf(node) : null;
    // Composed order puts the shadow tree before the light children.
    return root ? [filterChildren(root.children, step.test), light] : [light];
  }

  private axisNodes(node: TreeNode, step: Step): TreeNode[] {
    const test = step.test;
    switch (step.axis) {
      case 'child':
        return filterChildren(node.children, test);
      case 'self':
        return passes(node, test) ? [node] : [];
      case 'parent': {
        const parent = parentOf(node);
        return parent && passes(parent, test) ? [parent] : [];
      }
      case 'descendant':
      case 'descendant-or-self': {
        const out: TreeNode[] = [];
        this.shadows.walk(node, (n) => {
          if ((n !== node || step.axis === 'descendant-or-self') && passes(n, test)) out.push(n);
        });
        return out;
      }
    }
  }

  /** descendant-or-self::node() over the composed tree; shadow roots are part of the result. */
  private descendantsOrSelf(context: readonly TreeNode[]): TreeNode[] {
    // `context` is in document order, so an ancestor is walked before its descendants and those are then
    // skipped whole; the output stays in document order and each subtree is walked once.
    const seen = new Set<Node>();
    const out: TreeNode[] = [];
    for (const start of context) {
      if (seen.has(start)) continue;
      this.shadows.walk(start, (n) => {
        if (seen.has(n)) return false;
        seen.add(n);
        out.push(n);
      });
    }
    return out;
  }

  private sortUnique(nodes: TreeNode[]): TreeNode[] {
    const unique = Array.from(new Set(nodes));
    if (unique.length < 2) return unique;
    const order = this.orderIndex();
    return unique.sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
  }

  private orderIndex(): Map<Node, number> {
    if (!this.order) {
      const order = new Map<Node, number>();
      this.shadows.walk(this.doc, (n) => {
        order.set(n, order.size);
      });
      this.order = order;
    }
    return this.order;
  }
}

/** The composed parent: a shadow tree's top-level elements answer to the host, not the root fragment. */
function parentOf(node: TreeNode): TreeNode | null {
  if (isShadowRoot(node)) return node.host;
  const parent = node.parentNode;
  if (!parent) return null;
  return isShadowRoot(parent) ? parent.host : (parent as TreeNode);
}

function filterChildren(kids: HTMLCollection, test: NodeTest): TreeNode[] {
  const out: TreeNode[] = [];
  for (let i = 0; i < kids.length; i++) if (passes(kids[i], test)) out.push(kids[i]);
  return out;
}

function passes(node: TreeNode, test: NodeTest): boolean {
  if (test.kind === 'node') return true;
  if (!isElement(node)) return false;
  return test.kind === 'element' || sameName(node, node.localName, test.name);
}

/** HTML names compare case-insensitively (as native XPath does in HTML documents); SVG/MathML exactly. */
function sameName(el: Element, actual: string, wanted: string): boolean {
  return isHtmlElement(el) ? actual.toLowerCase() === wanted.toLowerCase() : actual === wanted;
}

function filter(list: TreeNode[], p: Predicate): TreeNode[] {
  switch (p.kind) {
    case 'position': {
      const at = p.fromEnd ? list.length - p.index : p.index;
      return at >= 1 && at <= list.length ? [list[at - 1]] : [];
    }
    case 'attr':
      return list.filter((n) => isElement(n) && (p.value === null ? n.hasAttribute(p.name) : n.getAttribute(p.name) === p.value));
    case 'name':
      return list.filter((n) => {
        if (!isElement(n)) return false;
        const actual = p.fn === 'local-name' || !n.prefix ? n.localName : `${n.prefix}:${n.localName}`;
        return sameName(n, actual, p.value);
      });
  }
}
