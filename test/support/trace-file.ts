// A trace zip as the tests read it: its trace.trace events, its network list, and the actions among
// them by title with their errors, so a test says which calls a trace holds without the viewer (trace-viewer.test.ts).

import { readFileSync } from 'node:fs';
import { unzip } from './zip.js';

export type TraceEvent = Record<string, any>;

export interface TraceAction {
  title: string;
  /** The typed error's class and message, when the call failed. */
  error?: { name: string; message: string };
  /** The call's result as its `after` event holds it (inline when small). */
  result?: unknown;
}

/** The lines of one of the zip's JSON-lines files (trace.trace, trace.network), parsed. */
function traceLines(file: string | Uint8Array, name: string): TraceEvent[] {
  const files = unzip(typeof file === 'string' ? readFileSync(file) : file);
  const lines = files.get(name);
  if (!lines) throw new Error(`no ${name} in the zip (its files: ${[...files.keys()].join(', ')})`);
  return lines
    .toString()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as TraceEvent);
}

export function traceEvents(file: string | Uint8Array): TraceEvent[] {
  return traceLines(file, 'trace.trace');
}

/** The network list as the viewer reads it: each request's HAR entry, from trace.network. */
export function traceNetwork(file: string | Uint8Array): TraceEvent[] {
  return traceLines(file, 'trace.network')
    .filter((event) => event.type === 'resource-snapshot')
    .map((event) => event.snapshot as TraceEvent);
}

/** Each action's title in the order the calls began, with the error its `after` event holds. */
export function traceActions(file: string | Uint8Array): TraceAction[] {
  const events = traceEvents(file);
  const after = new Map(events.filter((event) => event.type === 'after').map((event) => [event.callId, event]));
  return events
    .filter((event) => event.type === 'before')
    .map((event) => {
      const { error, result } = after.get(event.callId) ?? {};
      if (error) return { title: event.title, error: { name: error.name, message: error.message } };
      return result === undefined ? { title: event.title } : { title: event.title, result };
    });
}
