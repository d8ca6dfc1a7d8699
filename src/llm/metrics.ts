// Token use and model time, per public method and in total. Kept outside the results on purpose:
// a typed extraction returns exactly what its schema describes.

import type { MethodMetrics, SdkMetrics } from '../types.js';

export type MetricsMethod = 'extract' | 'act' | 'observe';

export interface ModelCallUsage {
  promptTokens: number;
  completionTokens: number;
  reasoningTokens: number;
  cachedInputTokens: number;
  inferenceTimeMs: number;
}

function empty(): MethodMetrics {
  return {
    operations: 0,
    modelCalls: 0,
    chunkedOperations: 0,
    promptTokens: 0,
    completionTokens: 0,
    reasoningTokens: 0,
    cachedInputTokens: 0,
    inferenceTimeMs: 0,
  };
}

export class Metrics {
  readonly #byMethod: Record<MetricsMethod, MethodMetrics> = { extract: empty(), act: empty(), observe: empty() };

  /** One public call that used the model; `chunks` is how many pieces the page was sent in. */
  recordOperation(method: MetricsMethod, chunks: number): void {
    const entry = this.#byMethod[method];
    entry.operations++;
    if (chunks > 1) entry.chunkedOperations++;
  }

  recordCall(method: MetricsMethod, usage: ModelCallUsage): void {
    const entry = this.#byMethod[method];
    entry.modelCalls++;
    entry.promptTokens += usage.promptTokens;
    entry.completionTokens += usage.completionTokens;
    entry.reasoningTokens += usage.reasoningTokens;
    entry.cachedInputTokens += usage.cachedInputTokens;
    entry.inferenceTimeMs += usage.inferenceTimeMs;
  }

  /** A copy: callers may keep it and compare it with a later one. */
  snapshot(): SdkMetrics {
    const total = empty();
    const out = { total } as SdkMetrics;
    for (const method of ['extract', 'act', 'observe'] as const) {
      const entry = { ...this.#byMethod[method] };
      out[method] = entry;
      for (const key of Object.keys(total) as Array<keyof MethodMetrics>) total[key] += entry[key];
    }
    return out;
  }
}
