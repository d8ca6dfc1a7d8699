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

/**
 * The lifecycle events of frames not known yet, kept until they are. Over chrome.debugger a
 * command's answer and the events sent after it reach us by two channels, in either order: the
 * account setLifecycleEventsEnabled gives of a loaded document can come before the frame tree
 * (Page.getFrameTree's answer) that names its frame. Events of one session keep their order.
 */
export class EarlyLifecycle {
  readonly #byFrame = new Map<string, Array<(frame: Frame) => void>>();

  /** Applies `apply` to the frame now, or once the tree has it (known). */
  on(frame: Frame | undefined, frameId: string, apply: (frame: Frame) => void): void {
    if (frame) return apply(frame);
    const waiting = this.#byFrame.get(frameId);
    if (waiting) waiting.push(apply);
    else this.#byFrame.set(frameId, [apply]);
  }

  known(frame: Frame): void {
    const waiting = this.#byFrame.get(frame.id);
    if (!waiting) return;
    this.#byFrame.delete(frame.id);
    for (const apply of waiting) apply(frame);
  }

  /** A frame removed before it was known will never be. */
  forget(frameId: string): void {
    this.#byFrame.delete(frameId);
  }
}

/** Records the lifecycle events a session reports for its frames. */
export function watchLifecycle(session: CdpSession, frameOf: (frameId: string) => Frame | undefined, early: EarlyLifecycle): void {
  session.on('Page.frameDetached', (event) => {
    if (event.reason === 'remove') early.forget(event.frameId);
  });
  session.on('Page.lifecycleEvent', (event) =>
    early.on(frameOf(event.frameId), event.frameId, (frame) => {
      if (event.name === 'init') {
        frame.loaderId = event.loaderId;
        frame.lifecycle.clear();
      } else if (event.loaderId !== frame.loaderId) {
        return; // A late event of the previous document.
      }
      frame.lifecycle.add(event.name);
      frame.changed.emit('change', undefined);
    }),
  );
  session.on('Page.frameStartedLoading', (event) =>
    early.on(frameOf(event.frameId), event.frameId, (frame) => {
      frame.loading = true;
      frame.changed.emit('change', undefined);
    }),
  );
  // A requested navigation that stays in the document, or that ends without a new one (a
  // download, a 204, a cancelled one), leaves the document where it was.
  session.on('Page.frameStoppedLoading', (event) =>
    early.on(frameOf(event.frameId), event.frameId, (frame) => {
      frame.loading = false;
      frame.navigatingFrom = '';
      frame.setReplacing('');
      // A document that stopped loading (window.stop() while it was parsed, the user's Esc) will
      // never fire DOMContentLoaded or load, yet it is all there is to read: it counts as loaded.
      if (frame.loaderId && frame.loaderId === frame.committedLoaderId && !frame.lifecycle.has('load')) {
        frame.lifecycle.add('DOMContentLoaded').add('load');
        frame.changed.emit('change', undefined);
      }
    }),
  );
}

/**
 * The document a navigation waits for: the loader Chrome started for it, and the document the frame
 * showed before the navigation was sent. A document committed after that, other than `loaderId`,
 * replaced the navigated one (a redirect by script, Chrome's error page after it) and is waited for
 * instead: the replaced one will never fire its events.
 */
export interface NavigatedDocument {
  readonly loaderId: string;
  readonly before: string;
}

/**
 * How long the default goto's wait for `load` goes on without progress (a frame appearing, going,
 * committing a document, starting or stopping loading, or firing DOMContentLoaded or load; paints
 * and network signals are not).
 */
export interface QuietWindows {
  /** While a frame's document is on its way: not committed yet, or committed and not parsed. */
  readonly documentsMs: number;
  /** Once every frame's document is parsed, when only their subresources (images, scripts) hold `load`. */
  readonly subresourcesMs: number;
}

/**
 * Resolves once `frame` runs the navigated document (any committed document when undefined)
 * and reached `waitUntil`: `domcontentloaded` is the frame's own; `load` and `networkidle` also
 * take every frame inside it that committed a document (OOPIFs included). A frame whose
 * navigation never committed, or ended on an error page, never holds it.
 *
 * With `quiet`, it also ends (resolving false instead of true) once the page made no progress
 * (QuietWindows) for that long: a page still bringing in its documents is waited for, one whose
 * `load` is held by a request that never answers is not.
 */
export function waitForLifecycle(
  page: { isClosed(): boolean },
  tree: WatchedFrames,
  frame: Frame,
  navigated: NavigatedDocument | undefined,
  waitUntil: WaitUntil,
  timeoutMs: number,
  url: string,
  quiet?: QuietWindows,
): Promise<boolean> {
  // The document before the navigation, not the one committed when this wait starts: an error page
  // that replaced the navigated document before (while an earlier wait of the same goto ran) is the
  // newest document, to be waited for, not the old one.
  const before = navigated?.before;
  let target = navigated?.loaderId;
  const done = new Promise<boolean>((resolve, reject) => {
    const offs: Array<() => void> = [];
    let quietTimer: ReturnType<typeof setTimeout> | undefined;
    let progress: string | undefined;
    const finish = (error: Error | undefined, reached = true) => {
      for (const off of offs) off();
      clearTimeout(quietTimer);
      if (error) reject(error);
      else resolve(reached);
    };
    const check = () => {
      if (page.isClosed()) return finish(new PageClosedError(`The page closed while navigating to ${url}.`));
      if (frame.detached) return finish(new NavigationError(`The frame was detached while navigating to ${url}.`, url));
      const committed = frame.committedLoaderId;
      if (target && committed && committed !== target && committed !== before) target = committed;
      const expected = target ?? committed;
      if (
        expected &&
        frame.committedLoaderId === expected &&
        frame.loaderId === expected &&
        stillLoading(frame, waitUntil, 1).length === 0
      ) {
        return finish(undefined);
      }
      if (quiet) {
        const now = progressOf(frame);
        if (now.state === progress) return;
        progress = now.state;
        clearTimeout(quietTimer);
        quietTimer = setTimeout(() => finish(undefined, false), now.documentsPending ? quiet.documentsMs : quiet.subresourcesMs);
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

/** A frame's document is parsed (for an out-of-process one, Chrome may leave out what came before we attached). */
const parsed = (f: Frame): boolean => f.lifecycle.has('DOMContentLoaded') || f.lifecycle.has('load') || f.lifecycle.has('networkIdle');

/**
 * Where `frame` and the frames in it are, as a string that changes only with progress towards
 * `load` (QuietWindows), and whether a document is still on its way (pendingDocuments).
 */
function progressOf(frame: Frame): { state: string; documentsPending: boolean } {
  const parts: string[] = [];
  const visit = (f: Frame) => {
    const done = f.showsErrorPage() || parsed(f);
    parts.push(`${f.id} ${f.committedLoaderId} ${f.replacing} ${f.loading ? 1 : 0}${done ? 1 : 0}${f.lifecycle.has('load') ? 1 : 0}`);
    for (const child of f.children) visit(child);
  };
  visit(frame);
  return { state: parts.join(','), documentsPending: pendingDocuments(frame, 1).length > 0 };
}

/**
 * URLs (ids when they have none yet) of the frames of `frame` whose document is on its way, at most
 * `limit`: a frame that asked for a navigation; inside `frame`, one that committed a web document
 * and has not parsed it, or one still loading that shows none yet (its initial empty document, or
 * about:blank, while its `src` is fetched). `frame` itself is past DOMContentLoaded when this is
 * asked; a frame on Chrome's error page is done.
 */
export function pendingDocuments(frame: Frame, limit = Infinity): string[] {
  const out: string[] = [];
  const visit = (f: Frame) => {
    if (out.length >= limit) return;
    const web = f.hasDocument && f.url() !== 'about:blank';
    if (f.replacing || (f !== frame && !f.showsErrorPage() && (web ? !parsed(f) : f.loading))) out.push(f.url() || f.id);
    for (const child of f.children) visit(child);
  };
  visit(frame);
  return out;
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
