// A schema's journey to a hosted server: the client turns the caller's zod schema (read into a
// SchemaNode) into plain JSON Schema, the server reads it back into the same SchemaNode. Links
// travel as `format: "uri"`. Only what SchemaNode can say is accepted, so what the server runs is
// what the client meant.

import { InvalidOptionError } from '../errors.js';
import type { FieldNode, SchemaNode } from './schema.js';

type Json = Record<string, unknown>;

export function toJsonSchema(node: SchemaNode): Json {
  const out = body(node);
  if (node.description) out.description = node.description;
  return out;
}

function body(node: SchemaNode): Json {
  switch (node.kind) {
    case 'object':
      return {
        type: 'object',
        properties: Object.fromEntries(node.fields.map((field) => [field.key, toJsonSchema(field.node)])),
        required: node.fields.filter((field) => !field.optional).map((field) => field.key),
        additionalProperties: false,
      };
    case 'array':
      return { type: 'array', items: toJsonSchema(node.item) };
    case 'string':
      return node.url ? { type: 'string', format: 'uri' } : { type: 'string' };
    case 'number': {
      const out: Json = { type: node.integer ? 'integer' : 'number' };
      if (node.min) out[node.min.inclusive ? 'minimum' : 'exclusiveMinimum'] = node.min.value;
      if (node.max) out[node.max.inclusive ? 'maximum' : 'exclusiveMaximum'] = node.max.value;
      return out;
    }
    case 'boolean':
      return { type: 'boolean' };
    case 'enum':
      return { enum: node.values };
    case 'union':
      return { anyOf: node.options.map(toJsonSchema) };
    case 'nullable':
      return { anyOf: [toJsonSchema(node.inner), { type: 'null' }] };
  }
}

const MAX_DEPTH = 24;

/** The SchemaNode a JSON Schema from toJsonSchema() describes; InvalidOptionError for anything else. */
export function fromJsonSchema(schema: unknown, path = '', depth = 0): SchemaNode {
  if (depth > MAX_DEPTH) throw new InvalidOptionError(`The schema is nested more than ${MAX_DEPTH} levels deep at ${path || 'the root'}.`);
  if (!schema || typeof schema !== 'object' || Array.isArray(schema))
    throw new InvalidOptionError(`The schema at ${path || 'the root'} is not an object.`);
  const json = schema as Json;
  const description = typeof json.description === 'string' ? json.description : undefined;
  const node = read(json, path, depth);
  return description ? ({ ...node, description } as SchemaNode) : node;
}

function read(json: Json, path: string, depth: number): SchemaNode {
  const where = path || 'the root';
  if (Array.isArray(json.enum)) return { kind: 'enum', values: json.enum as Array<string | number | boolean | null> };
  if (Array.isArray(json.anyOf)) {
    const options = json.anyOf as unknown[];
    const isNull = (option: unknown) => (option as Json | null)?.type === 'null';
    const rest = options.filter((option) => !isNull(option));
    if (rest.length === 1 && options.length === 2) return { kind: 'nullable', inner: fromJsonSchema(rest[0], path, depth + 1) };
    return { kind: 'union', options: options.map((option, i) => fromJsonSchema(option, `${path}|${i}`, depth + 1)) };
  }
  switch (json.type) {
    case 'object': {
      const properties = (json.properties ?? {}) as Record<string, unknown>;
      if (typeof properties !== 'object' || Array.isArray(properties))
        throw new InvalidOptionError(`"properties" at ${where} must be an object.`);
      const required = new Set(Array.isArray(json.required) ? (json.required as string[]) : []);
      const fields: FieldNode[] = Object.entries(properties).map(([key, value]) => ({
        key,
        node: fromJsonSchema(value, path ? `${path}.${key}` : key, depth + 1),
        optional: !required.has(key),
      }));
      return { kind: 'object', fields };
    }
    case 'array':
      return { kind: 'array', item: fromJsonSchema(json.items, `${path}[]`, depth + 1) };
    case 'string':
      return { kind: 'string', url: json.format === 'uri' || json.format === 'url' };
    case 'number':
    case 'integer': {
      const node: Extract<SchemaNode, { kind: 'number' }> = { kind: 'number', integer: json.type === 'integer' };
      const bound = (value: unknown, inclusive: boolean) => (typeof value === 'number' ? { value, inclusive } : undefined);
      const min = bound(json.minimum, true) ?? bound(json.exclusiveMinimum, false);
      const max = bound(json.maximum, true) ?? bound(json.exclusiveMaximum, false);
      if (min) node.min = min;
      if (max) node.max = max;
      return node;
    }
    case 'boolean':
      return { kind: 'boolean' };
    default:
      throw new InvalidOptionError(
        `The schema at ${where} has type ${JSON.stringify(json.type)}; extract() takes object, array, string, number, integer, boolean, enum and anyOf.`,
      );
  }
}
