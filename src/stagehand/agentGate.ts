// Stagehand's gate in front of its agent (src/agent/ asks it through AgentSetup.gate), kept so that code written against it meets the same errors
// at the same moments: what the computer-use mode cannot take (a StagehandInvalidArgumentError), and
// the features Stagehand lets through only with `experimental: true` (ExperimentalNotConfiguredError):
// `tools` and `integrations`, streaming, and execute()'s callbacks, signal, messages, excludeTools and
// output. A program that uses them runs on Stagehand with `experimental: true`, and so here.

import { isCuaMode, type ExecuteGiven } from '../agent/agent.js';
import type { AgentConfig } from '../agent/types.js';
import { ExperimentalNotConfiguredError, StagehandInvalidArgumentError } from './errors.js';

/** Throws as Stagehand does; `execute` is undefined when agent() itself is being checked. */
export function checkStagehandGate(config: AgentConfig, experimental: boolean, execute: ExecuteGiven | undefined): void {
  const cua = isCuaMode(config);
  if (cua) {
    const unsupported = [
      config.stream ? 'streaming' : '',
      execute?.signal ? 'abort signal' : '',
      execute?.messages ? 'message continuation' : '',
      execute?.excludeTools?.length ? 'excludeTools' : '',
      execute?.output ? 'output schema' : '',
      execute?.variables && Object.keys(execute.variables).length ? 'variables' : '',
    ].filter(Boolean);
    if (unsupported.length) {
      throw new StagehandInvalidArgumentError(
        `${unsupported.join(', ')} ${unsupported.length === 1 ? 'is' : 'are'} not supported with CUA (Computer Use Agent) mode.`,
      );
    }
  }
  const features = [];
  if ((Array.isArray(config.integrations) && config.integrations.length > 0) || (config.tools && Object.keys(config.tools).length > 0))
    features.push('MCP integrations and custom tools');
  if (!cua) {
    if (config.stream) features.push('streaming');
    if (execute?.callbacks) features.push('callbacks');
    if (execute?.signal) features.push('abort signal');
    if (execute?.messages) features.push('message continuation');
    if (execute?.excludeTools?.length) features.push('excludeTools');
    if (execute?.output) features.push('output schema');
  }
  if (features.length && !experimental) throw new ExperimentalNotConfiguredError(`Agent ${features.join(', ')}`);
  if ((execute?.callbacks as { onSafetyConfirmation?: unknown } | undefined)?.onSafetyConfirmation != null) {
    throw new StagehandInvalidArgumentError('onSafetyConfirmation is for mode "cua" agents, which Tendril does not have.');
  }
}
