// POST /v1/model (protocol/model.ts): one model request run here, for a client that cannot run it
// itself. The same request as a local extract's (generateJson), with the call's key from its header
// or, without one, the server's own key for that provider.

import type { IncomingMessage } from 'node:http';
import { ModelRequest, type ModelReply } from '../../../protocol/index.js';
import { TimeoutError } from '../../errors.js';
import { describeModel } from '../../llm/config.js';
import { generateJson } from '../../llm/generate.js';
import { apiKeyFor, languageModel } from '../../llm/providers.js';
import { modelOf, requireModel } from './operations.js';
import { parse } from './request.js';

const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_RETRIES = 2;

export async function answerModelRequest(req: IncomingMessage, raw: unknown): Promise<ModelReply> {
  const body = parse(ModelRequest, raw);
  const spec = requireModel(modelOf(req, body.model), `POST /v1/model`);
  const model = await languageModel(spec);
  const timeoutMs = body.timeout ?? DEFAULT_TIMEOUT_MS;
  const controller = new AbortController();
  const label = describeModel(spec);
  const timer = setTimeout(() => controller.abort(new TimeoutError(`${label} did not answer within ${timeoutMs} ms.`, timeoutMs)), timeoutMs);
  // A client that gave up (its own deadline, a closed tab) should not keep the provider busy.
  const gone = () => controller.abort(new TimeoutError('The client closed the connection before the model answered.', 0));
  req.socket.once('close', gone);
  try {
    const key = apiKeyFor(spec);
    const providerOptions = spec.providerSettings.providerOptions as Record<string, Record<string, unknown>> | undefined;
    return await generateJson({
      model,
      label,
      system: body.system,
      user: body.prompt,
      schema: body.schema,
      signal: controller.signal,
      maxRetries: body.maxRetries ?? DEFAULT_RETRIES,
      ...(providerOptions ? { providerOptions } : {}),
      secrets: key ? [key] : [],
    });
  } finally {
    clearTimeout(timer);
    req.socket.off('close', gone);
  }
}
