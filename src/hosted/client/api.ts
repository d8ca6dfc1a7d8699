// env: "HOSTED": the browser is a session of a hosted-browser service. We create the session over
// REST, attach our driver to its connectUrl like to any remote Chrome, and release it on close
// unless it was created to outlive us (keepAlive). Only fetch and WebSocket: no Node built-ins.

import {
  ErrorBody,
  HEADERS,
  Session,
  STATUS_OF,
  StreamEvent,
  type CreateSessionRequest,
  type OperationName,
  type OperationUsage,
} from '../../../protocol/index.js';
import { HostedServiceError, InvalidOptionError, type SdkError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { SdkOptions } from '../../types.js';
import { envVar } from '../../util/env.js';
import { redactUrl } from '../../util/redact.js';
import { attachToBrowser } from '../../browser/attach.js';
import type { BrowserHandle } from '../../browser/browser.js';
import { injectTraceHeaders, traced } from '../../util/tracing.js';
import { fromWire, type WireError } from '../../wireErrors.js';

const RETRIES = 3;

/** An operation's answer: its result, the cache's decision, and the model use (a server older than that field says none). */
export interface OperationReply {
  data: unknown;
  cacheStatus?: 'HIT' | 'MISS';
  usage?: OperationUsage;
}

/** The least time worth a new attempt at creating a session. */
const MIN_ATTEMPT_MS = 1000;

/** The service's REST API, with its key. */
export class HostedApi {
  constructor(
    readonly baseUrl: string,
    private readonly apiKey: string,
    private readonly timeoutMs: number,
  ) {}

  /**
   * Creates a session within this API's deadline (`timeoutMs`). A service that is full (429) or busy
   * starting browsers (503) is asked again after its Retry-After, through the same URL (so a load
   * balancer may pick another instance), as long as the deadline allows; else its answer is the
   * error, never a timeout of ours. The service is told how long we wait (HEADERS.maxWait) so it
   * answers before then.
   */
  async createSession(body: CreateSessionRequest, logger?: Logger): Promise<Session> {
    const deadline = Date.now() + this.timeoutMs;
    for (let attempt = 1; ; attempt++) {
      const left = deadline - Date.now();
      // Room for the answer to travel back on a busy machine.
      const margin = Math.min(3000, Math.max(1000, left / 10));
      try {
        return Session.parse(
          await this.#request('POST', '/v1/sessions', body, false, {
            timeoutMs: left,
            headers: { [HEADERS.maxWait]: String(Math.max(0, Math.floor(left - margin))) },
          }),
        );
      } catch (error) {
        if (!(error instanceof HostedServiceError) || (error.status !== 429 && error.status !== 503)) throw error;
        // Spread out, so clients told the same Retry-After do not all come back at once.
        const waitMs = (error.retryAfterSeconds ?? 1) * 1000 * (1 + Math.random() / 4);
        if (Date.now() + waitMs + MIN_ATTEMPT_MS > deadline) {
          throw new HostedServiceError(
            `${error.message} (${attempt} attempt${attempt > 1 ? 's' : ''} within the ${this.timeoutMs} ms this client waits for a session; ` +
              'raise localBrowserLaunchOptions.connectTimeoutMs to wait longer)',
            error.status,
            error.code,
            error.retryAfterSeconds,
          );
        }
        logger?.info('hosted', 'The hosted service is busy; asking again', {
          status: error.status,
          retryAfterSeconds: error.retryAfterSeconds,
          attempt,
        });
        await new Promise((resolve) => setTimeout(resolve, waitMs));
      }
    }
  }

  async getSession(id: string): Promise<Session> {
    return Session.parse(await this.#request('GET', `/v1/sessions/${encodeURIComponent(id)}`, undefined, true));
  }

  async releaseSession(id: string): Promise<void> {
    // Releasing twice is harmless on the server, so a failed attempt may be repeated.
    await this.#request('POST', `/v1/sessions/${encodeURIComponent(id)}`, { status: 'REQUEST_RELEASE' }, true);
  }

  /**
   * Runs an operation on the session's page on the server. Log events go to `onLog` as they come;
   * the result (or the error, as the client's own error class) ends the stream.
   */
  operation(
    sessionId: string,
    name: OperationName,
    body: unknown,
    options: {
      modelApiKey?: string;
      bypassCache: boolean;
      timeoutMs: number;
      onLog: (event: Extract<StreamEvent, { type: 'log' }>) => void;
    },
  ): Promise<OperationReply> {
    const attributes = { 'http.request.method': 'POST', 'url.path': `/v1/sessions/{id}/${name}`, 'tendril.operation': name };
    return traced(
      'tendril.hosted.request',
      attributes,
      async (span) => {
        const reply = await this.#operation(sessionId, name, body, options);
        span.set({ 'tendril.cache': reply.cacheStatus });
        return reply;
      },
      'client',
    );
  }

  async #operation(
    sessionId: string,
    name: OperationName,
    body: unknown,
    options: {
      modelApiKey?: string;
      bypassCache: boolean;
      timeoutMs: number;
      onLog: (event: Extract<StreamEvent, { type: 'log' }>) => void;
    },
  ): Promise<OperationReply> {
    const path = `/v1/sessions/${encodeURIComponent(sessionId)}/${name}`;
    const headers: Record<string, string> = {
      [HEADERS.apiKey]: this.apiKey,
      'content-type': 'application/json',
      accept: 'text/event-stream',
    };
    // The server continues this trace (W3C traceparent), when the application traces.
    injectTraceHeaders(headers);
    if (options.modelApiKey) headers[HEADERS.modelApiKey] = options.modelApiKey;
    if (options.bypassCache) headers[HEADERS.cacheControl] = 'bypass';
    // The server keeps the operation's own deadline; this one only covers a server that went silent.
    const signal = AbortSignal.timeout(options.timeoutMs + 10_000);
    let response: Response;
    try {
      response = await fetch(this.baseUrl + path, { method: 'POST', headers, body: JSON.stringify(body), signal });
    } catch (error) {
      throw new HostedServiceError(`The hosted service did not answer ${name}: ${(error as Error).message}`, 0, 'unreachable');
    }
    if (!response.ok) throw await toError(response, 'POST', path);
    if (!response.body) throw new HostedServiceError(`The hosted service answered ${name} without a body.`, response.status, 'internal');
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for (;;) {
        const { done, value } = await reader.read().catch((error: Error) => {
          throw new HostedServiceError(
            `The hosted service's answer to ${name} was cut off (${(error.cause as Error | undefined)?.message ?? error.message}); the operation may have run.`,
            0,
            'unreachable',
          );
        });
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = block
            .split('\n')
            .filter((line) => line.startsWith('data:'))
            .map((line) => line.slice(5).trimStart())
            .join('\n');
          if (!data) continue;
          const event = StreamEvent.safeParse(JSON.parse(data));
          if (!event.success) continue;
          if (event.data.type === 'log') options.onLog(event.data);
          else if (event.data.type === 'error') throw errorFromWire(event.data.error, response.status);
          else return { data: event.data.data, cacheStatus: event.data.cacheStatus, usage: event.data.usage };
        }
      }
    } finally {
      void reader.cancel().catch(() => undefined);
    }
    throw new HostedServiceError(`The hosted service ended ${name} without a result.`, response.status, 'internal');
  }

  async #request(
    method: string,
    path: string,
    body: unknown,
    idempotent: boolean,
    extra: { timeoutMs?: number; headers?: Record<string, string> } = {},
  ): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await fetch(this.baseUrl + path, {
          method,
          headers: {
            [HEADERS.apiKey]: this.apiKey,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...extra.headers,
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(Math.max(1, extra.timeoutMs ?? this.timeoutMs)),
        });
      } catch (error) {
        if (idempotent && attempt < RETRIES) {
          await backoff(attempt);
          continue;
        }
        throw new HostedServiceError(
          `The hosted service at ${redactUrl(this.baseUrl)} did not answer ${method} ${path}: ${(error as Error).message}`,
          0,
          'unreachable',
        );
      }
      if (response.ok) return response.json();
      if (response.status >= 500 && idempotent && attempt < RETRIES) {
        await backoff(attempt);
        continue;
      }
      throw await toError(response, method, path);
    }
  }
}

function backoff(attempt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 200 * 2 ** attempt));
}

function errorFromWire(error: WireError, status: number): SdkError {
  // An error event in a stream that opened with 200 (a balancer's heartbeat) has its status in its code.
  const known = (STATUS_OF as Record<string, number | undefined>)[error.code];
  return (
    fromWire(error) ??
    new HostedServiceError(
      `The hosted service failed (${error.code}): ${error.message}`,
      status < 300 && known ? known : status,
      error.code,
    )
  );
}

async function toError(response: Response, method: string, path: string): Promise<SdkError> {
  const parsed = ErrorBody.safeParse(await response.json().catch(() => undefined));
  if (parsed.success && parsed.data.error.name) return errorFromWire(parsed.data.error, response.status);
  const code = parsed.success ? parsed.data.error.code : `http_${response.status}`;
  const said = parsed.success ? parsed.data.error.message : response.statusText;
  const retryAfter = Number(response.headers.get('retry-after')) || undefined;
  const hint =
    response.status === 401
      ? ' Check `apiKey` (or HOSTED_API_KEY).'
      : response.status === 429
        ? ` The service is at its session limit${retryAfter ? `; retry after ${retryAfter} s` : ''}.`
        : '';
  return new HostedServiceError(
    `The hosted service refused ${method} ${path} (${response.status} ${code}): ${said}${hint}`,
    response.status,
    code,
    retryAfter,
  );
}

export interface HostedBrowser extends BrowserHandle {
  readonly session: Session;
  readonly api: HostedApi;
}

/** Creates a session and attaches to its browser; `close()` releases it unless keepAlive. */
export async function connectHosted(
  options: SdkOptions,
  logger: Logger,
  connectTimeoutMs: number,
  cdpTimeoutMs: number,
): Promise<HostedBrowser> {
  const apiKey = options.apiKey ?? envVar('HOSTED_API_KEY');
  const params = options.hostedSessionCreateParams ?? {};
  const projectId = params.projectId ?? options.projectId ?? envVar('HOSTED_PROJECT_ID');
  const baseUrl = (options.hostedApiUrl ?? envVar('HOSTED_API_URL'))?.replace(/\/+$/, '');
  if (!apiKey) throw new InvalidOptionError('env "HOSTED" needs an API key: pass `apiKey` or set HOSTED_API_KEY.');
  if (!baseUrl || !/^https?:\/\//.test(baseUrl)) {
    throw new InvalidOptionError('env "HOSTED" needs the service URL: pass `hostedApiUrl` or set HOSTED_API_URL (http:// or https://).');
  }
  const api = new HostedApi(baseUrl, apiKey, connectTimeoutMs);
  const session = await api.createSession(
    {
      projectId,
      region: params.region,
      keepAlive: params.keepAlive,
      timeout: params.timeout,
      browserSettings: params.browserSettings,
      domainPolicy: params.domainPolicy ?? options.domainPolicy,
    },
    logger,
  );
  logger.info('hosted', 'Hosted session created', { session: session.id, region: session.region });
  let browser: BrowserHandle;
  try {
    browser = await attachToBrowser(session.connectUrl, undefined, connectTimeoutMs, logger, cdpTimeoutMs);
  } catch (error) {
    await api.releaseSession(session.id).catch(() => undefined);
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    session,
    api,
    connection: browser.connection,
    kind: 'attached',
    close: () =>
      (closing ??= (async () => {
        await browser.close();
        if (session.keepAlive) return;
        await api.releaseSession(session.id).catch((error: Error) => {
          // 410: the session already ended with the server instance that ran it; nothing is left to release.
          if (error instanceof HostedServiceError && error.status === 410) return;
          logger.error(
            'hosted',
            `Could not release hosted session ${session.id} (the server ends it once no client has used it for its idle timeout): ${error.message}`,
          );
        });
      })()),
  };
}
