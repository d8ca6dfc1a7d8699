// Stagehand 3's locator.resolveNode() and resolveNodesForMask(): the matched elements as DevTools
// Protocol references ({ objectId, nodeId }), for code that sends its own commands about them:
// methods of StagehandLocator, the class of a Stagehand's locators.

import type { Protocol } from 'devtools-protocol';
import { ElementNotFoundError, SdkError } from '../errors.js';
import type { Frame, ResolvedElement } from '../driver/frame.js';
import { releaseElement } from '../driver/locator.js';
import { Locator } from '../driver/locatorApi.js';

/** An element as the protocol names it, in the session of the frame it lives in (frame.sessionId). */
export interface ResolvedNode {
  /** Null when Chrome would not give the node a DOM id (see DOM.requestNode). */
  nodeId: Protocol.DOM.NodeId | null;
  /** A handle on the element in its frame's page world (the page's own scripts' world). */
  objectId: Protocol.Runtime.RemoteObjectId;
}

/**
 * Our element handles live in Tendril's isolated world, where a function called on them would not
 * see the page's globals: the caller gets a handle in the page world instead, as Stagehand's are.
 */
async function asNode(element: ResolvedElement, timeoutMs: number): Promise<ResolvedNode> {
  const { frame, world } = element;
  const session = world.session;
  const { node } = await session.send('DOM.describeNode', { objectId: element.objectId }, { timeoutMs });
  const main = await frame.waitForWorld('main', timeoutMs);
  const { object } = await session.send(
    'DOM.resolveNode',
    { backendNodeId: node.backendNodeId, executionContextId: main.contextId },
    { timeoutMs },
  );
  if (!object.objectId) throw new SdkError(`Chrome gave no handle on the element in ${frame.url()}.`);
  // DOM.requestNode numbers a node only once the session's DOM agent has the document; asking for
  // it (DOM.getDocument) forgets the ids given before, so only when the first answer says so.
  const request = () => session.send('DOM.requestNode', { objectId: object.objectId! }, { timeoutMs }).then(({ nodeId }) => nodeId || null);
  const nodeId = await request()
    .catch(() => null)
    .then(async (first) => {
      if (first) return first;
      // The id means something only while the agent is on: this hold is never released.
      await session.hold('DOM', timeoutMs);
      return session.send('DOM.getDocument', { depth: 0 }, { timeoutMs }).then(request);
    })
    .catch(() => null);
  return { objectId: object.objectId, nodeId };
}

/**
 * The locators of a Stagehand's pages (made through StagehandContext's locator driver, page.ts):
 * Tendril's, with Stagehand 3's resolveNode() and resolveNodesForMask().
 */
export class StagehandLocator extends Locator<Frame, ResolvedElement> {
  override nth(index: number): StagehandLocator {
    return super.nth(index) as StagehandLocator;
  }

  override first(): StagehandLocator {
    return super.first() as StagehandLocator;
  }

  /** The element (the nth() one, else the first match) as `{ objectId, nodeId }`; ElementNotFoundError when nothing matches. */
  async resolveNode(): Promise<ResolvedNode> {
    const element = await this.resolve();
    try {
      return await asNode(element, element.frame.page.defaultTimeoutMs);
    } finally {
      releaseElement(element);
    }
  }

  /** Every match (or the nth() one) as `{ objectId, nodeId }`, in document order; ElementNotFoundError when nothing matches. */
  async resolveNodesForMask(): Promise<ResolvedNode[]> {
    const elements = await this.resolveAll();
    try {
      if (!elements.length) throw new ElementNotFoundError(`No element matches the selector "${this.selector}".`, this.selector);
      const out: ResolvedNode[] = [];
      for (const element of elements) out.push(await asNode(element, element.frame.page.defaultTimeoutMs));
      return out;
    } finally {
      for (const element of elements) releaseElement(element);
    }
  }
}
