// The fake model server, driven by the real AI SDK (`ai` + `@ai-sdk/openai`) over loopback HTTP.
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, type JSONSchema7, jsonSchema, Output, streamText } from 'ai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeModel, type FakeModel } from '../support/fake-model.js';

type Product = { name: string; price: number };
const productSchema: JSONSchema7 = {
  type: 'object',
  properties: { name: { type: 'string' }, price: { type: 'number' } },
  required: ['name', 'price'],
  additionalProperties: false,
};
const output = () => Output.object({ schema: jsonSchema<Product>(productSchema) });

let fake: FakeModel;
let openai: ReturnType<typeof createOpenAI>;

beforeAll(async () => {
  fake = await startFakeModel();
  openai = createOpenAI({ apiKey: 'test-key', baseURL: fake.url });
});
afterEach(() => fake.reset());
afterAll(() => fake.close());

describe('fake model server', () => {
  it('answers the Responses API with a structured object', async () => {
    fake.script([{ json: { name: 'Lamp', price: 12.5 } }]);
    const result = await generateText({
      model: openai('gpt-4.1-mini'),
      system: 'Extract the product.',
      output: output(),
      prompt: 'A lamp for 12.50 EUR',
    });
    expect(result.output).toEqual({ name: 'Lamp', price: 12.5 });
    expect(fake.requests).toHaveLength(1);
    const request = fake.requests[0]!;
    expect(request).toMatchObject({
      index: 0,
      endpoint: 'responses',
      model: 'gpt-4.1-mini',
      system: 'Extract the product.',
      user: 'A lamp for 12.50 EUR',
      prompt: 'Extract the product.\nA lamp for 12.50 EUR',
      schema: productSchema,
      aborted: false,
    });
    expect(request.headers.authorization).toBe('Bearer test-key');
    expect(request.promptTokens).toBeGreaterThan(10);
    expect(result.usage.inputTokens).toBe(request.promptTokens);
    expect(result.usage.outputTokens).toBeGreaterThan(0);
  });

  it('answers Chat Completions with a structured object', async () => {
    fake.script(() => ({ json: { name: 'Desk', price: 99 }, completionTokens: 7 }));
    const result = await generateText({
      model: openai.chat('gpt-4o-mini'),
      output: output(),
      prompt: 'A desk for 99 EUR',
    });
    expect(result.output).toEqual({ name: 'Desk', price: 99 });
    const request = fake.requests[0]!;
    expect(request).toMatchObject({ endpoint: 'chat', model: 'gpt-4o-mini', user: 'A desk for 99 EUR' });
    expect(request.prompt).toBe('A desk for 99 EUR');
    expect(request.schema).toEqual(productSchema);
    expect(request.headers.authorization).toBe('Bearer test-key');
    expect(result.usage.inputTokens).toBe(request.promptTokens);
    expect(result.usage.outputTokens).toBe(7);
  });

  it('streams both endpoints over server-sent events', async () => {
    const long = { name: 'A lamp whose name is long enough to span many chunks', price: 1 };
    fake.script(() => ({ json: long }));
    for (const model of [openai('gpt-4.1-mini'), openai.chat('gpt-4o-mini')]) {
      const result = streamText({ model, output: output(), prompt: 'stream it' });
      expect(await result.output).toEqual(long);
      expect((await result.usage).inputTokens).toBe(fake.requests.at(-1)!.promptTokens);
    }
    expect(fake.requests.map((r) => [r.endpoint, r.body.stream])).toEqual([
      ['responses', true],
      ['chat', true],
    ]);
  });

  it('turns an error reply into a rejected call', async () => {
    fake.script([{ status: 400, error: 'bad schema, says the fake' }]);
    await expect(generateText({ model: openai('gpt-4.1-mini'), prompt: 'hi', maxRetries: 0 })).rejects.toThrow('bad schema, says the fake');
    expect(fake.requests).toHaveLength(1);
  });

  it('fails loudly without a script, and on unknown routes', async () => {
    await expect(generateText({ model: openai('gpt-4.1-mini'), prompt: 'hi', maxRetries: 0 })).rejects.toThrow('fake model: no script');
    const response = await fetch(`${fake.url}/embeddings`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(404);
    expect((await response.json()).error.message).toMatch(/no route/);
  });

  it('records a client that gives up on a hanging reply', async () => {
    fake.script([{ hang: true }]);
    const started = Date.now();
    await expect(
      generateText({ model: openai('gpt-4.1-mini'), prompt: 'wait', maxRetries: 0, abortSignal: AbortSignal.timeout(200) }),
    ).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(5_000);
    const aborted = await fake.nextAbort();
    expect(aborted).toBe(fake.requests[0]);
    expect(aborted.aborted).toBe(true);
  });

  it('does not answer a client that left during delayMs', async () => {
    fake.script([{ json: { name: 'late', price: 0 }, delayMs: 1_000 }]);
    const model = openai.chat('gpt-4o-mini');
    const call = generateText({ model, prompt: 'slow', maxRetries: 0, abortSignal: AbortSignal.timeout(100) });
    const request = await fake.nextRequest();
    await expect(call).rejects.toThrow();
    expect(await fake.nextAbort()).toBe(request);
    expect(request.aborted).toBe(true);
  });

  it('consumes an array script in order, then runs dry', async () => {
    fake.script([{ text: 'first' }, { text: 'second' }, { text: 'not json at all' }]);
    const texts: string[] = [];
    for (let i = 0; i < 3; i++) {
      texts.push((await generateText({ model: openai('gpt-4.1-mini'), prompt: `call ${i}` })).text);
    }
    expect(texts).toEqual(['first', 'second', 'not json at all']);
    expect(fake.requests.map((r) => [r.index, r.user])).toEqual([
      [0, 'call 0'],
      [1, 'call 1'],
      [2, 'call 2'],
    ]);
    expect((await fake.nextRequest()).user).toBe('call 0'); // a queue: requests that came before are not lost
    await expect(generateText({ model: openai('gpt-4.1-mini'), prompt: 'more', maxRetries: 0 })).rejects.toThrow('no scripted reply left');
  });

  it('close() ends hanging requests', async () => {
    const other = await startFakeModel({ script: [{ hang: true }] });
    const client = createOpenAI({ apiKey: 'k', baseURL: other.url });
    const call = generateText({ model: client('gpt-4.1-mini'), prompt: 'hang', maxRetries: 0 });
    await other.nextRequest();
    await other.close();
    await expect(call).rejects.toThrow();
    expect(other.requests[0]!.aborted).toBe(false); // the server hung up, not the client
  });
});
