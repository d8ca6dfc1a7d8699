import type { Protocol } from 'devtools-protocol';
import type { CdpSession } from '../cdp/session.js';
import { NavigationError, PageClosedError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Viewport, WaitUntil } from '../types.js';
import { withDeadline } from '../util/time.js';
import { handleDialog, type Dialog } from './dialog.js';
import { ERROR_PAGE_URL, Frame, WORLD_NAME, type FramePage, type World } from './frame.js';
import { releaseTarget, type GuardedPage } from './policy.js';

const LIFECYCLE_EVENT: Record<WaitUntil, string> = {
  commit: 'commit',
  domcontentloaded: 'DOMContentLoaded',
  load: 'load',
  networkidle: 'networkIdle',
};

/** What the frame manager needs of its page (page.ts's Page has it). */
export interface ManagedPage extends FramePage, GuardedPage {
  readonly viewport: Viewport | undefined;
  /** See ContextOptions.closedRootWatch. */
  readonly closedRootWatch: string | undefined;
  url(): string;
  /** The page's target crashed or went: it is closed from now on. */
  markClosed(): void;
  emit(event: 'dialog', dialog: Dialog): void;
  listenerCount(event: 'dialog'): number;
}

/**
 * Our own frame tree for one page, built from Page events of every session that belongs to the
 * page: its own and one per out-of-process iframe (at any depth). Each frame knows its session,
 * its parent and its execution contexts.
 */
export class FrameManager {
  readonly frames = new Map<string, Frame>();
  mainFrame!: Frame;
  // Execution contexts by session, so a context id (unique only within a session) finds its frame.
  readonly #contexts = new Map<CdpSession, Map<number, { frame: Frame; world: World }>>();
  /**
   * Per session: its frame tree is in. Out-of-process children are adopted only after their
   * parent's tree (whose answer can come after Chrome announced them), so each finds its parent
   * frame, and frames keep the same order from one attach to the next.
   */
  readonly #trees = new Map<CdpSession, Promise<void>>();
  /** Per session being adopted: the adoptions of the out-of-process children it announced meanwhile. */
  readonly #announced = new Map<CdpSession, Array<Promise<unknown>>>();
  /**
   * @internal The last document restored from the back-forward cache, and the reading of its
   * in-process frames, which Chrome does not announce again (see #restoreFrames).
   */
  restored: { loaderId: string; frames: Promise<void> } | undefined;

  /**
   * The binding the closed-root watch reports through. The watch removes it before the page's own
   * scripts run; a document that was there before us keeps it until it navigates, so its name
   * says nothing about us.
   */
  readonly #watchBinding = `_${Math.random().toString(36).slice(2, 12)}`;

  constructor(
    private readonly page: ManagedPage,
    private readonly logger: Logger,
  ) {}

  /**
   * Takes a session into the page: the page's own (first) or an OOPIF's. The target is paused
   * (waitForDebuggerOnStart) until everything is enabled, so no event of its start is missed.
   */
  async adoptSession(session: CdpSession): Promise<void> {
    this.#contexts.set(session, new Map());
    this.#listen(session);
    this.#announced.set(session, []);
    // Everything is sent at once, the resume last: a session runs its commands in order, so the
    // target starts with all of it in place. Nothing may wait for an answer before the resume: a tab
    // opened without an opener answers Page.getFrameTree only once its first navigation is over,
    // which it cannot start while paused. The tree goes in as its answer arrives (onResult): the
    // contexts Runtime.enable announces right after it need their frames.
    const tree = session.send('Page.getFrameTree', undefined, {
      onResult: ({ frameTree }: { frameTree: Protocol.Page.FrameTree }) => this.#loadTree(session, frameTree, null),
    });
    this.#trees.set(
      session,
      tree.then(
        () => undefined,
        () => undefined,
      ),
    );
    const setup: Promise<unknown>[] = [
      tree,
      session.send('Page.enable'),
      session.send('Page.setLifecycleEventsEnabled', { enabled: true }),
      session.send('Runtime.enable'),
      session.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true }),
    ];
    // Under a domainPolicy, every request of the target is answered by the guard from its first one.
    const guard = this.page.guard;
    if (guard) setup.push(guard.guard(session, this.page));
    const viewport = this.page.viewport;
    if (session === this.page.session) {
      // A renderer crash sends no reply to what was pending; Inspector tells us it happened.
      setup.push(session.send('Inspector.enable'));
      if (viewport) {
        setup.push(
          session.send('Emulation.setDeviceMetricsOverride', {
            width: viewport.width,
            height: viewport.height,
            deviceScaleFactor: 0,
            mobile: false,
          }),
        );
      }
    }
    // The closed-root watch, for every document the target makes from now on. Best effort: without
    // it a capture scans for closed roots as it would in a document that was there before us.
    const watch = this.page.closedRootWatch;
    if (watch) {
      setup.push(
        session.sendQuiet('Runtime.addBinding', { name: this.#watchBinding }),
        session.sendQuiet('Page.addScriptToEvaluateOnNewDocument', { source: `${watch}(${JSON.stringify(this.#watchBinding)})` }),
      );
    }
    setup.push(session.send('Runtime.runIfWaitingForDebugger'));
    try {
      await Promise.all(setup);
    } finally {
      // Out-of-process frames that already exist are announced before setAutoAttach answers;
      // a page attached to while loaded is only whole once they are ready too.
      const children = this.#announced.get(session) ?? [];
      this.#announced.delete(session);
      await Promise.allSettled(children);
    }
  }

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
  waitForLifecycle(
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
        if (this.page.isClosed()) return finish(new PageClosedError(`The page closed while navigating to ${url}.`));
        if (frame.detached) return finish(new NavigationError(`The frame was detached while navigating to ${url}.`, url));
        const committed = frame.committedLoaderId;
        if (target && committed && committed !== target && committed !== previous) target = committed;
        const expected = target ?? committed;
        if (expected && frame.committedLoaderId === expected && frame.loaderId === expected && this.stillLoading(frame, waitUntil, 1).length === 0) {
          return finish(undefined);
        }
        if (quietMs !== undefined) {
          clearTimeout(quiet);
          quiet = setTimeout(() => finish(undefined, false), quietMs);
        }
      };
      // Any frame of the page may be the one we wait for, so listen on all, including new ones.
      const watch = (f: Frame) => offs.push(f.changed.on('change', check));
      for (const f of this.frames.values()) watch(f);
      offs.push(this.onNewFrame(watch));
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
  stillLoading(frame: Frame, waitUntil: WaitUntil, limit = Infinity): string[] {
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

  /**
   * A document restored from the back-forward cache was loaded when it was cached, and Chrome
   * announces neither its lifecycle nor its in-process frames again: those are read from the frame
   * tree, and all of them count as loaded.
   */
  #restoreFrames(session: CdpSession, frame: Frame): void {
    const loaded = (each: Frame) => {
      each.lifecycle.clear();
      for (const name of RESTORED_LIFECYCLE) each.lifecycle.add(name);
    };
    loaded(frame);
    const loaderId = frame.committedLoaderId;
    const frames = session
      .send('Page.getFrameTree', undefined, { timeoutMs: this.page.defaultTimeoutMs })
      .then(({ frameTree }) => {
        if (frame.detached || frame.committedLoaderId !== loaderId) return;
        const node = findInTree(frameTree, frame.id);
        for (const child of node?.childFrames ?? []) this.#loadTree(session, child, frame.id);
        for (const each of this.allFrames()) {
          if (each.session === session && each !== frame && isInside(each, frame)) loaded(each);
        }
        frame.changed.emit('change', undefined);
      })
      .catch((error: Error) => this.logger.debug('driver', 'Could not read the frames of a page restored from the back-forward cache', { error: error.message }));
    this.restored = { loaderId, frames };
  }

  #newFrameHandlers = new Set<(frame: Frame) => void>();
  /** @internal Calls `handler` with each frame added from now on, until the returned function is called. */
  onNewFrame(handler: (frame: Frame) => void): () => void {
    this.#newFrameHandlers.add(handler);
    return () => this.#newFrameHandlers.delete(handler);
  }

  #ensureFrame(session: CdpSession, frameId: string, parentId: string | undefined): Frame {
    let frame = this.frames.get(frameId);
    const parent = parentId ? (this.frames.get(parentId) ?? null) : null;
    if (frame) {
      if (parent && frame.parent !== parent) {
        frame.parent?.children.delete(frame);
        frame.parent = parent;
        parent.children.add(frame);
      }
      // An OOPIF's own session reports the frame too; that session owns it from now on.
      if (frame.session !== session && session.parentId !== undefined && this.#isChildSessionRoot(session, frameId)) {
        frame.session = session;
        frame.mainWorld = frame.isolatedWorld = undefined;
      }
      return frame;
    }
    frame = new Frame(this.page, frameId, parent, session);
    this.frames.set(frameId, frame);
    // The page's own frame: its id is the target's. An out-of-process child whose parent is not known
    // yet (its session can be announced before the page's frame tree arrives) also has no parent here.
    if (frameId === this.page.targetId) this.mainFrame = frame;
    for (const handler of this.#newFrameHandlers) handler(frame);
    return frame;
  }

  #isChildSessionRoot(session: CdpSession, frameId: string): boolean {
    return session !== this.page.session && session.targetId === frameId;
  }

  #loadTree(session: CdpSession, tree: Protocol.Page.FrameTree, parentId: string | null): void {
    const frame = this.#ensureFrame(session, tree.frame.id, tree.frame.parentId ?? parentId ?? undefined);
    if (tree.frame.loaderId && !frame.loaderId) {
      frame.loaderId = frame.committedLoaderId = tree.frame.loaderId;
      frame.hasDocument = isRealDocument(tree.frame) && tree.frame.url !== 'about:blank';
    }
    frame.setNavigation(tree.frame.url + (tree.frame.urlFragment ?? ''), tree.frame.name);
    for (const child of tree.childFrames ?? []) this.#loadTree(session, child, tree.frame.id);
    // Children in document order, as the tree lists them, whatever order their sessions were
    // announced in: the frames' numbers in the page text follow it, and must not change from one
    // attach to the next.
    for (const child of tree.childFrames ?? []) {
      const known = this.frames.get(child.frame.id);
      if (known && frame.children.delete(known)) frame.children.add(known);
    }
  }

  #removeFrame(frame: Frame): void {
    for (const child of [...frame.children]) this.#removeFrame(child);
    frame.detached = true;
    frame.releaseOwner();
    frame.parent?.children.delete(frame);
    this.frames.delete(frame.id);
    frame.changed.emit('change', undefined);
  }

  #listen(session: CdpSession): void {
    session.on('Page.frameAttached', (event) => {
      this.#ensureFrame(session, event.frameId, event.parentFrameId);
    });
    session.on('Page.frameNavigated', (event) => {
      const frame = this.#ensureFrame(session, event.frame.id, event.frame.parentId);
      const restored = event.type === 'BackForwardCacheRestore';
      // A new document: the frames of the old one are gone, though Chrome may announce the end of
      // out-of-process ones only later, when their targets detach. The new document attaches its own.
      // A restored document's out-of-process frames come back as targets, maybe already attached.
      for (const child of [...frame.children]) {
        if (restored && child.session !== session && !child.session.detached) continue;
        this.#removeFrame(child);
      }
      frame.loaderId = frame.committedLoaderId = event.frame.loaderId;
      frame.replacing = '';
      frame.hasDocument = isRealDocument(event.frame);
      if (restored) this.#restoreFrames(session, frame);
      frame.setNavigation(event.frame.url + (event.frame.urlFragment ?? ''), event.frame.name);
    });
    session.on('Page.javascriptDialogOpening', (event) => {
      handleDialog(session, event, {
        emit: (dialog) => {
          if (this.page.listenerCount('dialog') === 0) return false;
          this.page.emit('dialog', dialog);
          return true;
        },
        deadlineMs: this.page.defaultTimeoutMs,
        logger: this.logger,
      });
    });
    session.on('Page.frameRequestedNavigation', (event) => {
      const frame = this.frames.get(event.frameId);
      // Web documents only: a javascript: or mailto: URL asks for no new document.
      if (event.disposition === 'currentTab' && /^(https?|ftp|file):/i.test(event.url)) frame?.setReplacing(frame.committedLoaderId);
    });
    // A requested navigation that stays in the document, or that ends without a new one (a
    // download, a 204, a cancelled one), leaves the document where it was.
    session.on('Page.frameStoppedLoading', (event) => {
      const frame = this.frames.get(event.frameId);
      if (!frame) return;
      frame.setReplacing('');
      // A document that stopped loading (window.stop() while it was parsed, the user's Esc) will
      // never fire DOMContentLoaded or load, yet it is all there is to read: it counts as loaded.
      if (frame.loaderId && frame.loaderId === frame.committedLoaderId && !frame.lifecycle.has('load')) {
        frame.lifecycle.add('DOMContentLoaded').add('load');
        frame.changed.emit('change', undefined);
      }
    });
    session.on('Page.navigatedWithinDocument', (event) => {
      const frame = this.frames.get(event.frameId);
      frame?.setReplacing('');
      frame?.setNavigation(event.url, undefined);
    });
    session.on('Page.frameDetached', (event) => {
      const frame = this.frames.get(event.frameId);
      // 'swap': the frame moves to another renderer process; its new session will claim it.
      if (frame && event.reason === 'remove') this.#removeFrame(frame);
    });
    session.on('Page.lifecycleEvent', (event) => {
      const frame = this.frames.get(event.frameId);
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
    session.on('Runtime.executionContextCreated', ({ context }) => {
      const aux = context.auxData as { frameId?: string; isDefault?: boolean } | undefined;
      const frame = aux?.frameId ? this.frames.get(aux.frameId) : undefined;
      if (!frame || frame.session !== session) return;
      const world: World = { session, contextId: context.id };
      if (aux?.isDefault) frame.mainWorld = world;
      else if (context.name === WORLD_NAME) frame.isolatedWorld = world;
      else return;
      this.#contexts.get(session)?.set(context.id, { frame, world });
      frame.changed.emit('change', undefined);
    });
    session.on('Runtime.bindingCalled', ({ name, payload, executionContextId }) => {
      if (name !== this.#watchBinding) return;
      const world = this.#contexts.get(session)?.get(executionContextId)?.world;
      const count = Number(payload.slice(1));
      if (!world || !Number.isInteger(count)) return;
      const seen = (world.closedRoots ??= { attached: 0, declarative: 0 });
      if (payload[0] === 'c') seen.attached = Math.max(seen.attached, count);
      else if (payload[0] === 'd') seen.declarative = Math.max(seen.declarative, count);
    });
    session.on('Runtime.executionContextDestroyed', ({ executionContextId }) => {
      const contexts = this.#contexts.get(session);
      const entry = contexts?.get(executionContextId);
      if (!entry) return;
      contexts!.delete(executionContextId);
      entry.frame.forgetWorld(entry.world);
    });
    session.on('Runtime.executionContextsCleared', () => {
      const contexts = this.#contexts.get(session);
      for (const { frame, world } of contexts?.values() ?? []) frame.forgetWorld(world);
      contexts?.clear();
    });
    session.on('Target.attachedToTarget', (event) => {
      const child = session.childSession(event.sessionId);
      if (!child) return;
      if (event.targetInfo.type === 'iframe') {
        const adopted = (this.#trees.get(session) ?? Promise.resolve()).then(() => this.adoptSession(child)).catch((error) =>
          this.logger.debug('driver', 'An out-of-process iframe went away while being prepared', {
            error: (error as Error).message,
          }),
        );
        this.#announced.get(session)?.push(adopted);
      } else {
        // Workers and the like: let them run, and leave them alone (guarded, under a domainPolicy).
        releaseTarget(session, child, this.page.guard);
      }
    });
    session.on('Inspector.targetCrashed', () => {
      this.logger.error('driver', 'A page or frame process crashed', { url: this.page.url() });
      session.markDetached('its renderer process crashed');
    });
    session.on('detached', () => {
      this.#contexts.delete(session);
      this.#trees.delete(session);
      if (session === this.page.session) return this.page.markClosed();
      // An OOPIF's process is gone. If its frame is still in the parent's document (it swapped
      // back in-process), the parent's session owns it again; what was inside it went with it.
      const root = this.frames.get(session.targetId);
      if (!root || root.session !== session) return;
      for (const inner of [...root.children]) this.#removeFrame(inner);
      if (root.parent && !root.parent.detached) {
        root.session = root.parent.session;
        root.mainWorld = root.isolatedWorld = undefined;
        root.changed.emit('change', undefined);
      } else {
        this.#removeFrame(root);
      }
    });
  }
}

const RESTORED_LIFECYCLE = ['init', 'DOMContentLoaded', 'load'];

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

/** A committed document that is not Chrome's error page (a failed or refused navigation). */
function isRealDocument(frame: Protocol.Page.Frame): boolean {
  return !frame.unreachableUrl && !frame.url.startsWith(ERROR_PAGE_URL);
}
