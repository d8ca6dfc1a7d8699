// A hosted operation's model use, as its answer reports it (protocol/model.ts, OperationUsage),
// made the client's own: counted in the Sdk's metrics as a local call's requests are, and shown in
// the client's trace: each model request the service made passes the seam as a `Model.request` of
// the call (so a trace attaches it to the call, as it does a local one), and the call's notes hold
// the cache's decision and the totals.

import type { ModelRequestUsage, OperationUsage } from '../../../protocol/index.js';
import type { Metrics, MetricsMethod, ModelCallUsage } from '../../llm/metrics.js';
import type { Call, CallDescription, Instrumentation } from '../../util/instrumentation.js';
import type { OperationReply } from './api.js';

/** Where an operation's model use goes: the Sdk's metrics, the seam, and the public call it belongs to. */
export interface UsageTarget {
  metrics: Metrics;
  instrumentation: Instrumentation;
  /** The public call (Sdk.extract, ...) under way, when some listener is on. */
  parent: Call | undefined;
}

/** What a call's notes say of the service's answer (`notes.service`; a trace shows it as the "hosted answer" attachment). */
export interface ServiceNotes {
  cacheStatus?: 'HIT' | 'MISS';
  /** Requests made for this call: none for a cache HIT. */
  modelRequests?: number;
  /** The tokens and model time of those requests, added up: zero for a HIT. */
  usage?: ModelCallUsage;
  /** For a HIT, what the cached answer cost when the model gave it, when the cache kept it. */
  cachedCost?: OperationUsage['cachedCost'];
  /** Said when the service reports no model use (a server older than its answers' `usage`). */
  unreported?: string;
}

export async function takeUsage(target: UsageTarget, method: MetricsMethod, reply: OperationReply): Promise<void> {
  const usage = reply.usage;
  if (usage) {
    for (const request of usage.requests) target.metrics.recordCall(method, request);
    if (usage.chunks !== undefined) target.metrics.recordOperation(method, usage.chunks);
  }
  const parent = target.parent;
  if (!parent || !target.instrumentation.on) return;
  const notes: ServiceNotes = { ...(reply.cacheStatus ? { cacheStatus: reply.cacheStatus } : {}) };
  if (!usage) notes.unreported = 'this service does not report its model use (a server older than the `usage` of its answers)';
  else {
    notes.modelRequests = usage.requests.length;
    notes.usage = total(usage.requests);
    if (usage.cachedCost) notes.cachedCost = usage.cachedCost;
  }
  parent.notes.service = notes;
  for (const request of usage?.requests ?? []) await replay(target.instrumentation, parent, request);
}

/** One of the service's requests through the seam, answered at once with what the service said of it. */
function replay(instrumentation: Instrumentation, parent: Call, request: ModelRequestUsage): Promise<unknown> {
  const { model, part, ...usage } = request;
  const describe = (): CallDescription => ({
    api: 'Model.request',
    title: `model ${model}${part ? ` (${part})` : ''} on the hosted service`,
    params: { model, ...(part ? { part } : {}) },
    parent,
    // Made by the service: its time is the service's, and its span is the service's own (not one here).
    details: { onService: true, inferenceTimeMs: usage.inferenceTimeMs },
  });
  return instrumentation.run(describe, async () => ({ usage }));
}

function total(requests: ModelRequestUsage[]): ModelCallUsage {
  const sum: ModelCallUsage = { promptTokens: 0, completionTokens: 0, reasoningTokens: 0, cachedInputTokens: 0, inferenceTimeMs: 0 };
  for (const request of requests) for (const key of Object.keys(sum) as Array<keyof ModelCallUsage>) sum[key] += request[key];
  return sum;
}
