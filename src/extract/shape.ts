// What the model is asked for, and how its answer becomes the caller's value. The model sees a JSON
// Schema that strict structured-output modes accept (every property required, optional ones
// nullable, no extra properties), with links asked for as node ids; the answer is merged across
// chunks, ids become the URLs the snapshot read from the page, and nulls of optional fields go away.

import type { SchemaNode } from './schema.js';

type Json = Record<string, unknown>;

const LINK_HINT = 'The id of the link element in the page text (such as "12" or "1-12"), not a URL.';

/**
 * JSON Schema for the model. In `partial` mode (one chunk of a larger page) every field outside
 * array items may be null, so a chunk that lacks a value can say so instead of inventing one.
 */
export function modelSchema(node: SchemaNode, partial = false): Json {
  return toJson(node, false, partial);
}

function toJson(node: SchemaNode, nullable: boolean, partial: boolean): Json {
  let out: Json;
  switch (node.kind) {
    case 'object':
      out = {
        type: 'object',
        properties: Object.fromEntries(node.fields.map((field) => [field.key, toJson(field.node, field.optional || partial, partial)])),
        required: node.fields.map((field) => field.key),
        additionalProperties: false,
      };
      break;
    case 'array':
      out = { type: 'array', items: toJson(node.item, false, false) };
      break;
    case 'string':
      out = { type: 'string' };
      if (node.url)
        out.description = node.description ? `${node.description}${/[.!?]$/.test(node.description) ? '' : '.'} ${LINK_HINT}` : LINK_HINT;
      break;
    case 'number':
      out = { type: node.integer ? 'integer' : 'number' };
      if (node.min) out[node.min.inclusive ? 'minimum' : 'exclusiveMinimum'] = node.min.value;
      if (node.max) out[node.max.inclusive ? 'maximum' : 'exclusiveMaximum'] = node.max.value;
      break;
    case 'boolean':
      out = { type: 'boolean' };
      break;
    case 'enum': {
      out = { enum: node.values };
      const types = new Set(node.values.map((value) => (value === null ? 'null' : typeof value)));
      if (types.size === 1 && !types.has('null')) out.type = [...types][0];
      break;
    }
    case 'union':
      out = { anyOf: node.options.map((option) => toJson(option, false, partial)) };
      break;
    case 'nullable':
      return withDescription({ anyOf: [toJson(node.inner, false, partial), { type: 'null' }] }, node.description);
  }
  const description = (out.description as string | undefined) ?? node.description;
  delete out.description;
  return withDescription(nullable ? { anyOf: [out, { type: 'null' }] } : out, description);
}

function withDescription(schema: Json, description: string | undefined): Json {
  if (description) schema.description = description;
  return schema;
}

/** Links the model named that are not links of the page, for the error message. */
export interface MappingNotes {
  /** `dropped`: the field was optional, so it was left out rather than given a made-up link. */
  unknownLinks: Array<{ path: string; value: string; dropped?: boolean }>;
}

/**
 * The model's value in the caller's terms: link ids → absolute URLs, null optional fields dropped.
 * Values of the wrong type are left as they are for the caller's schema to reject with its issues.
 */
export function fromModel(
  node: SchemaNode,
  value: unknown,
  urlOf: (id: string) => string | undefined,
  isPageUrl: (url: string) => boolean,
  notes: MappingNotes,
  path = '',
): unknown {
  switch (node.kind) {
    case 'object': {
      if (!isPlainObject(value)) return value;
      const out: Json = {};
      for (const field of node.fields) {
        const item = value[field.key];
        const childPath = path ? `${path}.${field.key}` : field.key;
        if ((item === null || item === undefined) && field.optional && !acceptsNull(field.node)) continue;
        const unknownBefore = notes.unknownLinks.length;
        const mapped = fromModel(field.node, item, urlOf, isPageUrl, notes, childPath);
        if (field.optional && field.node.kind === 'string' && notes.unknownLinks.length > unknownBefore) {
          notes.unknownLinks[unknownBefore]!.dropped = true;
          continue;
        }
        out[field.key] = mapped;
      }
      return out;
    }
    case 'array':
      return Array.isArray(value)
        ? value.map((item, i) => fromModel(node.item, item, urlOf, isPageUrl, notes, path ? `${path}.${i}` : String(i)))
        : value;
    case 'nullable':
      return value === null ? null : fromModel(node.inner, value, urlOf, isPageUrl, notes, path);
    case 'string': {
      if (!node.url || typeof value !== 'string') return value;
      const url = urlOf(value);
      if (url !== undefined) return url;
      // A model that ignores the instruction and copies a URL is fine as long as the page has it.
      if (isPageUrl(value.trim())) return value.trim();
      notes.unknownLinks.push({ path, value });
      return value;
    }
    default:
      return value;
  }
}

/** Whether the schema asks for any link (a `.url()` string) anywhere. */
export function hasLinkField(node: SchemaNode): boolean {
  switch (node.kind) {
    case 'object':
      return node.fields.some((field) => hasLinkField(field.node));
    case 'array':
      return hasLinkField(node.item);
    case 'nullable':
      return hasLinkField(node.inner);
    case 'union':
      return node.options.some(hasLinkField);
    case 'string':
      return node.url;
    default:
      return false;
  }
}

function acceptsNull(node: SchemaNode): boolean {
  return (
    node.kind === 'nullable' ||
    (node.kind === 'enum' && node.values.includes(null)) ||
    (node.kind === 'union' && node.options.some(acceptsNull))
  );
}

/**
 * One value from the chunks' answers, in page order: arrays are concatenated without repeats,
 * objects merged field by field, and any other value comes from the first chunk that has one.
 */
export function mergeChunks(node: SchemaNode, values: unknown[]): unknown {
  const inner = node.kind === 'nullable' ? node.inner : node;
  if (inner.kind === 'object') {
    const objects = values.filter(isPlainObject);
    if (objects.length === 0) return firstPresent(values);
    return Object.fromEntries(
      inner.fields.map((field) => [
        field.key,
        mergeChunks(
          field.node,
          objects.map((object) => object[field.key]),
        ),
      ]),
    );
  }
  if (inner.kind === 'array') {
    const arrays = values.filter(Array.isArray) as unknown[][];
    if (arrays.length === 0) return firstPresent(values);
    const seen = new Set<string>();
    const out: unknown[] = [];
    for (const item of arrays.flat()) {
      const key = stableJson(item);
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(item);
    }
    return out;
  }
  return firstPresent(values);
}

function firstPresent(values: unknown[]): unknown {
  const found = values.find((value) => value !== null && value !== undefined && value !== '');
  if (found !== undefined) return found;
  return values.find((value) => value !== undefined) ?? null;
}

/** JSON with keys sorted, so two equal items from two chunks compare equal whatever their key order. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (isPlainObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${stableJson(value[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function isPlainObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
