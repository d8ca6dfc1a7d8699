// What is at a point of the viewport, named by its absolute XPath: what Stagehand's coordinate
// actions return with `returnXpath`. Each process hit-tests its own frames: the top page's hit test
// reaches into its in-process iframes and stops at an out-of-process one's <iframe>, whose own
// session is then asked, at the point moved into that frame.

import type { CdpSession } from '../cdp/session.js';
import { engineCall, engineCallOnNode } from './engineCall.js';
import type { Frame } from './frame.js';

const MAX_HOPS = 16;

/** What naming a point needs of a page (page.ts's Page has it). */
export interface HitPage {
  readonly session: CdpSession;
  mainFrame(): Frame;
  frameById(frameId: string): Frame | undefined;
}

/** The XPath of the element at (x, y) of the viewport (CSS pixels), '' when there is none. */
export async function xpathAt(page: HitPage, x: number, y: number, timeoutMs: number): Promise<string> {
  let root = page.mainFrame();
  let point = { x, y };
  let prefix = '';
  for (let hop = 0; hop < MAX_HOPS; hop++) {
    const session = root.session;
    // DOM.getNodeForLocation takes the document's coordinates, not the viewport's.
    const [scrollX, scrollY] = await engineCall<[number, number]>(root, 'scrollOffsets', [], timeoutMs);
    const hit = await session
      .send(
        'DOM.getNodeForLocation',
        {
          x: Math.floor(point.x + scrollX),
          y: Math.floor(point.y + scrollY),
          includeUserAgentShadowDOM: false,
          ignorePointerEventsNone: false,
        },
        { timeoutMs },
      )
      .catch(() => undefined);
    if (!hit) return '';
    const frame = page.frameById(hit.frameId) ?? root;
    let path = await engineCallOnNode<string>(frame, 'xpathOf', hit.backendNodeId, [], timeoutMs);
    // Up through the in-process iframes between the hit and this process's root frame.
    for (let inner = frame; inner !== root && inner.parent; inner = inner.parent) {
      const owner = await inner.ownerElementId(timeoutMs);
      if (owner !== null) path = (await engineCallOnNode<string>(inner.parent, 'xpathOf', owner, [], timeoutMs)) + path;
    }
    path = prefix + path;
    const { node } = await session.send('DOM.describeNode', { backendNodeId: hit.backendNodeId }, { timeoutMs });
    // A frame's own <html> carries its frame's id too: only an <iframe> leads into another.
    const child = node.frameId ? page.frameById(node.frameId) : undefined;
    if (!child?.isOutOfProcess() || child === root) return path;
    const { model } = await session.send('DOM.getBoxModel', { backendNodeId: hit.backendNodeId }, { timeoutMs });
    point = { x: point.x - (model.content[0] ?? 0), y: point.y - (model.content[1] ?? 0) };
    prefix = path;
    root = child;
  }
  return prefix;
}
