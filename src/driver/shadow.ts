import type { Protocol } from 'devtools-protocol';
import { TimeoutError } from '../errors.js';
import { isContextGone, objectGroup as newObjectGroup } from './evaluate.js';
import type { Frame } from './frame.js';

/**
 * Finds the closed shadow roots of the frame's document through DOM.describeNode (which sees what
 * page script cannot) and hands them to the frame's selector engine. Returns how many were new.
 * Costs one serialisation of the whole document, so callers decide when it is worth it.
 */
export async function registerClosedShadowRoots(frame: Frame, timeoutMs: number): Promise<number> {
  const engine = await frame.engine(timeoutMs);
  const { session, contextId } = engine.world;
  const doc = await session.send('Runtime.evaluate', { expression: 'document', contextId }, { timeoutMs });
  if (!doc.result.objectId) return 0;
  let tree: Protocol.DOM.Node;
  try {
    ({ node: tree } = await session.send('DOM.describeNode', { objectId: doc.result.objectId, depth: -1, pierce: true }, { timeoutMs }));
  } catch (error) {
    // A document too deep or too large to serialise keeps working without its closed roots.
    if (error instanceof TimeoutError || isContextGone(error)) throw error;
    return 0;
  } finally {
    void session.sendQuiet('Runtime.releaseObject', { objectId: doc.result.objectId });
  }
  const closed: number[] = [];
  const stack: Protocol.DOM.Node[] = [tree];
  while (stack.length) {
    const each = stack.pop()!;
    for (const root of each.shadowRoots ?? []) {
      if (root.shadowRootType === 'closed') closed.push(root.backendNodeId);
      stack.push(root);
    }
    // A contentDocument belongs to another frame; that frame does its own.
    for (const child of each.children ?? []) stack.push(child);
  }
  if (closed.length === 0) return 0;
  const objectGroup = newObjectGroup('shadow');
  try {
    const handles = await Promise.all(
      closed.map((backendNodeId) =>
        session
          .send('DOM.resolveNode', { backendNodeId, executionContextId: contextId, objectGroup }, { timeoutMs })
          .then(({ object }) => object.objectId, () => undefined),
      ),
    );
    const args = handles.filter((id): id is string => id !== undefined).map((objectId) => ({ objectId }));
    const { result } = await session.send(
      'Runtime.callFunctionOn',
      {
        functionDeclaration:
          'function (...roots) { const before = this.closedRootCount(); for (const r of roots) this.registerClosedShadowRoot(r); return this.closedRootCount() - before; }',
        objectId: engine.objectId,
        arguments: args,
        returnByValue: true,
      },
      { timeoutMs },
    );
    return Number(result.value ?? 0);
  } finally {
    void session.sendQuiet('Runtime.releaseObjectGroup', { objectGroup });
  }
}
