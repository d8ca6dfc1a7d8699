// Helpers for walking the composed tree: the light DOM plus every shadow tree we can reach. Open roots come
// from `el.shadowRoot`; closed ones are invisible to page JS, so the host finds them over CDP and registers
// them here.

/** Nodes that own an element list in our model: the document, shadow roots, and elements. */
export type TreeNode = Document | ShadowRoot | Element;

export class ShadowRegistry {
  // Keyed by host so a host that is removed from the page lets its root be collected too.
  private readonly closed = new WeakMap<Element, ShadowRoot>();
  private registered = 0;

  register(root: ShadowRoot): void {
    if (!root || root.nodeType !== Node.DOCUMENT_FRAGMENT_NODE || !(root as ShadowRoot).host)
      throw new TypeError('registerClosedShadowRoot expects a ShadowRoot');
    if (this.closed.get(root.host) === root) return;
    this.closed.set(root.host, root);
    this.registered++;
  }

  count(): number {
    return this.registered;
  }

  rootOf(el: Element): ShadowRoot | null {
    // With none registered, no lookup: a first WeakMap lookup keyed by a fresh wrapper is dear, and
    // the reader asks about every element of a document it reads for the first time.
    return el.shadowRoot ?? (this.registered ? (this.closed.get(el) ?? null) : null);
  }

  /**
   * Visits `start` and everything below it in composed document order. The order we commit to: a node, then
   * its shadow tree, then its light children. Slotted elements are visited once, as light children of the
   * host; following slot assignments as well would visit them twice. `visit` returning false prunes the
   * node's subtree (used to avoid re-walking subtrees already seen).
   */
  walk(start: TreeNode, visit: (node: TreeNode) => boolean | void): void {
    // An explicit stack: pages with very deep nesting would otherwise risk the call-stack limit.
    const stack: TreeNode[] = [start];
    while (stack.length) {
      const node = stack.pop() as TreeNode;
      if (visit(node) === false) continue;
      const kids = node.children;
      for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
      if (isElement(node)) {
        const root = this.rootOf(node);
        if (root) stack.push(root);
      }
    }
  }

  /** Shadow roots at or below `scope` (including scope's own), in composed document order. */
  rootsUnder(scope: TreeNode): ShadowRoot[] {
    const roots: ShadowRoot[] = [];
    this.walk(scope, (node) => {
      if (isShadowRoot(node)) roots.push(node);
    });
    return roots;
  }
}

export function isElement(node: Node): node is Element {
  return node.nodeType === Node.ELEMENT_NODE;
}

export function isShadowRoot(node: Node): node is ShadowRoot {
  return node.nodeType === Node.DOCUMENT_FRAGMENT_NODE && !!(node as ShadowRoot).host;
}

export function isDocument(node: Node): node is Document {
  return node.nodeType === Node.DOCUMENT_NODE;
}

const HTML_NS = 'http://www.w3.org/1999/xhtml';

export function isHtmlElement(el: Element): boolean {
  return el.namespaceURI === HTML_NS;
}

export function isFrameElement(node: Node): node is Element {
  return isElement(node) && isHtmlElement(node) && (node.localName === 'iframe' || node.localName === 'frame');
}
