// extract on a session, run by the server through the client's own pipeline, answered as
// server-sent events: log lines while it works, then one result (or error) event. The cache
// decision comes right after the page snapshot, and with it the response headers (HIT or MISS).

import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode, ExtractRequest, HEADERS, STATUS_OF, type StreamEvent } from '../../../protocol/index.js';
import { Context } from '../../driver/context.js';
import type { Page } from '../../driver/page.js';
import {
  HostedServiceError,
  InvalidAISDKModelFormatError,
  InvalidOptionError,
  LLMResponseError,
  MissingLLMConfigurationError,
  SchemaValidationError,
  SdkError,
  TimeoutError,
  UnsupportedModelError,
} from '../../errors.js';
import { runServerExtraction } from '../../extract/extract.js';
import { fromJsonSchema } from '../../extract/jsonSchema.js';
import { describeModel, parseModelConfiguration } from '../../llm/config.js';
import { Metrics } from '../../llm/metrics.js';
import { Logger } from '../../logger.js';
import type { ModelConfiguration } from '../../types.js';
import { cacheKey, type ResultCache } from './cache.js';
import { header, parse } from './request.js';
import type { SessionRecord } from './sessions.js';
import { apiError } from './sessions.js';

const DEFAULT_TIMEOUT_MS = 120_000;
const contexts = new WeakMap<SessionRecord, Promise<Context>>();

/** The server's own driver on a session's browser, next to (not in the way of) the client's. */
function contextOf(record: SessionRecord, logger: Logger): Promise<Context> {
  let context = contexts.get(record);
  if (!context) {
    const created = new Context(record.browser!, logger, { timeoutMs: 30_000 });
    context = created.start().then(() => created);
    context.catch(() => contexts.delete(record));
    contexts.set(record, context);
  }
  return context;
}

async function pageOf(context: Context, pageId: string | undefined): Promise<Page> {
  // The client may have opened the page a moment ago: give our side of the browser time to attach it.
  const page = pageId ? await context.pageOfTarget(pageId, 5000) : context.activePage();
  if (!page) throw apiError('not_found', pageId ? `The session has no page ${pageId}.` : 'The session has no open page.');
  return page;
}

/** The protocol code (and the client's error class) for an error raised while working. */
export function codeOf(error: unknown): { code: ErrorCode; name?: string } {
  if (error instanceof HostedServiceError) return { code: error.code as ErrorCode };
  const name = error instanceof SdkError ? error.name : undefined;
  if (error instanceof SchemaValidationError) return { code: 'schema_validation', name };
  if (error instanceof TimeoutError) return { code: 'timeout', name };
  if (error instanceof LLMResponseError) return { code: 'model_error', name };
  const caller = [InvalidOptionError, MissingLLMConfigurationError, UnsupportedModelError, InvalidAISDKModelFormatError];
  if (caller.some((type) => error instanceof type)) return { code: 'bad_request', name };
  return { code: 'internal', name };
}

function errorEvent(error: unknown): Extract<StreamEvent, { type: 'error' }> {
  const { code, name } = codeOf(error);
  const message = error instanceof Error ? error.message : String(error);
  const event: Extract<StreamEvent, { type: 'error' }> = { type: 'error', error: { code, message } };
  if (name) event.error.name = name;
  if (error instanceof SchemaValidationError) event.error.issues = error.issues;
  return event;
}

export async function runExtractOperation(
  record: SessionRecord,
  body: unknown,
  req: IncomingMessage,
  res: ServerResponse,
  cache: ResultCache,
  serverLogger: Logger,
): Promise<void> {
  const request = parse(ExtractRequest, body);
  if (!request.instruction) throw apiError('bad_request', 'extract on the server needs an instruction; page text needs no server.');
  const modelKey = header(req, HEADERS.modelApiKey);
  const given = (typeof request.model === 'string' ? { modelName: request.model } : request.model) as ModelConfiguration | undefined;
  let spec;
  let node;
  try {
    spec = parseModelConfiguration(given && modelKey ? ({ ...(given as object), apiKey: modelKey } as ModelConfiguration) : given);
    node = request.schema ? fromJsonSchema(request.schema) : undefined;
  } catch (error) {
    throw apiError('bad_request', (error as Error).message);
  }
  if (!spec) throw apiError('bad_request', 'extract needs a model: send `model` in the body and its key in the x-model-api-key header.');
  const bypass = header(req, HEADERS.cacheControl) === 'bypass';

  // Events wait until the cache decision, which is also the moment the headers can go out.
  const pending: StreamEvent[] = [];
  let open = false;
  const emit = (event: StreamEvent) => {
    if (!open) return void pending.push(event);
    res.write(`data: ${JSON.stringify(event)}\n\n`);
  };
  const start = (cacheStatus?: 'HIT' | 'MISS') => {
    if (open) return;
    open = true;
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-store',
      ...(cacheStatus ? { [HEADERS.cacheStatus]: cacheStatus } : {}),
    });
    for (const event of pending.splice(0)) res.write(`data: ${JSON.stringify(event)}\n\n`);
  };
  const logger = new Logger({
    verbose: 1,
    disablePino: true,
    logger: (line) => emit({ type: 'log', level: line.level, category: line.category, message: line.message, timestamp: line.timestamp }),
  });
  if (bypass) start();
  const keyParts = [request.instruction, request.schema ?? null, request.selector ?? null, describeModel(spec)];
  try {
    const context = await contextOf(record, serverLogger);
    const page = await pageOf(context, request.pageId);
    const result = await runServerExtraction({
      page,
      instruction: request.instruction,
      selector: request.selector,
      node,
      timeoutMs: request.timeout ?? DEFAULT_TIMEOUT_MS,
      model: spec,
      logger,
      metrics: new Metrics(),
      cache: bypass
        ? undefined
        : {
            get: async (text) => {
              const hit = await cache.get(cacheKey([text, ...keyParts]));
              start(hit === undefined ? 'MISS' : 'HIT');
              return hit;
            },
            set: (text, value) => cache.set(cacheKey([text, ...keyParts]), value),
          },
    });
    start(result.cacheStatus);
    emit({ type: 'result', data: result.value, ...(result.cacheStatus ? { cacheStatus: result.cacheStatus } : {}) });
  } catch (error) {
    if (!open) {
      // Nothing streamed yet: a plain JSON error with its status says it best.
      const event = errorEvent(error);
      const text = JSON.stringify({ error: event.error });
      res.writeHead(STATUS_OF[event.error.code], { 'content-type': 'application/json' }).end(text);
      return;
    }
    emit(errorEvent(error));
  }
  res.end();
}
