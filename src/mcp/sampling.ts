// The MCP client's model, reached through sampling (`sampling/createMessage`): what extract, act and
// observe use when this server has no model of its own and the client offers one. It is an AI SDK
// language model like any other to the code that asks it, so the prompts, the chunking and the
// schema checks are the same; the client's model answers, and the client (and its user, who may be
// shown the request) decides whether and with which model. Sampling has no structured output, so
// the system prompt asks for one JSON object and the text reply goes to the usual JSON parsing.
// Only the MCP server imports this file: the extension bundle never sees it.

import {
  SdkErrorCode,
  type CreateMessageRequest,
  type CreateMessageResult,
  type CreateMessageResultWithTools,
  type McpServer,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { LanguageModel } from 'ai';
import { MissingLLMConfigurationError } from '../errors.js';
import { MODEL_OBJECT } from '../llm/ask.js';
import { parseModelConfiguration } from '../llm/config.js';
import { languageModel } from '../llm/providers.js';
import { Sdk } from '../sdk.js';
import type { ModelConfiguration, SdkOptions } from '../types.js';
import { isRoundEnd, type Sample } from './rounds.js';

type LanguageModelV3 = Extract<LanguageModel, { specificationVersion: 'v3' }>;
type CallOptions = Parameters<LanguageModelV3['doGenerate']>[0];
type GenerateResult = Awaited<ReturnType<LanguageModelV3['doGenerate']>>;

/** One `sampling/createMessage` request to the client of the tool call being served. */

/** The name the client's model goes by in our messages and traces. */
const SAMPLING_MODEL_NAME = 'mcp-client/sampling';

/** Room for a long list of records; the client may grant less. */
const MAX_TOKENS = 8192;

/**
 * Reading a page and filling a schema is routine work: a quick model does, as long as it follows
 * instructions. The client maps these onto the models it has; we know none of them, so no hints.
 */
const MODEL_PREFERENCES = { speedPriority: 0.7, intelligencePriority: 0.5, costPriority: 0.5 };

/** Sampling reports no token counts. */
const NO_USAGE: GenerateResult['usage'] = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined },
};

/**
 * The client's sampling for this tool call, if it offers it: it declared the `sampling` capability
 * at initialize, and the server sends it `sampling/createMessage` requests while the call runs. A
 * request of protocol revision 2026-07-28 carries its own envelope, and there the server cannot send
 * requests to the client: src/mcp/rounds.ts asks through `input_required` results instead. A
 * 2025-era client over HTTP has an MCP session (legacyHttp.ts), which remembers its initialize.
 */
export function clientSampling(server: McpServer, ctx: ServerContext): Sample | undefined {
  if (ctx.mcpReq.envelope !== undefined) return undefined;
  if (!server.server.getClientCapabilities()?.sampling) return undefined;
  return (params, options) => ctx.mcpReq.requestSampling(params, options);
}

/**
 * Whether the server's own model settings make a usable model. Only what the user must still supply
 * (a key, a server's address) counts as missing: any other problem with them (an unknown provider, a
 * package not installed) is for the tool call to report, not to hide behind the client's model.
 */
export async function serverHasModel(options: SdkOptions): Promise<boolean> {
  // A hosted service runs the models itself.
  if (Sdk.environment(options).modelsOnService) return true;
  try {
    const spec = parseModelConfiguration(options.model);
    if (!spec) return false;
    await languageModel(spec);
    return true;
  } catch (error) {
    return !(error instanceof MissingLLMConfigurationError);
  }
}

/**
 * A per-call model configuration whose model is the client's, each request bounded by `timeoutMs`;
 * `maxParallelCalls` of a large page's chunks asked at once (default 4).
 */
export function samplingModelConfiguration(sample: Sample, timeoutMs: number, maxParallelCalls?: number): ModelConfiguration {
  // No retries: a request the user declined is not asked again, and a client's failures are not a
  // provider's rate limits.
  return {
    modelName: SAMPLING_MODEL_NAME,
    maxRetries: 0,
    maxParallelCalls,
    [MODEL_OBJECT]: samplingModel(sample, timeoutMs),
  } as ModelConfiguration;
}

function samplingModel(sample: Sample, timeoutMs: number): LanguageModelV3 {
  const [provider, modelId] = SAMPLING_MODEL_NAME.split('/') as [string, string];
  return {
    specificationVersion: 'v3',
    provider,
    modelId,
    supportedUrls: {},
    async doGenerate(options: CallOptions): Promise<GenerateResult> {
      const { systemPrompt, messages } = toSampling(options);
      let result: CreateMessageResult | CreateMessageResultWithTools;
      try {
        result = await sample(
          {
            messages,
            systemPrompt,
            includeContext: 'none',
            maxTokens: options.maxOutputTokens ?? MAX_TOKENS,
            modelPreferences: MODEL_PREFERENCES,
            ...(options.temperature !== undefined && { temperature: options.temperature }),
            ...(options.stopSequences?.length && { stopSequences: options.stopSequences }),
          },
          // The call's deadline cancels the request (the client is told); the SDK's own timeout,
          // 60 s unless given, must not end it sooner.
          { signal: options.abortSignal, timeout: timeoutMs, maxTotalTimeout: timeoutMs },
        );
      } catch (error) {
        if (isRoundEnd(error)) throw error;
        throw new Error(samplingFailure(error, timeoutMs), { cause: error });
      }
      const text = replyText(result.content);
      return {
        content: text ? [{ type: 'text', text }] : [],
        finishReason: { unified: finishReason(result.stopReason), raw: result.stopReason },
        usage: NO_USAGE,
        response: { modelId: result.model },
        warnings: [],
      };
    },
    doStream(): Promise<never> {
      return Promise.reject(new Error("The MCP client's model (sampling) answers whole replies only; nothing streams from it."));
    },
  };
}

type SamplingMessage = CreateMessageRequest['params']['messages'][number];

/** The AI SDK prompt as sampling takes it: the system messages as its system prompt, the rest as text. */
function toSampling(options: CallOptions): { systemPrompt: string; messages: SamplingMessage[] } {
  const system: string[] = [];
  const messages: SamplingMessage[] = [];
  for (const message of options.prompt) {
    if (message.role === 'system') system.push(message.content);
    else if (message.role === 'user' || message.role === 'assistant') {
      const text = message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
      if (text) messages.push({ role: message.role, content: { type: 'text', text } });
    }
  }
  const format = options.responseFormat;
  if (format?.type === 'json') {
    system.push(
      'Answer with one JSON object and nothing else: no prose, no code fence.' +
        (format.schema ? ` It must fit this JSON Schema:\n${JSON.stringify(format.schema)}` : ''),
    );
  }
  return { systemPrompt: system.join('\n\n'), messages };
}

function replyText(content: CreateMessageResult['content'] | CreateMessageResultWithTools['content']): string {
  const parts = Array.isArray(content) ? content : [content];
  return parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

function finishReason(stopReason: string | undefined): GenerateResult['finishReason']['unified'] {
  if (stopReason === 'endTurn' || stopReason === 'stopSequence') return 'stop';
  if (stopReason === 'maxTokens') return 'length';
  return 'other';
}

/** Why the client gave no reply, in words that say whose side it is on. */
function samplingFailure(error: unknown, timeoutMs: number): string {
  const message = error instanceof Error ? error.message : String(error);
  if ((error as { code?: unknown } | undefined)?.code === SdkErrorCode.RequestTimeout) {
    return `the MCP client did not answer the sampling request within ${timeoutMs} ms (raise --model-timeout, or configure a model for the server).`;
  }
  return `the MCP client's sampling request failed (the client or its user may have declined it): ${message}`;
}
