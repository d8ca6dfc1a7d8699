// The latest read of each page: the ids of its page text (`[N]`, `[F-N]`) stand for elements until
// the page is read again or its documents change, so act({ elementId }) resolves them here.

import type { Snapshot } from './snapshot.js';

const reads = new WeakMap<object, Snapshot>();

export function rememberRead(page: object, snapshot: Snapshot): void {
  reads.set(page, snapshot);
}

export function latestRead(page: object): Snapshot | undefined {
  return reads.get(page);
}
