// Stagehand 3's ways to name a model, turned into Tendril's ModelConfiguration: the `model` option
// (its client options: openaiEndpointFormat, reasoningEffort, thinkingBudget, ...) and `llmClient`
// (an AI SDK model in an AISdkClient, an OpenAI client in a CustomOpenAIClient). What Tendril cannot
// honour fails here, naming what to write instead.

import { InvalidOptionError } from '../errors.js';
import { MODEL_OBJECT } from '../llm/ask.js';
import type { ModelConfiguration } from '../types.js';
import type { AgentModelConfiguration } from '../agent/types.js';

/** Stagehand's model configuration: Tendril's, plus the client options Stagehand took (the agent takes the same). */
export type StagehandModelConfiguration = AgentModelConfiguration;

/** Only agent()'s computer-use modes read these, and Tendril refuses those modes. */
const AGENT_ONLY = ['provider', 'waitBetweenActions', 'environment', 'maxImages'];

const USE_AI_SDK = 'Build the model with its AI SDK provider package and pass it as `llmClient: new AISdkClient({ model })`.';

/**
 * Stagehand's abstract model client. Tendril makes its own model requests, so a subclass of this
 * is usable only when it hands out an AI SDK model (`getLanguageModel()`); AISdkClient and
 * CustomOpenAIClient are the ready ones.
 */
export abstract class LLMClient {
  type: string = 'custom';
  modelName: string;
  hasVision = false;
  clientOptions: Record<string, unknown> = {};
  userProvidedInstructions?: string;

  constructor(modelName: string, userProvidedInstructions?: string) {
    this.modelName = modelName;
    this.userProvidedInstructions = userProvidedInstructions;
  }

  /** An AI SDK language model (LanguageModelV2 or V3) that Tendril sends its requests through. */
  getLanguageModel?(): object;
}

/** An AI SDK model (`openai("gpt-4.1-mini")`, `createAnthropic(...)("claude-...")`, a wrapped one). */
export class AISdkClient extends LLMClient {
  override type = 'aisdk';
  readonly model: object & { modelId?: string; provider?: string };

  constructor({ model }: { model: object }) {
    const { modelId } = (model ?? {}) as { modelId?: unknown };
    if (typeof modelId !== 'string' || typeof (model as { doGenerate?: unknown }).doGenerate !== 'function') {
      throw new InvalidOptionError(
        'new AISdkClient({ model }) takes an AI SDK language model, such as openai("gpt-4.1-mini") from @ai-sdk/openai.',
      );
    }
    super(modelId);
    this.model = model;
  }

  override getLanguageModel(): object {
    return this.model;
  }
}

/** A model behind an OpenAI SDK client (`new OpenAI({ baseURL, apiKey })`): its Chat Completions API. */
export class CustomOpenAIClient extends LLMClient {
  override type = 'openai';
  readonly client: { baseURL?: string; apiKey?: string; organization?: string | null };

  constructor({ modelName, client }: { modelName: string; client: { baseURL?: string; apiKey?: string; organization?: string | null } }) {
    if (typeof modelName !== 'string' || !modelName.trim() || typeof client !== 'object' || client === null) {
      throw new InvalidOptionError(
        'new CustomOpenAIClient({ modelName, client }) takes a model name and an OpenAI SDK client (new OpenAI({ baseURL, apiKey })).',
      );
    }
    super(modelName);
    this.client = client;
  }
}

/** `llmClient` as a model configuration; undefined when not given. */
export function modelOfClient(client: unknown): ModelConfiguration | undefined {
  if (client === undefined || client === null) return undefined;
  const given = client as {
    type?: unknown;
    model?: unknown;
    modelName?: unknown;
    client?: { baseURL?: unknown; apiKey?: unknown };
    getLanguageModel?: () => unknown;
  };
  const model = typeof given.getLanguageModel === 'function' ? given.getLanguageModel() : given.type === 'aisdk' ? given.model : undefined;
  const { modelId, provider } = (model ?? {}) as { modelId?: unknown; provider?: unknown };
  if (typeof modelId === 'string' && typeof (model as { doGenerate?: unknown }).doGenerate === 'function') {
    // The AI SDK names providers "openai.responses", "anthropic.messages", ...: the part before the dot.
    const name = typeof provider === 'string' && provider ? provider.split('.')[0]!.toLowerCase() : 'custom';
    return { modelName: `${name}/${modelId}`, [MODEL_OBJECT]: model } as ModelConfiguration;
  }
  const openai = given.client;
  if (typeof given.modelName === 'string' && openai && typeof openai === 'object' && (given.type === 'openai' || 'baseURL' in openai)) {
    const baseURL = typeof openai.baseURL === 'string' ? openai.baseURL : undefined;
    const official = !baseURL || /^https:\/\/api\.openai\.com\//.test(baseURL);
    return {
      modelName: `${official ? 'openai' : 'openai-compatible'}/${given.modelName.replace(/^openai\//, '')}`,
      apiKey: typeof openai.apiKey === 'string' ? openai.apiKey : undefined,
      baseURL: official ? undefined : baseURL,
      api: 'chat',
    };
  }
  throw new InvalidOptionError(
    '`llmClient` must hand out an AI SDK model (AISdkClient, or a client with getLanguageModel()) or wrap an OpenAI SDK client ' +
      "(CustomOpenAIClient): Tendril makes its own model requests, not through a client's createChatCompletion(). " +
      'Pass `model` instead ({ modelName: "openai/gpt-4.1-mini", apiKey, baseURL }), or ' +
      USE_AI_SDK.charAt(0).toLowerCase() +
      USE_AI_SDK.slice(1),
  );
}

/** Stagehand's `model` (constructor or call) as Tendril's; undefined stays undefined. */
export function toModelConfiguration(model: StagehandModelConfiguration | undefined, where: string): ModelConfiguration | undefined {
  if (model === undefined || typeof model !== 'object' || model === null || Array.isArray(model)) return model;
  const { openaiEndpointFormat, reasoningEffort, thinkingBudget, providerOptions, middleware, auth, ...rest } = model as Record<
    string,
    unknown
  >;
  const fail = (message: string) => {
    throw new InvalidOptionError(`${where}.${message}`);
  };
  if (middleware !== undefined)
    fail(`middleware is not applied by Tendril. Wrap the model yourself (wrapLanguageModel from "ai"): ${USE_AI_SDK}`);
  if (auth !== undefined)
    fail(
      `auth (service-account and Entra ID sign-in) is not supported: pass apiKey, or ${USE_AI_SDK.charAt(0).toLowerCase()}${USE_AI_SDK.slice(1)}`,
    );
  const options = { ...(providerOptions as Record<string, Record<string, unknown>> | undefined) };
  if ('vertex' in options || 'azure' in options) {
    fail(`providerOptions.${'vertex' in options ? 'vertex' : 'azure'}: Tendril has no Vertex or Azure provider. ${USE_AI_SDK}`);
  }
  const modelName = typeof rest.modelName === 'string' ? rest.modelName : '';
  const provider = modelName.includes('/')
    ? modelName.slice(0, modelName.indexOf('/'))
    : /^(gpt-|o\d)/i.test(modelName)
      ? 'openai'
      : /^claude-/i.test(modelName)
        ? 'anthropic'
        : '';
  if (reasoningEffort !== undefined) {
    if (provider !== 'openai')
      fail(
        `reasoningEffort is for openai models; for others, give the provider's own setting in providerOptions: { <provider>: { ... } }.`,
      );
    options.openai = { ...options.openai, reasoningEffort };
  }
  if (thinkingBudget !== undefined) {
    if (provider !== 'anthropic') fail('thinkingBudget is for anthropic models.');
    options.anthropic = { ...options.anthropic, thinking: { type: 'enabled', budgetTokens: thinkingBudget } };
  }
  if (rest.thinkingEffort !== undefined)
    fail('thinkingEffort: give it as the AI SDK takes it, in providerOptions: { anthropic: { ... } }.');
  for (const name of AGENT_ONLY) delete rest[name];
  const out: Record<string, unknown> = { ...rest };
  if (openaiEndpointFormat !== undefined) out.api = openaiEndpointFormat;
  if (Object.keys(options).length > 0) out.providerOptions = options;
  return out as ModelConfiguration;
}
