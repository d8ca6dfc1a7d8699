// Screenshots: the viewport as it is, or one element scrolled into view. Only what the viewport
// shows is captured: capturing beyond it makes Chrome lay the page out again at another size, which
// changes what an agent then reads and acts on.

import type { CdpSession } from '../cdp/session.js';
import { ElementNotActionableError } from '../errors.js';
import { withDeadline } from '../util/time.js';
import { visibleBox } from './input.js';
import { releaseElement, type ResolvedElement } from './locator.js';

/** What a screenshot needs of a page (page.ts's Page has it). */
export interface ScreenshotPage {
  readonly session: CdpSession;
  locator(selector: string): { resolve(timeoutMs: number): Promise<ResolvedElement> };
}

export async function captureScreenshot(page: ScreenshotPage, selector: string | undefined, timeoutMs: number): Promise<Uint8Array> {
  const started = Date.now();
  const remaining = () => Math.max(1, timeoutMs - (Date.now() - started));
  const clip = selector === undefined ? undefined : await withDeadline(elementClip(page, selector, timeoutMs), timeoutMs, `Measuring "${selector}" for a screenshot`);
  const { data } = await page.session.send('Page.captureScreenshot', { format: 'png', ...(clip && { clip }) }, { timeoutMs: remaining() });
  return decodeBase64(data);
}

/** The part of the element inside the viewport, in the document's coordinates (what `clip` takes). */
async function elementClip(page: ScreenshotPage, selector: string, timeoutMs: number): Promise<{ x: number; y: number; width: number; height: number; scale: number }> {
  const element = await page.locator(selector).resolve(timeoutMs);
  try {
    const box = await visibleBox(element, timeoutMs).catch((error: Error) => {
      throw error instanceof ElementNotActionableError ? new ElementNotActionableError(`"${selector}" cannot be captured: ${error.message}.`) : error;
    });
    const { cssVisualViewport: view } = await page.session.send('Page.getLayoutMetrics', undefined, { timeoutMs });
    const left = Math.max(box.x, 0);
    const top = Math.max(box.y, 0);
    const right = Math.min(box.x + box.width, view.clientWidth);
    const bottom = Math.min(box.y + box.height, view.clientHeight);
    if (right - left < 1 || bottom - top < 1) {
      throw new ElementNotActionableError(`"${selector}" cannot be captured: no part of it is in the viewport, even scrolled into view.`);
    }
    return { x: left + view.pageX, y: top + view.pageY, width: right - left, height: bottom - top, scale: 1 };
  } finally {
    releaseElement(element);
  }
}

function decodeBase64(data: string): Uint8Array {
  // Buffer where there is one (Node); atob in edge runtimes.
  if (typeof Buffer !== 'undefined') return Buffer.from(data, 'base64');
  return Uint8Array.from(atob(data), (char) => char.charCodeAt(0));
}
