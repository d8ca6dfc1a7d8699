// Waits of a page that Stagehand has: a plain timer, and a selector reaching a state. The selector
// wait is driven by the page's own changes (src/injected/engine/wait.ts) in whichever frame the
// selector leads to; it goes down through iframes as the selector does (` >> `, or an XPath past an
// <iframe>), and starts again from the top when a frame on its way goes.

import { ContentFrameNotFoundError, InvalidOptionError, SdkIframeError, SelectorSyntaxError, TimeoutError } from '../errors.js';
import { engineCall } from './engineCall.js';
import { isContextGone } from './evaluate.js';
import type { Frame } from './frame.js';
import { contentFrameOfHop } from './locator.js';
import { registerClosedShadowRoots } from './shadow.js';
import { milliseconds } from '../util/checks.js';
import { sleep } from '../util/time.js';

const DEFAULT_TIMEOUT_MS = 30_000;
/**
 * The page half answers within a slice, so that closed shadow roots made meanwhile (which page script
 * cannot see) are learned between slices; slices grow, as a long wait is usually for a slow page.
 */
const FIRST_SLICE_MS = 500;
const LAST_SLICE_MS = 4000;
const STATES = ['attached', 'detached', 'visible', 'hidden'] as const;
export type SelectorState = (typeof STATES)[number];

export interface WaitForSelectorOptions {
  /** Default "visible": present, with a box of some size, not hidden by CSS. "hidden" is also met by no element at all. */
  state?: SelectorState;
  /** Milliseconds; default 30000. */
  timeout?: number;
  /** Look inside shadow roots, closed ones too (default true). */
  pierceShadow?: boolean;
}

/** What waiting needs of a page (page.ts's Page has it). */
export interface WaitingPage {
  assertOpen(what: string): void;
  mainFrame(): Frame;
}

export function checkWaitMs(what: string, ms: unknown): number {
  return milliseconds(ms, what);
}

export async function waitForTimeout(ms: number): Promise<void> {
  checkWaitMs('waitForTimeout(ms)', ms);
  await sleep(ms);
}

/** Resolves true once `selector` is in `state`; TimeoutError after `timeout`. */
export async function waitForSelector(page: WaitingPage, selector: string, options: WaitForSelectorOptions = {}): Promise<boolean> {
  page.assertOpen('waitForSelector()');
  if (typeof selector !== 'string' || !selector.trim())
    throw new InvalidOptionError('waitForSelector(selector): pass an XPath or CSS selector string (` >> ` enters an iframe).');
  const { state = 'visible', timeout = DEFAULT_TIMEOUT_MS, pierceShadow = true } = options ?? {};
  if (!STATES.includes(state))
    throw new InvalidOptionError(
      `waitForSelector: \`state\` must be one of ${STATES.map((each) => `"${each}"`).join(', ')}, not ${JSON.stringify(state)}.`,
    );
  if (checkWaitMs('waitForSelector: `timeout`', timeout) === 0)
    throw new InvalidOptionError('waitForSelector: `timeout` must be more than 0 ms.');
  const deadline = Date.now() + timeout;
  // "Timeout" leads, as in Stagehand's message, which code written for it may match.
  const timedOut = () => new TimeoutError(`waitForSelector: Timeout ${timeout} ms: "${selector}" is still not ${state}.`, timeout);
  let frame = page.mainFrame();
  let rest = selector.trim();
  let slice = FIRST_SLICE_MS;
  let learn = pierceShadow;
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) throw timedOut();
    let outcome: string;
    try {
      // Without them, an element in a closed root would count as absent.
      if (learn) await learnClosedRoots(frame, left);
      learn = pierceShadow;
      outcome = await engineCall<string>(
        frame,
        'waitFor',
        [{ value: rest }, { value: state }, { value: pierceShadow }, { value: Math.min(slice, left) }],
        left + 1000,
      );
      if (outcome.startsWith('hop:')) {
        rest = outcome.slice(4);
        frame = await contentFrameOfHop(frame, selector, left);
        continue;
      }
    } catch (error) {
      page.assertOpen('waitForSelector()');
      if (error instanceof TimeoutError) throw timedOut();
      // The frame went, or its iframe is not loaded yet: from the top again.
      if (frame.isDetached() || error instanceof ContentFrameNotFoundError || error instanceof SdkIframeError) {
        [frame, rest] = [page.mainFrame(), selector.trim()];
        await new Promise((resolve) => setTimeout(resolve, Math.min(FIRST_SLICE_MS / 5, left)));
        continue;
      }
      // Its document was replaced: the same frame again, with its new document.
      if (isContextGone(error)) continue;
      throw error;
    }
    if (outcome === 'ok') return true;
    if (outcome.startsWith('syntax:'))
      throw new SelectorSyntaxError(`The selector "${selector}" is not valid: ${outcome.slice(7)}`, selector);
    slice = Math.min(slice * 2, LAST_SLICE_MS);
  }
}

/**
 * Hands the frame's engine the closed shadow roots of its document, unless the closed-root watch
 * says there are none it has not seen (src/snapshot/closedRoots.ts has the full rules).
 */
async function learnClosedRoots(frame: Frame, timeoutMs: number): Promise<void> {
  const watched = frame.mainWorld?.closedRoots;
  const reported = watched ? watched.attached + watched.declarative : 0;
  if (watched && (reported === 0 || watched.scannedAt === reported)) return;
  await registerClosedShadowRoots(frame, timeoutMs).catch(() => 0);
  if (watched) watched.scannedAt = reported;
}
