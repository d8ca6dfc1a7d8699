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
 * Runs `fn` (or an expression) in one execution context and returns its JSON-serialisable result.
 * A page exception becomes SdkEvalError with the page's own message and stack.
 */
export async function evaluateInContext<Arg, Result>(
  session: CdpSession,
  contextId: number,
  fn: PageFunction<Arg, Result>,
  arg: Arg | undefined,
  timeoutMs?: number,
): Promise<Result> {
  const what = 'in the page';
  if (typeof fn !== 'string') {
    // JSON drops an undefined value, and an empty CallArgument means undefined.
    return callFunction(session, { executionContextId: contextId }, fn, [{ value: arg }], { timeoutMs, userGesture: true, what });
  }
  const response = await session.send(
    'Runtime.evaluate',
    { expression: fn, contextId, returnByValue: true, awaitPromise: true, userGesture: true },
    { timeoutMs },
  );
  if (response.exceptionDetails) {
    throw new SdkEvalError(`JavaScript evaluated ${what} threw: ${describeException(response.exceptionDetails)}`);
  }
  return response.result.value as Result;
}
