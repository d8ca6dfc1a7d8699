import type { Protocol } from 'devtools-protocol';
import { SdkDomProcessError } from '../errors.js';
import { describeException } from '../driver/evaluate.js';
import type { EngineHandle, Frame } from '../driver/frame.js';
import { READER_SOURCE } from './page/generated.js';
import type { CaptureOptions } from './page/types.js';

/** Engines of contexts without the reader that were sent it already (it stays, as their `read`). */
const sent = new WeakSet<EngineHandle>();
const CALL = 'function (options, root, ...frames) { return this.read(this, options, root, frames); }';
const INSTALL_AND_CALL = `function (options, root, ...frames) { return (this.read ??= ${READER_SOURCE})(this, options, root, frames); }`;

/**
 * Runs the snapshot page script in the frame's isolated world, the frame's selector engine as `this`,
 * and parses its JSON answer. The script itself crosses the protocol once per document: with the
 * engine, or with the first call on it.
 */
export async function callPageScript<T>(
  frame: Frame,
  engine: EngineHandle,
  options: CaptureOptions,
  args: Protocol.Runtime.CallArgument[],
  timeoutMs: number,
): Promise<T> {
  // Commands of one session run in order: a call sent after the one that installs finds it there.
  const installed = engine.reader || sent.has(engine);
  sent.add(engine);
  const response = await engine.world.session.send(
    'Runtime.callFunctionOn',
    {
      functionDeclaration: installed ? CALL : INSTALL_AND_CALL,
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
