// A click lands on the element it was aimed at, or is not done. Just before the press, the element
// must hold still and be what is at its centre (a cookie banner over it is seen then, and nothing
// is sent); then the press itself is watched in the page, as the page gets it, after the pointer's
// move (so whatever the hover set off, a :hover rule or a mouseover handler that slides another
// button under the pointer, has happened): one that another element would receive is stopped
// before the page sees it, and aimed again. The page-side half is src/injected/engine/pointer.ts.

import type { Protocol } from 'devtools-protocol';
import type { CdpSession } from '../cdp/session.js';
import type { Readiness, Verdict } from '../injected/engine/types.js';
import { ElementNotActionableError, ElementObscuredError } from '../errors.js';
import { beforeDeadline } from '../util/time.js';
import { callEngine } from './engineCall.js';
import type { EngineHandle, Frame } from './frame.js';
import { aimAt, click, nextFrames, type Aim, type MouseButton, type Point } from './input.js';
import type { ResolvedElement } from './locator.js';
import type { Page } from './page.js';

/** How long a moving or covered element is given to settle before the click is given up. */
export const SETTLE_MS = 1500;
/** How long a watch on the press lasts at most, should the host never come back for its verdict. */
const WATCH_MS = 5000;

/** The selector engine of the element's frame, in the element's own world. */
async function engineOf(element: ResolvedElement, timeoutMs: number): Promise<EngineHandle> {
  const engine = await element.frame.engine(timeoutMs);
  if (engine.world.session !== element.world.session || engine.world.contextId !== element.world.contextId) {
    throw new ElementNotActionableError('it is no longer in the page (its document was replaced)');
  }
  return engine;
}

/** Calls a method of a frame's selector engine. */
function ask<Result>(
  engine: EngineHandle,
  method: string,
  args: Protocol.Runtime.CallArgument[],
  timeoutMs: number,
  userGesture = false,
): Promise<Result> {
  return callEngine(engine, method, args, timeoutMs, `The page-side ${method} threw`, userGesture);
}

/** Calls a method of the selector engine in the element's world, the element first (`userGesture`: as a user's action). */
export async function onEngine<Result>(
  element: ResolvedElement,
  method: string,
  args: Protocol.Runtime.CallArgument[],
  timeoutMs: number,
  userGesture = false,
): Promise<Result> {
  return ask<Result>(await engineOf(element, timeoutMs), method, [{ objectId: element.objectId }, ...args], timeoutMs, userGesture);
}

/** Ends the watches on a press that is not going to be sent. */
function release(engines: EngineHandle[]): void {
  for (const { world, objectId } of engines) {
    void world.session.sendQuiet('Runtime.callFunctionOn', { objectId, functionDeclaration: 'function () { this.disarm(); }' });
  }
}

/**
 * Clicks the element at its visible centre once it holds still and the press reaches it. A moving
 * or covered element, or a press that was stopped, is aimed at again until SETTLE_MS pass; then a
 * covered one is ElementObscuredError naming what is over it. One that keeps moving but is still
 * what the pointer is over (a pulsing button) is pressed: the watch on the press tells where it lands.
 */
export async function clickChecked(
  page: Page,
  element: ResolvedElement,
  timeoutMs: number,
  clickCount: number,
  button: MouseButton = 'left',
): Promise<void> {
  const until = Date.now() + timeoutMs;
  const giveUp = Date.now() + Math.min(SETTLE_MS, timeoutMs);
  const watchMs = Math.min(WATCH_MS, timeoutMs);
  for (;;) {
    const strict = Date.now() < giveUp;
    let engine: EngineHandle | undefined;
    // Sent with the scroll and the measurement: the check and the watch cost no round trip of their own.
    const aim = await aimAt(element, timeoutMs, async () => {
      engine = await engineOf(element, timeoutMs);
      return ask<Readiness>(engine, 'arm', [{ objectId: element.objectId }, { value: strict }, { value: watchMs }], timeoutMs);
    });
    const { why, moved } = aim.probed;
    if (why) throw new ElementNotActionableError(why);
    let receiver = aim.probed.receiver;
    const watched = receiver === '' && !moved ? [engine!] : [];
    if (watched.length && element.frame.parent) {
      const [above, guards] = await Promise.all([coverAbove(page, element, aim, timeoutMs), guardAbove(element.frame, watchMs, timeoutMs)]);
      watched.push(...guards);
      receiver = above;
      if (above) {
        release(watched);
        await nextFrames(element, timeoutMs);
      }
    }
    if (receiver === '' && !moved) {
      // A press is never sent after the action's deadline, which has then been reported.
      beforeDeadline(until, timeoutMs, 'The click');
      const verdict = await press(page, aim.point, watched, clickCount, button, timeoutMs);
      if (!verdict) return;
      receiver = verdict.receiver;
      if (verdict.state === 'missed') {
        throw new ElementObscuredError(
          `the click landed on ${receiver} instead, which is over it. If that is a banner or dialog, dismiss or close it first, then act again`,
          receiver!,
        );
      }
    }
    if (receiver !== '' && Date.now() >= giveUp) {
      if (receiver === null) throw new ElementNotActionableError('its centre is outside the visible page');
      throw new ElementObscuredError(
        `the click would land on ${receiver} instead, which covers it or came under the pointer (checked for ${SETTLE_MS / 1000} s). ` +
          'If that is a banner or dialog, dismiss or close it first, then act again',
        receiver,
      );
    }
  }
}

/**
 * Sends the move and the presses in one round trip (Chrome delivers the queued move before a press,
 * so the hover has acted when the press is hit-tested), and asks every watch, in the same round
 * trip, what became of it: each answers once its page has judged the press. Once Chrome has
 * delivered the press, a watch that has not answered saw none, and is ended so that it does.
 * Null when the press reached the element; else the watch that stopped it, or the element's own
 * watch when no press came to its document at all.
 */
async function press(
  page: Page,
  point: Point,
  watched: EngineHandle[],
  clickCount: number,
  button: MouseButton,
  timeoutMs: number,
): Promise<Verdict | null> {
  const sent = click(page, point, { clickCount, button, timeoutMs });
  const answers: Array<Verdict | null | undefined> = watched.map(() => undefined);
  // A document the click replaced, or a page that stopped answering, cannot say: the press was sent.
  const asked = watched.map((engine, index) =>
    ask<Verdict | null>(engine, 'verdict', [], timeoutMs).then(
      (verdict) => (answers[index] = verdict),
      () => (answers[index] = null),
    ),
  );
  try {
    await sent;
  } finally {
    // A stopped press's later events are all in: its watch lets the page have the next ones.
    release(watched.filter((_, index) => answers[index]?.state !== 'pressed'));
  }
  const verdicts = await Promise.all(asked);
  const stopped = verdicts.find((each) => each?.state === 'blocked');
  if (stopped) return stopped;
  const own = verdicts[0];
  // No press came to the element's document, yet something else is at its centre now (an iframe
  // over it): the press went there. With the element still there, a page's own listener ahead of
  // ours swallowed the press, which is the page's choice.
  return own?.state === 'missed' && own.receiver ? own : null;
}

/**
 * In each frame above the element's, the press must come down through the <iframe> that holds it:
 * a watch there stops one that lands on something else (a banner of the top page that the hover
 * brought over an iframe).
 */
async function guardAbove(frame: Frame, watchMs: number, timeoutMs: number): Promise<EngineHandle[]> {
  const guards: Array<Promise<EngineHandle | null>> = [];
  for (let child = frame; child.parent; child = child.parent) {
    const parent = child.parent;
    guards.push(
      (async () => {
        const [engine, owner] = await Promise.all([parent.engine(timeoutMs), child.ownerHandle(timeoutMs)]);
        if (!owner) return null;
        await ask(engine, 'watchPress', [{ objectId: owner }, { value: null }, { value: false }, { value: watchMs }], timeoutMs);
        return engine;
      })().catch(() => null),
    );
  }
  return (await Promise.all(guards)).filter((each): each is EngineHandle => each !== null);
}

interface Level {
  session: CdpSession;
  point: Point;
  accepts(hit: Protocol.DOM.GetNodeForLocationResponse): boolean;
}

/**
 * The page script sees only the element's own document. For an element in an iframe, each frame
 * above must have the pointer over that iframe: asked of each process's hit test (the top page's,
 * then each out-of-process iframe's, in its own coordinates). '' when nothing above covers it.
 */
async function coverAbove(page: Page, element: ResolvedElement, aim: Aim<unknown>, timeoutMs: number): Promise<string> {
  const levels: Level[] = [];
  let origin: Point = { x: 0, y: 0 };
  for (let index = aim.owners.length - 1; index >= 0; index--) {
    const owner = aim.owners[index]!;
    levels.push({ session: owner.session, point: minus(aim.point, origin), accepts: (hit) => hit.backendNodeId === owner.backendNodeId });
    origin = { x: origin.x + aim.offsets[index]!.x, y: origin.y + aim.offsets[index]!.y };
  }
  const frame = element.frame;
  // An in-process iframe: its local root's hit test reaches into it, and must land in it.
  if (frame.parent && !frame.isOutOfProcess()) {
    levels.push({
      session: frame.session,
      point: minus(aim.point, origin),
      accepts: (hit) => within(page.frameManager.frame(hit.frameId), frame),
    });
  }
  const verdicts = await Promise.all(
    levels.map((level) =>
      level.session
        .send(
          'DOM.getNodeForLocation',
          { x: Math.round(level.point.x), y: Math.round(level.point.y), includeUserAgentShadowDOM: false },
          { timeoutMs },
        )
        .then(
          (hit) => (level.accepts(hit) ? '' : describeHit(page, hit, timeoutMs)),
          // No answer is no evidence of a cover: the page script's check still stands.
          () => '',
        ),
    ),
  );
  return verdicts.find(Boolean) ?? '';
}

function minus(a: Point, b: Point): Point {
  return { x: a.x - b.x, y: a.y - b.y };
}

function within(frame: Frame | undefined, ancestor: Frame): boolean {
  for (let current = frame; current; current = current.parent ?? undefined) if (current === ancestor) return true;
  return false;
}

/** Names the element a frame above has at the point. */
async function describeHit(page: Page, hit: Protocol.DOM.GetNodeForLocationResponse, timeoutMs: number): Promise<string> {
  const frame = page.frameManager.frame(hit.frameId);
  try {
    const engine = await frame!.engine(timeoutMs);
    const { session, contextId } = engine.world;
    const { object } = await session.send(
      'DOM.resolveNode',
      { backendNodeId: hit.backendNodeId, executionContextId: contextId },
      { timeoutMs },
    );
    const { result } = await session.send(
      'Runtime.callFunctionOn',
      {
        objectId: engine.objectId,
        functionDeclaration: 'function (hit) { return this.describe(hit); }',
        arguments: [{ objectId: object.objectId }],
        returnByValue: true,
      },
      { timeoutMs },
    );
    void session.sendQuiet('Runtime.releaseObject', { objectId: object.objectId! });
    return String(result.value);
  } catch {
    return `an element of the frame ${frame?.url() || hit.frameId}`;
  }
}
