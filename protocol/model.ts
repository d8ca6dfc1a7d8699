// POST /v1/model: one structured model request, run by the server with its own providers. For
// clients that cannot load a provider's package (a Chrome extension loads only OpenAI's) or should
// not hold the provider's key: with no x-model-api-key, the server's own key for that provider is used.
// Not tied to a session, and never cached: the answer depends on nothing the server could key on.

// A namespace import: bundlers can then leave out the parts of zod never used (its locales above all).
import * as z from 'zod/v4';
import { WireModel } from './operations.js';

export const MODEL_PATH = '/v1/model';

export const ModelRequest = z.object({
  model: WireModel,
  /** The instructions, as the system message. */
  system: z.string(),
  /** The user message: the task and the page text. */
  prompt: z.string().min(1),
  /** JSON Schema (root: an object) the answer must fit; sent to the provider as its structured output. */
  schema: z.record(z.string(), z.unknown()),
  /** Retries of a failed provider request (429, 5xx, network) within the timeout. Default 2. */
  maxRetries: z.int().min(0).max(10).optional(),
  /** The output cap of the request (a client's token budget); the provider's default when absent. */
  maxOutputTokens: z.int().positive().optional(),
  /** Deadline of the request on the server, in ms. Default 120000, at most 600000. */
  timeout: z.int().positive().max(600_000).optional(),
});
export type ModelRequest = z.infer<typeof ModelRequest>;

export const ModelUsage = z.object({
  promptTokens: z.number(),
  completionTokens: z.number(),
  reasoningTokens: z.number(),
  cachedInputTokens: z.number(),
  inferenceTimeMs: z.number(),
});

/**
 * One model request a hosted operation made, in its answer: the model (`provider/model`, without
 * its address or key), which piece of the page it was (`"2/3"`), its tokens and time. Not its
 * messages: the server's prompts stay on the server (docs/tracing.md says why).
 */
export const ModelRequestUsage = ModelUsage.extend({ model: z.string(), part: z.string().optional() });
export type ModelRequestUsage = z.infer<typeof ModelRequestUsage>;

/** What a cached answer cost when the model gave it: its requests' tokens and time, added up. */
export const CachedCost = ModelUsage.extend({ modelRequests: z.int().min(0) });
export type CachedCost = z.infer<typeof CachedCost>;

/**
 * The model use of one extract, act or observe, in its `result` event: each request it made now
 * (none for a cache HIT), how many pieces the page was sent in (absent when no model was asked),
 * and for a HIT what the cached answer cost when it was made (absent when the cache did not keep it).
 */
export const OperationUsage = z.object({
  requests: z.array(ModelRequestUsage),
  chunks: z.int().min(0).optional(),
  cachedCost: CachedCost.optional(),
});
export type OperationUsage = z.infer<typeof OperationUsage>;

/** The parsed JSON the model answered (not validated against the schema: the client does that). */
export const ModelReply = z.object({ value: z.unknown(), usage: ModelUsage });
export type ModelReply = z.infer<typeof ModelReply>;
