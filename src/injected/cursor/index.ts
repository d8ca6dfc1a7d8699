// The pointer overlay of page.enableCursorOverlay(): an arrow drawn over the top document where
// Tendril's last mouse event went, so that a screenshot, a recording or a person watching a headed
// browser sees where each action points. It runs as an init script in every new document of the
// page (and once in the current one); the host moves it with `window[CURSOR_KEY].move(x, y)` right
// before each pointer event it sends.

import { CURSOR_KEY } from './key.js';

interface CursorApi {
  move(x: number, y: number): void;
}

const SVG = 'http://www.w3.org/2000/svg';

/** Styles set as important, so that the page's own rules (`div { display: none }`) leave the arrow alone. */
const STYLE: Record<string, string> = {
  position: 'fixed',
  left: '0',
  top: '0',
  width: '16px',
  height: '24px',
  margin: '0',
  padding: '0',
  border: '0',
  display: 'block',
  'z-index': '2147483647',
  'pointer-events': 'none',
  'user-select': 'none',
  contain: 'layout style paint',
  'will-change': 'transform',
};

function arrow(): HTMLElement {
  const element = document.createElement('div');
  element.id = CURSOR_KEY;
  // Not part of what the page says: readers of the accessibility tree (Tendril's page text too) skip it.
  element.setAttribute('aria-hidden', 'true');
  for (const [name, value] of Object.entries(STYLE)) element.style.setProperty(name, value, 'important');
  // Built node by node: a page under a Trusted Types policy refuses innerHTML.
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('width', '16');
  svg.setAttribute('height', '24');
  svg.setAttribute('viewBox', '0 0 16 24');
  const path = document.createElementNS(SVG, 'path');
  path.setAttribute('d', 'M0 0 L0 21 L5.5 15.5 L9.5 23.5 L12.5 22 L8.5 14 L15 14 Z');
  path.setAttribute('fill', 'black');
  path.setAttribute('stroke', 'white');
  path.setAttribute('stroke-width', '1');
  svg.appendChild(path);
  element.appendChild(svg);
  return element;
}

/**
 * Installs the overlay in this document, once, at the top-left corner until the first move (as
 * Stagehand's); iframes get none (the pointer's coordinates are the top page's).
 */
export function installCursor(): void {
  if (window !== window.top) return;
  const holder = window as unknown as Record<string, CursorApi | undefined>;
  if (holder[CURSOR_KEY]) return;
  let element: HTMLElement | undefined;
  let at: [number, number] = [0, 0];
  const show = () => {
    const root = document.documentElement;
    if (!root) return;
    element ??= arrow();
    // Put back when the page replaced what held it (document.open(), a new <html>, innerHTML).
    if (!element.isConnected) root.appendChild(element);
    element.style.setProperty('transform', `translate(${at[0]}px, ${at[1]}px)`, 'important');
  };
  const api: CursorApi = {
    move(x, y) {
      at = [x, y];
      show();
    },
  };
  Object.defineProperty(window, CURSOR_KEY, { value: api, configurable: true });
  // As an init script it runs before the parser made the root element: it shows once that is there.
  if (document.documentElement) show();
  else document.addEventListener('readystatechange', show, { once: true });
}
