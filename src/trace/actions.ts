// How a call's parameters, result and model requests go into its trace action: small values inline,
// large ones (page text, a long result, each model request) as attachments under resources/, and
// what fill or type put into a password field redacted.

import type { Call } from '../util/instrumentation.js';
import { REDACTED, traceUrl } from './redact.js';
import { bounded, LIMITS, type TraceStore } from './store.js';

export interface Attachment {
  name: string;
  contentType: string;
  file?: string;
}

async function attach(store: TraceStore, name: string, contentType: string, text: string): Promise<Attachment> {
  const file = await store.resource(bounded(text), contentType === 'application/json' ? 'json' : 'txt');
  return file ? { name, contentType, file } : { name: `${name} (left out: the trace reached its size bound)`, contentType };
}

/** Option names whose values are credentials (a call's `model: { apiKey }`, a proxy's password). */
const SECRET_KEYS = /^(?:api[-_]?key|password|passwd|secret|token|access[-_]?token|authorization|cookie)$/i;

/** A value as JSON, leaving out what does not serialize (functions, cycles, pages). */
function json(value: unknown): string | undefined {
  const seen = new WeakSet<object>();
  try {
    return JSON.stringify(value, (key, each: unknown) => {
      if (SECRET_KEYS.test(key) && each !== undefined && each !== null && each !== '') return REDACTED;
      if (typeof each === 'function' || typeof each === 'symbol') return undefined;
      if (typeof each === 'bigint') return String(each);
      if (each instanceof Uint8Array) return `<${each.length} bytes>`;
      if (typeof each === 'object' && each !== null) {
        if (seen.has(each)) return '<cycle>';
        seen.add(each);
        const name = (each as object).constructor?.name;
        if (name && name !== 'Object' && name !== 'Array' && typeof (each as { toJSON?: unknown }).toJSON !== 'function')
          return `<${name}>`;
      }
      return each;
    });
  } catch {
    return undefined;
  }
}

/** The call's parameters as the action shows them, and the attachments of those too large to. */
export function paramsOf(call: Call): { params: Record<string, unknown>; large: Array<(store: TraceStore) => Promise<Attachment>> } {
  const params: Record<string, unknown> = {};
  const large: Array<(store: TraceStore) => Promise<Attachment>> = [];
  for (const [key, value] of Object.entries(call.params)) {
    if (value === undefined) continue;
    // Unless the element was seen not to be a password field, what fill or type put in stays out.
    if ((key === 'value' || key === 'text') && call.api.startsWith('Locator.') && call.notes.secret !== false) {
      params[key] = REDACTED;
      continue;
    }
    if (key === 'url' && typeof value === 'string') {
      params[key] = traceUrl(value);
      continue;
    }
    const text = typeof value === 'string' ? value : json(value);
    if (text === undefined) continue;
    if (text.length > LIMITS.inlineChars) {
      params[key] = `<${text.length} characters: see the attachment "${key}">`;
      large.push((store) => attach(store, key, typeof value === 'string' ? 'text/plain' : 'application/json', text));
    } else params[key] = typeof value === 'string' ? value : JSON.parse(text);
  }
  return { params, large };
}

/**
 * A call's result: inline when small; page text, screenshots and large values as attachments. What
 * the call's service said of it (`notes.service`: env HOSTED's cache status and tokens) is the
 * "hosted answer" attachment beside it.
 */
export async function describeResult(
  store: TraceStore,
  result: unknown,
  call?: Call,
): Promise<{ result?: unknown; attachments: Attachment[] }> {
  const described = await describeValue(store, result);
  const service = call?.notes.service as { cacheStatus?: string; usage?: { promptTokens: number; completionTokens: number } } | undefined;
  if (service === undefined) return described;
  const said = [
    service.cacheStatus ? `cache ${service.cacheStatus}` : undefined,
    service.usage ? `${service.usage.promptTokens} + ${service.usage.completionTokens} tokens` : undefined,
  ].filter(Boolean);
  const name = `hosted answer${said.length ? `: ${said.join(', ')}` : ''}`;
  return {
    ...described,
    attachments: [...described.attachments, await attach(store, name, 'application/json', JSON.stringify(service, null, 2))],
  };
}

async function describeValue(store: TraceStore, result: unknown): Promise<{ result?: unknown; attachments: Attachment[] }> {
  if (result === undefined || result === null) return { attachments: [] };
  if (result instanceof Uint8Array) {
    const png = result[0] === 0x89 && result[1] === 0x50;
    const file = await store.resource(result, png ? 'png' : 'jpeg');
    const contentType = png ? 'image/png' : 'image/jpeg';
    return { result: { bytes: result.length }, attachments: file ? [{ name: 'screenshot', contentType, file }] : [] };
  }
  const response = result as { status?: unknown; url?: unknown };
  if (typeof response.status === 'function' && typeof response.url === 'function') {
    return { result: { status: (response.status as () => number)(), url: traceUrl((response.url as () => string)()) }, attachments: [] };
  }
  const pageText = (result as { pageText?: unknown }).pageText;
  if (typeof pageText === 'string') {
    return {
      result: { pageText: `<${pageText.length} characters: see the attachment "page text">` },
      attachments: [await attach(store, 'page text', 'text/plain', pageText)],
    };
  }
  const text = json(result);
  if (text === undefined) return { attachments: [] };
  if (text.length <= LIMITS.inlineChars) return { result: JSON.parse(text), attachments: [] };
  return {
    result: `<${text.length} characters: see the attachment "result">`,
    attachments: [await attach(store, 'result', 'application/json', text)],
  };
}

interface ModelReplyShape {
  value?: unknown;
  usage?: { promptTokens?: number; completionTokens?: number; reasoningTokens?: number; cachedInputTokens?: number };
}

/** What the hosted service's request attachment says instead of the messages, which stay on the service. */
const ON_SERVICE = 'The hosted service made this request; its messages stay on the service (docs/tracing.md).';

/**
 * One model request as an attachment of the call that made it: model, messages, answer, tokens,
 * time, budget left. One the hosted service made (`details.onService`) has its model, tokens and
 * the service's time only.
 */
export function modelAttachment(
  store: TraceStore,
  call: Call,
  outcome: { result?: unknown; error?: unknown },
  ms: number,
  index: number,
): Promise<Attachment> {
  // ask.ts's requests give their system and user text; the agent's (llm/tracedModel.ts) the whole conversation and the tools offered.
  const { model, system, user, schema, part, messages, tools, toolChoice } = call.params as Record<string, unknown>;
  const reply = outcome.result as ModelReplyShape | undefined;
  const error = outcome.error instanceof Error ? { name: outcome.error.name, message: outcome.error.message } : outcome.error;
  const onService = call.details?.onService === true;
  const usage = reply?.usage;
  const body = {
    model,
    ...(part !== undefined ? { part } : {}),
    ...(onService
      ? { madeBy: ON_SERVICE }
      : {
          messages: Array.isArray(messages)
            ? messages
            : [
                { role: 'system', content: system },
                { role: 'user', content: user },
              ],
          schema,
          tools,
          toolChoice,
        }),
    ...(reply && !onService ? { answer: reply.value } : {}),
    ...(error !== undefined ? { error } : {}),
    usage: usage && {
      promptTokens: usage.promptTokens,
      completionTokens: usage.completionTokens,
      ...(usage.reasoningTokens ? { reasoningTokens: usage.reasoningTokens } : {}),
      ...(usage.cachedInputTokens ? { cachedInputTokens: usage.cachedInputTokens } : {}),
    },
    timeMs: Math.round(onService ? Number(call.details?.inferenceTimeMs ?? 0) : ms),
    ...(call.notes.budgetLeft !== undefined ? { budgetLeft: call.notes.budgetLeft } : {}),
  };
  const label = String(model ?? 'model').split(' ')[0];
  return attach(store, `model request ${index}: ${label}`, 'application/json', JSON.stringify(body, null, 2));
}
