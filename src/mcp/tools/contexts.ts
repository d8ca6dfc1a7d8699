// The `context` tool: browser contexts a client opens, names and closes itself. Every client works
// in one of its own already (contexts.ts); a handle lets a client of revision 2026-07-28, whose
// requests carry no session, keep its state from one call to the next, and any client keep tasks
// apart (two logins side by side).

import type { CallToolResult } from '@modelcontextprotocol/server';
import type { Caller, ClientContexts } from '../contexts.js';
import { failure, optionalString, text } from './kit.js';

/** The argument every page tool takes beside its own. */
export const CONTEXT_ARGUMENT = {
  type: 'string',
  description: 'A handle the context tool gave ("open"): work in that browser context. Leave it out to work in your own.',
} as const;

export function contextTool(idleMs: number): { name: string; title: string; description: string; inputSchema: Record<string, unknown> } {
  const idle = idleMs > 0 ? ` A context ends by itself after ${Math.round(idleMs / 60_000) || 1} minute(s) without a tool call.` : '';
  return {
    name: 'context',
    title: 'Open, close or list browser contexts',
    description:
      'A browser context is a browser state of its own: cookies, storage, cache and tabs. You already work in one that no other ' +
      'client sees. open: a new one, returned as {"context": "<handle>"}; pass that handle as `context` to the other tools to work ' +
      'in it (to keep a task apart, say a second login, or to keep your state across requests). close: end the context named by ' +
      `\`context\`: its tabs, cookies and storage are gone. list: the contexts you opened.${idle}`,
    inputSchema: {
      type: 'object',
      properties: {
        action: { type: 'string', enum: ['open', 'close', 'list'] },
        context: { type: 'string', description: 'close: the handle of the context to close.' },
      },
      required: ['action'],
    },
  };
}

export async function runContextTool(args: Record<string, unknown>, contexts: ClientContexts, caller: Caller): Promise<CallToolResult> {
  switch (args.action) {
    case 'open':
      return text(JSON.stringify({ context: await contexts.open(caller) }));
    case 'close': {
      const handle = optionalString(args.context);
      if (!handle)
        return failure('InvalidOptionError', 'context "close" needs `context`, the handle "open" gave; call context "list" to see them.');
      await contexts.close(handle, caller);
      return text(`Closed context ${handle}: its tabs, cookies and storage are gone.`);
    }
    default:
      return text(JSON.stringify({ contexts: contexts.list(caller) }));
  }
}
