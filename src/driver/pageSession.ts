// What a page does on its own session for Stagehand's callers: raw protocol commands (sendCDP), the
// viewport's size, its id as a method, and the names of the events it announces.

import type { Commands } from '../cdp/protocol.js';
import type { CdpSession } from '../cdp/session.js';
import { InvalidOptionError } from '../errors.js';

/**
 * `page.targetId`: Stagehand's method, which Tendril had as a string field; called, or used where a
 * string is (a template, JSON, `==`), it is the target's id. Compare with `===` through page.targetId().
 */
export type TargetId = (() => string) & { toString(): string; valueOf(): string; toJSON(): string };

export function targetIdOf(id: string): TargetId {
  const read = () => id;
  return Object.assign(read, { toString: read, valueOf: read, toJSON: read, [Symbol.toPrimitive]: read });
}

const EVENTS = ['dialog', 'download', 'console', 'close'];

export function checkPageEvent(event: unknown): void {
  if (!EVENTS.includes(event as string))
    throw new InvalidOptionError(
      `page.on(event): a page announces ${EVENTS.map((each) => `"${each}"`).join(', ')}, not ${JSON.stringify(event)}.`,
    );
}

/** Sends `method` on the session; Chrome refusing it is its ProtocolError. */
export async function sendCommand<T>(session: CdpSession, method: string, params: object | undefined, timeoutMs: number): Promise<T> {
  if (typeof method !== 'string' || !/^\w+\.\w+$/.test(method))
    throw new InvalidOptionError(
      `sendCDP(method): name a command as "Domain.method", such as "Runtime.evaluate", not ${JSON.stringify(method)}.`,
    );
  if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params)))
    throw new InvalidOptionError(`sendCDP(${method}, params): params must be an object.`);
  return (await session.send(method as keyof Commands, params as never, { timeoutMs })) as T;
}

/** Sets the viewport to `width` x `height` CSS pixels and `deviceScaleFactor` (default 1). */
export async function setViewport(
  session: CdpSession,
  width: number,
  height: number,
  options: { deviceScaleFactor?: number } | undefined,
  timeoutMs: number,
): Promise<void> {
  const scale = options?.deviceScaleFactor ?? 1;
  if (![width, height, scale].every((value) => typeof value === 'number' && Number.isFinite(value) && value > 0)) {
    throw new InvalidOptionError(
      `setViewportSize(width, height, { deviceScaleFactor }) takes positive numbers, not ${[width, height, scale].map(String).join(', ')}.`,
    );
  }
  const [w, h] = [Math.round(width), Math.round(height)];
  await session.send(
    'Emulation.setDeviceMetricsOverride',
    { width: w, height: h, deviceScaleFactor: scale, mobile: false, screenWidth: w, screenHeight: h },
    { timeoutMs },
  );
}
