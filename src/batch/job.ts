// A batch job: a URL and what to do there (the reference function's shape: optionally one act,
// then the page text or an extraction). Its id is a hash of what it asks, so the same job added
// twice is one job.

import { createHash } from 'node:crypto';
import { InvalidOptionError } from '../errors.js';
import { schemaFromJson } from '../extract/jsonSchemaInput.js';

/** What a job asks. Secrets (the model's key) never go in a job: they stay with the workers. */
export interface BatchJob {
  url: string;
  /** What to extract; without it the job returns the page text and needs no model. */
  instruction?: string;
  /** A JSON Schema for the extraction's value (with `instruction`). */
  schema?: Record<string, unknown>;
  /** One action before the read, such as "click the Accept cookies button". */
  act?: string;
  /** provider/model for this job; default: the worker's. */
  model?: string;
  /** Read only this element's subtree (XPath or CSS). */
  selector?: string;
  /** The job's deadline in ms, from opening the page to its result; default: the worker's. */
  timeout?: number;
  /** Most tokens this job's model calls may use (not part of its id). */
  maxTokens?: number;
}

const FIELDS = new Set(['url', 'instruction', 'schema', 'act', 'model', 'selector', 'timeout', 'maxTokens']);

function text(value: unknown, field: string, where: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || !value.trim()) throw new InvalidOptionError(`${where}: \`${field}\` must be a non-empty string.`);
  return value.trim();
}

function positive(value: unknown, field: string, where: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0)
    throw new InvalidOptionError(`${where}: \`${field}\` must be a positive whole number.`);
  return value;
}

/** The job checked (a bad one fails here, before it is queued), its fields in a fixed order. */
export function checkJob(given: unknown, where = 'job'): BatchJob {
  if (typeof given !== 'object' || given === null || Array.isArray(given))
    throw new InvalidOptionError(`${where} must be an object with a \`url\`.`);
  const raw = given as Record<string, unknown>;
  const unknown = Object.keys(raw).filter((key) => !FIELDS.has(key));
  if (unknown.length)
    throw new InvalidOptionError(
      `${where}: unknown field ${unknown.map((key) => `\`${key}\``).join(', ')}; a job takes ${[...FIELDS].join(', ')}.`,
    );
  const url = text(raw.url, 'url', where);
  if (!url || !/^https?:\/\//i.test(url) || !URL.canParse(url))
    throw new InvalidOptionError(`${where}: \`url\` must be an http(s) URL, not ${JSON.stringify(raw.url)}.`);
  const job: BatchJob = { url: new URL(url).href };
  const instruction = text(raw.instruction, 'instruction', where);
  if (instruction) job.instruction = instruction;
  if (raw.schema !== undefined && raw.schema !== null) {
    if (!instruction) throw new InvalidOptionError(`${where}: a \`schema\` needs an \`instruction\` saying what to extract.`);
    if (typeof raw.schema !== 'object' || Array.isArray(raw.schema))
      throw new InvalidOptionError(`${where}: \`schema\` must be a JSON Schema object.`);
    schemaFromJson(raw.schema); // throws InvalidOptionError naming what it cannot read
    job.schema = raw.schema as Record<string, unknown>;
  }
  const act = text(raw.act, 'act', where);
  if (act) job.act = act;
  const model = text(raw.model, 'model', where);
  if (model) job.model = model;
  const selector = text(raw.selector, 'selector', where);
  if (selector) job.selector = selector;
  const timeout = positive(raw.timeout, 'timeout', where);
  if (timeout) job.timeout = timeout;
  const maxTokens = positive(raw.maxTokens, 'maxTokens', where);
  if (maxTokens) job.maxTokens = maxTokens;
  return job;
}

/** JSON with object keys sorted, so the same job always hashes the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, each]) => each !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, each]) => `${JSON.stringify(key)}:${canonical(each)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The job's id: what it asks (not its limits), hashed. */
export function jobId(job: BatchJob): string {
  const { timeout: _timeout, maxTokens: _maxTokens, ...asks } = job;
  return createHash('sha256').update(canonical(asks)).digest('hex').slice(0, 32);
}

/**
 * The jobs of one line of input: a URL, or a JSON object with per-job fields. `defaults` fill what
 * a line leaves out. Blank lines and lines starting with # are skipped (undefined).
 */
export function jobOfLine(line: string, defaults: Partial<BatchJob>, where: string): BatchJob | undefined {
  const trimmed = line.trim();
  if (!trimmed || trimmed.startsWith('#')) return undefined;
  if (trimmed.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch (error) {
      throw new InvalidOptionError(`${where} is not JSON: ${(error as Error).message}`);
    }
    return checkJob({ ...defaults, ...(parsed as object) }, where);
  }
  return checkJob({ ...defaults, url: trimmed }, where);
}
