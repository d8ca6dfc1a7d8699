// Which document of the main frame a capture reads: a page that replaces its document (a reload
// loop, a redirect by script) is read in the newest one, once it has been parsed.
import type { Frame } from '../driver/frame.js';

/** Resolves once `check` holds (checked on every change of the frame), or after `ms`. */
function waitFor(frame: Frame, ms: number, check: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      off();
      resolve();
    };
    const timer = setTimeout(done, ms);
    const off = frame.changed.on('change', () => check() && done());
    if (check()) done();
  });
}

/**
 * Resolves once the frame's current document has been parsed (DOMContentLoaded), so that a new
 * document is not read half-written; or after `ms`, to read what is there by then.
 */
export function parsed(frame: Frame, ms: number): Promise<void> {
  return waitFor(
    frame,
    ms,
    () => frame.isDetached() || (frame.loaderId === frame.committedLoaderId && frame.lifecycle.has('DOMContentLoaded')),
  );
}

/**
 * Whether the main frame's document `document`, just read, is on its way out: a newer one
 * committed, or it asked for one (a reload, a redirect by script or meta refresh) that commits in
 * time. A document that asked for a reload as its first script ran, and was read before it parsed
 * anything more, would otherwise stand for the page. A navigation the browser has taken up is
 * waited for up to `underwayMs`, however long its server or a new renderer process takes; one only
 * asked for, up to `askedMs` for the browser to take it up. A navigation that ends without a new
 * document (a download, a 204) leaves the read as it was.
 */
export async function replaced(main: Frame, document: string, askedMs: number, underwayMs: number): Promise<boolean> {
  const gone = () => main.committedLoaderId !== document;
  const settled = () => gone() || main.replacing !== document || main.isDetached();
  const underway = () => main.navigatingFrom === document;
  if (main.replacing === document) {
    await waitFor(main, askedMs, () => settled() || underway());
    if (!settled() && underway()) await waitFor(main, underwayMs, () => settled() || !underway());
  }
  return gone();
}
