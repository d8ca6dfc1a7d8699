// An operation's answer as server-sent events: log lines while it works, then one result (or
// error) event. Headers wait for the cache decision (HIT or MISS travels in one); events logged
// before it are held and sent with them. An error before anything was sent is a plain JSON error
// with its own status, which says it best.

import type { ServerResponse } from 'node:http';
import { HEADERS, STATUS_OF, type OperationUsage, type StreamEvent } from '../../../protocol/index.js';
import { Logger } from '../../logger.js';
import { toWire } from '../../wireErrors.js';

export type CacheStatus = 'HIT' | 'MISS';

function errorEvent(error: unknown): Extract<StreamEvent, { type: 'error' }> {
  return { type: 'error', error: toWire(error) };
}

/** The fewest milliseconds between two heartbeats a balancer may ask for. */
const MIN_HEARTBEAT_MS = 100;

export class EventStream {
  readonly #res: ServerResponse;
  readonly #pending: StreamEvent[] = [];
  #open = false;
  #heartbeat: ReturnType<typeof setInterval> | undefined;
  /** Forwards the operation's log lines to the client as `log` events. */
  readonly logger: Logger;

  constructor(res: ServerResponse) {
    this.#res = res;
    this.logger = new Logger({
      verbose: 1,
      disablePino: true,
      logger: (line) =>
        this.#emit({ type: 'log', level: line.level, category: line.category, message: line.message, timestamp: line.timestamp }),
    });
  }

  /**
   * Opens the stream now, with no cache status in its headers, and writes an SSE comment every
   * `everyMs` until it ends: a balancer that hears nothing from an instance for longer than that
   * knows it is stopped, and may give the request to another.
   */
  keepAlive(everyMs: number): void {
    this.start();
    this.#heartbeat = setInterval(
      () => {
        if (!this.#res.writableEnded) this.#res.write(':\n\n');
      },
      Math.max(MIN_HEARTBEAT_MS, everyMs),
    );
    this.#res.once('close', () => clearInterval(this.#heartbeat));
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

  finish(data: unknown, cacheStatus?: CacheStatus, usage?: OperationUsage): void {
    this.start(cacheStatus);
    this.#write({ type: 'result', data, ...(cacheStatus ? { cacheStatus } : {}), ...(usage ? { usage } : {}) });
    this.#end();
  }

  fail(error: unknown): void {
    const event = errorEvent(error);
    if (!this.#open) {
      const text = JSON.stringify({ error: event.error });
      this.#res.writeHead(STATUS_OF[event.error.code], { 'content-type': 'application/json' }).end(text);
      return;
    }
    this.#write(event);
    this.#end();
  }

  #end(): void {
    clearInterval(this.#heartbeat);
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
