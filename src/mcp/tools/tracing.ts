// start_tracing / stop_tracing (as Playwright MCP has them): a trace of the client's browser context
// (docs/tracing.md), written where the server's --trace-dir says (else the system's temp folder),
// its path the stop tool's answer, so that a person opens what the agent did in the trace viewer.

import { mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { text, type Tool } from './kit.js';

/** One file per stop, never overwriting another session's. */
function traceFile(dir: string | undefined): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  return path.resolve(dir ?? os.tmpdir(), `tendril-trace-${stamp}-${Math.random().toString(36).slice(2, 8)}.zip`);
}

export const TRACING_TOOLS: Tool[] = [
  {
    name: 'start_tracing',
    title: 'Start recording a trace',
    description:
      "Start recording this browser context's tool calls as a trace for Playwright's trace viewer: each action with the page " +
      'before and after it, a filmstrip, network and console, and every model request. Call stop_tracing to save it.',
    inputSchema: { type: 'object', properties: { title: { type: 'string', description: "The trace's title, shown by the viewer." } } },
    readOnly: false,
    async run(args, session) {
      const title = typeof args.title === 'string' && args.title.trim() ? args.title.trim() : undefined;
      await (await session.context()).tracing.start({ screenshots: true, snapshots: true, title });
      return text('Recording a trace; call stop_tracing to save it.');
    },
  },
  {
    name: 'stop_tracing',
    title: 'Stop recording and save the trace',
    description: 'Stop the trace start_tracing began and save it as a zip; returns its path (open it with npx playwright show-trace PATH).',
    inputSchema: { type: 'object', properties: {} },
    readOnly: false,
    async run(_args, session, call) {
      const file = traceFile(call.traceDir);
      await mkdir(path.dirname(file), { recursive: true });
      await (await session.context()).tracing.stop({ path: file });
      return text(JSON.stringify({ trace: file }));
    },
  },
];
