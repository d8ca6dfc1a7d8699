// Stagehand 3's frame-registry methods (page.frameForId(), getFullFrameTree(), asProtocolFrameTree(),
// listAllFrameIds(), getOrdinal(), waitForMainLoadState(), context.getFullFrameTreeByMainFrameId()),
// answered from Tendril's own frame tree (driver/frameTree.ts), which already holds every frame of
// a page, out-of-process ones included. Methods of StagehandPage and StagehandContext (page.ts).

import type { Protocol } from 'devtools-protocol';
import { InvalidOptionError, PageNotFoundError } from '../errors.js';
import type { Context } from '../driver/context.js';
import type { Frame } from '../driver/frame.js';
import type { Page } from '../driver/page.js';
import { frameNumbers } from '../driver/refs.js';
import { milliseconds } from '../util/checks.js';

/** Stagehand's LoadState. */
export type StagehandLoadState = 'load' | 'domcontentloaded' | 'networkidle';
const LOAD_STATES: readonly string[] = ['load', 'domcontentloaded', 'networkidle'];

function checkId(value: unknown, method: string): string {
  if (typeof value !== 'string' || !value)
    throw new InvalidOptionError(
      `${method} takes a frame id (a string, such as page.mainFrameId()), not ${JSON.stringify(value) ?? String(value)}.`,
    );
  return value;
}

function frameOf(page: Page, frameId: unknown, method: string): Frame {
  const id = checkId(frameId, method);
  const frame = page.frameById(id);
  if (!frame || frame.isDetached()) {
    throw new InvalidOptionError(
      `${method}: this page has no frame with id ${id} (it may have gone with its document); page.listAllFrameIds() lists the ones it has.`,
    );
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

// The methods of StagehandPage and StagehandContext (page.ts) of the same names.

export function frameForId(page: Page, frameId: string): Frame {
  return frameOf(page, frameId, 'page.frameForId()');
}

export function fullFrameTree(page: Page): Protocol.Page.FrameTree {
  return treeOf(page.mainFrame());
}

export function protocolFrameTree(page: Page, rootMainFrameId: string): Protocol.Page.FrameTree {
  return treeOf(frameOf(page, rootMainFrameId, 'page.asProtocolFrameTree()'));
}

export function allFrameIds(page: Page): string[] {
  return page.frames().map((frame) => frame.id);
}

export function ordinalOf(page: Page, frameId: string): number {
  // The F of the page text's `[F-N]`, which stays with its frame while the top document stays (driver/refs.ts).
  return frameNumbers(page)(frameOf(page, frameId, 'page.getOrdinal()'));
}

export async function waitForMainLoadState(page: Page, state: StagehandLoadState, timeoutMs = 15_000): Promise<void> {
  if (!LOAD_STATES.includes(state))
    throw new InvalidOptionError(
      `page.waitForMainLoadState() takes "load", "domcontentloaded" or "networkidle", not ${JSON.stringify(state) ?? String(state)}.`,
    );
  milliseconds(timeoutMs, 'page.waitForMainLoadState(): the timeout', 1);
  page.assertOpen('waitForMainLoadState()');
  // Resolves at once for a state the document already reached (Stagehand reads document.readyState for that).
  await page.mainFrame().waitForLoadState(state, timeoutMs);
}

export async function frameTreeByMainFrameId(context: Context, rootMainFrameId: string): Promise<Protocol.Page.FrameTree> {
  const id = checkId(rootMainFrameId, 'context.getFullFrameTreeByMainFrameId()');
  const page = context.pages().find((each) => each.mainFrameId() === id);
  if (!page) throw new PageNotFoundError(`No page of this context has the main frame ${id}; page.mainFrameId() gives a page's.`);
  return fullFrameTree(page);
}
