// extract(instruction[, schema]) against real Chromium and a real HTTP model server that speaks
// OpenAI's wire API: what reaches the model, what comes back, and every way it can go wrong.

import { afterAll, beforeAll, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { z as z3 } from 'zod3';
import {
  InvalidAISDKModelFormatError,
  InvalidOptionError,
  LLMResponseError,
  MissingLLMConfigurationError,
  SchemaValidationError,
  Sdk,
  TimeoutError,
  UnsupportedModelError,
  type LogLine,
} from '../../src/index.js';
import { sdkOptions, useBrowser } from '../helpers.js';
import { startFakeModel, type FakeModel, type FakeRequest } from '../support/fake-model.js';

const KEY = 'sk-test-secret-7d1f0c';
const lines: LogLine[] = [];
const fixture = useBrowser({ verbose: 2, logger: (line) => lines.push(line) });
let fake: FakeModel;
const model = (extra: Record<string, unknown> = {}) => ({ modelName: 'openai/gpt-4.1-mini', apiKey: KEY, baseURL: fake.url, ...extra });

/** The id the page text gives the link with this name, as a model reading the prompt would find it. */
function linkId(request: FakeRequest, name: string): string {
  const match = new RegExp(`\\[((?:\\d+-)?\\d+)\\] link: ${name}\\b`).exec(request.user);
  if (!match) throw new Error(`no link "${name}" in the prompt:\n${request.user}`);
  return match[1]!;
}

function propertiesOf(schema: unknown): Record<string, any> {
  return (schema as { properties: Record<string, any> }).properties;
}

beforeAll(async () => {
  fake = await startFakeModel();
});
afterAll(() => fake.close());
beforeEach(async () => {
  fake.reset();
  await fixture.page.goto(fixture.servers.a.url('extract-shop.html'));
});

describe('extract(instruction)', () => {
  it('returns { extraction }, sends the instruction and the whole page once, and counts the call', async () => {
    fake.script([{ json: { extraction: 'Widgets A, B and C' } }]);
    const before = fixture.sdk.metrics;
    const result = await fixture.sdk.extract('Which products are listed?', { model: model() });
    expect(result).toEqual({ extraction: 'Widgets A, B and C' });
    expect(fake.requests).toHaveLength(1);
    const request = fake.requests[0]!;
    expect(request.endpoint).toBe('responses');
    expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request.user).toContain('Which products are listed?');
    // The top page, the closed shadow root and the out-of-process iframe all reach the model.
    for (const text of ['Widget A', 'Widget B', 'Widget C', 'Great widgets, said Ada.']) expect(request.user).toContain(text);
    // No link fields asked for, so no node ids: they would cost tokens and help nothing.
    expect(request.user).not.toMatch(/^\s*\[(?:\d+-)?\d+\] /m);
    expect(request.user).toContain('\n   heading: Widget A [level=3]\n');
    const after = fixture.sdk.metrics;
    expect(after.extract.operations - before.extract.operations).toBe(1);
    expect(after.extract.modelCalls - before.extract.modelCalls).toBe(1);
    expect(after.extract.promptTokens - before.extract.promptTokens).toBe(request.promptTokens);
    expect(after.total.promptTokens - before.total.promptTokens).toBe(request.promptTokens);
    expect(after.extract.completionTokens).toBeGreaterThan(before.extract.completionTokens);
  });

  it('sends only the part of the page the selector names', async () => {
    fake.script([{ json: { extraction: 'Ada and Linus liked it' } }]);
    await fixture.sdk.extract('Summarise the reviews', { model: model(), selector: '#reviews' });
    const user = fake.requests[0]!.user;
    expect(user).toContain('Great widgets, said Ada.');
    expect(user).toContain('Fast delivery, said Linus.');
    for (const text of ['Widget A', 'Widget B', 'Widget C', 'Open every day']) expect(user).not.toContain(text);
  });

  it('uses the constructor model when the call names none, and the page given in options', async () => {
    const sdk = new Sdk(sdkOptions({ model: model() }));
    try {
      await sdk.init();
      const second = await sdk.context.newPage();
      await second.goto(fixture.servers.a.url('extract-base.html'));
      const first = sdk.context.pages()[0]!;
      await first.goto(fixture.servers.a.url('extract-shop.html'));
      fake.script([{ json: { extraction: 'three catalog items' } }]);
      expect(await sdk.extract('Count the items', { page: second })).toEqual({ extraction: 'three catalog items' });
      expect(fake.requests[0]!.user).toContain('Catalog item one');
      expect(fake.requests[0]!.user).not.toContain('Widget A');
    } finally {
      await sdk.close();
    }
  });
});

describe('extract(instruction, schema)', () => {
  const product4 = z.object({
    name: z.string().describe('The product name, as in its heading'),
    price: z.number().min(0).max(1000),
    inStock: z.boolean(),
    link: z.string().url(),
    note: z.string().optional(),
  });
  const product3 = z3.object({
    name: z3.string().describe('The product name, as in its heading'),
    price: z3.number().min(0).max(1000),
    inStock: z3.boolean(),
    link: z3.string().url(),
    note: z3.string().optional(),
  });

  for (const [version, product] of [
    ['zod 4', product4],
    ['zod 3', product3],
  ] as const) {
    it(`${version}: an array of objects round-trips, with field kinds, bounds, descriptions and link URLs`, async () => {
      fake.script((request) => ({
        json: {
          value: [
            { name: 'Widget A', price: 12.5, inStock: true, link: linkId(request, 'Details of Widget A'), note: null },
            { name: 'Widget B', price: 7.25, inStock: false, link: linkId(request, 'Details of Widget B'), note: 'closed root' },
            { name: 'Widget C', price: 99, inStock: true, link: linkId(request, 'Details of Widget C'), note: null },
          ],
        },
      }));
      const items = await fixture.sdk.extract('List the products', (product as typeof product4).array(), { model: model() });
      const { a, b } = fixture.servers;
      expect(items).toEqual([
        { name: 'Widget A', price: 12.5, inStock: true, link: `${a.origin}/products/widget-a?ref=list` },
        { name: 'Widget B', price: 7.25, inStock: false, link: `${a.origin}/products/widget-b`, note: 'closed root' },
        { name: 'Widget C', price: 99, inStock: true, link: `${b.origin}/frame-products/widget-c` },
      ]);
      // The model saw a wrapped object schema, strict-mode shaped, with the caller's words in it.
      const schema = fake.requests[0]!.schema as any;
      expect(Object.keys(propertiesOf(schema))).toEqual(['value']);
      const item = propertiesOf(schema).value.items;
      expect(item.required).toEqual(['name', 'price', 'inStock', 'link', 'note']);
      expect(item.additionalProperties).toBe(false);
      expect(item.properties.name).toEqual({ type: 'string', description: 'The product name, as in its heading' });
      expect(item.properties.price).toEqual({ type: 'number', minimum: 0, maximum: 1000 });
      expect(item.properties.inStock).toEqual({ type: 'boolean' });
      expect(item.properties.link.type).toBe('string');
      expect(item.properties.link.description).toMatch(/id of the link/);
      // With link fields, links (and only links) keep their ids.
      const user = fake.requests[0]!.user;
      expect(user).toMatch(/\n\s+\[\d+\] link: Details of Widget A\n/);
      expect(user).toMatch(/\n\s+heading: Widget A \[level=3\]\n/);
      expect(item.properties.note.anyOf).toEqual([{ type: 'string' }, { type: 'null' }]);
    });
  }

  it('nested objects and arrays of nested objects round-trip (zod 4 and zod 3)', async () => {
    const shop4 = z.object({
      shop: z.object({ title: z.string(), hours: z.object({ from: z.number().int(), to: z.number().int() }) }),
      sections: z.array(z.object({ heading: z.string(), links: z.array(z.object({ text: z.string(), url: z.string().url() })) })),
    });
    const shop3 = z3.object({
      shop: z3.object({ title: z3.string(), hours: z3.object({ from: z3.number().int(), to: z3.number().int() }) }),
      sections: z3.array(z3.object({ heading: z3.string(), links: z3.array(z3.object({ text: z3.string(), url: z3.string().url() })) })),
    });
    const answer = (request: FakeRequest) => ({
      json: {
        shop: { title: 'Tendril Shop', hours: { from: 9, to: 5 } },
        sections: [{ heading: 'Reviews', links: [{ text: 'All reviews', url: linkId(request, 'All reviews') }] }],
      },
    });
    const expected = {
      shop: { title: 'Tendril Shop', hours: { from: 9, to: 5 } },
      sections: [{ heading: 'Reviews', links: [{ text: 'All reviews', url: 'https://reviews.example.org/tendril' }] }],
    };
    fake.script(answer);
    expect(await fixture.sdk.extract('Describe the shop', shop4, { model: model() })).toEqual(expected);
    expect(await fixture.sdk.extract('Describe the shop', shop3, { model: model() })).toEqual(expected);
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[1]!.schema).toEqual(fake.requests[0]!.schema);
    expect(propertiesOf(propertiesOf(propertiesOf(fake.requests[0]!.schema).shop).hours).from).toEqual({ type: 'integer' });
  });

  it('a plain string schema is wrapped for the model and unwrapped for the caller', async () => {
    fake.script((request) => {
      expect(propertiesOf(request.schema)).toEqual({ value: { type: 'string' } });
      return { json: { value: 'Tendril Shop' } };
    });
    const title = await fixture.sdk.extract('What is the shop called?', z.string(), { model: model() });
    expect(title).toBe('Tendril Shop');
    expect(await fixture.sdk.extract('What is the shop called?', z3.string(), { model: model() })).toBe('Tendril Shop');
  });

  it('types the result by the schema, for zod 4 and zod 3', () => {
    type Call = typeof fixture.sdk.extract<typeof product4>;
    expectTypeOf<Awaited<ReturnType<Call>>>().toEqualTypeOf<z.infer<typeof product4>>();
    type Call3 = typeof fixture.sdk.extract<typeof product3>;
    expectTypeOf<Awaited<ReturnType<Call3>>>().toEqualTypeOf<z3.infer<typeof product3>>();
    expectTypeOf<Awaited<ReturnType<typeof fixture.sdk.extract<z.ZodString>>>>().toEqualTypeOf<string>();
  });

  it('resolves links relative to <base href> and inside out-of-process frames to absolute URLs', async () => {
    await fixture.page.goto(fixture.servers.a.url('extract-base.html'));
    fake.script((request) => ({
      json: {
        links: ['Catalog item one', 'Catalog item two', 'Catalog item three'].map((name) => ({ name, href: linkId(request, name) })),
      },
    }));
    const result = await fixture.sdk.extract(
      'All catalog links',
      z.object({ links: z.array(z.object({ name: z.string(), href: z.string().url() })) }),
      { model: model() },
    );
    const b = fixture.servers.b.origin;
    expect(result.links.map((link) => link.href)).toEqual([`${b}/catalog/v2/item-1`, `${b}/catalog/item-2`, `${b}/root-item`]);
  });

  it('raises SchemaValidationError with the issues when the reply breaks the schema', async () => {
    fake.script([{ json: { name: 'Widget A', price: 'cheap', inStock: true, link: 'nowhere', note: null } }]);
    const error = await fixture.sdk.extract('First product', product4, { model: model() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaValidationError);
    const issues = (error as SchemaValidationError).issues as Array<{ path: unknown[] }>;
    expect(issues.map((issue) => issue.path.join('.'))).toEqual(expect.arrayContaining(['price', 'link']));
    expect((error as Error).message).toMatch(/price/);
    // A link id the page does not have is named as such, not silently passed on.
    expect((error as Error).message).toMatch(/not on the page: link = "nowhere"/);
  });

  it('never returns a link the page does not have: a required one fails the call, an optional one is left out', async () => {
    const invented = 'https://invented.example/widget';
    fake.script([{ json: { value: [{ name: 'Widget A', price: 1, inStock: true, link: invented, note: null }] } }]);
    const error = await fixture.sdk.extract('Products', product4.array(), { model: model() }).catch((e: unknown) => e);
    // zod alone would accept it: it is a well-formed URL.
    expect(product4.array().safeParse([{ name: 'Widget A', price: 1, inStock: true, link: invented }]).success).toBe(true);
    expect(error).toBeInstanceOf(SchemaValidationError);
    expect((error as SchemaValidationError).issues).toEqual([{ message: 'not a link of the page', path: ['0', 'link'] }]);
    expect((error as Error).message).toContain(`0.link = "${invented}"`);

    const withOptionalLink = z.object({ name: z.string(), link: z.string().url().optional() });
    fake.script((request) => ({
      json: {
        value: [
          { name: 'A', link: invented },
          { name: 'B', link: linkId(request, 'Details of Widget B') },
        ],
      },
    }));
    lines.length = 0;
    expect(await fixture.sdk.extract('Products', withOptionalLink.array(), { model: model() })).toEqual([
      { name: 'A' },
      { name: 'B', link: `${fixture.servers.a.origin}/products/widget-b` },
    ]);
    expect(
      lines.some((line) => line.message.startsWith('Left out optional link fields') && JSON.stringify(line.auxiliary).includes(invented)),
    ).toBe(true);
  });

  it('raises SchemaValidationError for a number outside its bounds', async () => {
    fake.script((request) => ({
      json: { name: 'Widget A', price: 5000, inStock: true, link: linkId(request, 'Details of Widget A'), note: null },
    }));
    await expect(fixture.sdk.extract('First product', product4, { model: model() })).rejects.toBeInstanceOf(SchemaValidationError);
  });

  it('raises LLMResponseError on a reply that is not JSON, and on an HTTP error, without the key', async () => {
    fake.script([{ text: 'I am sorry, I cannot browse the web.' }]);
    const garbage = await fixture.sdk.extract('First product', product4, { model: model() }).catch((e: unknown) => e);
    expect(garbage).toBeInstanceOf(LLMResponseError);
    expect((garbage as Error).message).toMatch(/did not answer with JSON: "I am sorry/);

    fake.script([{ status: 401, error: `Incorrect API key provided: ${KEY}` }]);
    lines.length = 0;
    const refused = await fixture.sdk.extract('First product', product4, { model: model() }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(LLMResponseError);
    expect((refused as Error).message).toMatch(/HTTP 401/);
    expect((refused as Error).message).not.toContain(KEY);
    expect(JSON.stringify(lines)).not.toContain(KEY);
  });

  it('rejects what is not a zod schema, and an empty instruction', async () => {
    await expect(fixture.sdk.extract('x', { type: 'object' } as never, { model: model() })).rejects.toBeInstanceOf(InvalidOptionError);
    await expect(fixture.sdk.extract('   ', z.string(), { model: model() })).rejects.toBeInstanceOf(InvalidOptionError);
    await expect(fixture.sdk.extract('x', z.object({ when: z.date() }), { model: model() })).rejects.toThrow(/"when" is a date/);
    expect(fake.requests).toHaveLength(0);
  });
});

describe('model configuration', () => {
  it('raises the contract errors at the call, never at construction', async () => {
    const sdk = new Sdk(sdkOptions({ model: 'gpt-4o' }));
    try {
      await sdk.init();
      await sdk.context.pages()[0]!.goto(fixture.servers.a.url('extract-shop.html'));
      // Page text needs no model, so a bad default model does not get in its way.
      expect((await sdk.extract()).pageText).toContain('Widget A');
      await expect(sdk.extract('x')).rejects.toBeInstanceOf(InvalidAISDKModelFormatError);
      await expect(sdk.extract('x', { model: 'openai' })).rejects.toBeInstanceOf(InvalidAISDKModelFormatError);
      await expect(sdk.extract('x', { model: 'acme/brain-1' })).rejects.toThrow(UnsupportedModelError);
      await expect(sdk.extract('x', { model: 'acme/brain-1' })).rejects.toThrow(/Unknown model provider "acme"/);
      // An optional provider package that is not installed is named, with the command to install it.
      await expect(sdk.extract('x', { model: { modelName: 'mistral/mistral-small-latest', apiKey: 'k' } })).rejects.toThrow(
        /npm install @ai-sdk\/mistral/,
      );
      const saved = process.env.OPENAI_API_KEY;
      delete process.env.OPENAI_API_KEY;
      try {
        await expect(sdk.extract('x', { model: 'openai/gpt-4.1-mini' })).rejects.toThrow(MissingLLMConfigurationError);
        await expect(sdk.extract('x', { model: 'openai/gpt-4.1-mini' })).rejects.toThrow(/OPENAI_API_KEY/);
        // In the words of the library's options, with the way to a server of one's own.
        await expect(sdk.extract('x', { model: 'openai/gpt-4.1-mini' })).rejects.toThrow(
          'No API key for openai/gpt-4.1-mini: pass model: { modelName: "openai/gpt-4.1-mini", apiKey } or set OPENAI_API_KEY. ' +
            "A server of your own that speaks OpenAI's API (Ollama, vLLM, llama.cpp) is asked for none: " +
            'model: { modelName: "openai-compatible/<name>", baseURL: "http://127.0.0.1:11434/v1" }.',
        );
      } finally {
        if (saved !== undefined) process.env.OPENAI_API_KEY = saved;
      }
    } finally {
      await sdk.close();
    }
    expect(fake.requests).toHaveLength(0);
  });

  it("asks a server at baseURL for no key: the provider's own model with none given and none in its variable", async () => {
    const saved = process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_API_KEY;
    try {
      fake.script(() => ({ json: { extraction: 'keyless' } }));
      const result = await fixture.sdk.extract('x', { model: { modelName: 'openai/gpt-4.1-mini', baseURL: fake.url, maxRetries: 0 } });
      expect(result).toEqual({ extraction: 'keyless' });
      expect(fake.requests.map((request) => request.headers.authorization)).toEqual(['Bearer unused']);
    } finally {
      if (saved !== undefined) process.env.OPENAI_API_KEY = saved;
    }
  });

  it('loads an installed optional provider package and sends it the key and endpoint given', async () => {
    fake.script(() => ({ json: { extraction: 'from the Messages API' } }));
    const result = await fixture.sdk.extract('x', {
      model: { modelName: 'anthropic/claude-sonnet-4-5', apiKey: KEY, baseURL: fake.url, maxRetries: 0 },
    });
    // The request reached our server through @ai-sdk/anthropic: its path, its key header, its model.
    expect(result).toEqual({ extraction: 'from the Messages API' });
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]).toMatchObject({ endpoint: 'messages', model: 'claude-sonnet-4-5' });
    expect(fake.requests[0]!.headers['x-api-key']).toBe(KEY);
  });

  it('raises MissingLLMConfigurationError when neither the call nor the Sdk has a model', async () => {
    await expect(fixture.sdk.extract('x')).rejects.toBeInstanceOf(MissingLLMConfigurationError);
    await expect(fixture.sdk.extract('x', z.string())).rejects.toBeInstanceOf(MissingLLMConfigurationError);
  });

  it('takes the key from the environment, and speaks Chat Completions for self-hosted servers', async () => {
    const saved = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = 'sk-from-env';
    try {
      fake.script(() => ({ json: { extraction: 'ok' } }));
      await fixture.sdk.extract('x', { model: { modelName: 'openai/gpt-4.1-mini', baseURL: fake.url } });
      expect(fake.requests[0]!.headers.authorization).toBe('Bearer sk-from-env');
    } finally {
      if (saved === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = saved;
    }
    await fixture.sdk.extract('x', { model: { modelName: 'ollama/llama3.1:8b', baseURL: fake.url } });
    await fixture.sdk.extract('x', { model: { modelName: 'my-local-model', baseURL: fake.url } });
    await fixture.sdk.extract('x', { model: model({ api: 'chat' }) });
    expect(fake.requests.map((request) => [request.endpoint, request.model])).toEqual([
      ['responses', 'gpt-4.1-mini'],
      ['chat', 'llama3.1:8b'],
      ['chat', 'my-local-model'],
      ['chat', 'gpt-4.1-mini'],
    ]);
  });
});

describe('deadlines', () => {
  it('aborts the model request when the timeout passes and raises TimeoutError on time', async () => {
    fake.script(() => ({ hang: true }));
    const started = Date.now();
    const outcome = fixture.sdk.extract('x', z.string(), { model: model(), timeout: 3000 }).catch((e: unknown) => e);
    // The request reached the model within the deadline: there is one in flight to abort.
    await fake.nextRequest();
    const error = await outcome;
    const elapsed = Date.now() - started;
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).timeoutMs).toBe(3000);
    expect(elapsed).toBeGreaterThanOrEqual(2950);
    expect(elapsed).toBeLessThan(4500);
    // The server saw the client hang up: the request was cancelled, not left running.
    const aborted = await fake.nextAbort();
    expect(aborted.aborted).toBe(true);
    // And the Sdk carries on.
    fake.script([{ json: { value: 'after' } }]);
    expect(await fixture.sdk.extract('x', z.string(), { model: model() })).toBe('after');
  });
});

describe('pages larger than the input budget', () => {
  it('extracts a 10,000-row table in chunks, and the merged array has every row once, in order', async () => {
    await fixture.page.goto(fixture.servers.a.url('extract-table.html'));
    const maxInputTokens = 12_000;
    // The fake model reads the rows of the chunk it was sent, as a real one would.
    fake.script((request) => {
      const rows = [...request.user.matchAll(/row: Item (\d+) \| (\d+)/g)].map((match) => ({
        name: `Item ${match[1]}`,
        quantity: Number(match[2]),
      }));
      return { json: { value: rows } };
    });
    const before = fixture.sdk.metrics;
    lines.length = 0;
    const rows = await fixture.sdk.extract('Every inventory row', z.array(z.object({ name: z.string(), quantity: z.number() })), {
      model: model({ maxInputTokens }),
    });
    expect(rows).toHaveLength(10_000);
    rows.forEach((row, i) => expect(row).toEqual({ name: `Item ${i + 1}`, quantity: ((i + 1) * 7) % 1000 }));
    const chunks = fake.requests.length;
    expect(chunks).toBeGreaterThan(5);
    for (const request of fake.requests) {
      // The estimate errs high: no chunk exceeds the budget by a real tokenizer's count.
      expect(request.promptTokens).toBeLessThanOrEqual(maxInputTokens);
      expect(request.user).toMatch(new RegExp(`part \\d+ of ${chunks}`));
    }
    // Chunks after the first open with the lines of the elements around them.
    expect(fake.requests.slice(1).every((request) => /\nRootWebArea: Big table\n\s+main\n/.test(request.user))).toBe(true);
    const after = fixture.sdk.metrics;
    expect(after.extract.modelCalls - before.extract.modelCalls).toBe(chunks);
    expect(after.extract.chunkedOperations - before.extract.chunkedOperations).toBe(1);
    expect(lines.some((line) => line.message.includes(`in ${chunks} chunks`))).toBe(true);
  });
});
