// The execution contexts of a page's frames: each frame's main world and our isolated world, by
// session (a context id is unique only within its session), and what the closed-root watch reports
// from each main world.

import type { Protocol } from 'devtools-protocol';
import type { CdpSession } from '../cdp/session.js';
import { WORLD_NAME, type Frame, type World } from './frame.js';

type Context = Protocol.Runtime.ExecutionContextDescription;

export class Worlds {
  readonly #contexts = new Map<CdpSession, Map<number, { frame: Frame; world: World }>>();
  /**
   * Per session: the contexts it announced for a frame it did not own yet, by context id. A
   * session's frames come from Page.getFrameTree's answer, and over chrome.debugger an answer and
   * the events sent after it reach us by two channels, in either order: a tab's Runtime.enable
   * could announce its main world before the tree that names the frame arrived. Such a context is
   * taken up once the frame is the session's (claim), unless the session said it went first.
   */
  readonly #early = new Map<CdpSession, Map<number, Context>>();

  /**
   * @param watchBinding The binding the closed-root watch reports through: `c<n>` after n closed
   * roots were attached, `d<n>` after n calls that may parse declarative ones.
   */
  constructor(private readonly watchBinding: string) {}

  listen(session: CdpSession, frameOf: (frameId: string) => Frame | undefined): void {
    const contexts = new Map<number, { frame: Frame; world: World }>();
    const early = new Map<number, Context>();
    this.#contexts.set(session, contexts);
    this.#early.set(session, early);
    session.on('Runtime.executionContextCreated', ({ context }) => {
      const frameId = frameOfContext(context);
      if (!frameId || !isOurs(context)) return;
      const frame = frameOf(frameId);
      if (!frame || frame.session !== session) early.set(context.id, context);
      else this.#take(session, frame, context);
    });
    session.on('Runtime.bindingCalled', ({ name, payload, executionContextId }) => {
      if (name !== this.watchBinding) return;
      const world = contexts.get(executionContextId)?.world;
      const count = Number(payload.slice(1));
      if (!world || !Number.isInteger(count)) return;
      const seen = (world.closedRoots ??= { attached: 0, declarative: 0 });
      if (payload[0] === 'c') seen.attached = Math.max(seen.attached, count);
      else if (payload[0] === 'd') seen.declarative = Math.max(seen.declarative, count);
    });
    session.on('Runtime.executionContextDestroyed', ({ executionContextId }) => {
      early.delete(executionContextId);
      const entry = contexts.get(executionContextId);
      if (!entry) return;
      contexts.delete(executionContextId);
      entry.frame.forgetWorld(entry.world);
    });
    session.on('Runtime.executionContextsCleared', () => {
      early.clear();
      for (const { frame, world } of contexts.values()) frame.forgetWorld(world);
      contexts.clear();
    });
  }

  /** `frame` is known now, or its session changed: the contexts its session announced for it before are its worlds. */
  claim(frame: Frame): void {
    const early = this.#early.get(frame.session);
    if (!early) return;
    for (const [id, context] of early) {
      if (frameOfContext(context) !== frame.id) continue;
      early.delete(id);
      this.#take(frame.session, frame, context);
    }
  }

  forget(session: CdpSession): void {
    this.#contexts.delete(session);
    this.#early.delete(session);
  }

  #take(session: CdpSession, frame: Frame, context: Context): void {
    const world: World = { session, contextId: context.id };
    if (isDefault(context)) frame.mainWorld = world;
    else frame.isolatedWorld = world;
    this.#contexts.get(session)?.set(context.id, { frame, world });
    frame.changed.emit('change', undefined);
  }
}

function frameOfContext(context: Context): string | undefined {
  return (context.auxData as { frameId?: string } | undefined)?.frameId;
}

function isDefault(context: Context): boolean {
  return (context.auxData as { isDefault?: boolean } | undefined)?.isDefault === true;
}

/** A frame's main world, or our isolated world in it: the only contexts we follow. */
function isOurs(context: Context): boolean {
  return isDefault(context) || context.name === WORLD_NAME;
}
