// The types of Stagehand 3's `stagehand.agent(config).execute(options)`, as Tendril takes and gives
// them. The AI SDK's own types (messages, steps, tools) are named here by their shape rather than
// imported: `ai` is an optional peer, and a TypeScript project without it must still resolve these.

import type { Page } from '../driver/page.js';
import type { ModelConfiguration, TokenBudget } from '../types.js';

/**
 * A model as the agent takes it (Stagehand's form, also its `StagehandModelConfiguration`): Tendril's
 * configuration, plus the client options Stagehand took.
 */
export type AgentModelConfiguration =
  | string
  | (Exclude<ModelConfiguration, string> & {
      /** openai: `"responses"` (default) or `"chat"`; Tendril's `api`. */
      openaiEndpointFormat?: 'responses' | 'chat';
      /** openai reasoning models: `"low"`, `"medium"`, `"high"`. */
      reasoningEffort?: string;
      /** anthropic: a token budget for extended thinking. */
      thinkingBudget?: number;
      temperature?: number;
      headers?: Record<string, string>;
      organization?: string;
    });

/** `variables` values (Stagehand's form); act() takes their string forms. */
export type VariableValue = string | number | boolean | { value: string | number | boolean; description?: string };
export type Variables = Record<string, VariableValue>;

/** A message of the AI SDK (`ModelMessage`): `{ role, content }`. */
export interface AgentMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: unknown;
  [field: string]: unknown;
}

/** An AI SDK tool (`tool({ description, inputSchema, execute })` from "ai"). */
export interface AgentTool {
  description?: string;
  inputSchema: unknown;
  execute?: (input: never, options: never) => unknown;
  [field: string]: unknown;
}

/** One step of the loop as the AI SDK reports it (its `StepResult`). */
export interface AgentStep {
  text: string;
  toolCalls: Array<{ toolName: string; toolCallId: string; input: unknown }>;
  toolResults: Array<{ toolName: string; toolCallId: string; input: unknown; output: unknown }>;
  finishReason: string;
  usage: { inputTokens?: number; outputTokens?: number; reasoningTokens?: number; cachedInputTokens?: number };
  [field: string]: unknown;
}

/** 'dom': elements of the page text; 'hybrid': also points of screenshots; 'cua' (computer-use providers) is refused. */
export type AgentToolMode = 'dom' | 'hybrid' | 'cua';

export interface AgentConfig {
  /** Your instructions, given to the model beside Tendril's own agent prompt. */
  systemPrompt?: string;
  /** MCP clients or server URLs: refused (non-empty) in Tendril; pass AI SDK tools in `tools`. */
  integrations?: unknown[];
  /** More tools for the model, AI SDK tools by name; they run beside Tendril's. */
  tools?: Record<string, AgentTool>;
  /** @deprecated Stagehand's older spelling of `mode: "cua"`, refused like it. */
  cua?: boolean;
  /** The model that runs the loop; the instance's `model` (or `llmClient`) when absent. */
  model?: AgentModelConfiguration;
  /** The model of the act/extract/observe calls the tools make; `model` when absent, then the instance's. */
  executionModel?: AgentModelConfiguration;
  /** Token limits of each run (docs/agent.md, docs/budgets.md): its requests and its tools' act/extract/observe together. */
  budget?: TokenBudget;
  /** `execute()` resolves an AI SDK stream result with `result` (a promise of the AgentResult). */
  stream?: boolean;
  mode?: AgentToolMode;
}

/** Called with the AI SDK's prepareStep options ({ steps, stepNumber, model, messages }); may return changes. */
export type AgentPrepareStep = (options: { steps: AgentStep[]; stepNumber: number; model: unknown; messages: AgentMessage[] }) => unknown;

export interface AgentCallbacks {
  prepareStep?: AgentPrepareStep;
  /** After each model request and the tools it called. */
  onStepFinish?: (step: AgentStep) => unknown;
  /** Stagehand's evidence recorder: refused in Tendril. */
  onEvidence?: unknown;
}

export interface AgentExecuteCallbacks extends AgentCallbacks {
  /** Only for mode "cua", which Tendril does not have: refused. */
  onSafetyConfirmation?: unknown;
  /** These four need `stream: true`; given without it they are refused (StreamingCallbacksInNonStreamingModeError). */
  onChunk?: never;
  onFinish?: never;
  onError?: never;
  onAbort?: never;
}

export interface AgentStreamCallbacks extends AgentCallbacks {
  onChunk?: (event: { chunk: unknown }) => unknown;
  onFinish?: (event: unknown) => unknown;
  onError?: (event: { error: unknown }) => unknown;
  onAbort?: (event: { steps: AgentStep[] }) => unknown;
}

export interface AgentExecuteOptionsBase {
  instruction: string;
  /** Model requests of the loop, at most (default 20). */
  maxSteps?: number;
  /** Made the active page before the run: one of this instance's pages, or a Playwright or Puppeteer page connected through connectURL(). */
  page?: Page | object;
  /** The hybrid mode draws the pointer over the page (page.enableCursorOverlay()) unless this is false. */
  highlightCursor?: boolean;
  /** An earlier result's `messages`, to continue that conversation. */
  messages?: AgentMessage[];
  /** Aborting it ends the run with AgentAbortError. */
  signal?: AbortSignal;
  /** This run's token limits; its fields win over agent({ budget })'s. Past them the run rejects with BudgetExceededError. */
  budget?: TokenBudget;
  /** Tool names to leave out (act, fillForm, ariaTree, extract, goto, scroll, keys, navback, screenshot, think, wait). */
  excludeTools?: string[];
  /** A zod object schema: the final answer carries `output` of that shape. */
  output?: unknown;
  /** `%name%` placeholders the model may write; their values are filled in, never shown to it. */
  variables?: Variables;
  /** Deadline of one tool call, in ms (default 45 s): a tool that runs out is reported to the model. */
  toolTimeout?: number;
  /** Browserbase's web search: refused in Tendril. */
  useSearch?: boolean;
}

export interface AgentExecuteOptions extends AgentExecuteOptionsBase {
  callbacks?: AgentExecuteCallbacks;
}

export interface AgentStreamExecuteOptions extends AgentExecuteOptionsBase {
  callbacks?: AgentStreamCallbacks;
}

/** One thing the agent did: the tool's name as `type`, its arguments and (most of) its result. */
export interface AgentAction {
  type: string;
  reasoning?: string;
  taskCompleted?: boolean;
  action?: string;
  timeMs?: number;
  pageText?: string;
  pageUrl?: string;
  instruction?: string;
  [key: string]: unknown;
}

export interface AgentUsage {
  input_tokens: number;
  output_tokens: number;
  reasoning_tokens?: number;
  cached_input_tokens?: number;
  inference_time_ms: number;
}

export interface AgentResult {
  /** Whether the model judged the task done (false when the run hit maxSteps or failed). */
  success: boolean;
  message: string;
  actions: AgentAction[];
  completed: boolean;
  metadata?: Record<string, unknown>;
  usage?: AgentUsage;
  /** The conversation, to pass as `messages` to a later execute(). */
  messages?: AgentMessage[];
  /** With an `output` schema: the data it describes. */
  output?: Record<string, unknown>;
}

/** With `stream: true`: the AI SDK's streamText result (textStream, fullStream, ...) and `result`. */
export interface AgentStreamResult {
  textStream: AsyncIterable<string>;
  fullStream: AsyncIterable<unknown>;
  /** Runs the stream to its end without reading it (then `result` settles). */
  consumeStream(): PromiseLike<void>;
  /** The last step's text. */
  text: PromiseLike<string>;
  steps: PromiseLike<AgentStep[]>;
  /** Everything else the AI SDK's StreamTextResult has (toUIMessageStreamResponse(), ...). */
  [member: string]: unknown;
  result: Promise<AgentResult>;
}

export interface AgentInstance {
  execute: (instructionOrOptions: string | AgentExecuteOptions) => Promise<AgentResult>;
}

export interface NonStreamingAgentInstance {
  execute: (instructionOrOptions: string | AgentExecuteOptions) => Promise<AgentResult>;
}

export interface StreamingAgentInstance {
  execute: (instructionOrOptions: string | AgentStreamExecuteOptions) => Promise<AgentStreamResult>;
}
