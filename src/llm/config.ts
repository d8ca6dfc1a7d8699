// Turns the caller's ModelConfiguration (a "<provider>/<model>" string or an object) into one plain
// description of the model. Pure: nothing is loaded or checked against the network here, so a bad
// configuration fails the call that uses it, never the constructor.

import type { Call, Instrumentation } from '../util/instrumentation.js';
import { InvalidAISDKModelFormatError, InvalidOptionError } from '../errors.js';
import type { ModelConfiguration } from '../types.js';
import { redactUrl } from '../util/redact.js';
import type { TokenMeter } from './tokenMeter.js';

/** A hosted Tendril server that makes model calls for this client (POST /v1/model). */
export interface ModelServer {
  /** The server's base URL, e.g. https://tendril.example.com. */
  url: string;
  /** One of the server's HOSTED_API_KEYS. */
  apiKey: string;
}

export interface ModelSpec {
  provider: string;
  modelId: string;
  apiKey?: string;
  baseURL?: string;
  /** Input budget of one model call, in tokens; pages larger than this are extracted in chunks. */
  maxInputTokens?: number;
  /** How many chunk calls may run at once. */
  maxParallelCalls?: number;
  /** Retries of a failed model request (429, 5xx, network), within the call's deadline. */
  maxRetries?: number;
  /** Everything else: handed to the provider's factory (headers, organization, ...). */
  providerSettings: Record<string, unknown>;
  /** A hosted Tendril server that runs the requests instead (SdkOptions.modelServer). */
  server?: ModelServer;
  /** The caller's own instructions, sent after ours with every request (SdkOptions.systemPrompt). */
  systemPrompt?: string;
  /** The call's token budget, which each of its requests passes (tokenMeter.ts); none without one. */
  meter?: TokenMeter;
  /** @internal The seam the call's model requests pass (util/instrumentation.ts); set per call, as `meter` is. */
  instrumentation?: Instrumentation;
  /** @internal The call its model requests belong to. */
  parentCall?: Call;
}

// Names people already use in plain model ids; anything else needs "<provider>/".
const INFERRED: Array<[RegExp, string]> = [
  [/^(gpt-|o\d|chatgpt-|codex-)/i, 'openai'],
  [/^claude-/i, 'anthropic'],
  [/^gemini-/i, 'google'],
  [/^grok-/i, 'xai'],
  [/^deepseek-/i, 'deepseek'],
  [/^(mistral-|codestral-|pixtral-|ministral-|magistral-)/i, 'mistral'],
];

/** The model a call uses: the call's own, else the instance's; undefined when neither is set. */
export function parseModelConfiguration(config: ModelConfiguration | undefined): ModelSpec | undefined {
  if (config === undefined || config === null) return undefined;
  if (typeof config === 'string') {
    const [provider, modelId] = splitName(config, true);
    return { provider, modelId, providerSettings: {} };
  }
  if (typeof config !== 'object' || Array.isArray(config)) {
    throw new InvalidOptionError(
      `\`model\` must be "<provider>/<model>" or { modelName, apiKey?, baseURL? }, not ${Array.isArray(config) ? 'an array' : typeof config}.`,
    );
  }
  const { modelName, apiKey, baseURL, maxInputTokens, maxParallelCalls, maxRetries, ...rest } = config;
  if (typeof modelName !== 'string' || !modelName.trim()) {
    throw new InvalidOptionError('`model.modelName` is required: a model name such as "openai/gpt-4.1-mini".');
  }
  for (const [name, value] of [
    ['apiKey', apiKey],
    ['baseURL', baseURL],
  ] as const) {
    if (value !== undefined && (typeof value !== 'string' || !value.trim())) {
      throw new InvalidOptionError(`\`model.${name}\` must be a non-empty string when given.`);
    }
  }
  if (baseURL !== undefined && !/^https?:\/\//i.test(baseURL as string)) {
    throw new InvalidOptionError(`\`model.baseURL\` must be an http:// or https:// URL.`);
  }
  const spec: ModelSpec = { ...inferProvider(modelName, baseURL !== undefined), providerSettings: rest };
  if (apiKey !== undefined) spec.apiKey = apiKey as string;
  if (baseURL !== undefined) spec.baseURL = (baseURL as string).replace(/\/+$/, '');
  spec.maxInputTokens = positiveInteger('maxInputTokens', maxInputTokens, 256);
  spec.maxParallelCalls = positiveInteger('maxParallelCalls', maxParallelCalls, 1);
  spec.maxRetries = positiveInteger('maxRetries', maxRetries, 0);
  const { temperature } = rest;
  if (temperature !== undefined && !(typeof temperature === 'number' && temperature >= 0 && temperature <= 2)) {
    throw new InvalidOptionError(`\`model.temperature\` must be a number from 0 to 2, not ${String(temperature)}.`);
  }
  return spec;
}

function inferProvider(modelName: string, hasBaseURL: boolean): { provider: string; modelId: string } {
  if (modelName.includes('/')) {
    const [provider, modelId] = splitName(modelName, false);
    return { provider, modelId };
  }
  const name = modelName.trim();
  const known = INFERRED.find(([pattern]) => pattern.test(name));
  if (known) return { provider: known[1], modelId: name };
  // A bare name with its own endpoint is what self-hosted servers (Ollama, vLLM, llama.cpp) look like.
  if (hasBaseURL) return { provider: 'openai-compatible', modelId: name };
  throw new InvalidAISDKModelFormatError(
    `Model name ${JSON.stringify(name)} does not say its provider; write it as "<provider>/<model>", ` +
      'for example "openai/gpt-4.1-mini" or "anthropic/claude-sonnet-4-5".',
  );
}

function splitName(name: string, strict: boolean): [string, string] {
  const slash = name.indexOf('/');
  const provider = slash > 0 ? name.slice(0, slash).trim().toLowerCase() : '';
  const modelId = slash > 0 ? name.slice(slash + 1).trim() : '';
  if (!provider || !modelId || /\s/.test(provider)) {
    throw new InvalidAISDKModelFormatError(
      `Model ${JSON.stringify(name)} is not of the form "<provider>/<model>"` +
        (strict && !name.includes('/') ? `; did you mean "openai/${name.trim()}" or another provider?` : '.') +
        ' Example: "openai/gpt-4.1-mini".',
    );
  }
  return [provider, modelId];
}

function positiveInteger(name: string, value: unknown, min: number): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw new InvalidOptionError(`\`model.${name}\` must be an integer of at least ${min}, not ${String(value)}.`);
  }
  return value;
}

/** A name for logs and errors: provider/model and the endpoint, never the key. */
export function describeModel(spec: ModelSpec): string {
  return `${spec.provider}/${spec.modelId}${spec.baseURL ? ` at ${redactUrl(spec.baseURL)}` : ''}`;
}
