// SdkOptions.modelServer and POST /v1/model: model requests run by a hosted Tendril server instead of
// this process. The client here is a local Sdk (its browser is its own); only its model calls go to
// the server, which calls the provider (Anthropic's Messages API, served by the fake model) with the
// key the client sent in a header. The extension uses the same path (test/extension/extension.test.ts).

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { HostedServiceError, InvalidOptionError, LLMResponseError, Sdk, TimeoutError } from '../../src/index.js';
import type { HostedServer } from '../../src/hosted/server/http.js';
import { startFixtureServers, type FixtureServers } from '../fixtures/server.js';
import { HOSTED_TEST_ENV, sdkOptions } from '../helpers.js';
import { startFakeModel, type FakeModel, type FakeRequest } from '../support/fake-model.js';
import { startTestHostedServer } from '../support/hosted.js';

const KEY = 'model-route-test-key';
const MODEL_KEY = 'sk-ant-model-route-7f3e';
let server: HostedServer;
let confined: HostedServer;
let fixtures: FixtureServers;
let fake: FakeModel;
let sdk: Sdk;

const startServer = (env: Record<string, string>) => startTestHostedServer({ HOSTED_API_KEYS: KEY, ...env });

/** What a model would answer: the lines of the page text the prompt carries that hold `word`. */
function linesWith(request: FakeRequest, word: string): string[] {
  return request.user
    .split('\n')
    .filter((line) => line.includes(word))
    .map((line) => line.replace(/^\s*(\[[\d-]+\]\s*)?/, ''));
}

beforeAll(async () => {
  [server, confined, fixtures, fake] = await Promise.all([
    startServer(HOSTED_TEST_ENV),
    startServer({}),
    startFixtureServers(),
    startFakeModel(),
  ]);
  sdk = new Sdk(
    sdkOptions({
      modelServer: { url: server.url, apiKey: KEY },
      model: { modelName: 'anthropic/claude-sonnet-4-5', apiKey: MODEL_KEY, baseURL: fake.url },
    }),
  );
  await sdk.init();
  await sdk.context.pages()[0]!.goto(fixtures.a.url('frames.html'));
});
afterAll(async () => {
  await sdk?.close();
  await Promise.all([server?.close(), confined?.close(), fixtures?.close(), fake?.close()]);
});
beforeEach(() => fake.reset());

describe('modelServer', () => {
  it('runs extract(instruction, schema) through the server, which calls the provider with the key from the header', async () => {
    fake.script((request) => ({ json: { texts: linesWith(request, 'child') } }));
    const result = await sdk.extract('Every text that mentions a child frame', z.object({ texts: z.array(z.string()) }));
    // The answer came from the page: the out-of-process iframe's text went to the model and back.
    expect(result.texts).toContain('paragraph: cross-origin child');
    expect(fake.requests).toHaveLength(1);
    const [request] = fake.requests;
    expect(request!.endpoint).toBe('messages');
    expect(request!.model).toBe('claude-sonnet-4-5');
    expect(request!.headers['x-api-key']).toBe(MODEL_KEY);
    expect(request!.schema).toMatchObject({ type: 'object', properties: { texts: { type: 'array' } } });
    expect(sdk.metrics.extract.promptTokens).toBe(request!.promptTokens);
  });

  it("reports the provider's failures as a local call would, without the key, and the Sdk goes on", async () => {
    fake.script([{ text: 'I would rather not answer in JSON' }]);
    const error = await sdk.extract('What is the heading?', z.object({ heading: z.string() })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LLMResponseError);
    expect((error as Error).message).toMatch(/anthropic\/claude-sonnet-4-5/);
    expect((error as Error).message).not.toContain(MODEL_KEY);

    fake.script([{ status: 401, error: 'invalid x-api-key' }]);
    const refused = await sdk.extract('What is the heading?', z.object({ heading: z.string() })).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(LLMResponseError);
    expect((refused as Error).message).toMatch(/401/);
    expect((refused as Error).message).not.toContain(MODEL_KEY);

    fake.script((request) => ({ json: { heading: linesWith(request, 'heading:')[0] ?? '' } }));
    expect(await sdk.extract('What is the heading?', z.object({ heading: z.string() }))).toEqual({ heading: 'heading: Top [level=1]' });
  });

  it("keeps the call's deadline: a provider that never answers gives a TimeoutError, and the server lets go of it", async () => {
    fake.script(() => ({ hang: true }));
    const started = Date.now();
    await expect(sdk.extract('What is the heading?', z.object({ heading: z.string() }), { timeout: 2500 })).rejects.toBeInstanceOf(
      TimeoutError,
    );
    expect(Date.now() - started).toBeLessThan(2500 + 2000);
    // The server's request to the provider is aborted too, not left running.
    const aborted = await fake.nextAbort();
    expect(aborted.endpoint).toBe('messages');
  });

  it('says which key is wrong when the server refuses this client', async () => {
    const wrong = new Sdk(
      sdkOptions({
        modelServer: { url: server.url, apiKey: 'not-a-key' },
        model: { modelName: 'anthropic/claude-sonnet-4-5', apiKey: MODEL_KEY, baseURL: fake.url },
      }),
    );
    try {
      await wrong.init();
      await wrong.context.pages()[0]!.goto(fixtures.a.url('frames.html'));
      const error = await wrong.extract('What is the heading?', z.object({ heading: z.string() })).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HostedServiceError);
      expect((error as HostedServiceError).status).toBe(401);
      expect((error as Error).message).toMatch(/modelServer\.apiKey/);
      expect((error as Error).message).not.toContain('not-a-key');
      expect(fake.requests).toHaveLength(0);
    } finally {
      await wrong.close();
    }
  });

  it('is refused with a clear error for env HOSTED, a URL that is not http(s), or no key', () => {
    const bad = [
      { env: 'HOSTED' as const, apiKey: 'k', modelServer: { url: server.url, apiKey: KEY } },
      { modelServer: { url: 'ftp://example.com', apiKey: KEY } },
      { modelServer: { url: server.url } },
    ];
    for (const options of bad) expect(() => new Sdk({ verbose: 0, disablePino: true, ...options })).toThrow(InvalidOptionError);
  });
});

describe('POST /v1/model', () => {
  const post = (base: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}/v1/model`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hosted-api-key': KEY, ...headers },
      body: JSON.stringify(body),
    });
  const request = {
    model: { modelName: 'openai-compatible/fake', baseURL: '' },
    system: 'Answer in JSON.',
    prompt: 'Say hi',
    schema: { type: 'object', properties: { hi: { type: 'string' } } },
  };

  it('answers { value, usage } for the model the body names', async () => {
    fake.script(() => ({ json: { hi: 'there' } }));
    const response = await post(server.url, { ...request, model: { ...request.model, baseURL: fake.url } });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { value: unknown; usage: { promptTokens: number } };
    expect(body.value).toEqual({ hi: 'there' });
    expect(body.usage.promptTokens).toBe(fake.requests[0]!.promptTokens);
  });

  it('refuses a missing key (401), a bad body (400), and a model key in the body (400)', async () => {
    expect((await post(server.url, request, { 'x-hosted-api-key': '' })).status).toBe(401);
    const bad = await post(server.url, { ...request, prompt: '' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(/prompt/);
    const keyed = await post(server.url, { ...request, model: { modelName: 'openai/gpt-4.1-mini', apiKey: 'sk-in-body' } });
    expect(keyed.status).toBe(400);
    expect(JSON.stringify(await keyed.json())).toMatch(/x-model-api-key/);
    expect(fake.requests).toHaveLength(0);
  });

  it("calls no model endpoint on the server's own machine or network unless HOSTED_ALLOW_NETWORKS opens it", async () => {
    // The confined server has the default rules: loopback is refused, by address and by a local provider's default.
    for (const model of [
      { modelName: 'openai-compatible/fake', baseURL: fake.url },
      { modelName: 'ollama/llama3' },
      { modelName: 'openai-compatible/fake', baseURL: fake.url.replace('127.0.0.1', 'localhost') },
    ]) {
      const response = await post(confined.url, { ...request, model });
      expect(response.status).toBe(403);
      expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/HOSTED_ALLOW_NETWORKS/);
    }
    expect(fake.requests).toHaveLength(0);

    // The same rule for the model of an operation on a session.
    const hosted = new Sdk({
      env: 'HOSTED',
      apiKey: KEY,
      projectId: 'p',
      hostedApiUrl: confined.url,
      verbose: 0,
      disablePino: true,
      model: { modelName: 'openai/gpt-4.1-mini', apiKey: 'sk-x', baseURL: fake.url },
    });
    try {
      await hosted.init();
      const error = await hosted.extract('What is on the page?').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HostedServiceError);
      expect((error as HostedServiceError).status).toBe(403);
      expect((error as Error).message).toMatch(/model endpoint 127\.0\.0\.1 is refused/);
    } finally {
      await hosted.close();
    }
    expect(fake.requests).toHaveLength(0);
  });
});
