// Reads a zod schema (version 3 or 4) into a small description of our own, by looking at the
// schema's definition rather than importing zod: a second copy of zod in a bundle is a different
// zod, and `instanceof` or a root import breaks there. Everything downstream (the JSON Schema for
// the model, URL mapping, chunk merging) works on this description.

import { InvalidOptionError } from '../errors.js';

export type SchemaNode =
  | { kind: 'object'; fields: FieldNode[]; description?: string }
  | { kind: 'array'; item: SchemaNode; description?: string }
  | { kind: 'string'; url: boolean; description?: string }
  | { kind: 'number'; integer: boolean; min?: Bound; max?: Bound; description?: string }
  | { kind: 'boolean'; description?: string }
  | { kind: 'enum'; values: Array<string | number | boolean | null>; description?: string }
  | { kind: 'union'; options: SchemaNode[]; description?: string }
  | { kind: 'nullable'; inner: SchemaNode; description?: string };

export interface FieldNode {
  key: string;
  node: SchemaNode;
  /** The caller's schema accepts the field missing (optional, or has a default). */
  optional: boolean;
}

export interface Bound {
  value: number;
  inclusive: boolean;
}

/** The shape of `extract(instruction)` without a schema. */
export const FREE_TEXT: SchemaNode = {
  kind: 'object',
  fields: [{ key: 'extraction', node: { kind: 'string', url: false, description: 'The answer to the instruction.' }, optional: false }],
};

/**
 * A zod schema, either major version (classic or mini): both implement the Standard Schema
 * interface, which is how the result is validated, and keep a definition we can read.
 */
export interface ZodLike {
  '~standard': {
    vendor: string;
    validate(value: unknown): StandardResult | Promise<StandardResult>;
  };
}

export type StandardResult = { value: unknown; issues?: undefined } | { issues: ReadonlyArray<StandardIssue> };

export interface StandardIssue {
  message: string;
  path?: ReadonlyArray<PropertyKey | { key: PropertyKey }>;
}

/** Where a schema built from JSON Schema (jsonSchemaInput.ts) keeps the SchemaNode it was read into. */
export const SCHEMA_NODE = Symbol('tendril.schemaNode');

export function isZodSchema(value: unknown): value is ZodLike {
  if (!value || typeof value !== 'object') return false;
  if (SCHEMA_NODE in value) return true;
  const record = value as Record<string, unknown>;
  const standard = record['~standard'] as { validate?: unknown } | undefined;
  return typeof standard?.validate === 'function' && (typeof record._def === 'object' || typeof record._zod === 'object');
}

/** The caller's schema as a SchemaNode; throws InvalidOptionError naming the field we cannot serve. */
export function readSchema(schema: unknown): { node: SchemaNode; optional: boolean } {
  if (!isZodSchema(schema)) {
    throw new InvalidOptionError('The schema of extract(instruction, schema) must be a zod schema (zod 3.25+ or zod 4).');
  }
  const given = (schema as { [SCHEMA_NODE]?: SchemaNode })[SCHEMA_NODE];
  return given ? { node: given, optional: false } : read(schema, '', 0);
}

const MAX_DEPTH = 24;

interface Def {
  type: string;
  raw: Record<string, unknown>;
}

/** Version 4 keeps the definition in `_zod.def` with lower-case types; version 3 in `_def.typeName`. */
function defOf(schema: unknown): Def {
  const record = schema as { _zod?: { def?: Record<string, unknown> }; _def?: Record<string, unknown> };
  if (record._zod?.def) return { type: String(record._zod.def.type), raw: record._zod.def };
  const raw = record._def ?? {};
  const name = String(raw.typeName ?? 'unknown').replace(/^Zod/, '');
  return { type: name.charAt(0).toLowerCase() + name.slice(1), raw };
}

function descriptionOf(schema: unknown): string | undefined {
  const record = schema as { description?: unknown; _def?: { description?: unknown } };
  const text = record.description ?? record._def?.description;
  return typeof text === 'string' && text.trim() ? text.trim() : undefined;
}

function read(schema: unknown, path: string, depth: number): { node: SchemaNode; optional: boolean } {
  if (depth > MAX_DEPTH) {
    throw new InvalidOptionError(
      `The schema is nested more than ${MAX_DEPTH} levels deep at ${where(path)}; recursive schemas are not supported.`,
    );
  }
  const { type, raw } = defOf(schema);
  const description = descriptionOf(schema);
  const wrap = (inner: { node: SchemaNode; optional: boolean }, optional = inner.optional) => {
    if (description && !inner.node.description) inner.node = { ...inner.node, description } as SchemaNode;
    return { node: inner.node, optional };
  };
  const plain = (node: SchemaNode) => ({ node: description ? ({ ...node, description } as SchemaNode) : node, optional: false });
  switch (type) {
    case 'object': {
      const shape =
        typeof raw.shape === 'function' ? (raw.shape as () => Record<string, unknown>)() : (raw.shape as Record<string, unknown>);
      const fields = Object.entries(shape ?? {}).map(([key, value]) => {
        const field = read(value, path ? `${path}.${key}` : key, depth + 1);
        return { key, node: field.node, optional: field.optional };
      });
      return plain({ kind: 'object', fields });
    }
    case 'array':
      return plain({ kind: 'array', item: read(raw.element ?? raw.type, `${path}[]`, depth + 1).node });
    case 'string':
      return plain({ kind: 'string', url: isUrlString(raw) });
    case 'number':
      return plain(numberNode(raw));
    case 'boolean':
      return plain({ kind: 'boolean' });
    case 'enum':
    case 'nativeEnum': {
      const source = raw.values ?? raw.entries ?? {};
      let values: unknown[];
      if (Array.isArray(source)) values = source;
      else {
        // A TypeScript numeric enum maps names to numbers and numbers back to names; keep the values.
        const map = source as Record<string, unknown>;
        values = Object.values(map).filter((value) => !(typeof value === 'string' && typeof map[value] === 'number'));
      }
      return plain({ kind: 'enum', values: dedupe(values as Array<string | number>) });
    }
    case 'literal': {
      const values = Array.isArray(raw.values) ? raw.values : [raw.value];
      return plain({ kind: 'enum', values: values as Array<string | number | boolean | null> });
    }
    case 'union':
    case 'discriminatedUnion': {
      const options = (
        Array.isArray(raw.options) ? raw.options : [...((raw.options as Map<unknown, unknown>)?.values?.() ?? [])]
      ) as unknown[];
      const read_ = options.map((option, i) => read(option, `${path}|${i}`, depth + 1));
      return { ...plain({ kind: 'union', options: read_.map((entry) => entry.node) }), optional: read_.some((entry) => entry.optional) };
    }
    case 'optional':
      return wrap(read(raw.innerType, path, depth + 1), true);
    case 'default':
    case 'prefault':
    case 'catch':
      // The caller's schema fills these in, so the model may leave them out.
      return wrap(read(raw.innerType, path, depth + 1), true);
    case 'nullable': {
      const inner = read(raw.innerType, path, depth + 1);
      return { ...plain({ kind: 'nullable', inner: inner.node }), optional: inner.optional };
    }
    case 'nonoptional':
      return wrap(read(raw.innerType, path, depth + 1), false);
    case 'readonly':
    case 'branded':
      return wrap(read(raw.innerType ?? raw.type, path, depth + 1));
    case 'lazy':
      return wrap(read((raw.getter as () => unknown)(), path, depth + 1));
    case 'effects':
      // refine/transform (v3): the model produces the input, the caller's schema applies the rest.
      return wrap(read(raw.schema, path, depth + 1));
    case 'pipe':
    case 'pipeline': {
      const input = raw.in;
      // A bare transform's input is unknown; then describe the output side instead.
      return wrap(read(defOf(input).type === 'transform' ? raw.out : input, path, depth + 1));
    }
    default:
      throw new InvalidOptionError(
        `The schema field ${where(path)} is a ${type}, which extract() cannot ask a model for. ` +
          'Use objects, arrays, strings (also .url()), numbers, booleans, enums, literals, unions, optional and nullable fields.',
      );
  }
}

function isUrlString(raw: Record<string, unknown>): boolean {
  if (raw.format === 'url') return true;
  const checks = (raw.checks as Array<Record<string, unknown>> | undefined) ?? [];
  return checks.some((check) => {
    const def = (check as { _zod?: { def?: Record<string, unknown> } })._zod?.def ?? check;
    return def.kind === 'url' || def.format === 'url';
  });
}

function numberNode(raw: Record<string, unknown>): SchemaNode {
  const node: { kind: 'number'; integer: boolean; min?: Bound; max?: Bound } = { kind: 'number', integer: false };
  if (typeof raw.format === 'string' && /int/.test(raw.format)) node.integer = true;
  for (const check of (raw.checks as Array<Record<string, unknown>> | undefined) ?? []) {
    const def = (check as { _zod?: { def?: Record<string, unknown> } })._zod?.def ?? check;
    const kind = def.kind ?? def.check;
    if (kind === 'int' || (typeof def.format === 'string' && /int/.test(def.format))) node.integer = true;
    if (kind === 'min' || kind === 'greater_than') node.min = { value: Number(def.value), inclusive: def.inclusive !== false };
    if (kind === 'max' || kind === 'less_than') node.max = { value: Number(def.value), inclusive: def.inclusive !== false };
  }
  return node;
}

function dedupe<T>(values: T[]): T[] {
  return [...new Set(values)];
}

function where(path: string): string {
  return path ? `"${path}"` : 'at the root';
}
