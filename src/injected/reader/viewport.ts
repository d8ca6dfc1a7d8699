// The viewport view's part in the page: which lines show in this frame's window, read while the
// lines are made (one call, no round trip per node). The text stays the full one; the host keeps the
// lines shown here that also show through the iframes above (it knows where each frame sits).

import { intersect, isEmpty, overlaps, type Rect } from './rect.js';
import type { Lens } from './render.js';
import type { ViewportReport } from './types.js';
import { composedParent } from './xpath.js';

const VISIBLE: CheckVisibilityOptions = { visibilityProperty: true };

export class ViewportLens implements Lens {
  readonly replacesText = false;
  readonly #report: ViewportReport = { shown: [], dialog: [], frames: [] };
  readonly #view: Rect;
  /** Element → the region its descendants can show in (ancestors' overflow clips applied). */
  readonly #clips = new Map<Element, Rect>();
  readonly #dialog: Element | null;
  readonly #inside = new Map<Element, boolean>();

  constructor(dialogs: boolean) {
    this.#view = { left: 0, top: 0, right: innerWidth, bottom: innerHeight };
    this.#dialog = dialogs ? topDialog() : null;
  }

  line(id: number, _level: number, _body: string, _role: string, _name: string, el: Element): void {
    // A dialog's content counts whole: one scrolls it, not the page, and it is what the user faces.
    if (this.#dialog && this.#inDialog(el)) {
      this.#report.dialog.push(id);
      return;
    }
    // The cheap test first: on a long page most lines are far away and need no styles read.
    const box = boxOf(el);
    if (!overlaps(box, this.#view)) return;
    const region = this.#regionFor(el);
    if (isEmpty(region) || !overlaps(box, region)) return;
    const shown = intersect(box, region);
    this.#report.shown.push(id, Math.floor(shown.left), Math.floor(shown.top), Math.ceil(shown.right), Math.ceil(shown.bottom));
  }

  frame(key: string, el: Element): void {
    // The child's window starts at its iframe's content box (inside border and padding).
    const box = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    const [padLeft, padTop, padRight, padBottom] = [style.paddingLeft, style.paddingTop, style.paddingRight, style.paddingBottom].map(
      parseFloat,
    ) as [number, number, number, number];
    const left = box.left + el.clientLeft + padLeft;
    const top = box.top + el.clientTop + padTop;
    const content = { left, top, right: left + el.clientWidth - padLeft - padRight, bottom: top + el.clientHeight - padTop - padBottom };
    const visible = intersect(content, this.#regionFor(el));
    const inDialog = this.#dialog !== null && this.#inDialog(el);
    this.#report.frames.push(key, left, top, visible.left, visible.top, visible.right, visible.bottom, inDialog ? 1 : 0);
  }

  text(): null {
    return null;
  }

  report(): ViewportReport {
    return this.#report;
  }

  /** Where an element's box can show: the viewport, cut by the overflow of its ancestors. */
  #regionFor(el: Element): Rect {
    // A fixed box escapes its ancestors' clipping (transformed ancestors aside, which are rare).
    if (getComputedStyle(el).position === 'fixed') return this.#view;
    return this.#clipInside(composedParent(el));
  }

  /** Iterative, memoised: siblings share their ancestors, and a DOM may be thousands deep. */
  #clipInside(start: Element | null): Rect {
    const chain: Element[] = [];
    let at = start;
    while (at && !this.#clips.has(at)) {
      chain.push(at);
      at = composedParent(at);
    }
    let region = at ? this.#clips.get(at)! : this.#view;
    for (let i = chain.length - 1; i >= 0; i--) {
      const el = chain[i]!;
      const style = getComputedStyle(el);
      if (style.position === 'fixed') region = this.#view;
      if (clipsOverflow(el, style)) region = intersect(region, paddingBox(el));
      this.#clips.set(el, region);
    }
    return region;
  }

  #inDialog(el: Element): boolean {
    const chain: Element[] = [];
    let at: Element | null = el;
    let answer = false;
    while (at) {
      if (at === this.#dialog) {
        answer = true;
        break;
      }
      const known = this.#inside.get(at);
      if (known !== undefined) {
        answer = known;
        break;
      }
      chain.push(at);
      at = composedParent(at);
    }
    for (const each of chain) this.#inside.set(each, answer);
    return answer;
  }
}

/**
 * The open dialog on top, if any: one shown modally (the top layer), else one marked aria-modal,
 * else a dialog laid over the page with position: fixed. The last in document order wins: dialogs
 * opened later usually come later in the document.
 */
function topDialog(): Element | null {
  const last = (list: Element[]): Element | null => list[list.length - 1] ?? null;
  let modal: Element[] = [];
  try {
    modal = Array.from(document.querySelectorAll('dialog:modal'));
  } catch {
    // A browser without :modal: the other two tests still find most dialogs.
  }
  const shown = (el: Element) => el.checkVisibility(VISIBLE);
  return (
    last(modal) ??
    last(Array.from(document.querySelectorAll('[aria-modal="true"]')).filter(shown)) ??
    last(
      Array.from(document.querySelectorAll('dialog[open],[role="dialog"],[role="alertdialog"]')).filter(
        (el) => shown(el) && getComputedStyle(el).position === 'fixed',
      ),
    )
  );
}

function boxOf(el: Element): Rect {
  // The options of a drop-down have no box while it is closed: they show where their select does.
  if (el.localName === 'option') {
    const select = el.closest('select');
    if (select) return select.getBoundingClientRect();
  }
  const box = el.getBoundingClientRect();
  if (box.width || box.height) return box;
  // display: contents has no box of its own, but its content has.
  const range = document.createRange();
  range.selectNodeContents(el);
  const content = range.getBoundingClientRect();
  return content.width || content.height ? content : box;
}

function clipsOverflow(el: Element, style: CSSStyleDeclaration): boolean {
  // The root and body scroll the viewport itself; overflow does not apply to inline boxes, and a box
  // of display: contents has nothing to clip with.
  if (el === document.documentElement || el === document.body || style.display === 'contents' || style.display === 'inline') return false;
  return style.overflowX !== 'visible' || style.overflowY !== 'visible';
}

function paddingBox(el: Element): Rect {
  const box = el.getBoundingClientRect();
  const left = box.left + el.clientLeft;
  const top = box.top + el.clientTop;
  return { left, top, right: left + el.clientWidth, bottom: top + el.clientHeight };
}
