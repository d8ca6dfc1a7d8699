// POST /v1/model (protocol/model.ts): one model request run here, for a client that cannot run it
// itself. The same request as a local extract's (generateJson), with the call's key from its header
// or, without one, the server's own key for that provider.

import type { IncomingMessage } from 'node:http';
import { ModelRequest, type ModelReply } from '../../../protocol/index.js';
import { TimeoutError } from '../../errors.js';
import { DEFAULT_MODEL_TIMEOUT_MS, DEFAULT_RETRIES } from '../../llm/ask.js';
import { describeModel } from '../../llm/config.js';
import { processInstrumentation } from '../../util/instrumentation.js';
import { generateJson } from '../../llm/generate.js';
import { apiKeyFor, languageModel } from '../../llm/providers.js';
import { Deadline } from '../../util/time.js';
import { modelOf, requireModel } from './operations.js';
import { parse } from './request.js';

export async function answerModelRequest(req: IncomingMessage, raw: unknown): Promise<ModelReply> {
  const body = parse(ModelRequest, raw);
  const spec = requireModel(modelOf(req, body.model), `POST /v1/model`);
  const model = await languageModel(spec);
  const label = describeModel(spec);
  const deadline = new Deadline(body.timeout ?? DEFAULT_MODEL_TIMEOUT_MS, `The request to ${label}`);
  // A client that gave up (its own deadline, a closed tab) should not keep the provider busy.
  const gone = () => deadline.abort(new TimeoutError('The client closed the connection before the model answered.', 0));
  req.socket.once('close', gone);
  try {
    const describe = () => ({
      api: 'Model.request',
      title: `model ${label}`,
      params: { model: label, system: body.system, user: body.prompt },
    });
    return await processInstrumentation.run(describe, () =>
      generateJson({
        model,
        label,
        system: body.system,
        user: body.prompt,
        schema: body.schema,
        signal: deadline.signal,
        maxRetries: body.maxRetries ?? DEFAULT_RETRIES,
        maxOutputTokens: body.maxOutputTokens,
        providerOptions: spec.providerSettings.providerOptions as Record<string, Record<string, unknown>> | undefined,
        secrets: [apiKeyFor(spec)],
      }),
    );
  } finally {
    deadline.dispose();
    req.socket.off('close', gone);
  }
}
