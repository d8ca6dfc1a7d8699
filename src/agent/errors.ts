// The errors the agent raises of its own (Stagehand 3 has the same names, and the Stagehand entry
// exports these): SdkErrors, in Tendril's one tree.

import { SdkError } from '../errors.js';

/** execute() was given callbacks that only a streaming agent (`stream: true`) calls. */
export class StreamingCallbacksInNonStreamingModeError extends SdkError {
  readonly invalidCallbacks: string[];
  constructor(invalidCallbacks: string[]) {
    super(`These callbacks need stream: true: ${String(invalidCallbacks)}.`);
    this.invalidCallbacks = invalidCallbacks;
  }
}

/** The caller's signal stopped a run; `reason` is the signal's. */
export class AgentAbortError extends SdkError {
  readonly reason: string;
  constructor(reason = 'aborted') {
    super(`The agent was aborted: ${reason}`);
    this.reason = reason;
  }
}

// Names written out, as errors.ts does: a minifier renames classes, and `error.name` is read.
for (const [name, type] of Object.entries({ StreamingCallbacksInNonStreamingModeError, AgentAbortError })) {
  Object.defineProperty(type, 'name', { value: name });
}
