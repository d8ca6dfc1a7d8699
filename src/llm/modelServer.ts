// Model requests through a hosted Tendril server (POST /v1/model, protocol/model.ts) instead of
// straight to the provider: for code that can load no provider package but OpenAI's (a Chrome
// extension) or should not hold the provider's key. Only fetch: this runs in the extension bundle,
// so no zod here either; the server checks the request, the caller's schema checks the answer.

import { HEADERS } from '../../protocol/headers.js';
import { HostedServiceError, LLMResponseError, TimeoutError } from '../errors.js';
import { injectTraceHeaders } from '../util/tracing.js';
import { fromWire, type WireError } from '../wireErrors.js';
import type { ModelServer, ModelSpec } from './config.js';
import type { ModelReply } from './generate.js';
import type { ModelCallUsage } from './metrics.js';

/** The server's ceiling (protocol/model.ts); a longer call keeps its own deadline here. */
const MAX_TIMEOUT_MS = 600_000;

export async function askModelServer(
  server: ModelServer,
  spec: ModelSpec,
  modelKey: string | undefined,
  request: {
    system: string;
    user: string;
    schema: Record<string, unknown>;
    signal: AbortSignal;
    timeoutMs: number;
    maxRetries: number;
    maxOutputTokens?: number | undefined;
  },
): Promise<ModelReply> {
  const where = new URL(server.url).host;
  const headers: Record<string, string> = { 'content-type': 'application/json', [HEADERS.apiKey]: server.apiKey };
  if (modelKey) headers[HEADERS.modelApiKey] = modelKey;
  injectTraceHeaders(headers);
  // The model as configured, without its key (a header); settings that are functions (a custom
  // fetch) cannot travel, and JSON leaves them out.
  const model = { ...spec.providerSettings, modelName: `${spec.provider}/${spec.modelId}`, baseURL: spec.baseURL };
  const body = JSON.stringify({
    model,
    system: request.system,
    prompt: request.user,
    schema: request.schema,
    maxRetries: request.maxRetries,
    maxOutputTokens: request.maxOutputTokens,
    timeout: Math.min(request.timeoutMs, MAX_TIMEOUT_MS),
  });
  let response: Response;
  let answer: { value?: unknown; usage?: ModelCallUsage; error?: { code?: string; message?: string; name?: string } } | undefined;
  try {
    response = await fetch(new URL('v1/model', server.url.replace(/\/*$/, '/')), { method: 'POST', headers, body, signal: request.signal });
    answer = await response.json().catch(() => undefined);
  } catch (error) {
    // The call's deadline aborts with its TimeoutError.
    if (request.signal.aborted) throw request.signal.reason;
    throw new LLMResponseError(`Could not reach the model server ${where}: ${(error as Error).message}`, { cause: error });
  }
  if (response.ok && answer?.usage) return { value: answer.value, usage: answer.usage };
  const { code = `http_${response.status}`, message = response.statusText, name = '' } = answer?.error ?? {};
  if (code === 'timeout') throw new TimeoutError(message, request.timeoutMs);
  // A failure the server names is raised as the class a local call would raise.
  const known = name ? fromWire({ ...answer?.error, code, message, name } as WireError) : undefined;
  if (known) throw known;
  const hint =
    response.status === 401
      ? ' Check `modelServer.apiKey`.'
      : answer?.error
        ? ''
        : ' Is `modelServer.url` a Tendril hosted server (3.x, with POST /v1/model)?';
  throw new HostedServiceError(
    `The model server ${where} refused the request (${response.status} ${code}): ${message}${hint}`,
    response.status,
    code,
  );
}
