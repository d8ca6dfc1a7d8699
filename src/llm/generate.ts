// One structured model request: the JSON Schema goes out as the provider's structured-output format,
// the reply comes back as a parsed JSON value (not yet validated: the caller's schema does that).

import type { LanguageModel } from 'ai';
import { LLMResponseError, TimeoutError } from '../errors.js';
import type { ModelCallUsage } from './metrics.js';
import { importAiSdk } from './aiSdk.js';

/**
 * An AI SDK language model, opaque here: the published declarations must not name the `ai` package,
 * an optional peer that a TypeScript project without it could not resolve.
 */
export type ModelObject = object;

export interface ModelRequest {
  model: ModelObject;
  /** provider/model, for messages. */
  label: string;
  system: string;
  user: string;
  /** A JSON Schema whose root is an object. */
  schema: Record<string, unknown>;
  signal: AbortSignal;
  maxRetries: number;
  /** Per-call provider options (`providerOptions` of the model configuration). */
  providerOptions?: Record<string, Record<string, unknown>>;
  /** The output cap under a token budget (tokenMeter.ts); the provider's default when absent. */
  maxOutputTokens?: number;
  /** The model configuration's `temperature`; the provider's default when absent. */
  temperature?: number;
  /** Strings that must never appear in an error message (the API key, when there is one). */
  secrets: Array<string | undefined>;
}

export interface ModelReply {
  value: unknown;
  usage: ModelCallUsage;
}

/**
 * The AI SDK, loaded by the first model call made here: code that never asks a model itself (env
 * "HOSTED", where models run on the service) neither loads it nor, bundled with it left out, needs it.
 */
let aiSdk: Promise<typeof import('ai')> | undefined;
export const loadAiSdk = (): Promise<typeof import('ai')> => {
  aiSdk ??= importAiSdk('ai', () => import('ai'));
  // A failed load is tried again next time: the package may have been installed meanwhile.
  aiSdk.catch(() => (aiSdk = undefined));
  return aiSdk;
};

/** One structured request to the model (its span and trace entry come from the seam, in ask.ts). */
export async function generateJson(request: ModelRequest): Promise<ModelReply> {
  const { generateText, jsonSchema, NoObjectGeneratedError, Output, RetryError, APICallError } = await loadAiSdk();
  const started = Date.now();
  const usageOf = (usage: Parameters<typeof toUsage>[0]) => toUsage(usage, Date.now() - started);
  try {
    const result = await generateText({
      model: request.model as LanguageModel,
      system: wellFormed(request.system),
      prompt: wellFormed(request.user),
      output: Output.object({ schema: jsonSchema<unknown>(request.schema as never), name: 'extraction' }),
      abortSignal: request.signal,
      maxRetries: request.maxRetries,
      // Any provider options the caller set (reasoning effort, ...) pass straight through.
      providerOptions: request.providerOptions as never,
      temperature: request.temperature,
      maxOutputTokens: request.maxOutputTokens,
    });
    return { value: result.output, usage: usageOf(result.usage) };
  } catch (error) {
    if (request.signal.aborted) throw abortReason(request.signal);
    if (NoObjectGeneratedError.isInstance(error)) {
      // Some models wrap JSON in prose or a code fence even when asked for a schema; take the JSON.
      const value = lenientJson(error.text);
      if (value !== undefined) return { value, usage: usageOf(error.usage) };
      throw new LLMResponseError(
        scrub(
          `${request.label} did not answer with JSON${error.text ? `: ${JSON.stringify(clip(error.text))}` : ' (empty reply)'}.` +
            ' Try again, or use a model that supports structured output.',
          request.secrets,
        ),
        { cause: error },
      );
    }
    throw new LLMResponseError(scrub(describeFailure(request.label, error, RetryError, APICallError), request.secrets), { cause: error });
  }
}

/**
 * A page's text can hold half of a surrogate pair (a script cut an emoji in two); providers reject
 * such a string or garble it, so each half on its own becomes U+FFFD, as toWellFormed() (Node 20+) does.
 */
const wellFormed = <T extends string | undefined>(text: T): T =>
  // With the u flag a pair is one code point, so \p{Cs} matches only the halves left alone.
  text?.replace(/\p{Cs}/gu, '\uFFFD') as T;

type SdkUsage =
  | {
      inputTokens?: number | undefined;
      outputTokens?: number | undefined;
      reasoningTokens?: number | undefined;
      cachedInputTokens?: number | undefined;
    }
  | undefined;

function toUsage(usage: SdkUsage, ms: number): ModelCallUsage {
  return {
    promptTokens: usage?.inputTokens ?? 0,
    completionTokens: usage?.outputTokens ?? 0,
    reasoningTokens: usage?.reasoningTokens ?? 0,
    cachedInputTokens: usage?.cachedInputTokens ?? 0,
    inferenceTimeMs: ms,
  };
}

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new TimeoutError('The model call was aborted.', 0);
}

function describeFailure(
  label: string,
  error: unknown,
  RetryError: typeof import('ai').RetryError,
  APICallError: typeof import('ai').APICallError,
): string {
  const last = RetryError.isInstance(error) ? error.lastError : error;
  const tries = RetryError.isInstance(error) ? ` (after ${error.errors.length} attempts)` : '';
  if (APICallError.isInstance(last)) {
    const status = last.statusCode;
    const hint =
      status === 401 || status === 403
        ? " The provider refused the API key: check model.apiKey or the provider's key variable."
        : status === 404
          ? ' Check the model name and baseURL.'
          : status === 429
            ? ' The provider is rate-limiting; wait or lower maxParallelCalls.'
            : '';
    // Some providers cannot parse another server's error body and report only the status text.
    const generic = last.message.length < 40 && !last.message.includes(':');
    const body = generic && last.responseBody ? ` (${clip(last.responseBody.replace(/\s+/g, ' '))})` : '';
    return `${label} request failed${status ? ` with HTTP ${status}` : ''}${tries}: ${clip(last.message)}${body}.${hint}`;
  }
  const message = last instanceof Error ? last.message : String(last);
  return `${label} request failed${tries}: ${clip(message)}`;
}

/** The first JSON object or array in a text, code fences and surrounding prose ignored. */
function lenientJson(text: string | undefined): unknown {
  if (!text) return undefined;
  const start = text.search(/[[{]/);
  if (start < 0) return undefined;
  const end = Math.max(text.lastIndexOf('}'), text.lastIndexOf(']'));
  try {
    return JSON.parse(text.slice(start, end + 1));
  } catch {
    return undefined;
  }
}

function clip(text: string): string {
  return text.length > 300 ? text.slice(0, 300) + '…' : text;
}

function scrub(message: string, secrets: Array<string | undefined>): string {
  for (const secret of secrets) if (secret && secret.length >= 4) message = message.split(secret).join('***');
  return message;
}
