// The execution contexts of a page's frames: each frame's main world and our isolated world, by
// session (a context id is unique only within its session), and what the closed-root watch reports
// from each main world.

import type { CdpSession } from '../cdp/session.js';
import { WORLD_NAME, type Frame, type World } from './frame.js';

export class Worlds {
  readonly #contexts = new Map<CdpSession, Map<number, { frame: Frame; world: World }>>();

  /**
   * @param watchBinding The binding the closed-root watch reports through: `c<n>` after n closed
   * roots were attached, `d<n>` after n calls that may parse declarative ones.
   */
  constructor(private readonly watchBinding: string) {}

  listen(session: CdpSession, frameOf: (frameId: string) => Frame | undefined): void {
    const contexts = new Map<number, { frame: Frame; world: World }>();
    this.#contexts.set(session, contexts);
    session.on('Runtime.executionContextCreated', ({ context }) => {
      const aux = context.auxData as { frameId?: string; isDefault?: boolean } | undefined;
      const frame = aux?.frameId ? frameOf(aux.frameId) : undefined;
      if (!frame || frame.session !== session) return;
      const world: World = { session, contextId: context.id };
      if (aux?.isDefault) frame.mainWorld = world;
      else if (context.name === WORLD_NAME) frame.isolatedWorld = world;
      else return;
      contexts.set(context.id, { frame, world });
      frame.changed.emit('change', undefined);
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
      const entry = contexts.get(executionContextId);
      if (!entry) return;
      contexts.delete(executionContextId);
      entry.frame.forgetWorld(entry.world);
    });
    session.on('Runtime.executionContextsCleared', () => {
      for (const { frame, world } of contexts.values()) frame.forgetWorld(world);
      contexts.clear();
    });
  }

  forget(session: CdpSession): void {
    this.#contexts.delete(session);
  }
}
