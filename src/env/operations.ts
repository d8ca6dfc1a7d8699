// extract(instruction[, schema]), act and observe run in this process, on this Sdk's own driver:
// the operations of every environment whose models are not on a service.

import { performAct } from '../act/act.js';
import { runObserve } from '../act/observe.js';
import { MissingLLMConfigurationError } from '../errors.js';
import { runExtraction } from '../extract/extract.js';
import type { ModelSpec } from '../llm/config.js';
import type { OperationCall, Operations } from './types.js';

function modelOf(call: OperationCall, what: string): ModelSpec {
  if (!call.model) throw new MissingLLMConfigurationError(`${what} needs a model.`);
  return call.model;
}

export const localOperations: Operations = {
  extract: (call, instruction, schema, selector) =>
    runExtraction({
      page: call.page,
      instruction,
      schema,
      selector,
      timeoutMs: call.timeoutMs,
      model: modelOf(call, 'extract(instruction)'),
      logger: call.logger,
      metrics: call.metrics,
    }),
  act: (call, what, variables) =>
    performAct(call.page, what, {
      model: call.model,
      variables: variables ?? {},
      timeoutMs: call.timeoutMs,
      modelTimeoutMs: call.modelTimeoutMs,
      logger: call.logger,
      metrics: call.metrics,
      selfHeal: call.selfHeal,
      settleMs: call.settleMs,
    }),
  observe: (call, instruction, selector) =>
    runObserve({
      page: call.page,
      instruction,
      selector,
      timeoutMs: call.timeoutMs,
      model: modelOf(call, 'observe()'),
      logger: call.logger,
      metrics: call.metrics,
      settleMs: call.settleMs,
    }),
};
