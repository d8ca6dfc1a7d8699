// The agent's model as an AI SDK language model, resolved as the instance's other model calls are
// (llm/config.ts, llm/providers.ts): the agent's own `model`, else the instance's `model` or
// `llmClient`. Never through `modelServer`, which answers single structured requests, not a tool
// loop: without a key of the provider, the call says which to set. Its settings (retries, provider options, temperature) travel with it to each request.

import { MissingLLMConfigurationError } from '../errors.js';
import { DEFAULT_RETRIES, MODEL_OBJECT } from '../llm/ask.js';
import { describeModel, parseModelConfiguration } from '../llm/config.js';
import { apiKeyFor, languageModel } from '../llm/providers.js';
import type { ModelConfiguration } from '../types.js';

export interface AgentModel {
  /** The AI SDK model (LanguageModelV2 or V3). */
  model: object;
  /** provider/model, for logs and messages. */
  label: string;
  /** The provider's name, as in "google/gemini-3-pro". */
  provider: string;
  maxRetries: number;
  providerOptions?: Record<string, Record<string, unknown>>;
  temperature?: number;
  /** Strings that must never reach a message (the API key). */
  secrets: string[];
}

export async function resolveAgentModel(config: ModelConfiguration | undefined): Promise<AgentModel> {
  const spec = parseModelConfiguration(config);
  if (!spec) {
    throw new MissingLLMConfigurationError(
      'agent() needs a model: pass `model` to agent({ model }) or to the Stagehand constructor, such as "openai/gpt-4.1-mini".',
    );
  }
  const given = (spec.providerSettings as { [MODEL_OBJECT]?: object })[MODEL_OBJECT];
  const model = given ?? (await languageModel(spec));
  const { providerOptions, temperature } = spec.providerSettings as {
    providerOptions?: Record<string, Record<string, unknown>>;
    temperature?: number;
  };
  const key = spec.apiKey ?? apiKeyFor(spec);
  return {
    model,
    label: describeModel(spec),
    provider: spec.provider,
    maxRetries: spec.maxRetries ?? DEFAULT_RETRIES,
    ...(providerOptions ? { providerOptions } : {}),
    ...(temperature !== undefined ? { temperature } : {}),
    secrets: key && key.length >= 4 ? [key] : [],
  };
}
