// env: "HOSTED": the browser is a session of a hosted-browser service. We create the session over
// REST, attach our driver to its connectUrl like to any remote Chrome, and release it on close
// unless it was created to outlive us (keepAlive). Only fetch and WebSocket: no Node built-ins.

import { ErrorBody, HEADERS, Session, type CreateSessionRequest } from '../../protocol/index.js';
import { HostedServiceError, InvalidOptionError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { SdkOptions } from '../types.js';
import { redactUrl } from '../util/redact.js';
import { attachToBrowser } from './attach.js';
import type { BrowserHandle } from './browser.js';

const RETRIES = 3;

/** The service's REST API, with its key. */
export class HostedApi {
  constructor(
    readonly baseUrl: string,
    private readonly apiKey: string,
    private readonly timeoutMs: number,
  ) {}

  async createSession(body: CreateSessionRequest): Promise<Session> {
    return Session.parse(await this.#request('POST', '/v1/sessions', body, false));
  }

  async getSession(id: string): Promise<Session> {
    return Session.parse(await this.#request('GET', `/v1/sessions/${encodeURIComponent(id)}`, undefined, true));
  }

  async releaseSession(id: string): Promise<void> {
    // Releasing twice is harmless on the server, so a failed attempt may be repeated.
    await this.#request('POST', `/v1/sessions/${encodeURIComponent(id)}`, { status: 'REQUEST_RELEASE' }, true);
  }

  async #request(method: string, path: string, body: unknown, idempotent: boolean): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await fetch(this.baseUrl + path, {
          method,
          headers: { [HEADERS.apiKey]: this.apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(this.timeoutMs),
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

async function toError(response: Response, method: string, path: string): Promise<HostedServiceError> {
  const parsed = ErrorBody.safeParse(await response.json().catch(() => undefined));
  const code = parsed.success ? parsed.data.error.code : `http_${response.status}`;
  const said = parsed.success ? parsed.data.error.message : response.statusText;
  const retryAfter = Number(response.headers.get('retry-after')) || undefined;
  const hint =
    response.status === 401
      ? ' Check `apiKey` (or HOSTED_API_KEY).'
      : response.status === 429
        ? ` The service is at its session limit${retryAfter ? `; retry after ${retryAfter} s` : ''}.`
        : '';
  return new HostedServiceError(`The hosted service refused ${method} ${path} (${response.status} ${code}): ${said}${hint}`, response.status, code, retryAfter);
}

function env(name: string): string | undefined {
  return (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[name]?.trim() || undefined;
}

export interface HostedBrowser extends BrowserHandle {
  readonly session: Session;
}

/** Creates a session and attaches to its browser; `close()` releases it unless keepAlive. */
export async function connectHosted(options: SdkOptions, logger: Logger, connectTimeoutMs: number, cdpTimeoutMs: number): Promise<HostedBrowser> {
  const apiKey = options.apiKey ?? env('HOSTED_API_KEY');
  const params = options.hostedSessionCreateParams ?? {};
  const projectId = params.projectId ?? options.projectId ?? env('HOSTED_PROJECT_ID');
  const baseUrl = (options.hostedApiUrl ?? env('HOSTED_API_URL'))?.replace(/\/+$/, '');
  if (!apiKey) throw new InvalidOptionError('env "HOSTED" needs an API key: pass `apiKey` or set HOSTED_API_KEY.');
  if (!projectId) throw new InvalidOptionError('env "HOSTED" needs a project: pass `projectId` or set HOSTED_PROJECT_ID.');
  if (!baseUrl || !/^https?:\/\//.test(baseUrl)) {
    throw new InvalidOptionError('env "HOSTED" needs the service URL: pass `hostedApiUrl` or set HOSTED_API_URL (http:// or https://).');
  }
  const api = new HostedApi(baseUrl, apiKey, connectTimeoutMs);
  const session = await api.createSession({
    projectId,
    region: params.region,
    keepAlive: params.keepAlive,
    timeout: params.timeout,
    browserSettings: params.browserSettings,
  });
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
    connection: browser.connection,
    kind: 'attached',
    close: () =>
      (closing ??= (async () => {
        await browser.close();
        if (session.keepAlive) return;
        await api.releaseSession(session.id).catch((error: Error) => {
          logger.error('hosted', `Could not release hosted session ${session.id}: ${error.message}`);
        });
      })()),
  };
}
