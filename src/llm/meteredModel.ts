// An AI SDK language model whose every request passes a TokenMeter (tokenMeter.ts): how the agent's
// tool loop, which the AI SDK runs, and its closing verdict meet the same budget as extract, act and
// observe. A wrapper of our own rather than the AI SDK's wrapLanguageModel, which makes every model a
// version-3 one: a caller's version-2 model (ai@5's providers) keeps its version and its usage shape.

import { estimateTokens } from './budget.js';
import type { TokenMeter } from './tokenMeter.js';
import { type WrappedModel, wrapModel } from './modelWrapper.js';

/** What an image costs, estimated: a large screenshot is about this many tokens with current providers. */
const IMAGE_TOKENS = 1600;

interface Params {
  prompt: unknown;
  tools?: unknown;
  maxOutputTokens?: number;
  abortSignal?: AbortSignal;
}

interface Inner extends WrappedModel {
  doGenerate(params: Params): Promise<{ usage: unknown }>;
  doStream(params: Params): Promise<{ stream: ReadableStream<{ type: string; usage?: unknown }> }>;
}

/** Tokens of a prompt as the AI SDK hands it to a model: messages of parts, tools with their schemas. */
export function promptTokens(value: unknown): number {
  if (typeof value === 'string') return estimateTokens(value);
  if (typeof value === 'number' || typeof value === 'boolean') return 1;
  if (!value || typeof value !== 'object') return 0;
  if (value instanceof Uint8Array || value instanceof ArrayBuffer || value instanceof URL) return IMAGE_TOKENS;
  if (Array.isArray(value)) return value.reduce((sum: number, each) => sum + promptTokens(each), 0);
  // An image or file part (a prompt's, a tool result's): its base64 is no measure of its tokens.
  if ('mediaType' in value && 'data' in value) return IMAGE_TOKENS;
  let sum = 0;
  for (const [key, item] of Object.entries(value)) if (key !== 'providerOptions') sum += 1 + promptTokens(item);
  return sum;
}

/** Version 2 reports numbers, version 3 { total, ... } objects. */
export function usageOf(usage: unknown): { promptTokens: number; completionTokens: number } {
  const count = (value: unknown): number => (typeof value === 'number' ? value : ((value as { total?: number } | undefined)?.total ?? 0));
  const { inputTokens, outputTokens } = (usage ?? {}) as { inputTokens?: unknown; outputTokens?: unknown };
  return { promptTokens: count(inputTokens), completionTokens: count(outputTokens) };
}

export function meteredModel(model: object, meter: TokenMeter): object {
  const inner = model as Inner;
  const capped = (params: Params): Params => ({
    ...params,
    maxOutputTokens: Math.min(params.maxOutputTokens ?? Infinity, meter.outputCap),
  });
  const needs = (params: Params) => promptTokens(params.prompt) + promptTokens(params.tools ?? []);
  return wrapModel(inner, {
    doGenerate: (params: Params) =>
      meter.request(
        needs(params),
        params.abortSignal,
        () => inner.doGenerate(capped(params)),
        (reply) => usageOf(reply.usage),
      ),
    doStream: async (params: Params) => {
      const ticket = await meter.admit(needs(params), params.abortSignal);
      let reply: Awaited<ReturnType<Inner['doStream']>>;
      try {
        reply = await inner.doStream(capped(params));
      } catch (error) {
        ticket.release();
        throw error;
      }
      // The usage comes with the stream's last part: charged then, before the part goes on.
      const stream = reply.stream.pipeThrough(
        new TransformStream({
          async transform(part, controller) {
            if (part.type === 'finish') await ticket.charge(usageOf(part.usage), params.abortSignal);
            controller.enqueue(part);
          },
          flush: () => ticket.release(),
        }),
      );
      return { ...reply, stream };
    },
  });
}
