// How a capture's failures reach the caller: a handle let go under it, and the errors of the frame the
// caller asked about, in the contract's terms.

import { PageClosedError, ProtocolError, SdkDomProcessError, SdkError, SdkEvalError, TargetClosedError, TimeoutError } from '../errors.js';
import { isContextGone } from '../driver/evaluate.js';
import type { Frame } from '../driver/frame.js';

/** A handle passed to the page was let go before the command ran. */
export function isStaleHandle(error: unknown): boolean {
  return error instanceof ProtocolError && /Could not find object with given id/.test(error.message);
}

/** Errors of the frame the caller asked about, in the contract's terms. */
export function mapError(error: unknown, frame: Frame): unknown {
  if (error instanceof TimeoutError || error instanceof SdkDomProcessError) return error;
  if (error instanceof TargetClosedError || error instanceof PageClosedError) {
    return new PageClosedError(`The page closed while its text was being captured (${frame.url()}).`, { cause: error });
  }
  if (isContextGone(error)) {
    return new SdkEvalError(`The page kept navigating while its text was being captured (${frame.url()}); try again once it settles.`, {
      cause: error,
    });
  }
  if (error instanceof SdkError) return error;
  return new SdkEvalError(`Capturing the text of ${frame.url()} failed: ${error instanceof Error ? error.message : String(error)}`, {
    cause: error,
  });
}
