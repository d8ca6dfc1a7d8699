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

/**
 * Keywords that constrain a value and that SchemaNode cannot say: beside a `type` they would be
 * dropped without a word, and the schema would let through what its author meant to refuse.
 */
const UNSUPPORTED = ['$ref', 'allOf', 'oneOf', 'not', 'if', 'then', 'else', 'const', 'patternProperties', 'dependentSchemas'];

const KINDS = 'object, array, string, number, integer, boolean, enum and anyOf';

function read(json: Json, path: string, depth: number): SchemaNode {
  const where = path || 'the root';
  const unsupported = UNSUPPORTED.filter((keyword) => json[keyword] !== undefined);
  if (unsupported.length)
    throw new InvalidOptionError(
      `The schema at ${where} uses ${unsupported.map((keyword) => `"${keyword}"`).join(', ')}, which extract() cannot follow; write it out with ${KINDS}.`,
    );
  if (json.enum !== undefined) {
    const values = json.enum;
    const scalar = (value: unknown) => value === null || ['string', 'number', 'boolean'].includes(typeof value);
    // An empty list, or objects (never equal to an answer's), would let no answer through.
    if (!Array.isArray(values) || !values.length || !values.every(scalar))
      throw new InvalidOptionError(`"enum" at ${where} must be a non-empty array of strings, numbers, booleans or null.`);
    return { kind: 'enum', values: values as Array<string | number | boolean | null> };
  }
  if (json.anyOf !== undefined) {
    if (!Array.isArray(json.anyOf) || !json.anyOf.length)
      throw new InvalidOptionError(`"anyOf" at ${where} must be a non-empty array of schemas: with none, no answer could fit.`);
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
      const given = json.required ?? [];
      if (!Array.isArray(given) || !given.every((key) => typeof key === 'string'))
        throw new InvalidOptionError(`"required" at ${where} must be an array of property names.`);
      // A required name with no schema of its own: the model is never told of it, so no answer has it.
      const stray = given.filter((key) => !Object.hasOwn(properties, key));
      if (stray.length)
        throw new InvalidOptionError(
          `"required" at ${where} names ${stray.map((key) => JSON.stringify(key)).join(', ')}, which "properties" does not describe.`,
        );
      const required = new Set(given);
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
      const bound = (key: string, inclusive: boolean) => {
        const value = json[key];
        if (value === undefined) return undefined;
        if (typeof value !== 'number' || !Number.isFinite(value))
          throw new InvalidOptionError(`"${key}" at ${where} must be a number, not ${JSON.stringify(value)}.`);
        return { value, inclusive };
      };
      const min = bound('minimum', true) ?? bound('exclusiveMinimum', false);
      const max = bound('maximum', true) ?? bound('exclusiveMaximum', false);
      if (min && max && (min.value > max.value || (min.value === max.value && !(min.inclusive && max.inclusive))))
        throw new InvalidOptionError(`The bounds at ${where} leave no number between them (at least ${min.value}, at most ${max.value}).`);
      if (min) node.min = min;
      if (max) node.max = max;
      return node;
    }
    case 'boolean':
      return { kind: 'boolean' };
    default:
      throw new InvalidOptionError(`The schema at ${where} has type ${JSON.stringify(json.type)}; extract() takes ${KINDS}.`);
  }
}
