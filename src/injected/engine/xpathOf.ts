// The absolute XPath of a node, as Stagehand's coordinate actions return it: every step `name[k]`
// (k among the same-named children of one parent), the elements of a shadow tree as children of
// their host, which is how our own engine reads a path into a shadow root, open or closed.

export function xpathOf(node: Node): string {
  const steps: string[] = [];
  for (let el = elementOf(node); el; el = parentOf(el)) {
    let position = 1;
    for (let s = el.previousElementSibling; s; s = s.previousElementSibling) if (s.localName === el.localName) position++;
    steps.push(`${el.localName}[${position}]`);
  }
  return '/' + steps.reverse().join('/');
}

/** A text node stands for the element that holds it. */
function elementOf(node: Node): Element | null {
  return node.nodeType === 1 ? (node as Element) : parentOf(node);
}

function parentOf(node: Node): Element | null {
  const parent = node.parentNode;
  if (!parent) return null;
  if (parent.nodeType === 1) return parent as Element;
  return parent.nodeType === 11 ? ((parent as ShadowRoot).host ?? null) : null;
}
