// One page's frames, put together from every session of the page (its own and one per
// out-of-process iframe, at any depth): the tree (frameTree.ts), the lifecycle of each document
// (lifecycle.ts), the execution contexts (worlds.ts) and dialogs (dialog.ts) each follow their own
// events; this file takes sessions in and out, and notices crashes.

import type { Protocol } from 'devtools-protocol';
import type { CdpSession } from '../cdp/session.js';
import type { Logger } from '../logger.js';
import type { Viewport, WaitUntil } from '../types.js';
import { watchDialogs, type DialogPage } from './dialog.js';
import type { Frame } from './frame.js';
import { FrameTree, type TreePage } from './frameTree.js';
import {
  EarlyLifecycle,
  pendingDocuments,
  stillLoading,
  waitForLifecycle,
  watchLifecycle,
  type NavigatedDocument,
  type QuietWindows,
} from './lifecycle.js';
import { releaseTarget, type GuardedPage } from './policy.js';
import { extrasSetup, type SessionExtras } from './sessionExtras.js';
import { Worlds } from './worlds.js';

/** What the frame manager needs of its page (page.ts's Page has it). */
export interface ManagedPage extends TreePage, GuardedPage, DialogPage {
  readonly viewport: Viewport | undefined;
  /** See ContextOptions.closedRootWatch. */
  readonly closedRootWatch: string | undefined;
  url(): string;
  /** The init scripts and extra headers every session of the page gets (sessionExtras.ts). */
  extras(): readonly SessionExtras[];
  /** The page's target crashed or went: it is closed from now on. */
  markClosed(): void;
  /** A frame of the page called its console API (for page.on('console')). */
  consoleCalled(event: Protocol.Runtime.ConsoleAPICalledEvent): void;
}

export class FrameManager {
  readonly #tree: FrameTree;
  readonly #worlds: Worlds;
  /**
   * Per session: its frame tree is in. Out-of-process children are adopted only after their
   * parent's tree (whose answer can come after Chrome announced them), so each finds its parent
   * frame, and frames keep the same order from one attach to the next.
   */
  readonly #trees = new Map<CdpSession, Promise<void>>();
  /** Per session being adopted: the adoptions of the out-of-process children it announced meanwhile. */
  readonly #announced = new Map<CdpSession, Array<Promise<unknown>>>();
  /**
   * The binding the closed-root watch reports through. The watch removes it before the page's own
   * scripts run; a document that was there before us keeps it until it navigates, so its name
   * says nothing about us.
   */
  readonly #watchBinding = `_${Math.random().toString(36).slice(2, 12)}`;
  readonly #adopting = new Set<(session: CdpSession) => void>();
  readonly #early = new EarlyLifecycle();

  constructor(
    private readonly page: ManagedPage,
    private readonly logger: Logger,
  ) {
    this.#worlds = new Worlds(this.#watchBinding);
    this.#tree = new FrameTree(page, logger, (frame) => {
      this.#worlds.claim(frame);
      this.#early.known(frame);
    });
  }

  get frames(): ReadonlyMap<string, Frame> {
    return this.#tree.frames;
  }

  get mainFrame(): Frame {
    return this.#tree.mainFrame;
  }

  /** @internal See FrameTree.restored. */
  get restored(): FrameTree['restored'] {
    return this.#tree.restored;
  }

  frame(frameId: string): Frame | undefined {
    return this.#tree.frame(frameId);
  }

  /** Frames in tree order, main frame first. */
  allFrames(): Frame[] {
    return this.#tree.allFrames();
  }

  /** The page's sessions that are attached: its own and one per out-of-process iframe. */
  sessions(): CdpSession[] {
    return [...this.#trees.keys()];
  }

  /** @internal Calls `handler` with each frame added from now on, until the returned function is called. */
  onNewFrame(handler: (frame: Frame) => void): () => void {
    return this.#tree.onNewFrame(handler);
  }

  /**
   * @internal Calls `handler` with each session the page takes in from now on (an out-of-process
   * frame's, as it attaches), while its target is still paused: the commands the handler sends are
   * in place before the target's first request, and the events it listens to from then on are all
   * it will see. The handler must not wait for an answer (the target answers some only once it
   * runs). Returns the function that stops calling it.
   */
  onSessionAdopted(handler: (session: CdpSession) => void): () => void {
    this.#adopting.add(handler);
    return () => this.#adopting.delete(handler);
  }

  /** See lifecycle.ts waitForLifecycle. */
  waitForLifecycle(
    frame: Frame,
    navigated: NavigatedDocument | undefined,
    waitUntil: WaitUntil,
    timeoutMs: number,
    url: string,
    quiet?: QuietWindows,
  ): Promise<boolean> {
    return waitForLifecycle(this.page, this.#tree, frame, navigated, waitUntil, timeoutMs, url, quiet);
  }

  /** See lifecycle.ts pendingDocuments. */
  pendingDocuments(frame: Frame, limit = Infinity): string[] {
    return pendingDocuments(frame, limit);
  }

  /** URLs of `frame` and the frames in it that have not reached `waitUntil` yet, at most `limit` of them. */
  stillLoading(frame: Frame, waitUntil: WaitUntil, limit = Infinity): string[] {
    return stillLoading(frame, waitUntil, limit);
  }

  /**
   * Takes a session into the page: the page's own (first) or an OOPIF's. The target is paused
   * (waitForDebuggerOnStart) until everything is enabled, so no event of its start is missed.
   */
  async adoptSession(session: CdpSession): Promise<void> {
    this.#listen(session);
    this.#announced.set(session, []);
    // Everything is sent at once, the resume last: a session runs its commands in order, so the
    // target starts with all of it in place. Nothing may wait for an answer before the resume: a tab
    // opened without an opener answers Page.getFrameTree only once its first navigation is over,
    // which it cannot start while paused. The tree goes in as its answer arrives (onResult): the
    // contexts Runtime.enable announces right after it need their frames.
    // Page.enable goes first: a tab created on its URL may commit that URL while these are on their
    // way, and a commit between a tree read first and the enable is in neither (the page's url()
    // stayed empty for good, seen under load). Enabled first, a commit is in the tree or is an event.
    const enabled = session.send('Page.enable');
    const tree = session.send('Page.getFrameTree', undefined, {
      onResult: ({ frameTree }: { frameTree: Protocol.Page.FrameTree }) => this.#tree.load(session, frameTree, null),
    });
    this.#trees.set(
      session,
      tree.then(
        () => undefined,
        () => undefined,
      ),
    );
    const setup: Promise<unknown>[] = [
      enabled,
      tree,
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
    // The caller's init scripts and headers, after the watch: it must see the document first.
    setup.push(
      ...extrasSetup(session, this.page.extras(), (error) => {
        if (!session.detached)
          this.logger.error('driver', 'An init script or extra HTTP headers could not be set on a new target', { error: error.message });
      }),
    );
    for (const handler of this.#adopting) {
      try {
        handler(session);
      } catch (error) {
        this.logger.error('driver', 'A listener of new sessions threw', { error: (error as Error).message });
      }
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

  #listen(session: CdpSession): void {
    const frameOf = (frameId: string) => this.#tree.frame(frameId);
    this.#tree.listen(session);
    watchLifecycle(session, frameOf, this.#early);
    this.#worlds.listen(session, frameOf);
    watchDialogs(session, this.page, this.logger);
    session.on('Runtime.consoleAPICalled', (event) => this.page.consoleCalled(event));
    session.on('Target.attachedToTarget', (event) => {
      const child = session.childSession(event.sessionId);
      if (!child) return;
      if (event.targetInfo.type === 'iframe') {
        const adopted = (this.#trees.get(session) ?? Promise.resolve())
          .then(() => this.adoptSession(child))
          .catch((error) =>
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
      this.#worlds.forget(session);
      this.#trees.delete(session);
      if (session === this.page.session) return this.page.markClosed();
      // An OOPIF's process is gone.
      this.#tree.sessionGone(session);
    });
  }
}
