// Real input over the DevTools Protocol: mouse events at an element's visible centre and key
// events, all sent to the page's top-level session, which routes them as a user's would (into
// out-of-process iframes too).

import { ConnectionClosedError, ElementNotActionableError, InvalidOptionError, TimeoutError } from '../errors.js';
import type { CdpSession } from '../cdp/session.js';
import type { Frame } from './frame.js';
import type { ResolvedElement } from './locator.js';
import { chordOf, keyOf, pressChord, splitChord, type Key } from './keyboard.js';
import type { MouseButton } from '../types.js';
import { engineCall } from './engineCall.js';

export type { MouseButton };

/** Input goes to a page's top-level session, which routes it as a user's would (page.ts's Page has one). */
export interface InputPage {
  readonly session: CdpSession;
}

/** The last input of each tab's turn (see exclusive). */
const turns = new WeakMap<object, Promise<unknown>>();

/**
 * Runs `work` once the tab's earlier input is done: what depends on the focus (focus a field, then
 * type) must not interleave with another action's, or the keys of one land in the other's field.
 * The wait is as long as the earlier input, which its own deadline bounds; an action's own
 * deadline (perform.ts) counts it.
 */
export function exclusive<T>(page: InputPage, work: () => Promise<T>): Promise<T> {
  const mine = (turns.get(page.session) ?? Promise.resolve()).then(work);
  turns.set(
    page.session,
    mine.catch(() => undefined),
  );
  return mine;
}

export interface Point {
  x: number;
  y: number;
}

/** Where a pointer aims at an element: its box and that box's centre, in the top page's coordinates. */
export interface Aim<Probe> {
  point: Point;
  box: Box;
  /** The <iframe> elements that hold the element's out-of-process frames, innermost first. */
  owners: Owner[];
  /** Each owner's content box in its own frame's local root: what was added to reach the top page. */
  offsets: Point[];
  /** What `probe` answered, run in the element's frame right after the measurement that counted. */
  probed: Probe;
}

/** Scrolls the element into view and returns its visible centre in the top page's coordinates. */
export async function clickablePoint(element: ResolvedElement, timeoutMs: number): Promise<Point> {
  return (await aimAt(element, timeoutMs, async () => undefined)).point;
}

/**
 * Scrolls the element into view and measures it. In the top page's own process that is one round
 * trip: the renderer hit-tests its own DOM, and a session runs its commands in order, so the scroll,
 * the measurement and `probe` (sent last, on the element's session) go out together. Inside an
 * out-of-process iframe the browser routes the event by what the frames last drew, and the scroll
 * reaches the pages above asynchronously, so there the element is measured until two measurements
 * an animation frame apart agree.
 */
export async function aimAt<Probe>(element: ResolvedElement, timeoutMs: number, probe: () => Promise<Probe>): Promise<Aim<Probe>> {
  const owners = await ownerChain(element.frame, timeoutMs);
  const measured = async () => {
    const [box, probed] = await Promise.all([measureBox(element, owners, timeoutMs), probe()]);
    return { ...box, probed, point: { x: box.box.x + box.box.width / 2, y: box.box.y + box.box.height / 2 } };
  };
  if (!owners.length) {
    const [scrolled, result] = await Promise.allSettled([scrollIntoView(element, owners, timeoutMs), measured()]);
    // The scroll's failure says why the measurement failed too.
    if (scrolled.status === 'rejected') throw scrolled.reason;
    if (result.status === 'rejected') throw result.reason;
    return { ...result.value, owners };
  }
  await scrollIntoView(element, owners, timeoutMs);
  let last: Awaited<ReturnType<typeof measured>> | undefined;
  for (let attempt = 0; attempt < 10; attempt++) {
    // The browser routes a mouse event by the frames' last composited frames, so let them draw.
    await nextFrames(element, timeoutMs);
    const current = await measured();
    if (last && Math.abs(last.point.x - current.point.x) < 0.5 && Math.abs(last.point.y - current.point.y) < 0.5)
      return { ...current, owners };
    last = current;
  }
  return { ...last!, owners };
}

export interface Owner {
  session: CdpSession;
  backendNodeId: number;
  /** The frame the <iframe> element is in. */
  frame: Frame;
}

/**
 * Chrome's refusal of a command about the element says the element cannot be acted on. A command
 * that ran out of time, or a browser gone, says nothing of the element: it stays what it is, so an
 * action whose deadline passed during the step ends as the TimeoutError it is.
 */
export function notActionable(why: string, end = ''): (error: Error) => never {
  return (error) => {
    if (error instanceof TimeoutError || error instanceof ConnectionClosedError) throw error;
    throw new ElementNotActionableError(`${why} (${error.message})${end}`);
  };
}

/** Scrolls the element into view in its frame, then its frame in each out-of-process frame above. */
async function scrollIntoView(element: ResolvedElement, owners: Owner[], timeoutMs: number): Promise<void> {
  await element.world.session
    .send('DOM.scrollIntoViewIfNeeded', { objectId: element.objectId }, { timeoutMs })
    .catch(notActionable('it is not rendered'));
  for (const owner of owners) await owner.session.sendQuiet('DOM.scrollIntoViewIfNeeded', { backendNodeId: owner.backendNodeId });
}

/** The <iframe> elements that hold the element's out-of-process frames, innermost first. */
export async function ownerChain(frame: Frame, timeoutMs: number): Promise<Owner[]> {
  const owners: Owner[] = [];
  for (let current: Frame | null = frame; current?.parent; current = current.parent) {
    if (!current.isOutOfProcess()) continue;
    const backendNodeId = await current.ownerElementId(timeoutMs);
    if (backendNodeId !== null) owners.push({ session: current.parent.session, backendNodeId, frame: current.parent });
  }
  return owners;
}

/**
 * DOM.getContentQuads answers in the viewport of the frame's local root: the top page for
 * in-process iframes, the iframe itself for an out-of-process one, whose <iframe> content box
 * offsets are added, hop by hop.
 */
async function measureBox(element: ResolvedElement, owners: Owner[], timeoutMs: number): Promise<{ box: Box; offsets: Point[] }> {
  const { quads } = await element.world.session
    .send('DOM.getContentQuads', { objectId: element.objectId }, { timeoutMs })
    .catch(notActionable('it has no layout box'));
  const box = quads.map(toBox).find((each) => each.width >= 1 && each.height >= 1);
  if (!box) throw new ElementNotActionableError('it has no visible size');
  return { box, offsets: await toTopPage(box, owners, timeoutMs) };
}

/** Moves `box` from its frame's local root into the top page, adding each owner's content box; those offsets. */
export async function toTopPage(box: Box, owners: Owner[], timeoutMs: number): Promise<Point[]> {
  const offsets: Point[] = [];
  for (const owner of owners) {
    const { model } = await owner.session.send('DOM.getBoxModel', { backendNodeId: owner.backendNodeId }, { timeoutMs });
    offsets.push({ x: model.content[0] ?? 0, y: model.content[1] ?? 0 });
    box.x += model.content[0] ?? 0;
    box.y += model.content[1] ?? 0;
  }
  return offsets;
}

/**
 * Scrolls the element into view and returns its box (its first fragment's) in the top page's
 * viewport: what a screenshot of the element clips to. Measured once the frames drew, as above.
 */
export async function visibleBox(element: ResolvedElement, timeoutMs: number): Promise<Box> {
  const owners = await ownerChain(element.frame, timeoutMs);
  await scrollIntoView(element, owners, timeoutMs);
  await nextFrames(element, timeoutMs);
  return (await measureBox(element, owners, timeoutMs)).box;
}

/** Waits for two animation frames in the element's frame and in every frame above it. */
export async function nextFrames(element: ResolvedElement, timeoutMs: number): Promise<void> {
  const waits: Array<Promise<unknown>> = [];
  for (let frame: Frame | null = element.frame; frame; frame = frame.parent)
    waits.push(engineCall(frame, 'drawn', [{ value: 2 }], timeoutMs).catch(() => undefined));
  await Promise.all(waits);
}

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export function toBox(quad: number[]): Box {
  const xs = [quad[0]!, quad[2]!, quad[4]!, quad[6]!];
  const ys = [quad[1]!, quad[3]!, quad[5]!, quad[7]!];
  const x = Math.min(...xs);
  const y = Math.min(...ys);
  return { x, y, width: Math.max(...xs) - x, height: Math.max(...ys) - y };
}

/** The `buttons` bit of each button, as a pointer event reports it while the button is down. */
export const BUTTON_BITS: Record<MouseButton, number> = { left: 1, right: 2, middle: 4 };

export async function click(
  page: InputPage,
  point: Point,
  options: { clickCount?: number; button?: MouseButton; timeoutMs: number },
): Promise<void> {
  const session = page.session;
  const button = options.button ?? 'left';
  const clicks = options.clickCount ?? 1;
  const send = (type: 'mouseMoved' | 'mousePressed' | 'mouseReleased', clickCount: number) =>
    session.send(
      'Input.dispatchMouseEvent',
      {
        type,
        x: point.x,
        y: point.y,
        button: type === 'mouseMoved' ? 'none' : button,
        clickCount,
        buttons: type === 'mousePressed' ? BUTTON_BITS[button] : 0,
      },
      { timeoutMs: options.timeoutMs },
    );
  // A session runs its commands in order, so the events can go out together: one round trip.
  // A double click is two press/release pairs, the second carrying clickCount 2, as a real mouse does.
  await exclusive(page, () => {
    const events = [send('mouseMoved', 0)];
    for (let count = 1; count <= clicks; count++) events.push(send('mousePressed', count), send('mouseReleased', count));
    return Promise.all(events);
  });
}

/**
 * The keys of a key or chord ("Enter", "Shift+Tab", "Control+A"), checked before anything is sent:
 * UnknownKeyError names a key that does not exist.
 */
export function parseKeys(keys: string): Key[] {
  const parts = splitChord(keys).map((part) => part.trim());
  if (!parts.some(Boolean)) throw new InvalidOptionError('press needs a key, such as "Enter".');
  return chordOf(parts, false);
}

/** Presses a key or a chord ("Enter", "Shift+Tab", "Control+A") in whatever has focus. */
export async function press(page: InputPage, keys: string, timeoutMs: number): Promise<void> {
  await pressChord(page.session, parseKeys(keys), { mac: false, timeoutMs });
}

/** Types one character into whatever has focus by its key; one without a key is inserted as text. */
export async function typeChar(page: InputPage, char: string, timeoutMs: number): Promise<void> {
  if (char === '\n') await press(page, 'Enter', timeoutMs);
  else if (/^[\x20-\x7e]$/.test(char)) await pressChord(page.session, [keyOf(char)], { mac: false, timeoutMs });
  else await insertText(page, char, timeoutMs);
}

/** A trusted tap at the point: a finger's touch, and letting go. */
export async function tap(page: InputPage, { x, y }: Point, timeoutMs: number): Promise<void> {
  await Promise.all([
    page.session.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x, y }] }, { timeoutMs }),
    page.session.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] }, { timeoutMs }),
  ]);
}

/** Inserts text at the caret in one go, as a paste or an input method does (fires `input`). */
export async function insertText(page: InputPage, text: string, timeoutMs: number): Promise<void> {
  await page.session.send('Input.insertText', { text }, { timeoutMs });
}
