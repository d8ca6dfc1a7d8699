import type { Protocol } from 'devtools-protocol';
import type { CdpSession } from '../cdp/session.js';
import { SdkDomProcessError } from '../errors.js';
import { describeException } from '../driver/evaluate.js';
import type { Frame } from '../driver/frame.js';
import { CAPTURE_SOURCE } from './page/generated.js';
import type { CaptureOptions } from './page/types.js';

/** The frame's selector engine: the page script runs with it as `this`. */
export interface EngineHandle {
  world: { session: CdpSession; contextId: number };
  objectId: string;
}

/** Runs the snapshot page script in the frame's isolated world and parses its JSON answer. */
export async function callPageScript<T>(
  frame: Frame,
  engine: EngineHandle,
  options: CaptureOptions,
  args: Protocol.Runtime.CallArgument[],
  timeoutMs: number,
): Promise<T> {
  const response = await engine.world.session.send(
    'Runtime.callFunctionOn',
    {
      functionDeclaration: CAPTURE_SOURCE,
      objectId: engine.objectId,
      arguments: [{ value: options }, ...args],
      returnByValue: true,
    },
    { timeoutMs },
  );
  if (response.exceptionDetails) {
    throw new SdkDomProcessError(`Reading the page in frame ${frame.url() || frame.id} failed: ${describeException(response.exceptionDetails)}`);
  }
  return JSON.parse(String(response.result.value)) as T;
}
