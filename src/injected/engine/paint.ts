// What a screenshot changes in a document while it is taken, and takes back after: style sheets
// (the caret hidden, animations stopped, the caller's own CSS) and boxes over masked elements.
// Sheets are adopted rather than added as <style> elements, so the page's own observers see no
// mutation; the mask boxes have to be elements, and are removed right after the capture.

const sheets = new Map<string, CSSStyleSheet>();
let made = 0;

export function addStyle(css: string): string {
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(css);
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  const token = `s${++made}`;
  sheets.set(token, sheet);
  return token;
}

export function removeStyle(token: string): void {
  const sheet = sheets.get(token);
  sheets.delete(token);
  if (sheet) document.adoptedStyleSheets = document.adoptedStyleSheets.filter((each) => each !== sheet);
}

/** Finite animations jump to their end, endless ones go back to their start (as Playwright does). */
export function settleAnimations(): void {
  for (const animation of document.getAnimations()) {
    try {
      if (animation.effect?.getComputedTiming().endTime === Infinity) animation.cancel();
      else animation.finish();
    } catch {
      animation.cancel();
    }
  }
}

// A box may be inside a shadow root's dialog, out of document.querySelectorAll's reach: kept here.
const boxes: Array<[string, Element]> = [];

/** Covers the element's box with one of `color`; `token` names the boxes of one screenshot. */
export function mask(el: Element, color: string, token: string): void {
  const rect = el.getBoundingClientRect();
  // The top layer (a modal dialog, a popover, a fullscreen element) is drawn above every z-index,
  // so a box for an element in it goes inside it, where it is positioned too.
  // Walked across shadow roots: a dialog can hold a host whose shadow tree holds the element.
  let layer: Element | null = el;
  // :is() forgives a pseudo-class the browser does not know (:popover-open before Chrome 114), where a plain list would throw.
  while (layer && !layer.matches(':is(:modal, :popover-open)'))
    layer = layer.parentElement ?? ((layer.getRootNode() as ShadowRoot).host || null);
  const root = layer ?? document.documentElement;
  if (!root || !(rect.width > 0 && rect.height > 0)) return;
  // Positioned in the document, so a capture of the whole page puts it over the element too.
  const positioned = !!layer || getComputedStyle(root).position !== 'static';
  const base = positioned ? root.getBoundingClientRect() : { left: -scrollX, top: -scrollY };
  const box = document.createElement('div');
  box.setAttribute('data-tendril-mask', token);
  const style: Record<string, string> = {
    position: 'absolute',
    left: `${rect.left - base.left - (positioned ? root.clientLeft : 0) + (layer?.scrollLeft ?? 0)}px`,
    top: `${rect.top - base.top - (positioned ? root.clientTop : 0) + (layer?.scrollTop ?? 0)}px`,
    width: `${rect.width}px`,
    height: `${rect.height}px`,
    background: color,
    'z-index': '2147483647',
    'pointer-events': 'none',
    margin: '0',
    border: '0',
    padding: '0',
    opacity: '1',
    display: 'block',
  };
  for (const [name, value] of Object.entries(style)) box.style.setProperty(name, value, 'important');
  root.appendChild(box);
  boxes.push([token, box]);
}

export function unmask(token: string): void {
  for (let i = boxes.length; i--; ) if (boxes[i]![0] === token) boxes.splice(i, 1)[0]![1].remove();
}
