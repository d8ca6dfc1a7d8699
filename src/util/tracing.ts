// OpenTelemetry spans for Tendril's public operations, model requests and hosted requests. Only
// with `@opentelemetry/api` loadable (an optional peer; the AI SDK brings it too) and a tracer
// provider registered by the application; otherwise every call here costs next to nothing. The API
// is loaded by a name esbuild cannot see, so no bundle carries it, and an extension's service
// worker (where import() is refused) simply goes without.
//
// The spans of public calls and model requests come from one listener on the instrumentation seam
// (util/instrumentation.ts), added once the API has loaded: no wrapper of their own at the call sites.

import { addGlobalListener, type Call, type InstrumentationListener } from './instrumentation.js';

type OtelApi = typeof import('@opentelemetry/api');
type Attributes = Record<string, string | number | boolean | undefined>;

/** The part of a span the operations use. */
export interface OperationSpan {
  /** False when nothing records the span (no tracer provider): attributes worth computing are not. */
  readonly recording: boolean;
  set(attributes: Attributes): void;
}

const NO_SPAN: OperationSpan = { recording: false, set: () => undefined };
const API_NAME = '@opentelemetry/api';
let api: OtelApi | null = null;
let loading: Promise<void> | undefined;

/** Loads the OpenTelemetry API once per process, if it is there. Never fails. */
export function loadTracing(): Promise<void> {
  loading ??= (async () => {
    try {
      const name = API_NAME;
      const loaded = (await import(/* @vite-ignore */ name)) as OtelApi & { default?: OtelApi };
      api = loaded.trace ? loaded : (loaded.default ?? null);
      if (api) addGlobalListener(spanListener);
    } catch {
      api = null;
    }
  })();
  return loading;
}

function tracer() {
  return api!.trace.getTracer('tendril', '3');
}

/**
 * Runs `work` inside a span named `name` (the active span, so the spans it starts are children).
 * A failure sets the span's status and `error.type` (the typed error's name) and is rethrown.
 */
export async function traced<T>(
  name: string,
  attributes: Attributes,
  work: (span: OperationSpan) => Promise<T>,
  kind?: 'client' | 'server',
): Promise<T> {
  if (!api) return work(NO_SPAN);
  const otel = api;
  const options = {
    attributes: clean(attributes),
    kind: kind === 'client' ? otel.SpanKind.CLIENT : kind === 'server' ? otel.SpanKind.SERVER : otel.SpanKind.INTERNAL,
  };
  return tracer().startActiveSpan(name, options, async (span) => {
    try {
      return await work({ recording: span.isRecording(), set: (more) => span.setAttributes(clean(more)) });
    } catch (error) {
      const type = error instanceof Error ? error.name : typeof error;
      span.setAttribute('error.type', type);
      span.setStatus({ code: otel.SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Adds the active trace's W3C `traceparent` (and `tracestate`) to outgoing request headers. */
export function injectTraceHeaders(headers: Record<string, string>): void {
  if (!api) return;
  api.propagation.inject(api.context.active(), headers);
}

/**
 * Runs `work` as a continuation of the trace the incoming request's headers name (W3C
 * `traceparent`), when they name one.
 */
export function withIncomingTrace<T>(headers: Record<string, string | string[] | undefined>, work: () => Promise<T>): Promise<T> {
  if (!api) return work();
  const parent = api.propagation.extract(api.context.active(), headers);
  return api.context.with(parent, work);
}

/** A URL as spans show it: no query, no fragment, no credentials (they may hold secrets). */
export function spanUrl(raw: string): string {
  try {
    const url = new URL(raw);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return raw.replace(/[?#].*$/s, '');
  }
}

function clean(attributes: Attributes): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined) out[key] = value;
  return out;
}

/** Token counts of the Sdk's metrics (llm/metrics.ts), read before and after an operation. */
interface TokenTotals {
  snapshot(): { total: { promptTokens: number; completionTokens: number } };
}

/**
 * The spans: an operation (extract, act, observe) with its env, page, frames, bytes, tokens and
 * cache status; goto with its URL, wait and status; a model request (a client span) with its model
 * and tokens. Other calls pass through without one.
 */
const spanListener: InstrumentationListener = {
  around<T>(call: Call, next: () => Promise<T>): Promise<T> {
    if (call.api === 'Page.goto') return gotoSpan(call, next);
    // A hosted service's request, told to the client after the fact: the service's own span is the one.
    if (call.api === 'Model.request') return call.details?.onService ? next() : modelSpan(call, next);
    if (call.api.startsWith('Sdk.') && typeof call.details?.environment === 'string') return operationSpan(call, next);
    return next();
  },
};

function operationSpan<T>(call: Call, next: () => Promise<T>): Promise<T> {
  const metrics = call.details!.metrics as TokenTotals;
  const before = metrics.snapshot().total;
  return traced(`tendril.${call.api.slice('Sdk.'.length)}`, { 'tendril.env': call.details!.environment as string }, async (span) => {
    const result = await next();
    // Measuring a large result (its bytes) costs time: only for a span something records.
    if (!span.recording) return result;
    const after = metrics.snapshot().total;
    span.set(
      operationAttributes(call.page as SpanPage | undefined, result, {
        prompt: after.promptTokens - before.promptTokens,
        completion: after.completionTokens - before.completionTokens,
      }),
    );
    return result;
  });
}

function gotoSpan<T>(call: Call, next: () => Promise<T>): Promise<T> {
  const { url, waitUntil } = call.params as { url?: unknown; waitUntil?: string };
  const attributes = { 'url.full': typeof url === 'string' ? spanUrl(url) : undefined, 'tendril.wait_until': waitUntil ?? 'default' };
  return traced('tendril.goto', attributes, async (span) => {
    const response = (await next()) as { status(): number } | null;
    span.set({ 'http.response.status_code': response?.status(), 'tendril.frames': (call.page as SpanPage).frames().length });
    return response as T;
  });
}

/** The provider and model of the request's label ("provider/model[ at <baseURL>]"), then the tokens; the address stays out. */
function modelSpan<T>(call: Call, next: () => Promise<T>): Promise<T> {
  const label = String(call.params.model ?? '');
  const [system, ...name] = label.split(' ')[0]!.split('/');
  return traced(
    'tendril.model.request',
    { 'gen_ai.system': system, 'gen_ai.request.model': name.join('/') || system },
    async (span) => {
      const reply = (await next()) as { usage: { promptTokens: number; completionTokens: number } };
      span.set({ 'gen_ai.usage.input_tokens': reply.usage.promptTokens, 'gen_ai.usage.output_tokens': reply.usage.completionTokens });
      return reply as T;
    },
    'client',
  );
}

/** The page as spans describe it (structural, so this file needs no driver). */
interface SpanPage {
  url(): string;
  frames(): unknown[];
}

/** What an operation span says of its page and result. */
function operationAttributes(page: SpanPage | undefined, result: unknown, tokens: { prompt: number; completion: number }): Attributes {
  const attributes: Attributes = {
    'tendril.tokens.prompt': tokens.prompt,
    'tendril.tokens.completion': tokens.completion,
  };
  if (page) {
    attributes['url.full'] = spanUrl(page.url());
    attributes['tendril.frames'] = page.frames().length;
  }
  const value = result as { pageText?: unknown; cacheStatus?: unknown } | undefined;
  if (typeof value?.pageText === 'string') attributes['tendril.bytes'] = utf8Length(value.pageText);
  else if (result !== undefined) attributes['tendril.bytes'] = utf8Length(JSON.stringify(result) ?? '');
  if (value?.cacheStatus === 'HIT' || value?.cacheStatus === 'MISS') attributes['tendril.cache'] = value.cacheStatus;
  return attributes;
}

function utf8Length(text: string): number {
  return new TextEncoder().encode(text).length;
}
