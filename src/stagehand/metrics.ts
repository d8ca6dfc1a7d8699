// Stagehand's metrics from the Sdk's: its flat counters (`totalPromptTokens`, `actInferenceTimeMs`,
// ...) beside the Sdk's per-method ones, with what agent runs used counted as the agent's and in the total.

import type { ModelCallUsage } from '../llm/metrics.js';
import type { SdkMetrics } from '../types.js';
import type { StagehandMetrics, V3Metrics } from './types.js';

const METHODS = ['act', 'extract', 'observe', 'agent', 'total'] as const;
const COUNTERS = [
  ['PromptTokens', 'promptTokens'],
  ['CompletionTokens', 'completionTokens'],
  ['ReasoningTokens', 'reasoningTokens'],
  ['CachedInputTokens', 'cachedInputTokens'],
  ['InferenceTimeMs', 'inferenceTimeMs'],
] as const;

/** Stagehand's flat counters now. */
export function flatMetrics(own: SdkMetrics, agentUsage: ModelCallUsage): StagehandMetrics {
  const flat = {} as StagehandMetrics;
  for (const method of METHODS) {
    for (const [suffix, field] of COUNTERS) {
      flat[`${method}${suffix}`] =
        method === 'agent' ? agentUsage[field] : own[method][field] + (method === 'total' ? agentUsage[field] : 0);
    }
  }
  return flat;
}

/**
 * Model use so far: the Sdk's per-method counters and Stagehand's flat ones. Stagehand's is a
 * promise: this one can be awaited the same way.
 */
export function v3Metrics(own: SdkMetrics, agentUsage: ModelCallUsage): V3Metrics {
  // The Sdk's `total` counts the agent's loop too, as the flat `total…` counters do.
  const total = { ...own.total };
  for (const [, field] of COUNTERS) total[field] += agentUsage[field];
  const plain = { ...own, total, ...flatMetrics(own, agentUsage) };
  // Not enumerable: a copy or a JSON of the metrics has only the numbers.
  return Object.defineProperty({ ...plain }, 'then', {
    value: (fulfilled?: (value: typeof plain) => unknown, rejected?: (reason: unknown) => unknown) =>
      Promise.resolve(plain).then(fulfilled, rejected),
  }) as V3Metrics;
}
