// An operation's answer as server-sent events: log lines while it works, then one result (or
// error) event. Headers wait for the cache decision (HIT or MISS travels in one); events logged
// before it are held and sent with them. An error before anything was sent is a plain JSON error
// with its own status, which says it best.

import type { ServerResponse } from 'node:http';
import { HEADERS, STATUS_OF, type ErrorCode, type StreamEvent } from '../../../protocol/index.js';
import {
  ActionFailedError,
  ConnectionClosedError,
  ElementNotActionableError,
  ElementNotFoundError,
  HostedServiceError,
  InvalidAISDKModelFormatError,
  InvalidOptionError,
  LLMResponseError,
  MissingLLMConfigurationError,
  NavigationError,
  PageClosedError,
  SchemaValidationError,
  SdkError,
  SelectorSyntaxError,
  TimeoutError,
  UnsupportedModelError,
  UrlNotAllowedError,
  DomainPolicyError,
} from '../../errors.js';
import { Logger } from '../../logger.js';

export type CacheStatus = 'HIT' | 'MISS';

/** The protocol code (and the client's error class) for an error raised while working. */
export function codeOf(error: unknown): { code: ErrorCode; name?: string } {
  if (error instanceof HostedServiceError) return { code: error.code as ErrorCode };
  const name = error instanceof SdkError ? error.name : undefined;
  if (error instanceof SchemaValidationError) return { code: 'schema_validation', name };
  if (error instanceof TimeoutError) return { code: 'timeout', name };
  if (error instanceof LLMResponseError) return { code: 'model_error', name };
  if (error instanceof ActionFailedError || error instanceof ElementNotFoundError || error instanceof ElementNotActionableError) {
    return { code: 'conflict', name };
  }
  if (error instanceof ConnectionClosedError || error instanceof PageClosedError) return { code: 'browser_gone', name };
  if (error instanceof UrlNotAllowedError || error instanceof DomainPolicyError) return { code: 'forbidden', name };
  const caller = [InvalidOptionError, MissingLLMConfigurationError, UnsupportedModelError, InvalidAISDKModelFormatError, NavigationError, SelectorSyntaxError];
  if (caller.some((type) => error instanceof type)) return { code: 'bad_request', name };
  return { code: 'internal', name };
}

function errorEvent(error: unknown): Extract<StreamEvent, { type: 'error' }> {
  const { code, name } = codeOf(error);
  const message = error instanceof Error ? error.message : String(error);
  const event: Extract<StreamEvent, { type: 'error' }> = { type: 'error', error: { code, message } };
  if (name) event.error.name = name;
  if (error instanceof SchemaValidationError) event.error.issues = error.issues;
  if (error instanceof NavigationError && error.url) event.error.url = error.url;
  if (error instanceof DomainPolicyError) Object.assign(event.error, { host: error.host, policy: error.policy });
  return event;
}

export class EventStream {
  readonly #res: ServerResponse;
  readonly #pending: StreamEvent[] = [];
  #open = false;
  /** Forwards the operation's log lines to the client as `log` events. */
  readonly logger: Logger;

  constructor(res: ServerResponse) {
    this.#res = res;
    this.logger = new Logger({
      verbose: 1,
      disablePino: true,
      logger: (line) => this.#emit({ type: 'log', level: line.level, category: line.category, message: line.message, timestamp: line.timestamp }),
    });
  }

  /** Sends the headers (with the cache status, when the cache was asked) and what was held back. */
  start(cacheStatus?: CacheStatus): void {
    if (this.#open) return;
    this.#open = true;
    this.#res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-store',
      ...(cacheStatus ? { [HEADERS.cacheStatus]: cacheStatus } : {}),
    });
    for (const event of this.#pending.splice(0)) this.#write(event);
  }

  finish(data: unknown, cacheStatus?: CacheStatus): void {
    this.start(cacheStatus);
    this.#write({ type: 'result', data, ...(cacheStatus ? { cacheStatus } : {}) });
    this.#res.end();
  }

  fail(error: unknown): void {
    const event = errorEvent(error);
    if (!this.#open) {
      const text = JSON.stringify({ error: event.error });
      this.#res.writeHead(STATUS_OF[event.error.code], { 'content-type': 'application/json' }).end(text);
      return;
    }
    this.#write(event);
    this.#res.end();
  }

  #emit(event: StreamEvent): void {
    if (this.#open) this.#write(event);
    else this.#pending.push(event);
  }

  #write(event: StreamEvent): void {
    if (!this.#res.writableEnded) this.#res.write(`data: ${JSON.stringify(event)}\n\n`);
  }
}
