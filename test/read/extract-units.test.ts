// The pure parts of extraction, without a browser: reading zod schemas of both versions, the JSON
// Schema the model gets, chunking and merging, and model configuration.

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as zm from 'zod/mini';
import { z as z3 } from 'zod3';
import { splitIntoChunks } from '../../src/extract/chunk.js';
import { fromJsonSchema, toJsonSchema } from '../../src/extract/jsonSchema.js';
import { schemaFromJson } from '../../src/extract/jsonSchemaInput.js';
import { readSchema } from '../../src/extract/schema.js';
import { fromModel, mergeChunks, modelSchema } from '../../src/extract/shape.js';
import { estimateTokens } from '../../src/llm/budget.js';
import { parseModelConfiguration } from '../../src/llm/config.js';
import { InvalidAISDKModelFormatError, InvalidOptionError } from '../../src/index.js';

describe('reading schemas', () => {
  enum Numeric {
    Low = 1,
    High = 2,
  }
  const shapes = {
    'zod 4': z.object({
      kind: z.enum(['a', 'b']),
      level: z.nativeEnum(Numeric),
      fixed: z.literal('x'),
      either: z.union([z.string(), z.number()]),
      maybe: z.string().nullable(),
      later: z.number().default(3),
      length: z.string().transform((text) => text.length),
      count: z.number().int().gt(0).lte(10),
      home: z.url().describe('Home page'),
    }),
    'zod 3': z3.object({
      kind: z3.enum(['a', 'b']),
      level: z3.nativeEnum(Numeric),
      fixed: z3.literal('x'),
      either: z3.union([z3.string(), z3.number()]),
      maybe: z3.string().nullable(),
      later: z3.number().default(3),
      length: z3.string().transform((text) => text.length),
      count: z3.number().int().gt(0).lte(10),
      home: z3.string().url().describe('Home page'),
    }),
  };
  for (const [version, schema] of Object.entries(shapes)) {
    it(`${version}: gives the model the same strict JSON Schema`, () => {
      const { node } = readSchema(schema);
      const json = modelSchema(node) as { properties: Record<string, unknown>; required: string[] };
      expect(json.required).toEqual(Object.keys(schema.shape));
      expect(json.properties).toEqual({
        kind: { enum: ['a', 'b'], type: 'string' },
        level: { enum: [1, 2], type: 'number' },
        fixed: { enum: ['x'], type: 'string' },
        either: { anyOf: [{ type: 'string' }, { type: 'number' }] },
        maybe: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        later: { anyOf: [{ type: 'number' }, { type: 'null' }] },
        length: { type: 'string' },
        count: { type: 'integer', exclusiveMinimum: 0, maximum: 10 },
        home: {
          type: 'string',
          description: 'Home page. The id of the link element in the page text (such as "12" or "1-12"), not a URL.',
        },
      });
    });
  }

  it('reads zod/mini schemas too', () => {
    const { node } = readSchema(zm.object({ title: zm.string(), tags: zm.optional(zm.array(zm.string())) }));
    expect(modelSchema(node)).toMatchObject({
      properties: { title: { type: 'string' }, tags: { anyOf: [{ type: 'array', items: { type: 'string' } }, { type: 'null' }] } },
    });
  });

  it('names the field it cannot serve, and refuses what is not a zod schema', () => {
    expect(() => readSchema(z.object({ a: z.object({ when: z.date() }) }))).toThrow(/"a\.when" is a date/);
    expect(() => readSchema(z3.object({ m: z3.map(z3.string(), z3.string()) }))).toThrow(/"m" is a map/);
    type Tree = { name: string; children: Tree[] };
    const tree: z.ZodType<Tree> = z.lazy(() => z.object({ name: z.string(), children: z.array(tree) }));
    expect(() => readSchema(tree)).toThrow(/recursive schemas are not supported/);
    expect(() => readSchema({ type: 'object' })).toThrow(InvalidOptionError);
  });

  it('in partial mode every field outside array items may be null', () => {
    const { node } = readSchema(z.object({ title: z.string(), rows: z.array(z.object({ a: z.string() })) }));
    expect(modelSchema(node, true)).toMatchObject({
      properties: {
        title: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        rows: { anyOf: [{ type: 'array', items: { properties: { a: { type: 'string' } } } }, { type: 'null' }] },
      },
    });
  });
});

describe('schemas on the wire to a hosted server', () => {
  it('come back from JSON Schema as the same description', () => {
    const { node } = readSchema(
      z.object({
        title: z.string().describe('The headline'),
        link: z.url(),
        count: z.number().int().gt(0).lte(10).optional(),
        tags: z.array(z.enum(['a', 'b'])),
        either: z.union([z.string(), z.boolean()]),
        maybe: z.string().nullable(),
        nested: z.object({ ok: z.boolean() }),
      }),
    );
    const wire = toJsonSchema(node);
    expect(wire).toMatchObject({
      required: ['title', 'link', 'tags', 'either', 'maybe', 'nested'],
      properties: { link: { type: 'string', format: 'uri' } },
    });
    expect(fromJsonSchema(JSON.parse(JSON.stringify(wire)))).toEqual(node);
  });

  it('refuse what the description cannot say', () => {
    expect(() => fromJsonSchema({ type: 'object', properties: { when: { type: 'date' } } })).toThrow(/"date"/);
    expect(() => fromJsonSchema('object')).toThrow(InvalidOptionError);
    // Shapes no answer could fit, or constraints that would be dropped without a word.
    expect(() => fromJsonSchema({ anyOf: [] })).toThrow(/"anyOf" at the root must be a non-empty array/);
    expect(() => fromJsonSchema({ enum: [] })).toThrow(/"enum" at the root must be a non-empty array/);
    expect(() => fromJsonSchema({ type: 'object', properties: { a: { type: 'string' } }, required: ['a', 'b'] })).toThrow(/names "b"/);
    expect(() => fromJsonSchema({ type: 'integer', exclusiveMinimum: 3, maximum: 3 })).toThrow(/leave no number/);
    expect(() => fromJsonSchema({ type: 'string', $ref: '#/x' })).toThrow(/uses "\$ref"/);
    expect(fromJsonSchema({ type: 'integer', minimum: 3, maximum: 3 })).toEqual({
      kind: 'number',
      integer: true,
      min: { value: 3, inclusive: true },
      max: { value: 3, inclusive: true },
    });
  });
});

describe('the model answer in caller terms', () => {
  const { node } = readSchema(
    z.object({ name: z.string(), link: z.string().url(), extra: z.string().optional(), maybe: z.string().nullable().optional() }),
  );
  const urls = new Map([['0-4', 'https://example.org/a']]);
  it('maps link ids to URLs, accepts a page URL as is, and drops null optional fields', () => {
    const notes = { unknownLinks: [] };
    const isPage = (url: string) => [...urls.values()].includes(url);
    expect(
      fromModel(node, { name: 'n', link: '[0-4]', extra: null, maybe: null }, (id) => urls.get(id.replace(/[[\]]/g, '')), isPage, notes),
    ).toEqual({
      name: 'n',
      link: 'https://example.org/a',
      maybe: null,
    });
    expect(fromModel(node, { name: 'n', link: 'https://example.org/a', extra: 'x' }, () => undefined, isPage, notes)).toEqual({
      name: 'n',
      link: 'https://example.org/a',
      extra: 'x',
    });
    expect(notes.unknownLinks).toEqual([]);
    fromModel(node, { name: 'n', link: 'https://invented.example/' }, () => undefined, isPage, notes);
    expect(notes.unknownLinks).toEqual([{ path: 'link', value: 'https://invented.example/' }]);
  });
});

describe('merging chunks', () => {
  const { node } = readSchema(
    z.object({
      title: z.string(),
      author: z.string().optional(),
      items: z.array(z.object({ a: z.number(), b: z.string() })),
      meta: z.object({ pages: z.number(), tags: z.array(z.string()) }),
    }),
  );
  it('concatenates arrays without repeats, merges objects by field, and takes the first present scalar', () => {
    const merged = mergeChunks(node, [
      {
        title: null,
        author: '',
        items: [
          { a: 1, b: 'x' },
          { a: 2, b: 'y' },
        ],
        meta: { pages: null, tags: ['t1'] },
      },
      {
        title: 'The title',
        author: 'Ada',
        items: [
          { b: 'y', a: 2 },
          { a: 3, b: 'z' },
        ],
        meta: { pages: 7, tags: ['t1', 't2'] },
      },
      { title: 'Another', author: 'Bob', items: [], meta: null },
    ]);
    expect(merged).toEqual({
      title: 'The title',
      author: 'Ada',
      items: [
        { a: 1, b: 'x' },
        { a: 2, b: 'y' },
        { a: 3, b: 'z' },
      ],
      meta: { pages: 7, tags: ['t1', 't2'] },
    });
  });
});

describe('chunking', () => {
  const text = [
    '[0] RootWebArea: Page',
    '  [1] main',
    '    [2] heading: Title',
    ...Array.from({ length: 400 }, (_, i) => `    [${i + 3}] paragraph: line number ${i} with a few words in it`),
    '  [999] contentinfo: footer text',
  ].join('\n');

  it('keeps every line once, in order, with the enclosing lines at the head of later chunks', () => {
    const budget = 600;
    const chunks = splitIntoChunks(text, budget);
    expect(chunks.length).toBeGreaterThan(3);
    const own = chunks.flatMap((chunk) => chunk.text.split('\n').slice(chunk.contextLines));
    expect(own).toEqual(text.split('\n'));
    for (const chunk of chunks) expect(estimateTokens(chunk.text)).toBeLessThanOrEqual(budget);
    for (const chunk of chunks.slice(1, -1)) {
      expect(chunk.text.split('\n').slice(0, chunk.contextLines)).toEqual(['[0] RootWebArea: Page', '  [1] main']);
    }
  });

  it('cuts a line longer than a chunk into pieces instead of dropping any of it', () => {
    const words = Array.from({ length: 3000 }, (_, i) => `word${i}`);
    const long = `[0] RootWebArea: Long\n  [1] paragraph: ${words.join(' ')}\n  [2] paragraph: after`;
    const chunks = splitIntoChunks(long, 500);
    expect(chunks.length).toBeGreaterThan(5);
    const joined = chunks.map((chunk) => chunk.text.split('\n').slice(chunk.contextLines).join(' ')).join(' ');
    expect(joined.match(/word\d+/g)).toEqual(words);
    expect(joined).toContain('after');
    for (const chunk of chunks) expect(estimateTokens(chunk.text)).toBeLessThanOrEqual(500);
  });

  it('leaves a page that fits alone', () => {
    expect(splitIntoChunks(text, 1_000_000)).toEqual([{ text, contextLines: 0 }]);
  });
});

describe('model configuration', () => {
  it('parses both forms, and infers the provider of plain model names', () => {
    expect(parseModelConfiguration('openai/gpt-4.1-mini')).toMatchObject({ provider: 'openai', modelId: 'gpt-4.1-mini' });
    expect(parseModelConfiguration('openrouter/meta-llama/llama-3.1-8b')).toMatchObject({
      provider: 'openrouter',
      modelId: 'meta-llama/llama-3.1-8b',
    });
    expect(parseModelConfiguration({ modelName: 'claude-sonnet-4-5', apiKey: 'k' })).toMatchObject({ provider: 'anthropic', apiKey: 'k' });
    expect(parseModelConfiguration({ modelName: 'qwen3', baseURL: 'http://127.0.0.1:1/v1/' })).toMatchObject({
      provider: 'openai-compatible',
      baseURL: 'http://127.0.0.1:1/v1',
    });
    expect(parseModelConfiguration({ modelName: 'openai/gpt-4o', organization: 'org', maxInputTokens: 9000 })).toMatchObject({
      maxInputTokens: 9000,
      providerSettings: { organization: 'org' },
    });
    expect(parseModelConfiguration(undefined)).toBeUndefined();
  });

  it('rejects malformed configurations with the contract error or a typed option error', () => {
    for (const bad of ['gpt-4o', 'openai/', '/gpt-4o', 'open ai/gpt'])
      expect(() => parseModelConfiguration(bad)).toThrow(InvalidAISDKModelFormatError);
    expect(() => parseModelConfiguration({ modelName: 'mystery-model' })).toThrow(InvalidAISDKModelFormatError);
    expect(() => parseModelConfiguration({ modelName: '' })).toThrow(InvalidOptionError);
    expect(() => parseModelConfiguration({ modelName: 'openai/x', baseURL: 'ftp://x' })).toThrow(InvalidOptionError);
    expect(() => parseModelConfiguration({ modelName: 'openai/x', maxInputTokens: 10 })).toThrow(InvalidOptionError);
    expect(() => parseModelConfiguration(42 as never)).toThrow(InvalidOptionError);
  });
});

describe("a JSON Schema in place of a zod schema (the command line's --schema)", () => {
  const json = {
    type: 'object',
    properties: {
      name: { type: 'string' },
      link: { type: 'string', format: 'uri' },
      count: { type: 'integer', minimum: 0 },
      tags: { type: 'array', items: { enum: ['a', 'b'] } },
      note: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    },
    required: ['name', 'link', 'count'],
  };

  it('is read into the same node as its zod twin, and checks values the way zod would', async () => {
    const schema = schemaFromJson(json);
    const twin = z.object({
      name: z.string(),
      link: z.string().url(),
      count: z.number().int().min(0),
      tags: z.array(z.enum(['a', 'b'])).optional(),
      note: z.string().nullable().optional(),
    });
    expect(readSchema(schema).node).toEqual(readSchema(twin).node);
    const good = { name: 'x', link: 'https://example.org/', count: 2, tags: ['a'], note: null };
    expect(await schema['~standard'].validate(good)).toEqual({ value: good });
    const bad = (await schema['~standard'].validate({ name: 3, link: 'not a url', count: 1.5, tags: ['c'] })) as {
      issues: Array<{ message: string; path: unknown[] }>;
    };
    expect(bad.issues.map((issue) => [issue.path.join('.'), issue.message])).toEqual([
      ['name', 'expected a string'],
      ['link', 'expected a URL'],
      ['count', 'expected an integer'],
      ['tags.0', 'expected one of "a", "b"'],
    ]);
    expect(
      (
        (await schema['~standard'].validate({ name: 'x', link: 'https://e.org/' })) as {
          issues: Array<{ message: string; path: unknown[] }>;
        }
      ).issues,
    ).toEqual([{ message: 'required', path: ['count'] }]);
  });

  it('refuses what extract() cannot serve, naming where', () => {
    expect(() => schemaFromJson({ type: 'object', properties: { when: { type: 'date' } } })).toThrow(/at when has type "date"/);
    expect(() => schemaFromJson('string')).toThrow(InvalidOptionError);
  });
});
