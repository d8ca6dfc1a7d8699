// env "HOSTED": extract, act and observe run on the service, next to its browser, and may be answered
// from its cache. The model travels without its key (the key goes in a header, to be used for the
// call and forgotten); what comes back is checked here as strictly as a local result.

import { RESULTS, type OperationName } from '../../../protocol/index.js';
import type { HostedBrowser, OperationReply } from './api.js';
import { takeUsage, type UsageTarget } from './usage.js';
import { HostedServiceError, LLMResponseError } from '../../errors.js';
import { rootShape, validate } from '../../extract/extract.js';
import { toJsonSchema } from '../../extract/jsonSchema.js';
import type { ZodLike } from '../../extract/schema.js';
import type { ModelSpec } from '../../llm/config.js';
import { apiKeyFor } from '../../llm/providers.js';
import type { Logger } from '../../logger.js';
import type { ActionInput, ActResult, ModelConfiguration, ObserveResult } from '../../types.js';

export interface HostedCall extends UsageTarget {
  browser: HostedBrowser;
  /** The page's target id: the server finds the same tab in its own view of the browser. */
  pageId: string;
  /** The model as configured (its key is taken out), and resolved (for the key). */
  configured: ModelConfiguration | undefined;
  model: ModelSpec | undefined;
  serverCache: boolean;
  timeoutMs: number;
  logger: Logger;
}

async function send(call: HostedCall, name: Exclude<OperationName, 'navigate'>, body: Record<string, unknown>): Promise<OperationReply> {
  const configured = call.configured;
  const { apiKey: _key, ...wireModel } = typeof configured === 'string' ? { modelName: configured } : (configured ?? {});
  const reply = await call.browser.api.operation(
    call.browser.session.id,
    name,
    { ...body, model: configured === undefined ? undefined : wireModel, timeout: call.timeoutMs, pageId: call.pageId },
    {
      modelApiKey: call.model ? apiKeyFor(call.model) : undefined,
      bypassCache: !call.serverCache,
      timeoutMs: call.timeoutMs,
      onLog: (line) => call.logger.log(line.level, line.category, line.message),
    },
  );
  const answer = call.serverCache ? reply : { data: reply.data, usage: reply.usage };
  // Before the result is checked: the model was used whatever the check finds.
  await takeUsage(call, name, answer);
  return answer;
}

function checked<T>(name: OperationName, schema: { safeParse(value: unknown): { success: boolean; data?: unknown } }, data: unknown): T {
  const parsed = schema.safeParse(data);
  if (!parsed.success)
    throw new HostedServiceError(`The hosted service answered ${name} with a result of the wrong shape.`, 200, 'internal');
  return parsed.data as T;
}

export async function hostedExtract(
  call: HostedCall,
  instruction: string,
  schema: ZodLike | undefined,
  selector: string | undefined,
): Promise<unknown> {
  const { node, wrapped } = rootShape(schema);
  const { data, cacheStatus } = await send(call, 'extract', { instruction, schema: schema ? toJsonSchema(node) : undefined, selector });
  let result: unknown;
  if (!schema) {
    const extraction = (data as { extraction?: unknown } | null)?.extraction;
    if (typeof extraction !== 'string')
      throw new LLMResponseError('The hosted service answered extract(instruction) without an extraction text.');
    result = { extraction };
  } else {
    result = await validate(schema, wrapped ? (data as { value?: unknown } | null)?.value : data, { unknownLinks: [] });
  }
  return cacheStatus ? withCacheStatus(result, cacheStatus) : result;
}

export async function hostedAct(
  call: HostedCall,
  what: { instruction: string } | { action: ActionInput },
  variables: Record<string, string> | undefined,
): Promise<ActResult> {
  const { data } = await send(call, 'act', { ...what, variables });
  return checked<ActResult>('act', RESULTS.act, data);
}

export async function hostedObserve(
  call: HostedCall,
  instruction: string | undefined,
  selector: string | undefined,
): Promise<ObserveResult[]> {
  const { data } = await send(call, 'observe', { instruction, selector });
  return checked<ObserveResult[]>('observe', RESULTS.observe, data);
}

/**
 * The contract's `cacheStatus` beside a result: a field of a plain object; on an array a property
 * that JSON and equality do not see; a string or number cannot carry one.
 */
function withCacheStatus(result: unknown, cacheStatus: 'HIT' | 'MISS'): unknown {
  if (typeof result === 'object' && result !== null && !Array.isArray(result)) return { ...result, cacheStatus };
  if (Array.isArray(result)) Object.defineProperty(result, 'cacheStatus', { value: cacheStatus, enumerable: false });
  return result;
}
