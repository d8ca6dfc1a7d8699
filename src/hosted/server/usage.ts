// The model use of one hosted operation, as its answer reports it (protocol/model.ts,
// OperationUsage): each model request the operation made, heard on a seam of its own, and for a
// cached answer what it cost when the model gave it, which the cache keeps beside the answer.

import type { CachedCost, ModelRequestUsage, OperationUsage } from '../../../protocol/index.js';
import type { AnswerCache } from '../../llm/ask.js';
import { Metrics, type MetricsMethod, type ModelCallUsage } from '../../llm/metrics.js';
import { Instrumentation } from '../../util/instrumentation.js';
import { cacheKey, type ResultCache } from './cache.js';
import type { CacheStatus } from './stream.js';

/**
 * How a cached answer is kept: `{ value, cost }`. Part of the key, so that an entry written before
 * costs were kept (a bare value, in a Redis shared with older instances) is a miss, never misread.
 */
const ENTRY_FORMAT = 'answer+cost';

interface CacheEntry {
  value: unknown;
  cost: CachedCost;
}

function isEntry(entry: unknown): entry is CacheEntry {
  return typeof entry === 'object' && entry !== null && 'value' in entry && typeof (entry as CacheEntry).cost === 'object';
}

/**
 * One operation's metrics (it is the Metrics its pipeline counts into) and the seam its model
 * requests pass (set as the model's `instrumentation`), which lists them with their model and part.
 */
export class OperationUsageLog extends Metrics {
  readonly instrumentation = new Instrumentation();
  readonly #requests: ModelRequestUsage[] = [];
  #chunks: number | undefined;
  #cachedCost: CachedCost | undefined;

  constructor() {
    super();
    this.instrumentation.add({
      around: async <T>(call: { api: string; params: Record<string, unknown> }, next: () => Promise<T>): Promise<T> => {
        const reply = await next();
        if (call.api === 'Model.request') {
          const usage = (reply as { usage?: ModelCallUsage } | undefined)?.usage;
          // The label's first word: `provider/model`; the address after it is the server's business.
          const model = String(call.params.model ?? '').split(' ')[0]!;
          const part = typeof call.params.part === 'string' ? call.params.part : undefined;
          if (usage) this.#requests.push({ model, ...(part ? { part } : {}), ...pickUsage(usage) });
        }
        return reply;
      },
    });
  }

  override recordOperation(method: MetricsMethod, chunks: number): void {
    super.recordOperation(method, chunks);
    this.#chunks = Math.max(this.#chunks ?? 0, chunks);
  }

  /** The requests made so far, added up: what an answer cached now cost. */
  cost(): CachedCost {
    const total: CachedCost = { modelRequests: this.#requests.length, ...pickUsage(ZERO) };
    for (const request of this.#requests) for (const key of USAGE_KEYS) total[key] += request[key];
    return total;
  }

  /**
   * The cache hook of this operation: keyed by the snapshot text plus `parts`. `status` says what
   * the cache did once the operation is over: HIT when a cached answer was used, else MISS.
   */
  cacheHook(cache: ResultCache, parts: unknown[], onDecision?: (status: CacheStatus) => void): AnswerCache & { status(): CacheStatus } {
    let served = false;
    const key = (text: string) => cacheKey([ENTRY_FORMAT, text, ...parts]);
    return {
      get: async (text) => {
        const entry = await cache.get(key(text));
        const hit = isEntry(entry) ? entry : undefined;
        onDecision?.(hit ? 'HIT' : 'MISS');
        this.#cachedCost = hit?.cost;
        return hit?.value;
      },
      set: (text, value) => cache.set(key(text), { value, cost: this.cost() } satisfies CacheEntry),
      served: () => void (served = true),
      status: () => (served ? 'HIT' : 'MISS'),
    };
  }

  /** The answer's `usage`; `status` is the cache's decision (a cached cost is said only for a HIT). */
  wire(status: CacheStatus | undefined): OperationUsage {
    return {
      requests: [...this.#requests],
      ...(this.#chunks !== undefined ? { chunks: this.#chunks } : {}),
      ...(status === 'HIT' && this.#cachedCost ? { cachedCost: this.#cachedCost } : {}),
    };
  }
}

const USAGE_KEYS = ['promptTokens', 'completionTokens', 'reasoningTokens', 'cachedInputTokens', 'inferenceTimeMs'] as const;
const ZERO: ModelCallUsage = { promptTokens: 0, completionTokens: 0, reasoningTokens: 0, cachedInputTokens: 0, inferenceTimeMs: 0 };

/** The usage's counts alone (a provider's reply may carry more, which does not travel). */
function pickUsage(usage: ModelCallUsage): ModelCallUsage {
  const out = { ...ZERO };
  for (const key of USAGE_KEYS) out[key] = Number.isFinite(usage[key]) ? usage[key] : 0;
  return out;
}
