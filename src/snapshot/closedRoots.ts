// After a walk: the closed shadow roots it could not enter, found as cheaply as the document allows,
// so that the capture can walk again with them.

import type { EngineHandle, Frame } from '../driver/frame.js';
import { probeSuspects, registerClosedShadowRoots, type Suspects } from '../driver/shadow.js';
import type { CaptureResult } from '../injected/reader/types.js';

/**
 * Finds the closed shadow roots a walk could not enter, as cheaply as the document allows, and
 * returns how many were new (the caller then walks again). The elements the walk suspected of
 * hosting one come with their closed roots (askSuspects, asked right behind the walk). Beyond
 * them, the whole document is scanned (one serialisation of it, which costs more than the walk)
 * only where a closed root may still hide: in a document the closed-root watch reports on
 * (src/injected/watch), when it attached more closed roots than are known, or parsed declarative
 * ones through script; in a document older than our session, when it is small enough to scan for
 * little. Chrome's own error pages have none. `suspects: 'whole'` scans the whole document at once.
 */
export async function findClosedRoots(
  frame: Frame,
  engine: EngineHandle,
  scan: CaptureResult['scan'],
  remaining: () => number,
  suspects: Promise<Suspects | undefined> | undefined | 'whole',
): Promise<number> {
  if (frame.showsErrorPage()) return 0;
  const watched = frame.mainWorld?.closedRoots;
  const reported = watched ? watched.attached + watched.declarative : 0;
  const scanned = () =>
    void engine.world.session.sendQuiet('Runtime.callFunctionOn', {
      functionDeclaration: 'function () { this.markSuspectsScanned(); }',
      objectId: engine.objectId,
    });
  const whole = async (learned: number) => {
    const found = await registerClosedShadowRoots(frame, remaining());
    if (watched) watched.scannedAt = reported;
    scanned();
    return learned + found;
  };
  if (suspects === 'whole') return whole(0);
  let learned = 0;
  if (scan.suspects > 0 && (watched || !scan.small)) {
    const probed = await probeSuspects(frame, scan.suspects, remaining(), suspects);
    if (probed === null) return whole(0);
    scanned();
    learned = probed;
  }
  if (watched) {
    const allKnown = watched.declarative === 0 && scan.known + learned >= watched.attached;
    if (allKnown || watched.scannedAt === reported) return learned;
  } else if (!scan.small) {
    return learned;
  }
  return whole(learned);
}
