// Calls into a frame's selector engine (src/injected/engine) by method name, for the modules that
// use its page-side helpers beyond selectors: XPaths at a point, waits, screenshot effects.

import type { Protocol } from 'devtools-protocol';
import { SdkEvalError } from '../errors.js';
import { describeException } from './evaluate.js';
import type { EngineHandle, Frame } from './frame.js';

/** Runs `this.<method>(...args)` on the frame's engine and returns the result by value (awaited). */
export async function engineCall<Result>(
  frame: Frame,
  method: string,
  args: Protocol.Runtime.CallArgument[],
  timeoutMs: number,
): Promise<Result> {
  return callEngine(await frame.engine(timeoutMs), method, args, timeoutMs, `The page-side ${method} failed in frame ${frame.url()}`);
}

/** Runs `this.<method>(...args)` on an engine; a page exception is SdkEvalError, `what` saying whose. */
export async function callEngine<Result>(
  engine: EngineHandle,
  method: string,
  args: Protocol.Runtime.CallArgument[],
  timeoutMs: number,
  what: string,
  userGesture = false,
): Promise<Result> {
  const { result, exceptionDetails } = await engine.world.session.send(
    'Runtime.callFunctionOn',
    {
      objectId: engine.objectId,
      functionDeclaration: `function (...args) { return this.${method}(...args); }`,
      arguments: args,
      returnByValue: true,
      awaitPromise: true,
      userGesture,
    },
    { timeoutMs },
  );
  if (exceptionDetails) throw new SdkEvalError(`${what}: ${describeException(exceptionDetails)}`);
  return result.value as Result;
}

/** Runs an engine method with a node of the frame's document (by backend id) as its first argument. */
export async function engineCallOnNode<Result>(
  frame: Frame,
  method: string,
  backendNodeId: number,
  args: Protocol.Runtime.CallArgument[],
  timeoutMs: number,
): Promise<Result> {
  const engine = await frame.engine(timeoutMs);
  const { session, contextId } = engine.world;
  const { object } = await session.send('DOM.resolveNode', { backendNodeId, executionContextId: contextId }, { timeoutMs });
  try {
    return await engineCall<Result>(frame, method, [{ objectId: object.objectId! }, ...args], timeoutMs);
  } finally {
    void session.sendQuiet('Runtime.releaseObject', { objectId: object.objectId! });
  }
}
