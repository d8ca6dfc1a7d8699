// What a click at an element's centre would reach, checked as a user's eye would before pressing:
// whether the element holds still, and whether it, not something over it, is under the pointer.

/** A box in the element's own frame's viewport (CSS pixels). */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * The element's first box with a size: the same fragment whose centre the host aims at, since
 * DOM.getContentQuads lists them in the same order.
 */
function firstBox(el: Element): Box | null {
  for (const rect of Array.from(el.getClientRects())) {
    if (rect.width >= 1 && rect.height >= 1) return { x: rect.x, y: rect.y, width: rect.width, height: rect.height };
  }
  return null;
}

/** Layout is deterministic: a box that did not move measures exactly the same. */
function same(a: Box | null, b: Box | null): boolean {
  return !!a && JSON.stringify(a) === JSON.stringify(b);
}

/** Why the element cannot take a click or the keyboard ('' when it can), and its box. */
export function aim(el: Element): { why: string; box: Box | null } {
  if (!el.isConnected) return { why: 'it is no longer in the page', box: null };
  const disabled = (el as HTMLButtonElement).disabled === true || el.closest('fieldset[disabled]') !== null || el.getAttribute('aria-disabled') === 'true';
  return { why: disabled ? 'it is disabled' : '', box: firstBox(el) };
}

/** The next animation frame; a page that draws none (a hidden tab) does not hold the click for long. */
function nextFrame(): Promise<unknown> {
  return new Promise((resolve) => {
    requestAnimationFrame(resolve);
    setTimeout(resolve, 100);
  });
}

/**
 * Run once the pointer is at the centre of `box` (measured before it moved there), so whatever its
 * arrival set off (a :hover rule, a mouseover handler) has happened. `moved`: the box is not where it
 * was, or changes across an animation frame. `receiver`: '' when the element (or something inside
 * it) is what is at that point, else a description of what is; null when nothing is.
 */
export async function verify(el: Element, box: Box): Promise<{ moved: boolean; receiver: string | null }> {
  const x = box.x + box.width / 2;
  const y = box.y + box.height / 2;
  const now = firstBox(el);
  let moved = !same(box, now);
  // A frame is waited for only when something could still change, as it costs most of one (the
  // pointer's move was answered right after a frame). A wrong receiver waits too, so a host that
  // asks again goes at the page's pace. Endless animations (a spinner, a pulsing button) are no
  // reason to wait: they never end.
  if (!document.hidden && (moved || receiverAt(el, x, y) !== '' || document.getAnimations().some(changing))) {
    await nextFrame();
    moved = moved || !same(now, firstBox(el));
  }
  return { moved, receiver: receiverAt(el, x, y) };
}

function changing(animation: Animation): boolean {
  return animation.playState === 'running' && animation.effect?.getComputedTiming().endTime !== Infinity;
}

function receiverAt(el: Element, x: number, y: number): string | null {
  // In the element's own tree scope, so a hit inside its shadow tree, or inside a closed root we
  // could not otherwise see into, comes back as the element it belongs to in that scope.
  const hit = (el.getRootNode() as Document | ShadowRoot).elementFromPoint(x, y);
  if (!hit) return null;
  const roots = shadowRoots(el);
  for (let node: Node | null = hit; node; node = composedParent(node, roots)) {
    // A label passes its clicks to its control: a styled box over a hidden checkbox is fine.
    if (node === el || (node instanceof HTMLLabelElement && node.control === el)) return '';
  }
  return describe(hit, el);
}

/** The shadow roots the element lives in, innermost first. */
function shadowRoots(el: Element): ShadowRoot[] {
  const roots: ShadowRoot[] = [];
  for (let root = el.getRootNode(); root instanceof ShadowRoot; root = root.host.getRootNode()) roots.push(root);
  return roots;
}

/**
 * The node's parent in the flat tree: its slot when it is slotted, the host above a shadow root.
 * A slot in a closed root is hidden from `assignedSlot`; the roots around the target are searched.
 */
function composedParent(node: Node, roots: ShadowRoot[]): Node | null {
  const slot = (node as Element).assignedSlot;
  if (slot) return slot;
  const parent = node.parentNode;
  if (parent instanceof ShadowRoot) return parent.host;
  const root = roots.find((each) => each.host === parent);
  return Array.from(root?.querySelectorAll('slot') ?? []).find((each) => each.assignedNodes().includes(node as ChildNode)) ?? parent;
}

/**
 * Names what is at the point for a message: the outermost element around `hit` that does not hold
 * `target` (the banner, not the paragraph in it), or without a target the one just under <body>,
 * with its id, classes and the start of its text.
 */
export function describe(hit: Element, target?: Element | null): string {
  const line = new Set<Node>();
  const roots = target ? shadowRoots(target) : [];
  for (let node: Node | null = target ?? hit.ownerDocument.body; node; node = composedParent(node, roots)) line.add(node);
  let cover = hit;
  for (let node = composedParent(hit, roots); node && !line.has(node); node = composedParent(node, roots)) {
    if (node instanceof Element) cover = node;
  }
  const id = cover.id ? ` id="${cover.id.slice(0, 40)}"` : '';
  const classes = typeof cover.className === 'string' && cover.className.trim() ? ` class="${cover.className.trim().replace(/\s+/g, ' ').slice(0, 60)}"` : '';
  const text = ((cover as HTMLElement).innerText ?? cover.textContent ?? '').replace(/\s+/g, ' ').trim();
  return `<${cover.localName}${id}${classes}>${text ? ` "${text.length > 60 ? `${text.slice(0, 60)}…` : text}"` : ''}`;
}
