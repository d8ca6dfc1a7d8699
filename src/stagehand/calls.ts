// Small translations between Stagehand's call shapes and the Sdk's: its variables (numbers,
// booleans, `{ value, description }`) as the strings act() fills in, and the Sdk's TimeoutError as
// Stagehand's class for the method.

import { TimeoutError } from '../errors.js';
import type { Variables } from './types.js';

/** Stagehand's variable values (numbers, booleans, `{ value, description }`) as the strings act() fills in. */
export function strings(variables: Variables | undefined): Record<string, string> | undefined {
  if (variables === undefined || variables === null || typeof variables !== 'object') return variables as undefined;
  return Object.fromEntries(
    Object.entries(variables).map(([name, item]) => [
      name,
      String(typeof item === 'object' && item !== null && 'value' in item ? item.value : item),
    ]),
  );
}

export function describe(item: Variables[string] | undefined): string {
  return typeof item === 'object' && item !== null && item.description ? ` (${item.description})` : '';
}

/** A TimeoutError of the Sdk's as Stagehand's class for the method, with the same message; anything else as it is. */
export function retyped(error: unknown, type: new (timeoutMs: number) => TimeoutError): unknown {
  if (!(error instanceof TimeoutError) || type.prototype.isPrototypeOf(error)) return error;
  const out = new type(error.timeoutMs);
  out.message = error.message;
  Object.defineProperty(out, 'cause', { value: error, configurable: true, writable: true });
  return out;
}
