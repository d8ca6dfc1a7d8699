// `stagehand.agent(config)`: checks the configuration's shape at once and gives `execute()`, which
// first meets the entry's gate (AgentSetup.gate; Stagehand's: experimental features, the computer-use
// mode's limits, src/stagehand/agentGate.ts), then refuses what Tendril cannot do (the cua mode, MCP integrations)
// by name, with what works instead, then checks its own options; all before any request.

import { InvalidOptionError } from '../errors.js';
import type { ModelConfiguration } from '../types.js';
import { StreamingCallbacksInNonStreamingModeError } from './errors.js';
import type { TokenMeter } from '../llm/tokenMeter.js';
import type { TokenBudget } from '../types.js';
import type { AgentHost } from './host.js';
import { runAgent, streamAgent, type RunOptions, type RunSetup } from './run.js';
import { DOM_TOOLS, OTHER_TOOLS } from './tools.js';
import { defaultMode, HYBRID_TOOLS } from './visionTools.js';
import type {
  AgentConfig,
  AgentExecuteOptions,
  AgentExecuteOptionsBase,
  AgentModelConfiguration,
  AgentResult,
  AgentStreamExecuteOptions,
  AgentStreamResult,
} from './types.js';

/** Stagehand's defaults: 20 model requests, 45 s per tool call. */
const DEFAULT_MAX_STEPS = 20;
const DEFAULT_TOOL_TIMEOUT_MS = 45_000;

const CONFIG_KEYS = new Set(['systemPrompt', 'integrations', 'tools', 'cua', 'model', 'executionModel', 'stream', 'mode', 'budget']);
const EXECUTE_KEYS = new Set([
  'instruction',
  'maxSteps',
  'page',
  'highlightCursor',
  'messages',
  'signal',
  'excludeTools',
  'output',
  'variables',
  'toolTimeout',
  'useSearch',
  'callbacks',
  'budget',
]);
const CALLBACK_KEYS = new Set([
  'prepareStep',
  'onStepFinish',
  'onEvidence',
  'onSafetyConfirmation',
  'onChunk',
  'onFinish',
  'onError',
  'onAbort',
]);
const STREAM_ONLY = ['onChunk', 'onFinish', 'onError', 'onAbort'];

/** What execute() was given, as the entry's gate reads it. */
export type ExecuteGiven = Partial<AgentExecuteOptionsBase> & { callbacks?: unknown };

export function isCuaMode(config: AgentConfig): boolean {
  return config.mode !== undefined ? config.mode === 'cua' : config.cua === true;
}

export interface AgentSetup {
  host: AgentHost;
  /** The instance's model, in Tendril's form. */
  instanceModel: ModelConfiguration | undefined;
  recordUsage: RunSetup['recordUsage'];
  /**
   * The checks of the entry in front of the agent (Stagehand's gate: stagehand/agentGate.ts); `execute`
   * is undefined when agent() itself is being checked.
   */
  gate(config: AgentConfig, execute: ExecuteGiven | undefined): void;
  /** The entry's model configuration (AgentConfig.model) in Tendril's form; `where` names the option in errors. */
  toModelConfiguration(model: AgentModelConfiguration | undefined, where: string): ModelConfiguration | undefined;
  /** The instance's `cacheDir`. */
  cacheDir?: string;
  /** The meter of one run, from agent({ budget }) and execute({ budget }) (checked there); undefined without a budget. */
  meter?: (agent: TokenBudget | undefined, run: TokenBudget | undefined) => TokenMeter | undefined;
}

const fail = (message: string): never => {
  throw new InvalidOptionError(message);
};

function unknownKeys(given: object, known: Set<string>, where: string): void {
  const unknown = Object.keys(given).filter((key) => !known.has(key));
  if (unknown.length)
    fail(
      `${where}: unknown option${unknown.length > 1 ? 's' : ''} ${unknown.map((key) => `\`${key}\``).join(', ')}; it takes ${[...known].join(', ')}.`,
    );
}

/** agent() options of Stagehand 2 that code may still pass, and what Stagehand 3 calls them. */
const OLDER: Record<string, string> = {
  instructions: 'it is `systemPrompt` now',
  provider: 'name the model with its provider instead: `model: "anthropic/claude-sonnet-4-5"`',
  options: "give the model's settings in `model: { modelName, apiKey, baseURL }`",
};

function checkConfig(config: AgentConfig): void {
  if (typeof config !== 'object' || config === null || Array.isArray(config)) fail('agent(config) takes an object, or nothing.');
  const older = Object.keys(OLDER).find((key) => key in config);
  if (older) fail(`agent(): \`${older}\` is an option of Stagehand 2; ${OLDER[older]}.`);
  unknownKeys(config, CONFIG_KEYS, 'agent(config)');
  if (config.mode !== undefined && !['dom', 'hybrid', 'cua'].includes(config.mode))
    fail(`agent(): mode must be "dom", "hybrid" or "cua" (which Tendril refuses), not ${JSON.stringify(config.mode)}.`);
  if (config.integrations !== undefined && !Array.isArray(config.integrations)) fail('agent(): `integrations` takes an array.');
  if (config.tools !== undefined) {
    if (typeof config.tools !== 'object' || config.tools === null || Array.isArray(config.tools))
      fail('agent(): `tools` takes AI SDK tools by name: { name: tool({ ... }) }.');
    for (const [name, tool] of Object.entries(config.tools)) {
      if (!tool || typeof tool !== 'object' || !('inputSchema' in tool))
        fail(`agent(): tools.${name} is not an AI SDK tool; build it with tool({ description, inputSchema, execute }) from "ai".`);
    }
  }
  if (config.systemPrompt !== undefined && typeof config.systemPrompt !== 'string') fail('agent(): `systemPrompt` must be a string.');
  if (config.stream !== undefined && typeof config.stream !== 'boolean') fail('agent(): `stream` must be true or false.');
}

/** What Tendril does not have, refused when a run is asked for (where Stagehand would start it). */
function refuseMissing(config: AgentConfig): void {
  if (isCuaMode(config)) {
    fail(
      'agent(): mode "cua" (a computer-use provider driving the mouse from screenshots) is not available in Tendril. ' +
        'Use mode "hybrid" (the model clicks and types at screenshot points, with any model that calls tools and reads images) ' +
        'or leave `mode` out for "dom" (it acts on elements it reads in the page text).',
    );
  }
  if (config.integrations?.length) {
    fail('agent(): MCP `integrations` are not supported. Connect the MCP client yourself and pass its tools as AI SDK tools in `tools`.');
  }
}

/** The options of one execute(), checked, with the defaults filled in. */
function checkExecute(given: string | AgentExecuteOptions | AgentStreamExecuteOptions, streaming: boolean): RunOptions {
  const options = typeof given === 'string' ? { instruction: given } : given;
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    fail('execute() takes an instruction, or { instruction, maxSteps?, signal?, ... }.');
  unknownKeys(options, EXECUTE_KEYS, 'execute(options)');
  if (typeof options.instruction !== 'string' || !options.instruction.trim())
    fail('execute() needs an instruction: say what the agent should do.');
  const { maxSteps = DEFAULT_MAX_STEPS, toolTimeout = DEFAULT_TOOL_TIMEOUT_MS } = options;
  if (!Number.isInteger(maxSteps) || maxSteps < 1)
    fail(`execute(): \`maxSteps\` must be a whole number of at least 1, not ${String(maxSteps)}.`);
  if (typeof toolTimeout !== 'number' || !(toolTimeout > 0) || !Number.isFinite(toolTimeout))
    fail(`execute(): \`toolTimeout\` must be a positive number of ms, not ${String(toolTimeout)}.`);
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal))
    fail('execute(): `signal` must be an AbortSignal (new AbortController().signal).');
  if (options.page !== undefined && (typeof options.page !== 'object' || options.page === null)) {
    fail("execute(): `page` takes one of this instance's pages, or a Playwright or Puppeteer page connected through connectURL().");
  }
  if (options.messages !== undefined && !Array.isArray(options.messages))
    fail('execute(): `messages` takes the `messages` of an earlier result.');
  if (options.useSearch)
    fail(
      "execute(): `useSearch` needs Browserbase's search service, which Tendril does not use; open a search page with the goto tool instead, or pass a search tool in agent({ tools }).",
    );
  if (options.variables !== undefined && (typeof options.variables !== 'object' || options.variables === null))
    fail('execute(): `variables` takes { name: value }.');
  const excluded = options.excludeTools ?? [];
  if (!Array.isArray(excluded) || excluded.some((name) => typeof name !== 'string'))
    fail('execute(): `excludeTools` takes an array of tool names.');
  const known = new Set<string>([...DOM_TOOLS, ...OTHER_TOOLS]);
  const strange = excluded.filter((name) => !known.has(name));
  if (strange.length)
    fail(
      `execute(): no tool is named ${strange.map((name) => JSON.stringify(name)).join(', ')}; the agent's tools are ${[...DOM_TOOLS, ...HYBRID_TOOLS].join(', ')} (the last ${HYBRID_TOOLS.length} in the hybrid mode).`,
    );
  const callbacks = (options.callbacks ?? {}) as Record<string, unknown>;
  if (typeof callbacks !== 'object' || callbacks === null) fail('execute(): `callbacks` takes { onStepFinish?, prepareStep?, ... }.');
  unknownKeys(callbacks, CALLBACK_KEYS, 'execute(): callbacks');
  const streamOnly = STREAM_ONLY.filter((name) => callbacks[name] != null);
  if (!streaming && streamOnly.length) throw new StreamingCallbacksInNonStreamingModeError(streamOnly);
  if (callbacks.onEvidence != null)
    fail(
      "execute(): `callbacks.onEvidence` (Stagehand's evidence recorder) is not supported; onStepFinish gets every step with its tool calls and results.",
    );
  for (const [name, value] of Object.entries(callbacks))
    if (value != null && typeof value !== 'function') fail(`execute(): callbacks.${name} must be a function.`);
  return { ...options, maxSteps, toolTimeout } as RunOptions;
}

const nameOf = (model: unknown): string | null =>
  typeof model === 'string'
    ? model
    : typeof (model as { modelName?: unknown })?.modelName === 'string'
      ? (model as { modelName: string }).modelName
      : null;

export function createAgent(
  setup: AgentSetup,
  config: AgentConfig | undefined,
): { execute: (options: string | AgentExecuteOptions) => Promise<AgentResult | AgentStreamResult> } {
  const given = config ?? {};
  checkConfig(given);
  // Stagehand checks a computer-use agent when it is made, any other when it runs.
  if (isCuaMode(given)) setup.gate(given, undefined);
  const own = setup.toModelConfiguration(given.model, 'agent options.model');
  setup.toModelConfiguration(given.executionModel, 'agent options.executionModel');
  const named = own ?? setup.instanceModel;
  // As in Stagehand: without a mode, models that see well (Claude, Gemini 3, GPT-5.4 on) get "hybrid".
  const mode =
    given.mode === 'hybrid' || given.mode === 'dom' ? given.mode : defaultMode(typeof named === 'string' ? named : named?.modelName);
  const run: RunSetup = {
    mode,
    host: setup.host,
    config: given,
    model: own ?? setup.instanceModel,
    executionModel: given.executionModel ?? given.model,
    recordUsage: setup.recordUsage,
    ...(setup.cacheDir ? { cacheDir: setup.cacheDir } : {}),
    // Keys and other secrets are no part of it: only names.
    signature: {
      mode,
      model: nameOf(named),
      executionModel: nameOf(given.executionModel),
      systemPrompt: given.systemPrompt ?? '',
      tools: Object.keys(given.tools ?? {}).sort(),
    },
  };
  const streaming = given.stream === true;
  setup.host.log({
    category: 'agent',
    message: 'Creating v3 agent instance',
    level: 1,
    auxiliary: {
      cua: { value: String(isCuaMode(given)), type: 'boolean' },
      mode: { value: isCuaMode(given) ? 'cua' : mode, type: 'string' },
      model: { value: typeof run.model === 'string' ? run.model : (run.model?.modelName ?? ''), type: 'string' },
      systemPrompt: { value: given.systemPrompt ?? '', type: 'string' },
      tools: { value: JSON.stringify(Object.keys(given.tools ?? {})), type: 'object' },
    },
  });
  return {
    execute: async (options) => {
      setup.gate(given, typeof options === 'object' && options !== null ? options : undefined);
      refuseMissing(given);
      const checked = checkExecute(options, streaming);
      const meter = setup.meter?.(given.budget, checked.budget);
      if (meter) checked.meter = meter;
      // The run through the seam: a trace shows it as one action, its steps nested in it.
      const describe = () => ({
        api: 'Agent.execute',
        title: `agent: ${checked.instruction}`,
        params: { instruction: checked.instruction, maxSteps: checked.maxSteps, ...(streaming ? { stream: true } : {}) },
      });
      const { instrumentation } = run.host.context;
      if (!streaming) return instrumentation.run(describe, () => runAgent(run, checked));
      // A stream is handed back at once, but its action lasts until its run ends (result, error or
      // abort), so that the steps it takes later nest in it.
      return new Promise<AgentStreamResult>((resolve, reject) => {
        instrumentation
          .run(describe, async () => {
            const streamed = await streamAgent(run, checked);
            resolve(streamed);
            return streamed.result;
          })
          .catch(reject);
      });
    },
  };
}
