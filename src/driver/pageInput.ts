// Stagehand's coordinate actions: click, hover, scroll and drag at points of the viewport (CSS
// pixels from its top-left corner, no scrolling first), sent to the page's top-level session, which
// routes them as a user's mouse would, into out-of-process iframes too. With `returnXpath`, what is
// at the point is named first (hitXPath.ts), before the action can change it.

import type { Protocol } from 'devtools-protocol';
import { InvalidOptionError, TimeoutError } from '../errors.js';
import { engineCall } from './engineCall.js';
import type { Frame } from './frame.js';
import { xpathAt, type HitPage } from './hitXPath.js';
import { milliseconds } from '../util/checks.js';
import { sleep } from '../util/time.js';
import type { MouseButton } from '../types.js';
import { BUTTON_BITS, click, tap } from './input.js';

/**
 * How long an action waits for Chrome to take a pointer move. Chrome takes a move when the tab next
 * draws, and a tab in the background of a headless browser may never draw; focus emulation (see
 * ready()) makes it draw, and this bounds the wait should it still not: the move stays queued, and
 * goes to the page when the tab draws.
 */
const MOVE_ACK_MS = 1000;

export type { MouseButton };

/** What coordinate input needs of a page (page.ts's Page has it). */
export interface PointerPage extends HitPage {
  readonly defaultTimeoutMs: number;
  frames(): Frame[];
  assertOpen(what: string): void;
}

type MouseEvent = Omit<Protocol.Input.DispatchMouseEventRequest, 'x' | 'y'> & { x: number; y: number };

/** Pages whose first pointer input was prepared (see ready()). */
const prepared = new WeakMap<object, Promise<void>>();

/**
 * Before a page's first pointer input: focus emulation on, so that a tab behind another counts as
 * visible and draws, which Chrome needs to deliver pointer moves and wheel turns at all. A tab that
 * was hidden is then given time to draw each of its frames: Chrome routes a click into an
 * out-of-process iframe by what the frames last drew.
 */
export function ready(page: PointerPage, timeoutMs: number): Promise<void> {
  let done = prepared.get(page.session);
  if (!done) {
    done = (async () => {
      // Asked first: the answer must be of before the emulation.
      const hidden = await page
        .mainFrame()
        .evaluate<boolean>('document.visibilityState === "hidden"')
        .catch(() => false);
      await page.session.send('Emulation.setFocusEmulationEnabled', { enabled: true }, { timeoutMs }).catch(() => undefined);
      if (!hidden) return;
      const roots = page.frames().filter((frame) => !frame.parent || frame.isOutOfProcess());
      // Two frames are not always enough for the browser to route by the new ones; four have been.
      await Promise.all(roots.map((frame) => engineCall(frame, 'drawn', [{ value: 4 }], MOVE_ACK_MS).catch(() => undefined)));
    })();
    prepared.set(page.session, done);
  }
  return done;
}

/** Sends mouse events in order, in one burst (a session runs its commands in order). */
export async function mouse(page: PointerPage, events: MouseEvent[], timeoutMs: number): Promise<void> {
  await ready(page, timeoutMs);
  const session = page.session;
  const sends: Array<Promise<unknown>> = [];
  for (const event of events) {
    const sent = session.send('Input.dispatchMouseEvent', event, { timeoutMs });
    if (event.type !== 'mouseMoved' && event.type !== 'mouseWheel') sends.push(sent);
    else sends.push(bounded(sent, MOVE_ACK_MS));
  }
  await Promise.all(sends);
}

/** The command's answer, or nothing after `ms`; it may still fail, but not for want of an answer. */
function bounded(sent: Promise<unknown>, ms: number): Promise<unknown> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const answered = sent.catch((error: Error) => (error instanceof TimeoutError ? undefined : Promise.reject(error)));
  return Promise.race([answered, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]).finally(() => clearTimeout(timer));
}

function checkPoint(what: string, ...values: unknown[]): void {
  if (values.some((value) => typeof value !== 'number' || !Number.isFinite(value))) {
    throw new InvalidOptionError(
      `${what}: coordinates must be finite numbers (CSS pixels from the viewport's top-left corner), not ${values.map(String).join(', ')}.`,
    );
  }
}

function checkButton(what: string, button: unknown = 'left'): MouseButton {
  if (!Object.hasOwn(BUTTON_BITS, button as string))
    throw new InvalidOptionError(`${what}: \`button\` must be "left", "right" or "middle", not ${JSON.stringify(button)}.`);
  return button as MouseButton;
}

function checkCount(what: string, name: string, value: unknown, fallback: number, least: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < least) {
    throw new InvalidOptionError(`${what}: \`${name}\` must be a whole number of at least ${least}, not ${JSON.stringify(value)}.`);
  }
  return value;
}

/** Best effort, as Stagehand's: a point that names nothing gives ''. */
async function nameAt(page: PointerPage, wanted: boolean | undefined, x: number, y: number): Promise<string> {
  return wanted ? xpathAt(page, x, y, page.defaultTimeoutMs).catch(() => '') : '';
}

export async function clickAt(
  page: PointerPage,
  x: number,
  y: number,
  options: { button?: MouseButton; clickCount?: number; returnXpath?: boolean } = {},
): Promise<string> {
  page.assertOpen('click()');
  checkPoint('click(x, y)', x, y);
  const button = checkButton('click', options?.button);
  const clicks = checkCount('click', 'clickCount', options?.clickCount, 1, 1);
  const xpath = await nameAt(page, options?.returnXpath, x, y);
  await ready(page, page.defaultTimeoutMs);
  await click(page, { x, y }, { clickCount: clicks, button, timeoutMs: page.defaultTimeoutMs });
  return xpath;
}

export async function hoverAt(page: PointerPage, x: number, y: number, options: { returnXpath?: boolean } = {}): Promise<string> {
  page.assertOpen('hover()');
  checkPoint('hover(x, y)', x, y);
  const xpath = await nameAt(page, options?.returnXpath, x, y);
  await mouse(page, [{ type: 'mouseMoved', x, y, button: 'none' }], page.defaultTimeoutMs);
  return xpath;
}

/** Touches (x, y) and lets go: a trusted tap, for pages that listen for touch rather than the mouse. */
export async function tapAt(page: PointerPage, x: number, y: number, options: { returnXpath?: boolean } = {}): Promise<string> {
  page.assertOpen('tap()');
  checkPoint('tap(x, y)', x, y);
  const xpath = await nameAt(page, options?.returnXpath, x, y);
  const timeoutMs = page.defaultTimeoutMs;
  await ready(page, timeoutMs);
  await tap(page, { x, y }, timeoutMs);
  return xpath;
}

/** Turns the wheel by (deltaX, deltaY) pixels with the pointer at (x, y): what is under it scrolls. */
export async function scrollAt(
  page: PointerPage,
  x: number,
  y: number,
  deltaX: number,
  deltaY: number,
  options: { returnXpath?: boolean } = {},
): Promise<string> {
  page.assertOpen('scroll()');
  checkPoint('scroll(x, y, deltaX, deltaY)', x, y, deltaX, deltaY);
  const xpath = await nameAt(page, options?.returnXpath, x, y);
  await mouse(
    page,
    [
      { type: 'mouseMoved', x, y, button: 'none' },
      { type: 'mouseWheel', x, y, button: 'none', deltaX, deltaY },
    ],
    page.defaultTimeoutMs,
  );
  return xpath;
}

export interface DragOptions {
  button?: MouseButton;
  /** Moves between the press and the release (default 1), evenly spaced. */
  steps?: number;
  /** Milliseconds after each of those moves (default 0). */
  delay?: number;
  returnXpath?: boolean;
}

/** Presses at (fromX, fromY), moves to (toX, toY) in `steps`, and releases there. */
export async function dragAt(
  page: PointerPage,
  fromX: number,
  fromY: number,
  toX: number,
  toY: number,
  options: DragOptions = {},
): Promise<[string, string]> {
  page.assertOpen('dragAndDrop()');
  checkPoint('dragAndDrop(fromX, fromY, toX, toY)', fromX, fromY, toX, toY);
  const button = checkButton('dragAndDrop', options?.button);
  const steps = checkCount('dragAndDrop', 'steps', options?.steps, 1, 1);
  const delay = milliseconds(options?.delay ?? 0, 'dragAndDrop: `delay`');
  const from = await nameAt(page, options?.returnXpath, fromX, fromY);
  const to = await nameAt(page, options?.returnXpath, toX, toY);
  const held = BUTTON_BITS[button];
  const timeoutMs = page.defaultTimeoutMs;
  await mouse(
    page,
    [
      { type: 'mouseMoved', x: fromX, y: fromY, button: 'none' },
      { type: 'mousePressed', x: fromX, y: fromY, button, buttons: held, clickCount: 1 },
    ],
    timeoutMs,
  );
  // One move at a time: a page that follows the drag sees each of them (Chrome merges moves it
  // has not delivered yet).
  for (let step = 1; step <= steps; step++) {
    const x = fromX + ((toX - fromX) * step) / steps;
    const y = fromY + ((toY - fromY) * step) / steps;
    await mouse(page, [{ type: 'mouseMoved', x, y, button, buttons: held }], timeoutMs);
    if (delay) await sleep(delay);
  }
  await mouse(page, [{ type: 'mouseReleased', x: toX, y: toY, button, buttons: 0, clickCount: 1 }], timeoutMs);
  return [from, to];
}
