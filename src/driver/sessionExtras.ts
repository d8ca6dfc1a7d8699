// What the caller adds to the sessions of a page: init scripts (run at the start of every document)
// and extra HTTP headers (sent with every request). Each comes in two layers, the context's (every
// page) and the page's own. A session gets both when the frame manager adopts it, before its target
// runs, so a page or an out-of-process iframe that appears later has them from its first request;
// a change reaches every session the page already has.

import type { CdpSession } from '../cdp/session.js';
import { InvalidOptionError, ProtocolError, TargetClosedError } from '../errors.js';
import { enableNetwork } from './network.js';

/** One layer of additions: the context's or a page's. */
export class SessionExtras {
  readonly scripts: string[] = [];
  headers: Record<string, string> | undefined;
}

/** What the additions need of a page (page.ts's Page has it). */
export interface ExtrasPage {
  /** The layers that apply to the page, the context's first: a later layer's header wins. */
  extras(): readonly SessionExtras[];
  /** The page's live sessions: its own and one per out-of-process iframe. */
  readonly frameManager: { sessions(): CdpSession[] };
}

// RFC 9110's token for a name; a value may not hold a line break or NUL (Chrome refuses them too).
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_VALUE = /^[^\r\n\0]*$/;

/** Checks the headers a caller gives; names become lower case, so that layers merge by name. */
export function checkHeaders(headers: unknown, caller: string): Record<string, string> {
  if (headers === null || typeof headers !== 'object' || Array.isArray(headers)) {
    throw new InvalidOptionError(`${caller}: pass an object of header names to string values, such as { "x-team": "search" }.`);
  }
  const checked: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name)) throw new InvalidOptionError(`${caller}: ${JSON.stringify(name)} is not a valid HTTP header name.`);
    if (typeof value !== 'string' || !HEADER_VALUE.test(value)) {
      throw new InvalidOptionError(
        `${caller}: the value of header "${name}" must be a string without line breaks, not ${JSON.stringify(value)}.`,
      );
    }
    checked[name.toLowerCase()] = value;
  }
  return checked;
}

function mergedHeaders(layers: readonly SessionExtras[]): Record<string, string> | undefined {
  if (layers.every((layer) => layer.headers === undefined)) return undefined;
  return Object.assign({}, ...layers.map((layer) => layer.headers));
}

function setHeadersOn(session: CdpSession, headers: Record<string, string>): Promise<unknown> {
  // The Network domain is turned on where it is not yet: without it a target may not apply them.
  return Promise.all([enableNetwork(session), session.send('Network.setExtraHTTPHeaders', { headers })]);
}

/**
 * The commands that give a session being adopted every addition of its page. They go out with the
 * rest of its setup, before the target is resumed; `runImmediately` also covers the document the
 * target already has (a new tab's first, empty one). A refusal goes to `failed`, not to the
 * adoption: a page without an addition is better than a page dropped.
 */
export function extrasSetup(session: CdpSession, layers: readonly SessionExtras[], failed: (error: Error) => void): Promise<unknown>[] {
  const setup: Promise<unknown>[] = [];
  const headers = mergedHeaders(layers);
  if (headers) setup.push(setHeadersOn(session, headers));
  for (const layer of layers) {
    for (const source of layer.scripts) setup.push(session.send('Page.addScriptToEvaluateOnNewDocument', { source, runImmediately: true }));
  }
  return setup.map((sent) => sent.catch(failed));
}

/**
 * The session went away: we knew (TargetClosedError), or Chrome did first (the out-of-process frame
 * of a document just replaced detaches a moment after the navigation).
 */
export function sessionGone(error: unknown): boolean {
  return error instanceof TargetClosedError || (error instanceof ProtocolError && /Session with given id not found/i.test(error.message));
}

/** Runs `send` on every live session of the pages; a session that goes away meanwhile is no failure. */
async function eachSession(pages: readonly ExtrasPage[], send: (session: CdpSession, page: ExtrasPage) => Promise<unknown>): Promise<void> {
  const sends = pages.flatMap((page) => page.frameManager.sessions().map((session) => send(session, page)));
  const results = await Promise.allSettled(sends);
  const failed = results.find((result) => result.status === 'rejected' && !sessionGone(result.reason));
  if (failed) throw (failed as PromiseRejectedResult).reason;
}

/**
 * Adds an init script to a layer and to every session of `pages` (those the layer applies to). It
 * runs in each document they make from now on, before the document's own scripts; the documents
 * they show already do not run it (as in Playwright and Stagehand). The same source twice is added once.
 */
export async function addInitScript(layer: SessionExtras, source: string, pages: readonly ExtrasPage[]): Promise<void> {
  if (layer.scripts.includes(source)) return;
  layer.scripts.push(source);
  await eachSession(pages, (session) => session.send('Page.addScriptToEvaluateOnNewDocument', { source }));
}

/** Sets a layer's headers (replacing what it had) and sends every page's merged headers to its sessions. */
export async function setExtraHeaders(layer: SessionExtras, headers: Record<string, string>, pages: readonly ExtrasPage[]): Promise<void> {
  layer.headers = headers;
  await eachSession(pages, (session, page) => setHeadersOn(session, mergedHeaders(page.extras()) ?? {}));
}
