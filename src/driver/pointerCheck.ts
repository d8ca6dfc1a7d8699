// Before a press: the pointer goes to the element first, then the element must hold still and be
// what receives the pointer there. A fixed banner over it, or a layout that the hover itself shifts
// (another button sliding under the pointer), would otherwise take the click while act() reported
// success. The page-side half is src/injected/engine/pointer.ts.

import type { Protocol } from 'devtools-protocol';
import type { CdpSession } from '../cdp/session.js';
import { ElementNotActionableError, ElementObscuredError, SdkEvalError } from '../errors.js';
import { describeException } from './evaluate.js';
import type { Frame } from './frame.js';
import { aimAt, hover, nextFrames, type Aim, type Box, type Point } from './input.js';
import type { ResolvedElement } from './locator.js';
import type { Page } from './page.js';

/** How long a moving or covered element is given to settle before the click is given up. */
export const SETTLE_MS = 1500;

/** Calls a method of the selector engine in the element's world, the element first. */
export async function onEngine<Result>(element: ResolvedElement, method: string, args: Protocol.Runtime.CallArgument[], timeoutMs: number): Promise<Result> {
  const engine = await element.frame.engine(timeoutMs);
  if (engine.world.session !== element.world.session || engine.world.contextId !== element.world.contextId) {
    throw new ElementNotActionableError('it is no longer in the page (its document was replaced)');
  }
  const { result, exceptionDetails } = await engine.world.session.send(
    'Runtime.callFunctionOn',
    {
      objectId: engine.objectId,
      functionDeclaration: `function (...args) { return this.${method}(...args); }`,
      arguments: [{ objectId: element.objectId }, ...args],
      returnByValue: true,
      awaitPromise: true,
    },
    { timeoutMs },
  );
  if (exceptionDetails) throw new SdkEvalError(`Checking the element (${method}) threw: ${describeException(exceptionDetails)}`);
  return result.value as Result;
}

/**
 * Moves the mouse to the element's visible centre and resolves with that point once the element
 * holds still and receives the pointer there: ready for the press. A moving or covered element is
 * aimed at again until SETTLE_MS pass; then a covered one is ElementObscuredError naming what is
 * over it. One that keeps moving but is still what the pointer is over (a pulsing button) is
 * pressed: the hit test, done last, is what tells where the press lands.
 */
export async function pointAt(page: Page, element: ResolvedElement, timeoutMs: number): Promise<Point> {
  const giveUp = Date.now() + Math.min(SETTLE_MS, timeoutMs);
  for (;;) {
    const aim = await aimAt(element, timeoutMs, () => onEngine<{ why: string; box: Box | null }>(element, 'aim', [], timeoutMs));
    if (aim.probed.why) throw new ElementNotActionableError(aim.probed.why);
    const local = aim.probed.box;
    // The pointer goes there first, so a layout its arrival shifts is seen before the press.
    await hover(page, aim.point, timeoutMs);
    if (!local) return aim.point;
    const [verdict, above] = await Promise.all([
      onEngine<{ moved: boolean; receiver: string | null }>(element, 'verify', [{ value: local }], timeoutMs),
      coverAbove(page, element, aim, timeoutMs),
    ]);
    const receiver = verdict.receiver === '' ? above : verdict.receiver;
    if (receiver === '' && (!verdict.moved || Date.now() >= giveUp)) return aim.point;
    if (Date.now() >= giveUp) {
      if (receiver === null) throw new ElementNotActionableError('its centre is outside the visible page');
      throw new ElementObscuredError(
        `the click would land on ${receiver} instead, which covers it or came under the pointer (checked for ${SETTLE_MS / 1000} s). ` +
          'If that is a banner or dialog, dismiss or close it first, then act again',
        receiver,
      );
    }
    // The page script paced itself by a frame; a cover in a frame above is waited for here.
    if (above) await nextFrames(element, timeoutMs);
  }
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
    levels.push({ session: frame.session, point: minus(aim.point, origin), accepts: (hit) => within(page.frameManager.frame(hit.frameId), frame) });
  }
  const verdicts = await Promise.all(
    levels.map((level) =>
      level.session
        .send('DOM.getNodeForLocation', { x: Math.round(level.point.x), y: Math.round(level.point.y), includeUserAgentShadowDOM: false }, { timeoutMs })
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
    const { object } = await session.send('DOM.resolveNode', { backendNodeId: hit.backendNodeId, executionContextId: contextId }, { timeoutMs });
    const { result } = await session.send(
      'Runtime.callFunctionOn',
      { objectId: engine.objectId, functionDeclaration: 'function (hit) { return this.describe(hit); }', arguments: [{ objectId: object.objectId }], returnByValue: true },
      { timeoutMs },
    );
    void session.sendQuiet('Runtime.releaseObject', { objectId: object.objectId! });
    return String(result.value);
  } catch {
    return `an element of the frame ${frame?.url() || hit.frameId}`;
  }
}
