// The model both libraries reach in the extract-llm measurement: the tests' fake OpenAI server
// (test/support/fake-model.ts, real HTTP on loopback), scripted to answer every request at once with
// a value its JSON Schema accepts, plus a fetch that times each request from the client's side.
import type { BenchModel } from './config.js';
import { startFakeModel, type FakeModel, type FakeReply, type FakeRequest } from '../../../test/support/fake-model.js';

export const MODEL_NAME = 'openai/gpt-4.1-mini';

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  minItems?: number;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  $ref?: string;
};

const isNull = (s: JsonSchema): boolean => s.type === 'null' || (s.enum?.length === 1 && s.enum[0] === null);

/**
 * A value `schema` accepts: every property, short strings, zero, false, empty arrays, the first
 * non-null option of a union, the first value of an enum. Good for any schema the libraries send
 * (the caller's, and Stagehand's own metadata schema), so no reply depends on which library asked.
 */
export function sampleFor(schema: JsonSchema | undefined, root: JsonSchema | undefined = schema, depth = 0): unknown {
  if (!schema || typeof schema !== 'object' || depth > 32) return null;
  if (schema.$ref) {
    // Local references only ("#/definitions/x", "#/$defs/x"), which is all converters emit.
    const target = schema.$ref
      .replace(/^#\/?/, '')
      .split('/')
      .filter(Boolean)
      .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[decodeURIComponent(key)], root);
    return sampleFor(target as JsonSchema | undefined, root, depth + 1);
  }
  if ('const' in schema) return schema.const;
  if (schema.enum?.length) return schema.enum[0];
  const options = schema.anyOf ?? schema.oneOf;
  if (options?.length) return sampleFor(options.find((o) => !isNull(o)) ?? options[0], root, depth + 1);
  if (schema.allOf?.length) return sampleFor(schema.allOf[0], root, depth + 1);
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  const type = types.find((t) => t !== 'null') ?? types[0] ?? (schema.properties ? 'object' : undefined);
  switch (type) {
    case 'object':
      return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, v]) => [k, sampleFor(v, root, depth + 1)]));
    case 'array':
      return Array.from({ length: schema.minItems ?? 0 }, () => sampleFor(schema.items, root, depth + 1));
    case 'string':
      return 'bench';
    case 'number':
    case 'integer':
      return 0;
    case 'boolean':
      return false;
    default:
      return null;
  }
}

/**
 * A measurement's own answer to some requests (act's choice of element, say, which no value made up
 * from the schema can be); `undefined` leaves the request to `sampleFor`.
 */
export type ModelAnswer = (request: FakeRequest) => unknown;

function replier(delayMs: number, answer?: ModelAnswer): (request: FakeRequest) => FakeReply {
  return (request) => {
    // Both libraries always ask for structured output; anything else should show up as a failure.
    if (request.schema === undefined) return { status: 400, error: 'fake model (bench): request without a JSON schema' };
    const own = answer?.(request);
    return { json: own === undefined ? sampleFor(request.schema as JsonSchema) : own, delayMs };
  };
}

/** Client-side time of the model requests made through `fetch`, since the last `take()`. */
export interface ModelMeter {
  readonly fetch: typeof fetch;
  take(): { ms: number; requests: number };
}

function meter(): ModelMeter {
  let ms = 0;
  let requests = 0;
  return {
    // From sending the request until its whole body is in: what a real model's latency would
    // replace. The fake counts tokens with js-tiktoken in this very process before replying, so
    // this also keeps that cost out of the libraries' overhead.
    fetch: async (input, init) => {
      const t0 = performance.now();
      try {
        const res = await fetch(input, init);
        const body = await res.arrayBuffer();
        return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
      } finally {
        ms += performance.now() - t0;
        requests++;
      }
    },
    take() {
      const out = { ms, requests };
      ms = 0;
      requests = 0;
      return out;
    },
  };
}

export interface BenchModelServer {
  readonly fake: FakeModel;
  /** What both libraries' constructors get. */
  readonly model: BenchModel;
  readonly meter: ModelMeter;
  close(): Promise<void>;
}

/**
 * `delayMs`: how long the fake waits before each reply (after recording the request). The
 * comparisons leave it at 0, since they subtract the model's time anyway; a measurement whose point
 * is the model call it avoids needs the call to cost what a real one does.
 */
export async function startModelServer(options: { delayMs?: number; answer?: ModelAnswer } = {}): Promise<BenchModelServer> {
  const fake = await startFakeModel({ script: replier(options.delayMs ?? 0, options.answer) });
  const m = meter();
  return {
    fake,
    model: { modelName: MODEL_NAME, apiKey: 'bench-key', baseURL: fake.url, fetch: m.fetch },
    meter: m,
    close: () => fake.close(),
  };
}
