// Stagehand's frame reads that go straight to the protocol: the node at a point, and the frame's
// accessibility tree. They need of a frame only its session, its id and its children.

import type { Protocol } from 'devtools-protocol';
import type { CdpSession } from '../cdp/session.js';
import { InvalidOptionError } from '../errors.js';

export interface QueriedFrame {
  readonly session: CdpSession;
  readonly id: string;
  childFrames(): QueriedFrame[];
}

/**
 * The node hit at (x, y), which DOM.getNodeForLocation (and so Stagehand) reads in the frame's
 * document: a point of the viewport plus the scroll offset (of the frame's own, out of process).
 */
export async function nodeAtLocation(frame: QueriedFrame, x: number, y: number, timeoutMs: number): Promise<Protocol.DOM.Node> {
  if (![x, y].every((each) => typeof each === 'number' && Number.isFinite(each))) {
    throw new InvalidOptionError(`getNodeAtLocation takes two numbers, not ${String(x)}, ${String(y)}.`);
  }
  const { backendNodeId } = await frame.session.send(
    'DOM.getNodeForLocation',
    { x: Math.round(x), y: Math.round(y), includeUserAgentShadowDOM: true, ignorePointerEventsNone: false },
    { timeoutMs },
  );
  const { node } = await frame.session.send('DOM.describeNode', { backendNodeId }, { timeoutMs });
  return node;
}

/** The frame's full accessibility tree; with `withFrames`, its child frames' trees after it. */
export async function accessibilityTree(
  frame: QueriedFrame,
  withFrames: boolean,
  timeoutMs: number,
): Promise<Protocol.Accessibility.AXNode[]> {
  const { nodes } = await frame.session.send('Accessibility.getFullAXTree', { frameId: frame.id }, { timeoutMs });
  if (!withFrames) return nodes;
  for (const child of frame.childFrames()) nodes.push(...(await accessibilityTree(child, true, timeoutMs)));
  return nodes;
}
