// DOM snapshots in the trace viewer's form (a frame-snapshot per frame, its document as nested
// [tag, attributes, ...children] arrays), read over the DevTools Protocol with DOM.getDocument
// (pierce): closed shadow roots come as they are, and each out-of-process frame from its own
// session. An iframe's `src` names the frame whose snapshot fills it (`/snapshot/<frameId>`), and a
// shadow root is a `template` the viewer attaches again. Scripts, event handlers and the values
// of password fields stay out.

import type { Protocol } from 'devtools-protocol';
import type { Page } from '../driver/page.js';
import { REDACTED, traceUrl } from './redact.js';

type NodeSnapshot = string | [string] | [string, Record<string, string>, ...NodeSnapshot[]];

/** One frame's snapshot, less what the recorder adds (call, phase, page, times). */
export interface FrameSnapshotBody {
  frameId: string;
  frameUrl: string;
  doctype?: string;
  html: NodeSnapshot;
  viewport: { width: number; height: number };
  isMainFrame: boolean;
}

const SHADOW = '__playwright_shadow_root_';
const SKIPPED = new Set(['SCRIPT', 'NOSCRIPT']);

/** What Chrome answered for a snapshot, before conversion: cheap to take, converted later (convertSnapshot). */
export interface RawSnapshot {
  mainFrameId: string;
  viewport: { width: number; height: number };
  documents: Array<{ frameId: string; root: Protocol.DOM.Node }>;
}

/**
 * The documents of every frame of `page` as they are now; a frame whose session fails is left out.
 * Each session's DOM agent is held only for the read (CdpSession.hold): once the snapshot is
 * taken it is off again, unless the driver holds it too.
 */
export async function captureFrames(page: Page, timeoutMs: number): Promise<RawSnapshot> {
  const main = page.mainFrame();
  const roots = page.frames().filter((frame) => frame === main || frame.isOutOfProcess());
  const metrics = page.session
    .send('Page.getLayoutMetrics', undefined, { timeoutMs })
    .then((layout) => ({ width: layout.cssLayoutViewport.clientWidth, height: layout.cssLayoutViewport.clientHeight }))
    .catch(() => ({ width: 1280, height: 720 }));
  const documents = await Promise.all(
    roots.map(async (frame) => {
      // Both go out before this returns to the event loop, so a command the caller sends after
      // captureFrames() is answered after the snapshot is read: not awaiting it still shows the page as it was.
      const loader = frame.committedLoaderId;
      let answered: string | undefined;
      const held = frame.session.hold('DOM', timeoutMs);
      const read = frame.session.send(
        'DOM.getDocument',
        { depth: -1, pierce: true },
        { timeoutMs, onResult: () => (answered = frame.committedLoaderId) },
      );
      const release = await held.catch(() => undefined);
      try {
        const { root } = await read;
        // A frame that committed another document before the answer came may have answered with
        // that one (Chrome sends a command still unanswered at a process swap to the new document):
        // left out rather than shown as the document asked for.
        if (answered !== loader) return undefined;
        return { frameId: frame.id, root };
      } catch {
        return undefined;
      } finally {
        release?.();
      }
    }),
  );
  return { mainFrameId: main.id, viewport: await metrics, documents: documents.filter((each) => each !== undefined) };
}

/** The trace viewer's frame snapshots of a capture: the frames' documents and those of the in-process frames in them. */
export function convertSnapshot(raw: RawSnapshot): FrameSnapshotBody[] {
  const out: FrameSnapshotBody[] = [];
  for (const each of raw.documents) {
    const pending: Array<{ frameId: string; document: Protocol.DOM.Node }> = [{ frameId: each.frameId, document: each.root }];
    while (pending.length) {
      const { frameId, document } = pending.shift()!;
      const html = documentElement(document, (childId, child) => pending.push({ frameId: childId, document: child }));
      out.push({
        frameId,
        frameUrl: traceUrl(document.documentURL ?? ''),
        doctype: document.children?.find((node) => node.nodeType === 10)?.nodeName,
        html,
        viewport: raw.viewport,
        isMainFrame: frameId === raw.mainFrameId,
      });
    }
  }
  return out;
}

function documentElement(document: Protocol.DOM.Node, onFrame: (frameId: string, document: Protocol.DOM.Node) => void): NodeSnapshot {
  const element = document.children?.find((node) => node.nodeType === 1);
  return (element && convert(element, onFrame)) ?? ['HTML'];
}

function convert(node: Protocol.DOM.Node, onFrame: (frameId: string, document: Protocol.DOM.Node) => void): NodeSnapshot | undefined {
  if (node.nodeType === 3) return node.nodeValue;
  if (node.nodeType === 11) return shadow(node, onFrame);
  if (node.nodeType !== 1) return undefined;
  const name = node.nodeName;
  if (SKIPPED.has(name)) return undefined;
  const attributes: Record<string, string> = {};
  const list = node.attributes ?? [];
  const password =
    name === 'INPUT' && list.some((value, index) => index % 2 === 1 && list[index - 1] === 'type' && value.toLowerCase() === 'password');
  for (let index = 0; index + 1 < list.length; index += 2) {
    const key = list[index]!;
    let value = list[index + 1]!;
    if (/^on/i.test(key)) continue;
    if (password && key === 'value') value = REDACTED;
    if (key === 'href' || key === 'src' || key === 'action') value = traceUrl(value);
    attributes[key] = value;
  }
  if ((name === 'IFRAME' || name === 'FRAME') && node.frameId) {
    attributes.src = `/snapshot/${node.frameId}`;
    if (node.contentDocument) onFrame(node.frameId, node.contentDocument);
  }
  const out: [string, Record<string, string>, ...NodeSnapshot[]] = [name, attributes];
  // The browser's own shadow roots (an input's inner editor, which shows its value) are its to draw.
  for (const root of node.shadowRoots ?? []) if (root.shadowRootType !== 'user-agent') out.push(shadow(root, onFrame));
  const children = name === 'TEMPLATE' ? (node.templateContent?.children ?? []) : (node.children ?? []);
  for (const child of children) {
    const converted = convert(child, onFrame);
    if (converted !== undefined) out.push(converted);
  }
  return out;
}

function shadow(root: Protocol.DOM.Node, onFrame: (frameId: string, document: Protocol.DOM.Node) => void): NodeSnapshot {
  const out: [string, Record<string, string>, ...NodeSnapshot[]] = ['template', { [SHADOW]: 'open' }];
  for (const child of root.children ?? []) {
    const converted = convert(child, onFrame);
    if (converted !== undefined) out.push(converted);
  }
  return out;
}
