// The hosted wire contract: the schemas accept what the client and server send and refuse the
// rest, and the committed OpenAPI document is the one the schemas generate.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as wire from '../../protocol/index.js';
import { buildOpenApi, OPENAPI_PATH } from '../../scripts/openapi.js';

describe('protocol schemas', () => {
  it('sessions: a full request, a minimal one, and what is refused', () => {
    const full = {
      projectId: 'p1',
      region: 'local',
      keepAlive: true,
      timeout: 60_000,
      browserSettings: { blockAds: true, viewport: { width: 1280, height: 720 } },
    };
    expect(wire.CreateSessionRequest.parse(full)).toEqual(full);
    expect(wire.CreateSessionRequest.parse({ projectId: 'p1' })).toEqual({ projectId: 'p1' });
    expect(wire.CreateSessionRequest.parse({})).toEqual({});
    for (const bad of [
      { projectId: '' },
      { projectId: 'p', timeout: -1 },
      { projectId: 'p', browserSettings: { viewport: { width: 5, height: 720 } } },
    ]) {
      expect(wire.CreateSessionRequest.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
    expect(wire.UpdateSessionRequest.safeParse({ status: 'REQUEST_RELEASE' }).success).toBe(true);
    expect(wire.UpdateSessionRequest.safeParse({ status: 'RUNNING' }).success).toBe(false);
  });

  it('operations: models travel without their key, schemas as JSON Schema', () => {
    expect(
      wire.ExtractRequest.parse({
        instruction: 'x',
        schema: { type: 'object' },
        model: { modelName: 'openai/gpt-4.1-mini', maxInputTokens: 9000 },
      }),
    ).toEqual({
      instruction: 'x',
      schema: { type: 'object' },
      model: { modelName: 'openai/gpt-4.1-mini', maxInputTokens: 9000 },
    });
    const leaked = wire.ExtractRequest.safeParse({ instruction: 'x', model: { modelName: 'openai/x', apiKey: 'sk-secret' } });
    expect(leaked.success).toBe(false);
    expect(JSON.stringify(leaked.error?.issues)).toContain('x-model-api-key');
    expect(wire.ExtractRequest.safeParse({ instruction: '' }).success).toBe(false);
    expect(wire.ActRequest.safeParse({ action: { selector: 'xpath=/html/body/button' }, variables: { a: 'b' } }).success).toBe(true);
    expect(wire.ActRequest.safeParse({ variables: { a: 1 } }).success).toBe(false);
    expect(wire.NavigateRequest.safeParse({ url: 'https://example.org', waitUntil: 'soon' }).success).toBe(false);
  });

  it('stream events: logs, then one result or error', () => {
    expect(wire.StreamEvent.parse({ type: 'result', data: { a: 1 }, cacheStatus: 'HIT' })).toMatchObject({
      type: 'result',
      cacheStatus: 'HIT',
    });
    expect(wire.StreamEvent.parse({ type: 'error', error: { code: 'rate_limited', message: 'too many' } })).toMatchObject({
      type: 'error',
    });
    expect(wire.StreamEvent.safeParse({ type: 'result', cacheStatus: 'STALE' }).success).toBe(false);
    // extract, act and observe say their model use: each request, and what a cached answer cost.
    const request = { model: 'openai/gpt-4.1-mini', part: '1/2', promptTokens: 812, completionTokens: 7, reasoningTokens: 0 };
    const usage = { requests: [{ ...request, cachedInputTokens: 0, inferenceTimeMs: 40 }], chunks: 2 };
    expect(wire.StreamEvent.parse({ type: 'result', data: [], cacheStatus: 'MISS', usage })).toMatchObject({ usage });
    const cachedCost = {
      modelRequests: 1,
      promptTokens: 812,
      completionTokens: 7,
      reasoningTokens: 0,
      cachedInputTokens: 0,
      inferenceTimeMs: 40,
    };
    expect(wire.StreamEvent.parse({ type: 'result', data: [], usage: { requests: [], cachedCost } })).toMatchObject({
      usage: { cachedCost },
    });
    expect(wire.StreamEvent.safeParse({ type: 'result', usage: { requests: [{ ...request, promptTokens: 'many' }] } }).success).toBe(false);
    // A server older than the field sends none: the result is read as before.
    expect(wire.StreamEvent.parse({ type: 'result', data: 1 })).toEqual({ type: 'result', data: 1 });
    expect(wire.StreamEvent.safeParse({ type: 'progress' }).success).toBe(false);
  });

  it('every error code has a 4xx or 5xx status, 429 for rate limits', () => {
    for (const code of wire.ErrorCode.options) expect(wire.STATUS_OF[code]).toBeGreaterThanOrEqual(400);
    expect(wire.STATUS_OF.rate_limited).toBe(429);
    expect(wire.STATUS_OF.unauthorized).toBe(401);
  });
});

describe('protocol/openapi.json', () => {
  it('is what `npm run openapi` generates from the schemas now', () => {
    expect(JSON.parse(readFileSync(OPENAPI_PATH, 'utf8'))).toEqual(JSON.parse(JSON.stringify(buildOpenApi())));
  });

  it('has every endpoint, and every $ref points at a component', () => {
    const doc = buildOpenApi() as { paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, unknown> } };
    expect(Object.keys(doc.paths).sort()).toEqual(
      ['/v1/model', '/v1/sessions', '/v1/sessions/{id}', ...Object.keys(wire.OPERATIONS).map((name) => `/v1/sessions/{id}/${name}`)].sort(),
    );
    expect(Object.keys(doc.paths['/v1/sessions/{id}']!).sort()).toEqual(['get', 'post']);
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((match) => match[1]!);
    expect(refs.length).toBeGreaterThan(10);
    for (const name of refs) expect(doc.components.schemas[name], name).toBeDefined();
  });
});
