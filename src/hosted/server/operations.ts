// extract, act, observe and navigate on a session's page, run by the server through the client's
// own pipeline, answered as server-sent events (stream.ts). extract, act and observe may be answered
// from the result cache, keyed by the page's snapshot text and everything else the answer depends on.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { ActRequest, ExtractRequest, HEADERS, NavigateRequest, ObserveRequest, type OperationName } from '../../../protocol/index.js';
import { performAct } from '../../act/act.js';
import { runObserve } from '../../act/observe.js';
import { UrlNotAllowedError } from '../../errors.js';
import { runServerExtraction } from '../../extract/extract.js';
import { fromJsonSchema } from '../../extract/jsonSchema.js';
import { DEFAULT_MODEL_TIMEOUT_MS } from '../../llm/ask.js';
import { describeModel, parseModelConfiguration, type ModelSpec } from '../../llm/config.js';
import type { ModelWording } from '../../llm/modelWording.js';
import { modelSettingsError } from '../../llm/providers.js';
import type { Logger } from '../../logger.js';
import type { ModelConfiguration } from '../../types.js';
import type { ResultCache } from './cache.js';
import { header, parse } from './request.js';
import type { SessionRecord } from './sessions.js';
import { apiError } from './sessions.js';
import { EventStream } from './stream.js';
import { OperationUsageLog } from './usage.js';
import { BROWSER_TIMEOUT_MS, pageOf } from './serverContext.js';
import { nonWebReason, shownUrl, urlRefusalMessage } from './webUrl.js';

/** The model the body names, with the key from its header; a bad one is the caller's mistake (400). */
export function modelOf(req: IncomingMessage, model: unknown): ModelSpec | undefined {
  const key = header(req, HEADERS.modelApiKey);
  const given = (typeof model === 'string' ? { modelName: model } : model) as ModelConfiguration | undefined;
  try {
    return parseModelConfiguration(given && key ? ({ ...(given as object), apiKey: key } as ModelConfiguration) : given);
  } catch (error) {
    throw apiError('bad_request', (error as Error).message);
  }
}

/** What a request to this server sets: the body's model, the key's header, or the server's own variables. */
const SERVER_WORDING: ModelWording = {
  key: (_name, variables) => `send it in the ${HEADERS.modelApiKey} header, or start the server with ${variables.join(' or ')} set`,
  address: 'send `model.baseURL` ("http://host:port/v1")',
  ownServer: 'model { modelName: "openai-compatible/<name>", baseURL } at an address this server may reach (HOSTED_ALLOW_NETWORKS)',
};

/** The call's model, held to the one rule of what a model needs, in the words of this server's API. */
export function requireModel(spec: ModelSpec | undefined, what: string): ModelSpec {
  if (!spec)
    throw apiError('bad_request', `${what} needs a model: send \`model\` in the body and its key in the ${HEADERS.modelApiKey} header.`);
  const missing = modelSettingsError(spec, SERVER_WORDING);
  if (missing) throw missing;
  return spec;
}

interface Job {
  record: SessionRecord;
  body: unknown;
  req: IncomingMessage;
  stream: EventStream;
  /** The cache for this call, or undefined when the client asked to bypass it. */
  cache: ResultCache | undefined;
  serverLogger: Logger;
}

/** Once the request is known to be valid: without a cache decision to wait for, logs may stream. */
function ready(job: Job): void {
  if (!job.cache) job.stream.start();
}

/** The operation's model, its requests heard by `usage` (which lists them for the answer). */
function metered(model: ModelSpec, usage: OperationUsageLog): ModelSpec {
  return Object.assign(model, { instrumentation: usage.instrumentation });
}

async function extract(job: Job): Promise<void> {
  const request = parse(ExtractRequest, job.body);
  if (!request.instruction) throw apiError('bad_request', 'extract on the server needs an instruction; page text needs no server.');
  const usage = new OperationUsageLog();
  const model = metered(requireModel(modelOf(job.req, request.model), 'extract'), usage);
  let node;
  try {
    node = request.schema ? fromJsonSchema(request.schema) : undefined;
  } catch (error) {
    throw apiError('bad_request', (error as Error).message);
  }
  const timeoutMs = budget(request.timeout ?? DEFAULT_MODEL_TIMEOUT_MS);
  const page = await pageOf(job.record, request.pageId, job.serverLogger, timeoutMs());
  ready(job);
  const parts = ['extract', request.instruction, request.schema ?? null, request.selector ?? null, describeModel(model)];
  // An extraction answered from the cache is final, so its headers (and the logs so far) go at once.
  const cache = job.cache && usage.cacheHook(job.cache, parts, (status) => job.stream.start(status));
  const result = await runServerExtraction({
    page,
    instruction: request.instruction,
    selector: request.selector,
    node,
    timeoutMs: timeoutMs(),
    model,
    logger: job.stream.logger,
    metrics: usage,
    cache,
  });
  job.stream.finish(result.value, result.cacheStatus, usage.wire(result.cacheStatus));
}

async function observe(job: Job): Promise<void> {
  const request = parse(ObserveRequest, job.body);
  const usage = new OperationUsageLog();
  const model = metered(requireModel(modelOf(job.req, request.model), 'observe'), usage);
  const timeoutMs = budget(request.timeout ?? DEFAULT_MODEL_TIMEOUT_MS);
  const page = await pageOf(job.record, request.pageId, job.serverLogger, timeoutMs());
  ready(job);
  const cache =
    job.cache && usage.cacheHook(job.cache, ['observe', request.instruction ?? null, request.selector ?? null, describeModel(model)]);
  const actions = await runObserve({
    page,
    instruction: request.instruction,
    selector: request.selector,
    timeoutMs: timeoutMs(),
    model,
    logger: job.stream.logger,
    metrics: usage,
    cache,
  });
  job.stream.finish(actions, cache?.status(), usage.wire(cache?.status()));
}

async function act(job: Job): Promise<void> {
  const request = parse(ActRequest, job.body);
  if (!request.instruction === !request.action)
    throw apiError('bad_request', 'act takes either an `instruction` or an `action` (from observe), not both nor neither.');
  const usage = new OperationUsageLog();
  const given = modelOf(job.req, request.model);
  const model = given && metered(given, usage);
  const instruction = request.instruction;
  const instructed = instruction ? requireModel(model, 'act(instruction)') : undefined;
  const timeoutMs = budget(instruction ? (request.timeout ?? DEFAULT_MODEL_TIMEOUT_MS) : (request.timeout ?? BROWSER_TIMEOUT_MS));
  const page = await pageOf(job.record, request.pageId, job.serverLogger, timeoutMs());
  ready(job);
  // Variables are not part of the key: the cached action keeps its %placeholders%.
  const cache =
    instruction && instructed && job.cache ? usage.cacheHook(job.cache, ['act', instruction, describeModel(instructed)]) : undefined;
  const modelTimeoutMs = request.timeout ?? DEFAULT_MODEL_TIMEOUT_MS;
  const result = await performAct(page, instruction ? { instruction } : { action: request.action! }, {
    model: instructed ?? model,
    variables: request.variables ?? {},
    timeoutMs: timeoutMs(),
    modelTimeoutMs: Math.min(modelTimeoutMs, timeoutMs()),
    logger: job.stream.logger,
    metrics: usage,
    cache,
  });
  job.stream.finish(result, cache?.status(), usage.wire(cache?.status()));
}

async function navigate(job: Job): Promise<void> {
  const request = parse(NavigateRequest, job.body);
  const reason = nonWebReason(request.url);
  if (reason) throw new UrlNotAllowedError(urlRefusalMessage('Navigation', request.url, reason), shownUrl(request.url));
  const timeoutMs = budget(request.timeoutMs ?? BROWSER_TIMEOUT_MS);
  // The new document replaces whatever the page was loading: a navigation that holds it is stopped.
  const page = await pageOf(job.record, request.pageId, job.serverLogger, timeoutMs(), true);
  job.stream.start();
  await page.goto(request.url, { waitUntil: request.waitUntil, timeoutMs: timeoutMs() });
  job.stream.finish({ url: page.url() });
}

/** What is left of an operation's deadline, which covers finding its page as well as the work. */
function budget(ms: number): () => number {
  const until = Date.now() + ms;
  return () => Math.max(1, until - Date.now());
}

const RUNNERS: Record<OperationName, (job: Job) => Promise<void>> = { extract, act, observe, navigate };

export function isOperation(name: string | undefined): name is OperationName {
  return name !== undefined && Object.hasOwn(RUNNERS, name);
}

export async function runOperation(
  name: OperationName,
  record: SessionRecord,
  body: unknown,
  req: IncomingMessage,
  res: ServerResponse,
  cache: ResultCache,
  serverLogger: Logger,
): Promise<void> {
  const stream = new EventStream(res);
  const heartbeatMs = Number(header(req, HEADERS.heartbeatMs));
  if (heartbeatMs > 0) stream.keepAlive(heartbeatMs);
  const bypass = header(req, HEADERS.cacheControl) === 'bypass';
  try {
    await RUNNERS[name]({ record, body, req, stream, cache: bypass ? undefined : cache, serverLogger });
  } catch (error) {
    stream.fail(error);
  }
}
