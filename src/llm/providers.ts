// From a ModelSpec to an AI SDK language model. OpenAI's package is a dependency, loaded by the first
// model built; the other providers are optional peers, imported only when a call names them, so
// nobody pays for what they don't use.

import type { ModelObject } from './generate.js';
import { MissingLLMConfigurationError, UnsupportedModelError, UnsupportedProviderError } from '../errors.js';
import { envVar, isNode } from '../util/env.js';
import { importAiSdk } from './aiSdk.js';
import { describeModel, type ModelSpec } from './config.js';
import { OPTIONS_WORDING, type ModelWording } from './modelWording.js';

interface HostedProvider {
  kind: 'hosted';
  pkg: string;
  factory: string;
  /** Environment variables holding the key, in the order they are tried. */
  env: string[];
}

/** Self-hosted servers speaking OpenAI's Chat Completions API: Ollama, vLLM, llama.cpp, LM Studio. */
interface LocalProvider {
  kind: 'local';
  defaultBaseURL?: string;
}

/**
 * Providers with a package of their own, `@ai-sdk/<provider>`: its factory, then the environment
 * variables holding the key, tried in order. Tuples rather than objects: this table is in the
 * extension bundle, which has a size budget (scripts/extension-bundle.mjs).
 */
const HOSTED: Record<string, [factory: string, ...env: string[]]> = {
  openai: ['createOpenAI', 'OPENAI_API_KEY'],
  anthropic: ['createAnthropic', 'ANTHROPIC_API_KEY'],
  google: ['createGoogleGenerativeAI', 'GOOGLE_GENERATIVE_AI_API_KEY', 'GEMINI_API_KEY'],
  groq: ['createGroq', 'GROQ_API_KEY'],
  mistral: ['createMistral', 'MISTRAL_API_KEY'],
  xai: ['createXai', 'XAI_API_KEY'],
  deepseek: ['createDeepSeek', 'DEEPSEEK_API_KEY'],
};

/** Local providers and the port of their usual address on this machine (none for a generic OpenAI-compatible server). */
const LOCAL: Record<string, number | undefined> = {
  ollama: 11434,
  vllm: 8000,
  llamacpp: 8080,
  lmstudio: 1234,
  'openai-compatible': undefined,
};

function providerInfo(provider: string): HostedProvider | LocalProvider | undefined {
  if (Object.hasOwn(HOSTED, provider)) {
    const [factory, ...env] = HOSTED[provider]!;
    return { kind: 'hosted', pkg: `@ai-sdk/${provider}`, factory, env };
  }
  if (!Object.hasOwn(LOCAL, provider)) return undefined;
  const port = LOCAL[provider];
  return { kind: 'local', defaultBaseURL: port === undefined ? undefined : `http://127.0.0.1:${port}/v1` };
}

export const SUPPORTED_PROVIDERS = [...Object.keys(HOSTED), ...Object.keys(LOCAL)];

/** Providers whose model we can build without a key (their servers usually ask for none). */
export function isLocalProvider(provider: string): boolean {
  return Object.hasOwn(LOCAL, provider);
}

/** The endpoint requests for `spec` go to: its baseURL, a local server's usual one, or undefined (the provider's own). */
export function endpointOf(spec: ModelSpec): string | undefined {
  const info = providerInfo(spec.provider);
  return spec.baseURL ?? (info?.kind === 'local' ? info.defaultBaseURL : undefined);
}

// Kept apart so bundlers leave the optional packages alone: they are resolved at run time, if present.
const importOptional = (name: string): Promise<Record<string, unknown>> => import(/* @vite-ignore */ name);

const cache = new Map<string, Promise<ModelObject>>();

/** The environment variables a provider's key is read from; undefined for providers that need no key (local servers) or are unknown. */
export function keyVariables(provider: string): string[] | undefined {
  const info = providerInfo(provider);
  return info?.kind === 'hosted' ? info.env : undefined;
}

/** The key a call would use: the configured one, else the provider's environment variable. */
export function apiKeyFor(spec: ModelSpec): string | undefined {
  const info = providerInfo(spec.provider);
  if (spec.apiKey !== undefined || !info || info.kind !== 'hosted') return spec.apiKey;
  return info.env.map(envVar).find(Boolean);
}

/**
 * The one rule of what a model's settings must hold, for every entry point: a provider's own
 * service needs its key (given, or in the provider's variable); a server at `baseURL` is the
 * user's own, asked for no key unless one is given; a local provider needs an address (its usual
 * one, or `baseURL`). The error, if any, says what to set in `wording`'s words.
 */
export function modelSettingsError(spec: ModelSpec, wording: ModelWording = OPTIONS_WORDING): MissingLLMConfigurationError | undefined {
  const info = providerInfo(spec.provider);
  if (!info) return undefined; // an unknown provider is languageModel()'s to report
  const name = `${spec.provider}/${spec.modelId}`;
  if (info.kind === 'hosted' && !spec.baseURL && !apiKeyFor(spec)) {
    return new MissingLLMConfigurationError(
      `No API key for ${describeModel(spec)}: ${wording.key(name, info.env)}. ` +
        `A server of your own that speaks OpenAI's API (Ollama, vLLM, llama.cpp) is asked for none: ${wording.ownServer}.`,
    );
  }
  if (info.kind === 'local' && !endpointOf(spec)) {
    return new MissingLLMConfigurationError(`${describeModel(spec)} needs the server's address: ${wording.address}.`);
  }
  return undefined;
}

/** The model for a spec; built once per provider, model, endpoint and key. */
export function languageModel(spec: ModelSpec): Promise<ModelObject> {
  const info = providerInfo(spec.provider);
  if (!info) {
    return Promise.reject(
      new UnsupportedProviderError(
        `Unknown model provider "${spec.provider}" in "${spec.provider}/${spec.modelId}". ` +
          `Supported: ${SUPPORTED_PROVIDERS.join(', ')}; a server speaking OpenAI's API: ` +
          '{ modelName: "openai-compatible/<model>", baseURL }.',
      ),
    );
  }
  const missing = modelSettingsError(spec);
  if (missing) return Promise.reject(missing);
  // The providers' packages want some key; a server of one's own that asks for none ignores it.
  const apiKey = apiKeyFor(spec) ?? (info.kind === 'hosted' ? 'unused' : undefined);
  const baseURL = endpointOf(spec);
  const { api, providerOptions: _callOptions, temperature: _temperature, ...settings } = spec.providerSettings;
  // Settings that are functions (a custom fetch) cannot be compared by value: no reuse then.
  const comparable = Object.values(settings).every((value) => typeof value !== 'function');
  if (!comparable) return build(spec, info, { ...settings, apiKey, baseURL }, api);
  const key = JSON.stringify([spec.provider, spec.modelId, baseURL, apiKey, api, settings]);
  let model = cache.get(key);
  if (!model) {
    model = build(spec, info, { ...settings, apiKey, baseURL }, api);
    model.catch(() => cache.delete(key));
    if (cache.size > 32) cache.delete(cache.keys().next().value as string);
    cache.set(key, model);
  }
  return model;
}

async function build(
  spec: ModelSpec,
  info: HostedProvider | LocalProvider,
  settings: Record<string, unknown>,
  api: unknown,
): Promise<ModelObject> {
  if (api !== undefined && api !== 'chat' && api !== 'responses') {
    throw new UnsupportedModelError(`\`model.api\` must be "chat" or "responses", not ${JSON.stringify(api)}.`);
  }
  // Loaded by the first model built that needs it, like the AI SDK itself (see generate.ts).
  const openai = () => importAiSdk('@ai-sdk/openai', () => import('@ai-sdk/openai'));
  if (info.kind === 'local') {
    const { createOpenAI } = await openai();
    // Local servers implement Chat Completions, rarely the Responses API; most need no key at all.
    const provider = createOpenAI({ ...settings, apiKey: (settings.apiKey as string | undefined) ?? 'unused', name: spec.provider });
    return provider.chat(spec.modelId);
  }
  if (spec.provider === 'openai') {
    const provider = (await openai()).createOpenAI(settings);
    return api === 'chat' ? provider.chat(spec.modelId) : provider.responses(spec.modelId);
  }
  let module: Record<string, unknown>;
  try {
    module = await importOptional(info.pkg);
  } catch (error) {
    // Outside Node (a Chrome extension's service worker forbids import(); a bundle has no node_modules
    // beside it), installing the package would not help: only the providers built in work there.
    const why = isNode()
      ? `which is not installed: run \`npm install ${info.pkg}\`.`
      : `which is imported at run time, and that failed (${(error as Error).message}): outside Node (a Chrome extension, an edge runtime) ` +
        "it cannot be. Use openai, a server speaking OpenAI's API (openai-compatible with model.baseURL), or `modelServer`.";
    throw new UnsupportedModelError(`${describeModel(spec)} needs the package ${info.pkg}, ${why}`, { cause: error });
  }
  const factory = module[info.factory];
  if (typeof factory !== 'function') {
    throw new UnsupportedModelError(`${info.pkg} has no ${info.factory}(); install a version made for AI SDK 6 (ai@6).`);
  }
  const provider = factory(settings) as (modelId: string) => ModelObject;
  return provider(spec.modelId);
}
