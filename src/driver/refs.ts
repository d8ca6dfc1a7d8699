// The ids of the page text as selectors: `ref=N` in the top document, `ref=F-N` in frame F. The F
// of a frame stays with it while the page shows the same top document (numbered in the order
// page.frames() lists them by the first read of that document, then as they come); the N of an
// element stays with it for its document's life (the engine keeps both ways:
// src/injected/engine/ids.ts). A new top document numbers its frames from the start again, as its
// lines are.

import type { Frame } from './frame.js';

/** What frame numbering needs of a page (page.ts's Page has it). */
export interface RefPage {
  mainFrame(): Frame;
  frames(): Frame[];
  frameById(frameId: string): Frame | undefined;
}

interface Numbering {
  /** The top document the numbers were given in. */
  loader: string;
  byFrame: Map<string, number>;
}

const numberings = new WeakMap<RefPage, Numbering>();

/**
 * The F of `[F-N]` for the page's frames: the numbers given so far, and the frames there are now
 * given the next ones, in page.frames() order. A new top document starts them again.
 */
export function frameNumbers(page: RefPage): (frame: Frame) => number {
  const main = page.mainFrame();
  let numbering = numberings.get(page);
  if (!numbering || numbering.loader !== main.committedLoaderId) {
    numbering = { loader: main.committedLoaderId, byFrame: new Map() };
    numberings.set(page, numbering);
  }
  const { byFrame } = numbering;
  const number = (frame: Frame): number => {
    if (frame === page.mainFrame()) return 0;
    let n = byFrame.get(frame.id);
    if (n === undefined) byFrame.set(frame.id, (n = byFrame.size + 1));
    return n;
  };
  for (const frame of page.frames()) number(frame);
  return number;
}

/** The frame numbered `n`, while it is attached. */
export function frameOfNumber(page: RefPage, n: number): Frame | undefined {
  if (n === 0) return page.mainFrame();
  for (const [id, each] of numberings.get(page)?.byFrame ?? []) {
    if (each === n) {
      const frame = page.frameById(id);
      return frame && !frame.isDetached() ? frame : undefined;
    }
  }
  return undefined;
}

/** `ref=12`, `ref=[2-7]`, `ref=0-12`: frame and node; null for any other selector. */
export function parseRef(selector: string): [frame: number, node: number] | null {
  const match = /^ref=\s*\[?(?:(\d+)-)?(\d+)\]?\s*$/.exec(selector.trim());
  return match ? [Number(match[1] ?? 0), Number(match[2])] : null;
}
