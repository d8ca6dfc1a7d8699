// The frames of one page as a tree, built from the Page events of every session of the page (its own
// and one per out-of-process iframe): which frames there are, their parents, their sessions, and
// the document each shows. Lifecycle events (lifecycle.ts) and execution contexts (worlds.ts) are
// kept apart.

import type { Protocol } from 'devtools-protocol';
import type { CdpSession } from '../cdp/session.js';
import type { Logger } from '../logger.js';
import { ERROR_PAGE_URL, Frame, type FramePage } from './frame.js';
import { markLoaded } from './lifecycle.js';

/** What the tree needs of its page: to make frames, and to know its own session and id. */
export interface TreePage extends FramePage {
  readonly session: CdpSession;
  /** The page's target id, which is also its main frame's id. */
  readonly id: string;
}

export class FrameTree {
  readonly frames = new Map<string, Frame>();
  mainFrame!: Frame;
  /**
   * The last document restored from the back-forward cache, and the reading of its in-process
   * frames, which Chrome does not announce again (see #restore).
   */
  restored: { loaderId: string; frames: Promise<void> } | undefined;
  readonly #newFrameHandlers = new Set<(frame: Frame) => void>();

  /**
   * @param known Called with each frame once the tree its session reported has it, and again
   * whenever another session takes it over (an out-of-process frame's own, or its parent's once
   * that one's gone): what that session said of the frame before is the frame's from then on.
   */
  constructor(
    private readonly page: TreePage,
    private readonly logger: Logger,
    private readonly known: (frame: Frame) => void,
  ) {}

  frame(frameId: string): Frame | undefined {
    return this.frames.get(frameId);
  }

  /** Frames in tree order, main frame first. */
  allFrames(): Frame[] {
    const out: Frame[] = [];
    const visit = (frame: Frame) => {
      out.push(frame);
      for (const child of frame.children) visit(child);
    };
    if (this.mainFrame) visit(this.mainFrame);
    return out;
  }

  /** Calls `handler` with each frame added from now on, until the returned function is called. */
  onNewFrame(handler: (frame: Frame) => void): () => void {
    this.#newFrameHandlers.add(handler);
    return () => this.#newFrameHandlers.delete(handler);
  }

  /** The tree a session reported (Page.getFrameTree), under `parentId` when it is an out-of-process child's. */
  load(session: CdpSession, tree: Protocol.Page.FrameTree, parentId: string | null): void {
    const frame = this.#ensure(session, tree.frame.id, tree.frame.parentId ?? parentId ?? undefined);
    // A tree read after a navigation was reported may be older than that report.
    frame.reported ??= tree.frame;
    if (tree.frame.loaderId && !frame.loaderId) {
      frame.loaderId = frame.committedLoaderId = tree.frame.loaderId;
      frame.hasDocument = isRealDocument(tree.frame) && tree.frame.url !== 'about:blank';
    }
    frame.setNavigation(tree.frame.url + (tree.frame.urlFragment ?? ''), tree.frame.name);
    this.known(frame);
    for (const child of tree.childFrames ?? []) this.load(session, child, tree.frame.id);
    // Children in document order, as the tree lists them, whatever order their sessions were
    // announced in: the frames' numbers in the page text follow it, and must not change from one
    // attach to the next.
    for (const child of tree.childFrames ?? []) {
      const known = this.frames.get(child.frame.id);
      if (known && frame.children.delete(known)) frame.children.add(known);
    }
  }

  remove(frame: Frame): void {
    for (const child of [...frame.children]) this.remove(child);
    frame.detached = true;
    frame.releaseOwner();
    frame.parent?.children.delete(frame);
    this.frames.delete(frame.id);
    frame.changed.emit('change', undefined);
  }

  /** An out-of-process frame's session went: its frame falls back to the parent's, or goes. */
  sessionGone(session: CdpSession): void {
    // If its frame is still in the parent's document (it swapped back in-process), the parent's
    // session owns it again; what was inside it went with it.
    const root = this.frames.get(session.targetId);
    if (!root || root.session !== session) return;
    for (const inner of [...root.children]) this.remove(inner);
    if (root.parent && !root.parent.detached) {
      root.session = root.parent.session;
      root.mainWorld = root.isolatedWorld = undefined;
      this.known(root);
      root.changed.emit('change', undefined);
    } else {
      this.remove(root);
    }
  }

  /** Follows the frames a session reports: attached, navigated (a new document), detached. */
  listen(session: CdpSession): void {
    session.on('Page.frameAttached', (event) => {
      this.#ensure(session, event.frameId, event.parentFrameId);
    });
    session.on('Page.frameNavigated', (event) => {
      const frame = this.#ensure(session, event.frame.id, event.frame.parentId);
      const restored = event.type === 'BackForwardCacheRestore';
      // A new document: the frames of the old one are gone, though Chrome may announce the end of
      // out-of-process ones only later, when their targets detach. The new document attaches its own.
      // A restored document's out-of-process frames come back as targets, maybe already attached.
      for (const child of [...frame.children]) {
        if (restored && child.session !== session && !child.session.detached) continue;
        this.remove(child);
      }
      frame.loaderId = frame.committedLoaderId = event.frame.loaderId;
      frame.reported = event.frame;
      frame.replacing = frame.navigatingFrom = '';
      frame.hasDocument = isRealDocument(event.frame);
      if (restored) this.#restore(session, frame);
      frame.setNavigation(event.frame.url + (event.frame.urlFragment ?? ''), event.frame.name);
    });
    session.on('Page.frameRequestedNavigation', (event) => {
      const frame = this.frames.get(event.frameId);
      // Web documents only: a javascript: or mailto: URL asks for no new document.
      if (event.disposition === 'currentTab' && /^(https?|ftp|file):/i.test(event.url)) frame?.setReplacing(frame.committedLoaderId);
    });
    session.on('Page.frameStartedNavigating', (event) => {
      const frame = this.frames.get(event.frameId);
      if (!frame || SAME_DOCUMENT.has(event.navigationType)) return;
      frame.navigatingFrom = frame.committedLoaderId;
      frame.changed.emit('change', undefined);
    });
    session.on('Page.navigatedWithinDocument', (event) => {
      const frame = this.frames.get(event.frameId);
      if (frame) frame.navigatingFrom = '';
      frame?.setReplacing('');
      frame?.setNavigation(event.url, undefined);
    });
    session.on('Page.frameDetached', (event) => {
      const frame = this.frames.get(event.frameId);
      // 'swap': the frame moves to another renderer process; its new session will claim it.
      if (frame && event.reason === 'remove') this.remove(frame);
    });
  }

  #ensure(session: CdpSession, frameId: string, parentId: string | undefined): Frame {
    let frame = this.frames.get(frameId);
    const parent = parentId ? (this.frames.get(parentId) ?? null) : null;
    if (frame) {
      if (parent && frame.parent !== parent) {
        frame.parent?.children.delete(frame);
        frame.parent = parent;
        parent.children.add(frame);
      }
      // An OOPIF's own session reports the frame too; that session owns it from now on.
      if (frame.session !== session && session.parentId !== undefined && session !== this.page.session && session.targetId === frameId) {
        frame.session = session;
        frame.mainWorld = frame.isolatedWorld = undefined;
        this.known(frame);
      }
      return frame;
    }
    frame = new Frame(this.page, frameId, parent, session);
    this.frames.set(frameId, frame);
    // The page's own frame: its id is the target's. An out-of-process child whose parent is not known
    // yet (its session can be announced before the page's frame tree arrives) also has no parent here.
    if (frameId === this.page.id) this.mainFrame = frame;
    for (const handler of this.#newFrameHandlers) handler(frame);
    return frame;
  }

  /**
   * A document restored from the back-forward cache was loaded when it was cached, and Chrome
   * announces neither its lifecycle nor its in-process frames again: those are read from the frame
   * tree, and all of them count as loaded.
   */
  #restore(session: CdpSession, frame: Frame): void {
    markLoaded(frame);
    const loaderId = frame.committedLoaderId;
    const frames = session
      .send('Page.getFrameTree', undefined, { timeoutMs: this.page.defaultTimeoutMs })
      .then(({ frameTree }) => {
        if (frame.detached || frame.committedLoaderId !== loaderId) return;
        const node = findInTree(frameTree, frame.id);
        for (const child of node?.childFrames ?? []) this.load(session, child, frame.id);
        for (const each of this.allFrames()) {
          if (each.session === session && each !== frame && isInside(each, frame)) markLoaded(each);
        }
        frame.changed.emit('change', undefined);
      })
      .catch((error: Error) =>
        this.logger.debug('driver', 'Could not read the frames of a page restored from the back-forward cache', { error: error.message }),
      );
    this.restored = { loaderId, frames };
  }
}

function findInTree(tree: Protocol.Page.FrameTree, frameId: string): Protocol.Page.FrameTree | undefined {
  if (tree.frame.id === frameId) return tree;
  for (const child of tree.childFrames ?? []) {
    const found = findInTree(child, frameId);
    if (found) return found;
  }
  return undefined;
}

function isInside(frame: Frame, ancestor: Frame): boolean {
  for (let current = frame.parent; current; current = current.parent) if (current === ancestor) return true;
  return false;
}

/** Page.frameStartedNavigating's kinds of navigation that stay in the document. */
const SAME_DOCUMENT = new Set(['sameDocument', 'historySameDocument']);

/** A committed document that is not Chrome's error page (a failed or refused navigation). */
function isRealDocument(frame: Protocol.Page.Frame): boolean {
  return !frame.unreachableUrl && !frame.url.startsWith(ERROR_PAGE_URL);
}
