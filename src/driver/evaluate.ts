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

/** The call's result; a page exception is SdkEvalError with the page's own message and stack, prefixed by `what` ran. */
function outcome(response: Protocol.Runtime.CallFunctionOnResponse, what: string): Protocol.Runtime.RemoteObject {
  if (response.exceptionDetails)
    throw new SdkEvalError(`JavaScript evaluated ${what} threw: ${describeException(response.exceptionDetails)}`);
  return response.result;
}

/** Calls `fn` with the given arguments and returns its result by value (or, `byValue` false, its handle). */
export async function callFunction<Result>(
  session: CdpSession,
  target: CallTarget,
  fn: (...args: never[]) => unknown,
  args: Protocol.Runtime.CallArgument[],
  options: { timeoutMs?: number; userGesture?: boolean; what: string },
  byValue = true,
): Promise<Result> {
  const response = await session.send(
    'Runtime.callFunctionOn',
    {
      ...target,
      functionDeclaration: functionDeclaration(fn),
      arguments: args,
      returnByValue: byValue,
      awaitPromise: true,
      userGesture: options.userGesture,
    },
    { timeoutMs: options.timeoutMs },
  );
  const result = outcome(response, options.what);
  return (byValue ? result.value : result) as Result;
}

/**
 * Runs `fn` (or an expression) in one execution context and returns its result by value, as JSON
 * holds it, except what JSON cannot hold (NaN, -0, ±Infinity, a BigInt, undefined in an array),
 * which comes back as itself. A page exception becomes SdkEvalError.
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
  const what = 'in the page';
  const result: Protocol.Runtime.RemoteObject =
    typeof fn === 'string'
      ? outcome(
          await session.send(
            'Runtime.evaluate',
            { expression: fn, contextId, awaitPromise: true, userGesture: true },
            { timeoutMs: left() },
          ),
          what,
        )
      : // JSON drops an undefined value, and an empty CallArgument means undefined.
        await callFunction(
          session,
          { executionContextId: contextId },
          fn,
          [{ value: arg }],
          { timeoutMs: left(), userGesture: true, what },
          false,
        );
  if (!result.objectId)
    return (
      result.unserializableValue === undefined ? result.value : unmark(JSON.stringify({ [MARK]: result.unserializableValue }))
    ) as Result;
  const timeoutMs = left();
  try {
    // The object is read by value in a second step, with what JSON cannot hold marked (pageSpecials).
    return unmark(
      await callFunction(session, { objectId: result.objectId }, pageSpecials, [], { timeoutMs, what: 'in the page' }),
    ) as Result;
  } finally {
    void session.sendQuiet('Runtime.releaseObject', { objectId: result.objectId });
  }
}

const MARK = '\u0000tendril';

/**
 * Page side, with `this` the result: itself in an array when JSON holds all of it, else its JSON
 * with each value JSON cannot hold written as { [MARK]: its name } (a page that broke JSON gets
 * the plain value).
 */
function pageSpecials(this: unknown): unknown {
  let found = 0;
  try {
    const json = JSON.stringify(this, function (this: unknown, _key, value) {
      const kind = typeof value;
      if (
        kind !== 'bigint' &&
        !(kind === 'number' && (value - value !== 0 || 1 / value === -Infinity)) &&
        !(value === undefined && Array.isArray(this))
      )
        return value;
      found = 1;
      return { '\u0000tendril': kind === 'bigint' ? `${value}n` : 1 / value === -Infinity ? '-0' : `${value}` };
    });
    if (found) return json;
  } catch {}
  return [this];
}

/** The value pageSpecials gave, with what JSON cannot hold ("NaN", "-0", "-Infinity", "undefined", "12n"...) as itself. */
const unmark = (value: unknown): unknown =>
  typeof value === 'string'
    ? JSON.parse(value, (_key, each) => {
        const name = each?.[MARK];
        return typeof name !== 'string'
          ? each
          : /\dn$/.test(name)
            ? BigInt(name.slice(0, -1))
            : name === 'undefined'
              ? undefined
              : Number(name);
      })
    : (value as unknown[])[0];
