// What a click at an element's centre would reach: checked as a user's eye would before pressing
// (whether the element holds still, and whether it, not something over it, is under the pointer),
// then as the page gets the press itself, which is stopped when it would land on something else.

import type { Box, Readiness, Verdict } from './types.js';

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
  const disabled =
    (el as HTMLButtonElement).disabled === true || el.closest('fieldset[disabled]') !== null || el.getAttribute('aria-disabled') === 'true';
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
 * Run with the host's measurement, just before the press is sent: whether the element is disabled,
 * moving (when `strict`: only while something in the page is mid-transition are animation frames
 * waited for, as each costs most of one; endless animations, a spinner or a pulsing button, are no
 * reason to wait), or covered at its centre right now (a cookie banner). A covered one answers a
 * frame later, so a host that asks again goes at the page's pace. When none of these, the press is
 * watched (see `watchPress`): `box` is what it must still measure then.
 */
export async function arm(el: Element, strict: boolean, ms: number): Promise<Readiness> {
  disarm();
  const { why, box } = aim(el);
  if (why) return { why, moved: false, receiver: '' };
  const changes = box && strict && !document.hidden ? document.getAnimations().filter(changing) : [];
  if (changes.length) {
    // Until each has been sampled at a later time: one that only just began is still at its start a
    // frame later, and a frame can come whose time has not moved on.
    const times = changes.map((each) => Number(each.currentTime ?? 0));
    const unsampled = () =>
      changes.some((each, at) => each.playState === 'running' && (each.pending || Number(each.currentTime ?? 0) <= times[at]!));
    for (let frames = 0; frames < 4 && (frames === 0 || unsampled()); frames++) await nextFrame();
    if (!same(box, firstBox(el))) return { why: '', moved: true, receiver: '' };
  }
  const receiver = box ? receiverAt(el, box.x + box.width / 2, box.y + box.height / 2) : '';
  if (receiver !== '') {
    if (!document.hidden) await nextFrame();
    return { why: '', moved: false, receiver };
  }
  watchPress(el, box, strict && !!box, ms);
  return { why: '', moved: false, receiver: '' };
}

interface Watch extends Verdict {
  el: Element;
  box: Box | null;
  /** Verdicts waiting for the press to be judged, or for the watch to end. */
  waiting: Array<() => void>;
  end(): void;
}

// The events of a press, in the order they come; the first one the page gets is judged.
const PRESS = ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click', 'dblclick'];
/** How long a stopped press keeps its later events (its up and click) stopped, at most. */
const BLOCK_MS = 1000;

let watching: Watch | null = null;

/**
 * Judges the next press the page gets, as the page gets it: listeners in our isolated world (page
 * scripts cannot see them) on the window, in the capture phase, so they run before the page's own
 * on the document and below. The first event of the press is hit-tested at its own coordinates with
 * the same rule as `arm`; a press that `el` would not receive, or (when `still`) that comes when `el`
 * no longer measures `box`, has this and its later events cancelled and stopped: nothing in the
 * page sees them. A press that reaches `el` removes the listeners at once. Events a page script
 * dispatches itself (not trusted) are not judged. Everything ends after `ms`, or when the host
 * ends the watch (`disarm`).
 */
export function watchPress(el: Element, box: Box | null, still: boolean, ms: number): void {
  disarm();
  const watch: Watch = { el, box, state: 'missed', receiver: '', moved: false, waiting: [], end };
  const wake = () => watch.waiting.splice(0).forEach((resolve) => resolve());
  const listener = (event: Event) => {
    if (!event.isTrusted) return;
    if (watch.state === 'missed') {
      const { clientX, clientY } = event as MouseEvent;
      watch.receiver = receiverAt(el, clientX, clientY);
      watch.moved = still && !same(box, firstBox(el));
      watch.state = watch.receiver === '' && !watch.moved ? 'pressed' : 'blocked';
      if (watch.state === 'pressed') return end();
      // The press's up and click are events of their own, and a double click has two presses:
      // they stay stopped until the host, which has sent them all, ends the watch.
      clearTimeout(timer);
      timer = setTimeout(end, BLOCK_MS);
      wake();
    }
    event.preventDefault();
    event.stopImmediatePropagation();
  };
  let timer = setTimeout(() => {
    if (watch.state === 'missed') watch.state = 'expired';
    end();
  }, ms);
  function end(): void {
    clearTimeout(timer);
    for (const type of PRESS) window.removeEventListener(type, listener, true);
    wake();
  }
  for (const type of PRESS) window.addEventListener(type, listener, true);
  watching = watch;
}

/**
 * What became of the watched press (null when no watch is on), once the page has judged it or the
 * watch ended: the host asks together with sending the press, and ends the watch once Chrome has
 * delivered the press, so that a press that went to another frame answers too. A stopped one
 * answers a frame later, so a host that aims again goes at the page's pace.
 */
export async function verdict(): Promise<Verdict | null> {
  const watch = watching;
  if (!watch) return null;
  if (watch.state === 'missed') await new Promise<void>((resolve) => watch.waiting.push(resolve));
  const { state, moved, box, el } = watch;
  let { receiver } = watch;
  if (state === 'missed') receiver = box ? receiverAt(el, box.x + box.width / 2, box.y + box.height / 2) : '';
  if (state === 'blocked' && !document.hidden) await nextFrame();
  return { state, receiver, moved };
}

/** Ends the press watch, if any. */
export function disarm(): void {
  const watch = watching;
  watching = null;
  watch?.end();
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
  const classes =
    typeof cover.className === 'string' && cover.className.trim()
      ? ` class="${cover.className.trim().replace(/\s+/g, ' ').slice(0, 60)}"`
      : '';
  const text = ((cover as HTMLElement).innerText ?? cover.textContent ?? '').replace(/\s+/g, ' ').trim();
  return `<${cover.localName}${id}${classes}>${text ? ` "${text.length > 60 ? `${text.slice(0, 60)}…` : text}"` : ''}`;
}
