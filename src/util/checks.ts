// Checks of argument values that many methods share, with the same clear message everywhere.

import { InvalidOptionError } from '../errors.js';

/**
 * `value` as a duration: a finite number of milliseconds, at least `min` (0, or 1 for "positive").
 * InvalidOptionError naming `what` otherwise.
 */
export function milliseconds(value: unknown, what: string, min: 0 | 1 = 0): number {
  if (typeof value === 'number' && Number.isFinite(value) && value >= min) return value;
  throw new InvalidOptionError(
    `${what} must be a ${min ? 'positive ' : ''}number of milliseconds${min ? '' : ', 0 or more'}, not ${JSON.stringify(value) ?? String(value)}.`,
  );
}
