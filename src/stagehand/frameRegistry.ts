// Stagehand 3's frame-registry methods (page.frameForId(), getFullFrameTree(), asProtocolFrameTree(),
// listAllFrameIds(), getOrdinal(), waitForMainLoadState(), context.getFullFrameTreeByMainFrameId()),
// answered from Tendril's own frame tree (driver/frameTree.ts), which already holds every frame of
// a page, out-of-process ones included. An extra (see extras.ts): tendril/extension does not carry it.

import type { Protocol } from 'devtools-protocol';
import { InvalidOptionError, PageNotFoundError } from '../errors.js';
import { Context } from '../driver/context.js';
import type { Frame } from '../driver/frame.js';
import { Page } from '../driver/page.js';
import { milliseconds } from '../util/checks.js';

declare module '../driver/page.js' {
  interface Page {
    /** The frame of this page with this id (any depth, out-of-process ones included); InvalidOptionError for an id the page does not have. */
    frameForId(frameId: string): Frame;
    /** Every frame of the page as a DevTools Protocol FrameTree, out-of-process iframes included, in document order. */
    getFullFrameTree(): Protocol.Page.FrameTree;
    /** The FrameTree under the frame with this id (the main frame's: the whole page). */
    asProtocolFrameTree(rootMainFrameId: string): Protocol.Page.FrameTree;
    /** Every frame's id, in tree order, main frame first. */
    listAllFrameIds(): string[];
    /** The frame's number: the F of the `[F-N]` ids a read of the page now gives its elements (0: the main frame). */
    getOrdinal(frameId: string): number;
    /** Waits until the main frame's document reached `state` (at once when it has); TimeoutError after `timeoutMs` (15000). */
    waitForMainLoadState(state: StagehandLoadState, timeoutMs?: number): Promise<void>;
  }
}

declare module '../driver/context.js' {
  interface Context {
    /** The full frame tree of the page whose main frame has this id; PageNotFoundError when no page of the context has it. */
    getFullFrameTreeByMainFrameId(rootMainFrameId: string): Promise<Protocol.Page.FrameTree>;
  }
}

/** Stagehand's LoadState. */
export type StagehandLoadState = 'load' | 'domcontentloaded' | 'networkidle';
const LOAD_STATES: readonly string[] = ['load', 'domcontentloaded', 'networkidle'];

function checkId(value: unknown, method: string): string {
  if (typeof value !== 'string' || !value) throw new InvalidOptionError(`${method} takes a frame id (a string, such as page.mainFrameId()), not ${JSON.stringify(value) ?? String(value)}.`);
  return value;
}

function frameOf(page: Page, frameId: unknown, method: string): Frame {
  const id = checkId(frameId, method);
  const frame = page.frameById(id);
  if (!frame || frame.isDetached()) {
    throw new InvalidOptionError(`${method}: this page has no frame with id ${id} (it may have gone with its document); page.listAllFrameIds() lists the ones it has.`);
  }
  return frame;
}

/** The frame as the protocol describes it: what Chrome last reported, brought up to date with the tree's own view. */
function protocolFrame(frame: Frame): Protocol.Page.Frame {
  const last = frame.reported;
  const address = frame.url();
  const hash = address.indexOf('#');
  const out: Protocol.Page.Frame = {
    domainAndRegistry: '',
    securityOrigin: '',
    mimeType: 'text/html',
    secureContextType: 'InsecureScheme',
    crossOriginIsolatedContextType: 'NotIsolated',
    gatedAPIFeatures: [],
    ...last,
    id: frame.id,
    loaderId: frame.committedLoaderId || last?.loaderId || '',
    url: hash < 0 ? address : address.slice(0, hash),
  };
  if (hash >= 0) out.urlFragment = address.slice(hash);
  else delete out.urlFragment;
  if (frame.parent) out.parentId = frame.parent.id;
  else delete out.parentId;
  if (frame.name()) out.name = frame.name();
  return out;
}

function treeOf(frame: Frame): Protocol.Page.FrameTree {
  const children = frame.childFrames().filter((child) => !child.isDetached());
  const node: Protocol.Page.FrameTree = { frame: protocolFrame(frame) };
  if (children.length) node.childFrames = children.map(treeOf);
  return node;
}

Page.prototype.frameForId = function (this: Page, frameId: string): Frame {
  return frameOf(this, frameId, 'page.frameForId()');
};

Page.prototype.getFullFrameTree = function (this: Page): Protocol.Page.FrameTree {
  return treeOf(this.mainFrame());
};

Page.prototype.asProtocolFrameTree = function (this: Page, rootMainFrameId: string): Protocol.Page.FrameTree {
  return treeOf(frameOf(this, rootMainFrameId, 'page.asProtocolFrameTree()'));
};

Page.prototype.listAllFrameIds = function (this: Page): string[] {
  return this.frames().map((frame) => frame.id);
};

Page.prototype.getOrdinal = function (this: Page, frameId: string): number {
  // The page text numbers frames in tree order as they are when it is read (snapshot/capture.ts).
  return this.frames().indexOf(frameOf(this, frameId, 'page.getOrdinal()'));
};

Page.prototype.waitForMainLoadState = async function (this: Page, state: StagehandLoadState, timeoutMs = 15_000): Promise<void> {
  if (!LOAD_STATES.includes(state)) throw new InvalidOptionError(`page.waitForMainLoadState() takes "load", "domcontentloaded" or "networkidle", not ${JSON.stringify(state) ?? String(state)}.`);
  milliseconds(timeoutMs, 'page.waitForMainLoadState(): the timeout', 1);
  this.assertOpen('waitForMainLoadState()');
  // Resolves at once for a state the document already reached (Stagehand reads document.readyState for that).
  await this.mainFrame().waitForLoadState(state, timeoutMs);
};

Context.prototype.getFullFrameTreeByMainFrameId = async function (this: Context, rootMainFrameId: string): Promise<Protocol.Page.FrameTree> {
  const id = checkId(rootMainFrameId, 'context.getFullFrameTreeByMainFrameId()');
  const page = this.pages().find((each) => each.mainFrameId() === id);
  if (!page) throw new PageNotFoundError(`No page of this context has the main frame ${id}; page.mainFrameId() gives a page's.`);
  return page.getFullFrameTree();
};
