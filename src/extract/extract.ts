// extract(instruction[, schema]): snapshot the page, ask the model once (once per chunk for pages
// beyond its input budget), turn link ids into URLs, and hand back what the caller's schema accepts.

import type { Page } from '../driver/page.js';
import { InvalidOptionError, LLMResponseError, SchemaValidationError } from '../errors.js';
import { ModelCall, type AnswerCache } from '../llm/ask.js';
import { estimateTokens } from '../llm/budget.js';
import type { ModelSpec } from '../llm/config.js';
import type { Metrics } from '../llm/metrics.js';
import type { Logger } from '../logger.js';
import { captureSnapshot, type Snapshot } from '../snapshot/index.js';
import { redactUrl } from '../util/redact.js';
import { inParallel } from '../util/parallel.js';
import { splitIntoChunks } from './chunk.js';
import { pageForModel, promptOverhead, systemPrompt, userPrompt } from './prompt.js';
import { readSchema, FREE_TEXT, type SchemaNode, type StandardIssue, type ZodLike } from './schema.js';
import { fromModel, hasLinkField, mergeChunks, modelSchema, type MappingNotes } from './shape.js';

export interface ExtractionRequest {
  page: Page;
  instruction: string;
  /** The caller's zod schema; none means `{ extraction: string }`. */
  schema?: ZodLike;
  selector?: string;
  timeoutMs: number;
  model: ModelSpec;
  logger: Logger;
  metrics: Metrics;
}

function startCall(request: {
  model: ModelSpec;
  timeoutMs: number;
  instruction: string;
  metrics: Metrics;
  logger: Logger;
}): Promise<ModelCall> {
  return ModelCall.start({
    spec: request.model,
    method: 'extract',
    timeoutMs: request.timeoutMs,
    what: `extract(${JSON.stringify(clip(request.instruction, 60))})`,
    metrics: request.metrics,
    logger: request.logger,
  });
}

export async function runExtraction(request: ExtractionRequest): Promise<unknown> {
  // Schema and model problems are the caller's to fix: report them before touching the page.
  const { node, wrapped } = rootShape(request.schema);
  const call = await startCall(request);
  try {
    return await call.run(extractWithin(request, node, wrapped, call));
  } finally {
    call.dispose();
  }
}

async function extractWithin(request: ExtractionRequest, node: SchemaNode, wrapped: boolean, call: ModelCall): Promise<unknown> {
  const { label } = call;
  const { mapped, notes, chunks } = await extractMapped(request, node, call);
  const value = wrapped ? (mapped as Record<string, unknown> | null)?.value : mapped;
  // Paths in the caller's terms: the `value` wrapper is ours.
  if (wrapped) for (const link of notes.unknownLinks) link.path = link.path.replace(/^value\.?/, '');
  if (!request.schema) return freeText(value, chunks, label);
  return validate(request.schema, value, notes);
}

function freeText(value: unknown, chunks: number, label: string): { extraction: string } {
  let extraction = (value as { extraction?: unknown } | null)?.extraction;
  // In chunks, null is how every part says "not here".
  if (extraction === null && chunks > 1) extraction = '';
  if (typeof extraction !== 'string') throw new LLMResponseError(`${label} answered without the "extraction" text the request asked for.`);
  return { extraction };
}

/** Where the extraction reads the page, and an optional look at the snapshot before the model. */
interface ExtractInput {
  page: Page;
  instruction: string;
  selector?: string;
  logger: Logger;
}

/**
 * The model's answer for `node`, in the caller's terms (link ids mapped to URLs), with what the
 * mapping noticed. `beforeModel` sees the snapshot first and may answer instead (a cache).
 */
async function extractMapped(
  request: ExtractInput,
  node: SchemaNode,
  call: ModelCall,
  beforeModel?: (snapshot: Snapshot) => Promise<{ value: unknown } | undefined>,
): Promise<{ mapped: unknown; notes: MappingNotes; chunks: number; cached?: boolean }> {
  const { page, logger } = request;
  const { label } = call;
  const started = Date.now();
  const snapshot = await captureSnapshot(page, { selector: request.selector, timeoutMs: call.deadline.remaining(), logger });
  const early = await beforeModel?.(snapshot);
  if (early) return { mapped: early.value, notes: { unknownLinks: [] }, chunks: 0, cached: true };
  const url = page.url();
  const maxInputTokens = call.maxInputTokens;
  const schemaText = JSON.stringify(modelSchema(node, true));
  const links = hasLinkField(node);
  const system = systemPrompt(links);
  const text = pageForModel(snapshot.text, links);
  const fixed =
    estimateTokens(promptOverhead({ instruction: request.instruction, url, selector: request.selector }, links) + schemaText) + 64;
  const budget = maxInputTokens - fixed;
  if (budget < 200) {
    throw new InvalidOptionError(
      `model.maxInputTokens (${maxInputTokens}) leaves no room for the page: the instruction, schema and prompt take about ${fixed} tokens. Raise it.`,
    );
  }
  const chunks = splitIntoChunks(text, budget);
  if (chunks.length > 1) {
    logger.info('extract', `The page is larger than ${label}'s input budget; extracting in ${chunks.length} chunks`, {
      url: redactUrl(url),
      maxInputTokens,
      pageTokens: estimateTokens(text),
    });
  }
  const schemaFull = chunks.length > 1 ? JSON.parse(schemaText) : modelSchema(node);
  const ask = (index: number): Promise<unknown> => {
    const chunk = chunks[index]!;
    const part = chunks.length > 1 ? { index: index + 1, count: chunks.length, contextLines: chunk.contextLines } : undefined;
    const user = userPrompt({ instruction: request.instruction, url, selector: request.selector, text: chunk.text, part });
    return call.ask(system, user, schemaFull, part ? `${part.index}/${part.count}` : undefined);
  };
  const answers = await inParallel(chunks.length, call.maxParallelCalls, ask, call.deadline);
  call.recordOperation(chunks.length);
  const merged = chunks.length > 1 ? mergeChunks(node, answers) : answers[0];

  const pageUrls = new Set(snapshot.links().values());
  const notes: MappingNotes = { unknownLinks: [] };
  const mapped = fromModel(
    node,
    merged,
    (id) => snapshot.urlOf(id),
    (value) => pageUrls.has(value),
    notes,
  );
  logger.info('extract', 'Extracted', { url: redactUrl(url), model: label, ms: Date.now() - started, chunks: chunks.length });
  const dropped = notes.unknownLinks.filter((link) => link.dropped);
  if (dropped.length) {
    logger.info('extract', 'Left out optional link fields that hold no link of the page', {
      fields: dropped.slice(0, 10).map((link) => `${link.path} = ${clip(link.value, 60)}`),
    });
  }
  return { mapped, notes, chunks: chunks.length };
}

export interface ServerExtractionRequest extends ExtractInput {
  /** The schema as the client sent it (already an object root); none means free text. */
  node?: SchemaNode;
  timeoutMs: number;
  model: ModelSpec;
  metrics: Metrics;
  /** Given when the result may come from, and go to, a cache: keyed by the snapshot's text. */
  cache?: AnswerCache;
}

/**
 * The hosted server's extraction: the value for the schema the client sent, with its link URLs, or
 * a SchemaValidationError naming links the page does not have. The client checks the value again
 * with its own zod schema.
 */
export async function runServerExtraction(request: ServerExtractionRequest): Promise<{ value: unknown; cacheStatus?: 'HIT' | 'MISS' }> {
  const node = request.node ?? FREE_TEXT;
  if (node.kind !== 'object') throw new InvalidOptionError('The schema sent to the server must have an object at its root.');
  const call = await startCall(request);
  const cache = request.cache;
  let snapshotText = '';
  try {
    const result = await call.run(
      extractMapped(request, node, call, async (snapshot) => {
        snapshotText = snapshot.text;
        const hit = await cache?.get(snapshot.text);
        return hit === undefined ? undefined : { value: hit };
      }),
    );
    if (result.cached) return { value: result.mapped, cacheStatus: 'HIT' };
    const unknown = result.notes.unknownLinks.filter((link) => !link.dropped);
    if (unknown.length) {
      throw new SchemaValidationError(
        `The model named links that are not on the page: ${unknown.map((link) => `${link.path} = ${JSON.stringify(clip(link.value, 60))}`).join(', ')}.`,
        unknown.map((link) => ({ message: 'not a link of the page', path: link.path ? link.path.split('.') : [] })),
      );
    }
    const value = request.node ? result.mapped : freeText(result.mapped, result.chunks, call.label);
    if (!cache) return { value };
    await cache.set(snapshotText, value);
    return { value, cacheStatus: 'MISS' };
  } finally {
    call.dispose();
  }
}

/** The root the model is asked for is always an object: anything else travels as `{ value }`. */
export function rootShape(schema: ZodLike | undefined): { node: SchemaNode; wrapped: boolean } {
  if (!schema) return { node: FREE_TEXT, wrapped: false };
  const { node, optional } = readSchema(schema);
  if (node.kind === 'object' && !optional) return { node, wrapped: false };
  return { node: { kind: 'object', fields: [{ key: 'value', node, optional }] }, wrapped: true };
}

export async function validate(schema: ZodLike, value: unknown, notes: MappingNotes): Promise<unknown> {
  const result = await schema['~standard'].validate(value);
  // A required link the page does not have fails the call even when it looks like a fine URL:
  // returning it would be returning a made-up link.
  const unknown = notes.unknownLinks.filter((link) => !link.dropped);
  if (!result.issues && !unknown.length) return result.value;
  const issues: StandardIssue[] = [
    ...(result.issues ?? []),
    ...unknown
      .filter((link) => !result.issues?.some((issue) => describePath(issue) === link.path))
      .map((link) => ({ message: 'not a link of the page', path: link.path ? link.path.split('.') : [] })),
  ];
  const listed = issues.slice(0, 5).map(describeIssue).join('; ');
  const links = unknown.length
    ? ` The model named links that are not on the page: ${unknown
        .slice(0, 5)
        .map((link) => `${link.path || 'value'} = ${JSON.stringify(clip(link.value, 60))}`)
        .join(', ')}.`
    : '';
  throw new SchemaValidationError(
    `The extracted data does not match the schema: ${listed || 'invalid'}${issues.length > 5 ? ` (and ${issues.length - 5} more)` : ''}.${links}`,
    issues,
  );
}

function describePath(issue: StandardIssue): string {
  return (issue.path ?? []).map((step) => String(typeof step === 'object' ? step.key : step)).join('.');
}

function describeIssue(issue: StandardIssue): string {
  return `${describePath(issue) || 'value'}: ${issue.message}`;
}

function clip(text: string, max: number): string {
  return text.length > max ? text.slice(0, max) + '…' : text;
}
