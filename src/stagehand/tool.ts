// Stagehand re-exports the AI SDK's `tool()`, so agent code may import it from Stagehand's package.
// The AI SDK's is an identity function whose types tie `execute`'s input to the schema; this one
// does the same through the Standard Schema types zod 3.25+ and 4 carry, without importing `ai`
// (an optional peer, loaded only by the first model call).

import type { AgentTool } from '../agent/types.js';

/** What a zod schema (or any Standard Schema) says its parsed value is. */
type Parsed<S> = S extends { '~standard': { types?: infer T } } ? (NonNullable<T> extends { output: infer O } ? O : unknown) : unknown;

/** An AI SDK tool for agent({ tools }): `tool({ description, inputSchema: z.object({...}), execute })`. */
export function tool<S, OUTPUT>(definition: {
  description?: string;
  inputSchema: S;
  execute?: (
    input: Parsed<S>,
    options: { toolCallId: string; abortSignal?: AbortSignal; messages: unknown[] },
  ) => OUTPUT | PromiseLike<OUTPUT>;
  [field: string]: unknown;
}): AgentTool {
  return definition as unknown as AgentTool;
}
