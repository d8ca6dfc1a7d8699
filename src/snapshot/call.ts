import type { Protocol } from 'devtools-protocol';
import { SdkDomProcessError } from '../errors.js';
import { describeException } from '../driver/evaluate.js';
import type { EngineHandle, Frame } from '../driver/frame.js';
import type { CaptureOptions } from '../injected/reader/types.js';

const CALL = 'function (options, root, ...frames) { return this.read(this, options, root, frames); }';

/**
 * Runs the snapshot page script in the frame's isolated world, the frame's selector engine as `this`,
 * and parses its answer. The script itself went into the page with the engine (ContextOptions.reader).
 */
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
      functionDeclaration: CALL,
      objectId: engine.objectId,
      arguments: [{ value: options }, ...args],
      returnByValue: true,
    },
    { timeoutMs },
  );
  if (response.exceptionDetails) {
    throw new SdkDomProcessError(
      `Reading the page in frame ${frame.url() || frame.id} failed: ${describeException(response.exceptionDetails)}`,
    );
  }
  const answer = String(response.result.value);
  if (options.mode !== 'capture') return JSON.parse(answer) as T;
  // A capture's text follows its JSON header raw (src/injected/reader/index.ts).
  const cut = answer.indexOf('\n');
  return { ...JSON.parse(answer.slice(0, cut)), text: answer.slice(cut + 1) } as T;
}
