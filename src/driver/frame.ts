import type { Protocol } from 'devtools-protocol';
import type { CdpSession } from '../cdp/session.js';
import { InvalidOptionError, PageClosedError, SdkEvalError } from '../errors.js';
import type { FrameScreenshotOptions, WaitUntil } from '../types.js';
import { Emitter } from '../util/emitter.js';
import { withDeadline } from '../util/time.js';
import { evaluateInContext, isContextGone, type PageFunction } from './evaluate.js';
import { accessibilityTree, nodeAtLocation } from './frameQueries.js';
import { locatorOn, type Locator, type LocatorDriver } from './locatorApi.js';
import { ENGINE_SOURCE } from '../generated/engine.js';
import { milliseconds } from '../util/checks.js';

/** Name of our isolated world: page scripts cannot see or tamper with what we run there. */
export const WORLD_NAME = '__tendril_world__';
/** Where Chrome's error page (a failed or refused navigation) lives. */
export const ERROR_PAGE_URL = 'chrome-error:';
/** The object group of the frames' owner-element handles (see Frame.ownerHandle). */
const OWNER_GROUP = 'tendril-owners';
const OWNER_RELEASE_GRACE_MS = 10_000;

export interface World {
  session: CdpSession;
  contextId: number;
  /**
   * Main worlds only, once the closed-root watch (src/injected/watch) reported from this document:
   * closed roots it attached, and calls that may have parsed declarative ones. Undefined: not
   * watched (a document older than our session, or one the watch could not reach).
   */
  closedRoots?: { attached: number; declarative: number; scannedAt?: number };
}

/** An element found by a selector: the frame it lives in and a handle in our isolated world. */
export interface ResolvedElement {
  frame: Frame;
  world: World;
  objectId: string;
}

/** The selector engine injected into a frame's isolated world, as a handle the host calls. */
export interface EngineHandle {
  world: World;
  objectId: string;
}

/** What a frame needs of its page (page.ts's Page has it). */
export interface FramePage {
  /** Deadline of a single operation unless it gives its own. */
  readonly defaultTimeoutMs: number;
  /** See ContextOptions.reader. */
  readonly reader: string;
  isClosed(): boolean;
  /** Any frame of the page, by id. */
  frameById(frameId: string): Frame | undefined;
  screenshotFrame(frame: Frame, options?: FrameScreenshotOptions): Promise<Uint8Array>;
  /** What the page's locators run on (locatorDriver.ts). */
  readonly locatorDriver: LocatorDriver<Frame, ResolvedElement>;
  /** The browser may run on another machine (we attached to it): paths on this one mean nothing there. */
  readonly remoteBrowser: boolean;
  waitForFrameState(frame: Frame, state: WaitUntil, timeoutMs: number): Promise<void>;
}

const FRAME_STATES: readonly WaitUntil[] = ['load', 'domcontentloaded', 'networkidle', 'commit'];

/**
 * One frame of a page: the main frame, an in-process iframe, or an out-of-process iframe whose
 * session is its own. The frame manager keeps these fields current from protocol events.
 */
export class Frame {
  /** @internal */ session: CdpSession;
  /** @internal */ parent: Frame | null;
  /** @internal */ readonly children = new Set<Frame>();
  /** @internal Loader of the document the lifecycle events below belong to. */ loaderId = '';
  /** @internal Loader of the document whose URL we show (set on frameNavigated). */ committedLoaderId = '';
  /** @internal What Chrome last said of the frame (origin, MIME type, ...): page.getFullFrameTree() reports it. */ reported?: Protocol.Page.Frame;
  /** @internal */ readonly lifecycle = new Set<string>();
  /**
   * @internal The committed document that asked to be replaced (a reload, a redirect by script or
   * meta refresh, in this tab) while that navigation is on its way; else ''.
   */
  replacing = '';
  /**
   * @internal The committed document a navigation to another document started from, as the browser
   * took that navigation up (Page.frameStartedNavigating), until a document commits or the
   * navigation ends without one; else ''. With `replacing`: the asked-for document is on its way.
   */
  navigatingFrom = '';
  /**
   * @internal The frame shows a document that a navigation committed (not its initial empty one,
   * not Chrome's error page): only such frames hold a navigation's `load`.
   */
  hasDocument = false;
  /** @internal Between Chrome's frameStartedLoading and frameStoppedLoading: a navigation or the document's subresources. */
  loading = false;
  /** @internal */ mainWorld: World | undefined;
  /** @internal */ isolatedWorld: World | undefined;
  /** @internal */ detached = false;
  /** @internal Fires whenever a world, the lifecycle or the navigation state changes. */
  readonly changed = new Emitter<{ change: void }>();
  #url = '';
  #name = '';
  #creatingWorld: Promise<World> | undefined;
  #engine: EngineHandle | undefined;
  #installing: { world: World; done: Promise<EngineHandle> } | undefined;
  #owner: { world: World; objectId: Promise<string | undefined> } | undefined;

  constructor(
    readonly page: FramePage,
    readonly id: string,
    parent: Frame | null,
    session: CdpSession,
  ) {
    this.parent = parent;
    this.session = session;
    parent?.children.add(this);
  }

  url(): string {
    return this.#url;
  }

  name(): string {
    return this.#name;
  }

  parentFrame(): Frame | null {
    return this.parent;
  }

  childFrames(): Frame[] {
    return [...this.children];
  }

  /** @internal The frame shows Chrome's error page: its document failed to load or was refused. */
  showsErrorPage(): boolean {
    return this.#url.startsWith(ERROR_PAGE_URL);
  }

  /** True when this frame runs in a different renderer process than its parent (an OOPIF). */
  isOutOfProcess(): boolean {
    return this.parent !== null && this.parent.session !== this.session;
  }

  isDetached(): boolean {
    return this.detached;
  }

  /** Stagehand's name for `id`. */
  get frameId(): string {
    return this.id;
  }

  /** The id of the page's main frame, which is its target's. */
  get pageId(): string {
    let top: Frame = this;
    while (top.parent) top = top.parent;
    return top.id;
  }

  /** The id of the DevTools session that drives this frame's document. */
  get sessionId(): string {
    return this.session.id;
  }

  /** True when we attached to the browser rather than launched it: it may run on another machine. */
  isBrowserRemote(): boolean {
    return this.page.remoteBrowser;
  }

  /** A locator whose selector starts in this frame's document (see Locator). */
  locator(selector: string, _options?: { deep?: boolean; depth?: number }): Locator<Frame, ResolvedElement> {
    return locatorOn(this.page.locatorDriver, { frame: this, frames: [], selector });
  }

  /** The element's border box in the top page's viewport, CSS pixels, without scrolling. */
  getLocationForSelector(selector: string): Promise<{ x: number; y: number; width: number; height: number }> {
    return this.page.locatorDriver.locationOf({ frame: this, frames: [], selector }, this.page.defaultTimeoutMs);
  }

  /** The DOM node (DOM.describeNode) at (x, y) of this frame's document (not moved by scrolling). */
  getNodeAtLocation(x: number, y: number): Promise<Protocol.DOM.Node> {
    return nodeAtLocation(this, x, y, this.page.defaultTimeoutMs);
  }

  /** The frame's full accessibility tree; with `withFrames`, its frames' trees after it. */
  getAccessibilityTree(withFrames = false): Promise<Protocol.Accessibility.AXNode[]> {
    return accessibilityTree(this, withFrames, this.page.defaultTimeoutMs);
  }

  /** Waits until this frame's document reached `state` (at once when it has); default 15 s. */
  async waitForLoadState(state: WaitUntil = 'load', timeoutMs = 15_000): Promise<void> {
    const wanted = String(state).toLowerCase() as WaitUntil;
    if (!FRAME_STATES.includes(wanted))
      throw new InvalidOptionError(
        `waitForLoadState takes ${FRAME_STATES.map((each) => `"${each}"`).join(', ')}, not ${JSON.stringify(state)}.`,
      );
    await this.page.waitForFrameState(this, wanted, milliseconds(timeoutMs, 'waitForLoadState: the timeout'));
  }

  /**
   * The backend node id of the `<iframe>`/`<frame>` element that holds this frame, in the parent's
   * document (and so in the parent's session); null for the main frame.
   */
  async ownerElementId(timeoutMs = this.page.defaultTimeoutMs): Promise<number | null> {
    if (!this.parent) return null;
    const { backendNodeId } = await this.parent.session.send('DOM.getFrameOwner', { frameId: this.id }, { timeoutMs });
    return backendNodeId;
  }

  /**
   * @internal A handle, in the parent frame's isolated world, on the element that holds this frame,
   * resolved once per parent document (the element of a frame never changes: a moved iframe is a
   * new frame) and let go some time after this frame detaches. Undefined for the main frame.
   */
  async ownerHandle(timeoutMs: number): Promise<string | undefined> {
    const parent = this.parent;
    if (!parent) return undefined;
    const { world } = await parent.engine(timeoutMs);
    if (!sameWorld(this.#owner?.world, world)) {
      const objectId = (async () => {
        const backendNodeId = await this.ownerElementId(timeoutMs);
        if (backendNodeId === null) return undefined;
        const { object } = await world.session.send(
          'DOM.resolveNode',
          { backendNodeId, executionContextId: world.contextId, objectGroup: OWNER_GROUP },
          { timeoutMs },
        );
        return object.objectId;
      })();
      const owner = { world, objectId };
      this.#owner = owner;
      objectId.catch(() => this.#owner === owner && (this.#owner = undefined));
    }
    return this.#owner!.objectId;
  }

  /**
   * @internal The frame is gone: its element's handle is let go, after a grace, since a read of
   * the parent that began before the frame went may be about to pass it to the page.
   */
  releaseOwner(): void {
    const owner = this.#owner;
    this.#owner = undefined;
    if (!owner) return;
    const timer = setTimeout(() => {
      void owner.objectId.then(
        (objectId) => objectId && void owner.world.session.sendQuiet('Runtime.releaseObject', { objectId }),
        () => undefined,
      );
    }, OWNER_RELEASE_GRACE_MS);
    (timer as { unref?: () => void }).unref?.();
  }

  /** Runs `fn(arg)` (or evaluates an expression) in the frame's main world and returns the result. */
  async evaluate<Result, Arg = undefined>(fn: PageFunction<Arg, Result>, arg?: Arg): Promise<Result> {
    // One deadline for the steps together (waiting for the world, the call, reading the result).
    const until = Date.now() + this.page.defaultTimeoutMs;
    const left = () => Math.max(1, until - Date.now());
    for (let attempt = 0; ; attempt++) {
      const world = await this.waitForWorld('main', left());
      try {
        return await evaluateInContext(world.session, world.contextId, fn, arg, left);
      } catch (error) {
        // The document changed under us; once is bad luck, twice is a page that keeps navigating.
        if (!isContextGone(error) || attempt > 0) throw wrapEvalError(error);
        this.forgetWorld(world);
      }
    }
  }

  /**
   * A picture of the frame: the main frame's as page.screenshot() takes it, another frame's as the
   * page shows it (its <iframe> scrolled into view), `clip` within it.
   */
  screenshot(options?: FrameScreenshotOptions): Promise<Uint8Array> {
    return this.page.screenshotFrame(this, options);
  }

  /** @internal */
  setNavigation(url: string, name: string | undefined): void {
    this.#url = url;
    if (name !== undefined) this.#name = name;
    this.changed.emit('change', undefined);
  }

  /** @internal */
  forgetWorld(world: World): void {
    if (sameWorld(this.mainWorld, world)) this.mainWorld = undefined;
    if (sameWorld(this.isolatedWorld, world)) this.isolatedWorld = undefined;
    if (sameWorld(this.#engine?.world, world)) this.#engine = undefined;
    if (sameWorld(this.#installing?.world, world)) this.#installing = undefined;
  }

  /** @internal Waits until the frame has the given world, within the deadline. */
  async waitForWorld(kind: 'main' | 'isolated', timeoutMs: number): Promise<World> {
    if (kind === 'isolated') return this.#isolatedWorld(timeoutMs);
    if (this.mainWorld) return this.mainWorld;
    return withDeadline(
      new Promise<World>((resolve, reject) => {
        const check = () => {
          if (this.mainWorld) {
            off();
            resolve(this.mainWorld);
          } else if (this.detached || this.page.isClosed()) {
            off();
            reject(new PageClosedError(`The frame ${this.#url || this.id} was detached before its document was ready.`));
          }
        };
        const off = this.changed.on('change', check);
        check();
      }),
      timeoutMs,
      `Waiting for the document of frame ${this.#url || this.id}`,
    );
  }

  /**
   * Our isolated world is created on first use in each document (Page.createIsolatedWorld), not
   * up front: most frames of a page are never asked for, and a page may have hundreds.
   */
  #isolatedWorld(timeoutMs: number): Promise<World> {
    if (this.isolatedWorld && this.isolatedWorld.session === this.session) return Promise.resolve(this.isolatedWorld);
    this.#creatingWorld ??= (async () => {
      const session = this.session;
      const { executionContextId } = await session.send(
        'Page.createIsolatedWorld',
        { frameId: this.id, worldName: WORLD_NAME, grantUniveralAccess: false },
        { timeoutMs },
      );
      this.isolatedWorld = { session, contextId: executionContextId };
      return this.isolatedWorld;
    })().finally(() => {
      this.#creatingWorld = undefined;
    });
    return this.#creatingWorld;
  }

  /** @internal */
  setReplacing(loaderId: string): void {
    this.replacing = loaderId;
    this.changed.emit('change', undefined);
  }

  /** @internal The selector engine's handle in this frame's isolated world, injected on first use. */
  async engine(timeoutMs: number): Promise<EngineHandle> {
    for (let attempt = 0; ; attempt++) {
      const world = await this.#isolatedWorld(timeoutMs);
      if (sameWorld(this.#engine?.world, world)) return this.#engine!;
      try {
        // Callers that come while the engine is being injected (a read right after the navigation
        // that prepared it) wait for that injection instead of sending the engine again.
        if (!sameWorld(this.#installing?.world, world)) {
          const installing = { world, done: this.#install(world, timeoutMs) };
          this.#installing = installing;
          void installing.done.then(
            () => this.#installing === installing && (this.#installing = undefined),
            () => this.#installing === installing && (this.#installing = undefined),
          );
        }
        return await withDeadline(this.#installing!.done, timeoutMs, `Preparing frame ${this.#url || this.id}`);
      } catch (error) {
        if (!isContextGone(error) || attempt > 0) throw error;
        this.forgetWorld(world);
      }
    }
  }

  async #install(world: World, timeoutMs: number): Promise<EngineHandle> {
    // The reader goes in with the engine, as its `read` (see ContextOptions.reader).
    const expression = `(() => { const engine = ${ENGINE_SOURCE}; engine.read = ${this.page.reader}; return engine; })()`;
    const { result, exceptionDetails } = await world.session.send(
      'Runtime.evaluate',
      { expression, contextId: world.contextId, returnByValue: false },
      { timeoutMs },
    );
    if (exceptionDetails || !result.objectId) {
      throw new SdkEvalError(`Could not install the selector engine in frame ${this.#url}: ${exceptionDetails?.text ?? 'no object'}`);
    }
    this.#engine = { world, objectId: result.objectId };
    return this.#engine;
  }
}

// The same context can reach us as two objects (the createIsolatedWorld reply and the
// executionContextCreated event), so worlds are compared by what identifies them.
function sameWorld(a: World | undefined, b: World | undefined): boolean {
  return a !== undefined && b !== undefined && a.session === b.session && a.contextId === b.contextId;
}

function wrapEvalError(error: unknown): unknown {
  if (isContextGone(error)) {
    return new SdkEvalError('The page navigated twice while the script was running; evaluate again once it settles.', {
      cause: error,
    });
  }
  return error;
}
