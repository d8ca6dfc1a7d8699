// The record of a run: each tool call as an AgentAction (Stagehand's shape: the tool's name as `type`,
// its arguments, most of its result), and the closing verdict, where the model reviews the run and
// calls `done` with a summary, whether the task was carried out, and the `output` asked for.

import { readSchema, type ZodLike } from '../extract/schema.js';
import { toJsonSchema } from '../extract/jsonSchema.js';
import type { AgentModel } from './model.js';
import { verdictPrompt } from './prompt.js';
import type { AgentAction, AgentMessage, AgentStep } from './types.js';

/** Results too large or too raw to copy into an action; `messages` still holds them. */
const KEPT_OUT = new Set(['base64', 'content', 'screenshotBase64']);

/** The actions one tool call stands for: one, or for fillForm one plus an act per field it filled. */
export function actionsOf(toolName: string, input: unknown, output: unknown, reasoning: string | undefined): AgentAction[] {
  const args = input && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
  const result = output && typeof output === 'object' && !Array.isArray(output) ? (output as Record<string, unknown>) : undefined;
  const action: AgentAction = {
    type: toolName,
    reasoning,
    taskCompleted: toolName === 'done' ? args.taskComplete === true : false,
    ...args,
  };
  if (toolName === 'act' || toolName === 'fillForm') {
    if (typeof result?.success === 'boolean') action.success = result.success;
    if (result?.success === false && result.error) action.error = result.error;
    if (toolName === 'act' && result?.playwrightArguments) action.playwrightArguments = result.playwrightArguments;
    if (toolName === 'act') return [action];
    const performed = Array.isArray(result?.playwrightArguments) ? result.playwrightArguments : [];
    return [
      action,
      ...performed.map((each) => ({ type: 'act', reasoning: 'performed by fillForm', taskCompleted: false, playwrightArguments: each })),
    ];
  }
  if (toolName === 'screenshot') return [{ ...action, result: 'screenshotTaken' }];
  if (toolName !== 'ariaTree' && result) {
    for (const [key, value] of Object.entries(result)) if (!KEPT_OUT.has(key)) action[key] = value;
  }
  return [action];
}

export interface Verdict {
  reasoning: string;
  taskComplete: boolean;
  output?: Record<string, unknown>;
  /** The request and the model's answer, to add to the conversation. */
  messages: AgentMessage[];
  usage: AgentStep['usage'];
}

/** The JSON Schema of the `output` the caller asked for, and its field names for the prompt. */
export function outputSchema(schema: unknown): { json: Record<string, unknown>; fields: string[] } | undefined {
  if (schema === undefined || schema === null) return undefined;
  const { node } = readSchema(schema);
  const json = toJsonSchema(node);
  const fields =
    node.kind === 'object'
      ? node.fields.map((field) => (field.node.description ? `${field.key} (${field.node.description})` : field.key))
      : ['output'];
  return { json, fields };
}

/**
 * AI SDK message lists may carry `undefined` in places (a tool result's optional field) that its
 * own prompt check refuses when they are sent again: copy them without.
 */
export function withoutUndefined<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutUndefined) as T;
  if (value && typeof value === 'object') {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return value;
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, item]) => item !== undefined)
        .map(([key, item]) => [key, withoutUndefined(item)]),
    ) as T;
  }
  return value;
}

interface VerdictRequest {
  /** The AI SDK's module, loaded by the run (named loosely: declarations must not name `ai`, an optional peer). */
  ai: object;
  model: AgentModel;
  messages: AgentMessage[];
  instruction: string;
  output?: unknown;
  signal?: AbortSignal;
  timeoutMs: number;
}

export async function askVerdict(request: VerdictRequest): Promise<Verdict> {
  const { model } = request;
  const ai = request.ai as typeof import('ai');
  const wanted = outputSchema(request.output);
  const properties: Record<string, import('ai').JSONSchema7> = {
    reasoning: { type: 'string', description: 'A short summary of what was done and how it ended.' },
    taskComplete: { type: 'boolean', description: 'true only if the whole task was carried out.' },
  };
  if (wanted) properties.output = { ...wanted.json, description: 'The data the user asked for.' };
  const done = {
    description: 'Ends the task with your verdict' + (wanted ? ' and the data asked for.' : '.'),
    inputSchema: ai.jsonSchema({ type: 'object', properties, required: Object.keys(properties), additionalProperties: false }),
    execute: async (input: unknown) => ({ success: true, ...(input as object) }),
  };
  const ask: AgentMessage = { role: 'user', content: wanted ? 'Give your verdict and the requested data now.' : 'Give your verdict now.' };
  const result = await ai.generateText({
    model: model.model as never,
    system: verdictPrompt(request.instruction, wanted?.fields),
    messages: withoutUndefined([...request.messages, ask]) as never,
    tools: { done } as never,
    toolChoice: { type: 'tool', toolName: 'done' } as never,
    abortSignal: request.signal,
    timeout: request.timeoutMs,
    maxRetries: model.maxRetries,
    providerOptions: model.providerOptions as never,
    temperature: model.temperature,
  });
  const messages = [ask, ...(result.response.messages as unknown as AgentMessage[])];
  const call = result.toolCalls.find((each) => each.toolName === 'done');
  if (!call) return { reasoning: result.text || 'The run ended.', taskComplete: false, messages, usage: result.usage };
  const input = call.input as { reasoning?: unknown; taskComplete?: unknown; output?: unknown };
  let output = input.output && typeof input.output === 'object' ? (input.output as Record<string, unknown>) : undefined;
  if (output && request.output) {
    // The caller's zod schema has the last word (coercions, defaults), as extract()'s results do.
    const checked = await (request.output as ZodLike)['~standard'].validate(output);
    if (!checked.issues) output = checked.value as Record<string, unknown>;
  }
  return {
    reasoning: typeof input.reasoning === 'string' ? input.reasoning : '',
    taskComplete: input.taskComplete === true,
    ...(output ? { output } : {}),
    messages,
    usage: result.usage,
  };
}
