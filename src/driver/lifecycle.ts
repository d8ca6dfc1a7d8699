// Where each frame's document is in its life (init, DOMContentLoaded, load, networkIdle, from
// Page.lifecycleEvent), and the waits on it that navigations use.

import type { CdpSession } from '../cdp/session.js';
import { NavigationError, PageClosedError } from '../errors.js';
import type { WaitUntil } from '../types.js';
import { withDeadline } from '../util/time.js';
import type { Frame } from './frame.js';

const LIFECYCLE_EVENT: Record<WaitUntil, string> = {
  commit: 'commit',
  domcontentloaded: 'DOMContentLoaded',
  load: 'load',
  networkidle: 'networkIdle',
};

const RESTORED_LIFECYCLE = ['init', 'DOMContentLoaded', 'load'];

/** The frames a wait watches (frameTree.ts's FrameTree has them). */
export interface WatchedFrames {
  readonly frames: ReadonlyMap<string, Frame>;
  onNewFrame(handler: (frame: Frame) => void): () => void;
}

/** A document that was loaded before we heard of its lifecycle (restored from the back-forward cache). */
export function markLoaded(frame: Frame): void {
  frame.lifecycle.clear();
  for (const name of RESTORED_LIFECYCLE) frame.lifecycle.add(name);
}

/** Records the lifecycle events a session reports for its frames. */
export function watchLifecycle(session: CdpSession, frameOf: (frameId: string) => Frame | undefined): void {
  session.on('Page.lifecycleEvent', (event) => {
    const frame = frameOf(event.frameId);
    if (!frame) return;
    if (event.name === 'init') {
      frame.loaderId = event.loaderId;
      frame.lifecycle.clear();
    } else if (event.loaderId !== frame.loaderId) {
      return; // A late event of the previous document.
    }
    frame.lifecycle.add(event.name);
    frame.changed.emit('change', undefined);
  });
  // A requested navigation that stays in the document, or that ends without a new one (a
  // download, a 204, a cancelled one), leaves the document where it was.
  session.on('Page.frameStoppedLoading', (event) => {
    const frame = frameOf(event.frameId);
    if (!frame) return;
    frame.setReplacing('');
    // A document that stopped loading (window.stop() while it was parsed, the user's Esc) will
    // never fire DOMContentLoaded or load, yet it is all there is to read: it counts as loaded.
    if (frame.loaderId && frame.loaderId === frame.committedLoaderId && !frame.lifecycle.has('load')) {
      frame.lifecycle.add('DOMContentLoaded').add('load');
      frame.changed.emit('change', undefined);
    }
  });
}

/**
 * Resolves once `frame` runs the document of `loaderId` (any committed document when undefined)
 * and reached `waitUntil`: `domcontentloaded` is the frame's own; `load` and `networkidle` also
 * take every frame inside it that committed a document (OOPIFs included). A frame whose
 * navigation never committed, or ended on an error page, never holds it.
 *
 * With `quietMs`, it also ends (resolving false instead of true) once no frame of the page has
 * changed in any way (a lifecycle event, a commit, a new frame or world) for that long: a page that
 * is still making progress is waited for, one stuck on a request that never answers is not.
 */
export function waitForLifecycle(
  page: { isClosed(): boolean },
  tree: WatchedFrames,
  frame: Frame,
  loaderId: string | undefined,
  waitUntil: WaitUntil,
  timeoutMs: number,
  url: string,
  quietMs?: number,
): Promise<boolean> {
  // The document that was there before this navigation, and the one we wait for. When the page
  // replaces the navigated document before it finished (a script redirect, an error page after
  // one), the newest document is the one to wait for: the old one will never fire its events.
  const previous = loaderId ? frame.committedLoaderId : undefined;
  let target = loaderId;
  const done = new Promise<boolean>((resolve, reject) => {
    const offs: Array<() => void> = [];
    let quiet: ReturnType<typeof setTimeout> | undefined;
    const finish = (error: Error | undefined, reached = true) => {
      for (const off of offs) off();
      clearTimeout(quiet);
      if (error) reject(error);
      else resolve(reached);
    };
    const check = () => {
      if (page.isClosed()) return finish(new PageClosedError(`The page closed while navigating to ${url}.`));
      if (frame.detached) return finish(new NavigationError(`The frame was detached while navigating to ${url}.`, url));
      const committed = frame.committedLoaderId;
      if (target && committed && committed !== target && committed !== previous) target = committed;
      const expected = target ?? committed;
      if (
        expected &&
        frame.committedLoaderId === expected &&
        frame.loaderId === expected &&
        stillLoading(frame, waitUntil, 1).length === 0
      ) {
        return finish(undefined);
      }
      if (quietMs !== undefined) {
        clearTimeout(quiet);
        quiet = setTimeout(() => finish(undefined, false), quietMs);
      }
    };
    // Any frame of the page may be the one we wait for, so listen on all, including new ones.
    const watch = (f: Frame) => offs.push(f.changed.on('change', check));
    for (const f of tree.frames.values()) watch(f);
    offs.push(tree.onNewFrame(watch));
    check();
  });
  return withDeadline(
    done,
    timeoutMs,
    `Navigation to ${url} (waiting for ${waitUntil})`,
    'Raise timeoutMs, or wait for an earlier state such as "domcontentloaded".',
  );
}

/** URLs of `frame` and the frames in it that have not reached `waitUntil` yet, at most `limit` of them. */
export function stillLoading(frame: Frame, waitUntil: WaitUntil, limit = Infinity): string[] {
  const name = LIFECYCLE_EVENT[waitUntil];
  const out: string[] = [];
  const visit = (f: Frame) => {
    if (out.length >= limit) return;
    // When we attach, Chrome tells the lifecycle so far, and for an out-of-process frame it may
    // leave out a `load` that did happen (its parent's `load`, which waits for it, is there). A
    // frame whose network went idle is past its load.
    const done = f.lifecycle.has(name) || (name === 'load' && f !== frame && f.lifecycle.has('networkIdle'));
    if (name !== 'commit' && !done) out.push(f.url() || f.id);
    // DOMContentLoaded is the document's own: its frames' documents never delay it.
    if (name === 'commit' || name === 'DOMContentLoaded') return;
    for (const child of f.children) if (child.hasDocument) visit(child);
  };
  visit(frame);
  return out;
}
