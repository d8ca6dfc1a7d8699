import type { Protocol } from 'devtools-protocol';
import type { CdpSession } from '../cdp/session.js';
import { ProtocolError, SdkEvalError } from '../errors.js';

/** A function to run in the page, or the source of an expression. */
export type PageFunction<Arg, Result> = string | ((arg: Arg) => Result | Promise<Result>);

/** True when a command failed because the execution context it named is gone (navigation, reload). */
export function isContextGone(error: unknown): boolean {
  return (
    error instanceof ProtocolError &&
    /Cannot find context with specified id|Execution context was destroyed|Inspected target navigated or closed|Cannot find default execution context/i.test(
      error.message,
    )
  );
}

export function describeException(details: Protocol.Runtime.ExceptionDetails): string {
  const description = details.exception?.description ?? details.exception?.value ?? details.text;
  return String(description);
}

/**
 * The source of `fn` for Runtime.callFunctionOn, which evaluates it as an expression and calls the
 * function it yields itself, with the arguments and `this` we give. esbuild with keepNames (tsx,
 * vitest, many bundlers) rewrites named inner functions to call a `__name` helper that exists only
 * in the bundle; an arrow supplies a harmless one in the function's scope and returns the function
 * untouched. Nothing here calls through `apply`, `call` or `bind`, which the page may replace.
 */
export function functionDeclaration(fn: (...args: never[]) => unknown): string {
  return `((__name) => (${fn.toString()}))((target) => target)`;
}

let groups = 0;

/** A fresh name for Runtime object handles released together (Runtime.releaseObjectGroup). */
export function objectGroup(purpose: string): string {
  return `tendril-${purpose}-${++groups}`;
}

/** Where a function runs: in an execution context, or with an object (an element) as `this`. */
export type CallTarget = { executionContextId: number } | { objectId: string };

/**
 * Calls `fn` with the given arguments and returns its JSON-serialisable result. A page exception
 * becomes SdkEvalError with the page's own message and stack, prefixed by `what` ran.
 */
export async function callFunction<Result>(
  session: CdpSession,
  target: CallTarget,
  fn: (...args: never[]) => unknown,
  args: Protocol.Runtime.CallArgument[],
  options: { timeoutMs?: number; userGesture?: boolean; what: string },
): Promise<Result> {
  const response = await session.send(
    'Runtime.callFunctionOn',
    {
      ...target,
      functionDeclaration: functionDeclaration(fn),
      arguments: args,
      returnByValue: true,
      awaitPromise: true,
      userGesture: options.userGesture,
    },
    { timeoutMs: options.timeoutMs },
  );
  if (response.exceptionDetails) {
    throw new SdkEvalError(`JavaScript evaluated ${options.what} threw: ${describeException(response.exceptionDetails)}`);
  }
  return response.result.value as Result;
}

/**
 * Runs `fn` (or an expression) in one execution context and returns its result by value, as JSON
 * holds it, except what JSON cannot hold (NaN, -0, ±Infinity, a BigInt, undefined in an array),
 * which comes back as itself. A page exception becomes SdkEvalError with the page's own message
 * and stack.
 */
export async function evaluateInContext<Arg, Result>(
  session: CdpSession,
  contextId: number,
  fn: PageFunction<Arg, Result>,
  arg: Arg | undefined,
  deadline?: number | (() => number),
): Promise<Result> {
  // Each round trip gets what is left of the deadline.
  const left = () => (typeof deadline === 'function' ? deadline() : deadline);
  let timeoutMs = left();
  const common = { returnByValue: false, awaitPromise: true, userGesture: true };
  const response =
    typeof fn === 'string'
      ? await session.send('Runtime.evaluate', { expression: fn, contextId, ...common }, { timeoutMs })
      : // JSON drops an undefined value, and an empty CallArgument means undefined.
        await session.send('Runtime.callFunctionOn', { executionContextId: contextId, functionDeclaration: functionDeclaration(fn), arguments: [{ value: arg }], ...common }, { timeoutMs });
  if (response.exceptionDetails) throw new SdkEvalError(`JavaScript evaluated in the page threw: ${describeException(response.exceptionDetails)}`);
  const { result } = response;
  if (!result.objectId) return (result.unserializableValue === undefined ? result.value : special(result.unserializableValue)) as Result;
  timeoutMs = left();
  try {
    // The object is read by value in a second step, with what JSON cannot hold marked (pageSpecials).
    const [marked, value] = await callFunction<[boolean, unknown]>(session, { objectId: result.objectId }, pageSpecials, [], { timeoutMs, what: 'in the page' });
    return (marked ? unmark(value) : value) as Result;
  } finally {
    void session.sendQuiet('Runtime.releaseObject', { objectId: result.objectId });
  }
}

const MARK = '\u0000tendril';

/** What JSON cannot hold, from its name: "NaN", "-0", "Infinity", "-Infinity", "undefined", "12n". */
function special(name: string): unknown {
  return name.endsWith('n') && name !== 'NaN' ? BigInt(name.slice(0, -1)) : name === 'undefined' ? undefined : Number(name);
}

function unmark(value: unknown): unknown {
  if (!value || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(unmark);
  const record = value as Record<string, unknown>;
  if (typeof record[MARK] === 'string') return special(record[MARK]);
  for (const key of Object.keys(record)) record[key] = unmark(record[key]);
  return record;
}

/**
 * Page side, with `this` the result: [false, itself] when JSON holds all of it, else [true, a copy]
 * with each value JSON cannot hold replaced by { [MARK]: its name }. Only syntax and typeof, never
 * the page's built-ins that it may have replaced, but Object.keys, Array.isArray and WeakSet; should
 * one fail, the value goes as JSON has it. A cycle is left to the by-value read, which refuses it.
 */
function pageSpecials(this: unknown): [boolean, unknown] {
  const mark = '\u0000tendril';
  let found = false;
  const path = new WeakSet<object>();
  const copy = (value: unknown, inArray: boolean): unknown => {
    const kind = typeof value;
    if (kind === 'bigint' || (kind === 'number' && (value !== value || value === Infinity || value === -Infinity || (value === 0 && 1 / (value as number) < 0))) || (inArray && kind === 'undefined')) {
      found = true;
      return { [mark]: value === 0 ? '-0' : `${value as number}${kind === 'bigint' ? 'n' : ''}` };
    }
    if (!value || kind !== 'object' || path.has(value as object)) return value;
    path.add(value as object);
    let out: unknown;
    if (Array.isArray(value)) {
      const list: unknown[] = [];
      for (let i = 0; i < value.length; i++) list[i] = copy(value[i], true);
      out = list;
    } else {
      const record: Record<string, unknown> = {};
      for (const key of Object.keys(value as object)) record[key] = copy((value as Record<string, unknown>)[key], false);
      out = record;
    }
    path.delete(value as object);
    return out;
  };
  try {
    const out = copy(this, false);
    return found ? [true, out] : [false, this];
  } catch {
    return [false, this];
  }
}
