// Before act() reads the page: give it a moment to finish what it is doing, bounded, so a page
// that never stops (a ticker, a carousel) costs at most `maxMs`.

import { evaluateInContext } from './evaluate.js';
import { NetworkTracker } from './network.js';
import type { Page } from './page.js';

const QUIET_MS = 150;
const NETWORK_QUIET_MS = 300;

/**
 * Resolves once the top document has finished loading, its DOM has had no mutation for a short
 * while and no request of the page has been in flight for a little longer, or after `maxMs`,
 * whichever comes first; at once when the page went network-idle before and nothing happened since.
 * Never rejects: a page that is still busy is read as it is.
 */
export async function waitForSettled(page: Page, maxMs: number): Promise<void> {
  if (maxMs <= 0) return;
  const tracker = NetworkTracker.for(page);
  await tracker.ready;
  // A page that Chrome saw go network-idle (no connection for 500 ms after load), and where nothing
  // has happened since, has settled already: waiting out the quiet periods would only add their
  // length to the first act() or observe() on every page.
  if (tracker.untouched && page.mainFrame().lifecycle.has('networkIdle')) return;
  await Promise.all([domQuiet(page, maxMs), tracker.idle(NETWORK_QUIET_MS, maxMs)]);
}

async function domQuiet(page: Page, maxMs: number): Promise<void> {
  try {
    const world = await page.mainFrame().waitForWorld('isolated', maxMs);
    await evaluateInContext(
      world.session,
      world.contextId,
      ({ quiet, max }: { quiet: number; max: number }) =>
        new Promise<void>((resolve) => {
          const started = Date.now();
          let timer: ReturnType<typeof setTimeout> | undefined;
          const done = () => {
            observer.disconnect();
            clearTimeout(timer);
            clearTimeout(cap);
            resolve();
          };
          const arm = () => {
            clearTimeout(timer);
            timer = setTimeout(() => (document.readyState === 'complete' ? done() : arm()), quiet);
          };
          const observer = new MutationObserver(arm);
          observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
          const cap = setTimeout(done, Math.max(0, max - (Date.now() - started)));
          arm();
        }),
      { quiet: QUIET_MS, max: maxMs },
      maxMs + 1000,
    );
  } catch {
    // A navigation replaced the document, or the page is stuck: read it as it is.
  }
}
