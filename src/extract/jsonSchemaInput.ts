// A JSON Schema where extract() wants a zod schema: for the command line (`--schema file.json`),
// where no zod exists. The schema is read once into a SchemaNode (kept under SCHEMA_NODE, so
// readSchema() takes it as is) and results are checked against that node, as zod would check them.

import { fromJsonSchema } from './jsonSchema.js';
import { SCHEMA_NODE, type SchemaNode, type StandardIssue, type StandardResult, type ZodLike } from './schema.js';

export type JsonSchemaInput = ZodLike & { [SCHEMA_NODE]: SchemaNode };

/** Throws InvalidOptionError naming the part of the schema extract() cannot serve. */
export function schemaFromJson(json: unknown): JsonSchemaInput {
  const node = fromJsonSchema(json);
  return {
    [SCHEMA_NODE]: node,
    '~standard': {
      vendor: 'tendril-json-schema',
      validate: (value: unknown): StandardResult => {
        const issues: StandardIssue[] = [];
        check(node, value, [], issues);
        return issues.length ? { issues } : { value };
      },
    },
  };
}

function check(node: SchemaNode, value: unknown, path: PropertyKey[], issues: StandardIssue[]): void {
  const fail = (message: string) => void issues.push({ message, path });
  switch (node.kind) {
    case 'object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail('expected an object');
      const record = value as Record<string, unknown>;
      for (const field of node.fields) {
        if (record[field.key] === undefined) {
          if (!field.optional) issues.push({ message: 'required', path: [...path, field.key] });
        } else check(field.node, record[field.key], [...path, field.key], issues);
      }
      return;
    }
    case 'array':
      if (!Array.isArray(value)) return fail('expected an array');
      value.forEach((item, index) => check(node.item, item, [...path, index], issues));
      return;
    case 'string':
      if (typeof value !== 'string') return fail('expected a string');
      if (node.url && !URL.canParse(value)) fail('expected a URL');
      return;
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) return fail('expected a number');
      if (node.integer && !Number.isInteger(value)) fail('expected an integer');
      if (node.min && (node.min.inclusive ? value < node.min.value : value <= node.min.value)) fail(`expected at least ${node.min.value}`);
      if (node.max && (node.max.inclusive ? value > node.max.value : value >= node.max.value)) fail(`expected at most ${node.max.value}`);
      return;
    case 'boolean':
      if (typeof value !== 'boolean') fail('expected true or false');
      return;
    case 'enum':
      if (!node.values.includes(value as string)) fail(`expected one of ${node.values.map((each) => JSON.stringify(each)).join(', ')}`);
      return;
    case 'nullable':
      if (value !== null) check(node.inner, value, path, issues);
      return;
    case 'union': {
      const fits = node.options.some((option) => {
        const inner: StandardIssue[] = [];
        check(option, value, path, inner);
        return inner.length === 0;
      });
      if (!fits) fail('matches none of the allowed shapes');
      return;
    }
  }
}
