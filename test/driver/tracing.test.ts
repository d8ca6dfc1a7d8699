// OpenTelemetry: with a tracer provider registered (here the SDK's in-memory exporter), every public
// operation, model request and hosted request is a span, and the hosted server continues the
// client's trace from its W3C traceparent. The server runs in this process, but its requests come
// in over HTTP, so only the header can link the two halves.

import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ElementNotFoundError, Sdk } from '../../src/index.js';
import type { HostedServer } from '../../src/hosted/server/http.js';
import { startFixtureServers, type FixtureServers } from '../fixtures/server.js';
import { HOSTED_TEST_ENV, sdkOptions } from '../helpers.js';
import { startFakeModel, type FakeModel } from '../support/fake-model.js';
import { startTestHostedServer } from '../support/hosted.js';

const KEY = 'tracing-test-key';
const MODEL_KEY = 'sk-tracing-model-51b2';
const exporter = new InMemorySpanExporter();
const contextManager = new AsyncLocalStorageContextManager();
let server: HostedServer;
let fixtures: FixtureServers;
let fake: FakeModel;

const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const named = (name: string) => exporter.getFinishedSpans().filter((span) => span.name === name);
function one(name: string): ReadableSpan {
  const spans = named(name);
  if (spans.length !== 1)
    throw new Error(
      `${spans.length} spans named ${name}: ${exporter
        .getFinishedSpans()
        .map((s) => s.name)
        .join(', ')}`,
    );
  return spans[0]!;
}

beforeAll(async () => {
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  context.setGlobalContextManager(contextManager.enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  [server, fixtures, fake] = await Promise.all([
    startTestHostedServer({ ...HOSTED_TEST_ENV, HOSTED_API_KEYS: KEY }),
    startFixtureServers(),
    startFakeModel(),
  ]);
});
afterAll(async () => {
  await server?.close();
  await Promise.all([fixtures?.close(), fake?.close()]);
  trace.disable();
  context.disable();
  propagation.disable();
});
beforeEach(() => {
  exporter.reset();
  fake.reset();
});

describe('OpenTelemetry spans', () => {
  it('make one trace of a hosted extract: the client operation, its hosted request, the server operation and its model request', async () => {
    fake.script(() => ({ json: { extraction: 'three widgets' } }));
    const sdk = new Sdk({
      env: 'HOSTED',
      apiKey: KEY,
      projectId: 'proj-1',
      hostedApiUrl: server.url,
      verbose: 0,
      disablePino: true,
      model: { modelName: 'openai/gpt-4.1-mini', apiKey: MODEL_KEY, baseURL: fake.url },
    });
    try {
      await sdk.init();
      await sdk.context.pages()[0]!.goto(fixtures.a.url('extract-shop.html?session=secret-token#top'));
      exporter.reset();
      expect(await sdk.extract('How many widgets?')).toEqual({ extraction: 'three widgets', cacheStatus: 'MISS' });
    } finally {
      await sdk.close();
    }
    const operation = one('tendril.extract');
    const request = one('tendril.hosted.request');
    const served = one('tendril.server.extract');
    const model = one('tendril.model.request');
    // One trace, in this order of parents.
    for (const span of [request, served, model]) expect(span.spanContext().traceId).toBe(operation.spanContext().traceId);
    expect(parentOf(operation)).toBeUndefined();
    expect(parentOf(request)).toBe(operation.spanContext().spanId);
    expect(parentOf(served)).toBe(request.spanContext().spanId);
    expect(served.parentSpanContext?.isRemote).toBe(true);
    expect(parentOf(model)).toBe(served.spanContext().spanId);

    // What each says, and what none says: the page's query, the keys.
    expect(operation.attributes).toMatchObject({
      'tendril.env': 'HOSTED',
      'url.full': fixtures.a.url('extract-shop.html'),
      'tendril.cache': 'MISS',
      // The server's answer reports its model request's tokens: the client's operation counts them.
      'tendril.tokens.prompt': fake.requests[0]!.promptTokens,
      'tendril.frames': expect.any(Number),
      'tendril.bytes': JSON.stringify({ extraction: 'three widgets', cacheStatus: 'MISS' }).length,
    });
    expect(operation.attributes['tendril.frames']).toBeGreaterThan(1);
    expect(request.attributes).toMatchObject({ 'url.path': '/v1/sessions/{id}/extract', 'tendril.cache': 'MISS' });
    expect(model.attributes).toMatchObject({
      'gen_ai.system': 'openai',
      'gen_ai.request.model': 'gpt-4.1-mini',
      'gen_ai.usage.input_tokens': fake.requests[0]!.promptTokens,
    });
    const everything = JSON.stringify(exporter.getFinishedSpans().map((span) => [span.name, span.attributes, span.status]));
    for (const secret of ['secret-token', MODEL_KEY, KEY]) expect(everything).not.toContain(secret);
  });

  it('mark a failed operation with its error class, and give goto and page text their own spans', async () => {
    const sdk = new Sdk(sdkOptions());
    try {
      await sdk.init();
      await sdk.context.pages()[0]!.goto(fixtures.a.url('frames.html?q=1'));
      const { pageText } = await sdk.extract();
      await expect(sdk.extract({ selector: '#nothing-here', timeout: 2000 })).rejects.toBeInstanceOf(ElementNotFoundError);
      const goto = one('tendril.goto');
      expect(goto.attributes).toMatchObject({
        'url.full': fixtures.a.url('frames.html'),
        'http.response.status_code': 200,
        'tendril.frames': 7,
      });
      const [read, failed] = named('tendril.extract');
      expect(read!.attributes).toMatchObject({
        'tendril.env': 'LOCAL',
        'tendril.bytes': new TextEncoder().encode(pageText).length,
        'tendril.frames': 7,
      });
      expect(read!.status.code).not.toBe(2);
      expect(failed!.status.code).toBe(2); // SpanStatusCode.ERROR
      expect(failed!.attributes['error.type']).toBe('ElementNotFoundError');
    } finally {
      await sdk.close();
    }
  });
});
