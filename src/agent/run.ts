// One run of the agent: the AI SDK's tool loop (generateText, or streamText with `stream: true`) over
// the DOM mode's tools (tools.ts; the hybrid mode's add visionTools.ts), at most `maxSteps` model requests, then the verdict (actions.ts). As in
// Stagehand: a run that fails for any reason but the caller's signal resolves with `success: false`
// and the message; an aborted one rejects with AgentAbortError.

import { importAiSdk } from '../llm/aiSdk.js';
import { DEFAULT_MODEL_TIMEOUT_MS } from '../llm/ask.js';
import type { ModelCallUsage } from '../llm/metrics.js';
import { meteredModel } from '../llm/meteredModel.js';
import { tracedModel } from '../llm/tracedModel.js';
import type { TokenMeter } from '../llm/tokenMeter.js';
import { BudgetExceededError } from '../errors.js';
import type { ModelConfiguration } from '../types.js';
import { AgentAbortError } from './errors.js';
import type { AgentModelConfiguration } from './types.js';
import { actionsOf, askVerdict, withoutUndefined } from './actions.js';
import type { AgentHost } from './host.js';
import { resolveAgentModel, type AgentModel } from './model.js';
import { agentSystemPrompt } from './prompt.js';
import type { ReplayStep } from './agentCache.js';
import { domTools, fillVariables, guarded, serial } from './tools.js';
import { hybridTools } from './visionTools.js';
import { trimHistory } from './history.js';
import type {
  AgentAction,
  AgentConfig,
  AgentExecuteOptions,
  AgentMessage,
  AgentResult,
  AgentStep,
  AgentStreamCallbacks,
  AgentStreamResult,
} from './types.js';

export interface RunSetup {
  host: AgentHost;
  config: AgentConfig;
  /** The loop's model: agent({ model }) in Tendril's form, else the instance's. */
  model: ModelConfiguration | undefined;
  executionModel?: AgentModelConfiguration;
  /** 'hybrid' adds the coordinate tools (visionTools.ts) to the DOM mode's. */
  mode: 'dom' | 'hybrid';
  /** The Stagehand's `cacheDir`: successful runs are kept and replayed (cache.ts); not for streams. */
  cacheDir?: string;
  /** What besides the instruction and the page decides whether a kept run fits: the configuration. */
  signature: unknown;
  /** Adds the loop's model use to the instance's agent counters. */
  recordUsage(usage: ModelCallUsage): void;
}

/** execute()'s options once checked (agent.ts): every default filled in. */
export interface RunOptions extends AgentExecuteOptions {
  maxSteps: number;
  toolTimeout: number;
  /** The run's token budget: its requests pass it, and its tools' calls count against it. */
  meter?: TokenMeter;
}

interface RunState {
  reasoning: string[];
  actions: AgentAction[];
  url: string;
  started: number;
  /** What the tools did to the page, for cacheDir. */
  steps: ReplayStep[];
  /** Ends the step under way in the instrumentation seam, with what it did; undefined between steps. */
  step?: (result: unknown) => void;
}

interface Prepared {
  ai: typeof import('ai');
  model: AgentModel;
  settings: Record<string, unknown>;
  messages: AgentMessage[];
  state: RunState;
}

const loadAi = () => importAiSdk('ai', () => import('ai'));

async function prepare(setup: RunSetup, options: RunOptions, callbacks: AgentStreamCallbacks | undefined): Promise<Prepared> {
  const { host, config } = setup;
  const [ai, model] = await Promise.all([loadAi(), resolveAgentModel(setup.model)]);
  if (options.meter) model.model = meteredModel(model.model, options.meter);
  // Outside the meter, so that a request's time in a trace includes its wait for the budget, as ask.ts's does.
  const { instrumentation } = host.context;
  model.model = tracedModel(model.model, { instrumentation, label: model.label, secrets: model.secrets, meter: options.meter });
  if (options.page) host.context.setActivePage(await host.resolvePage(options.page));
  const start = await host.context.awaitActivePage();
  const url = start.url();
  // As Stagehand's, the hybrid mode draws the pointer unless told not to: a watcher sees where it clicks.
  if (setup.mode === 'hybrid' && options.highlightCursor !== false) await host.showCursor?.(start).catch(() => undefined);
  const state: RunState = { reasoning: [], actions: [], url, started: Date.now(), steps: [] };
  const toolSetup = {
    host,
    executionModel: setup.executionModel,
    variables: options.variables,
    toolTimeoutMs: options.toolTimeout,
    jsonSchema: ai.jsonSchema as never,
    lock: serial(),
    meter: options.meter,
    ...(setup.cacheDir ? { record: (step: ReplayStep) => void state.steps.push(step) } : {}),
  };
  const dom = domTools(toolSetup);
  const own = setup.mode === 'hybrid' ? hybridTools({ ...toolSetup, provider: model.provider }, dom) : dom;
  const tools: Record<string, unknown> = { ...own };
  for (const [name, tool] of Object.entries(config.tools ?? {})) {
    // The caller's tools get the same deadline and let go when the run is aborted, so none can hold a run.
    tools[name] =
      typeof tool.execute === 'function' ? { ...tool, execute: guarded(name, options.toolTimeout, tool.execute as never) } : tool;
  }
  for (const name of options.excludeTools ?? []) delete tools[name];
  const system = agentSystemPrompt({
    instruction: options.instruction,
    url,
    mode: setup.mode,
    tools: Object.keys(tools),
    customInstructions: config.systemPrompt,
    variables: options.variables,
  });
  const messages: AgentMessage[] = [...(options.messages ?? []), { role: 'user', content: options.instruction }];
  const maxSteps = options.maxSteps;
  const settings = {
    model: model.model,
    system,
    messages: withoutUndefined(messages),
    allowSystemInMessages: true,
    tools,
    toolChoice: 'auto',
    // A custom tool named "done" ends the loop too, as in Stagehand.
    stopWhen: ({ steps }: { steps: AgentStep[] }) =>
      steps.length >= maxSteps || steps.at(-1)?.toolCalls.some((call) => call.toolName === 'done') === true,
    // Old screenshots and page texts are dropped from what is sent again: the model needs the latest.
    prepareStep: async (step: { messages: AgentMessage[]; steps: AgentStep[]; stepNumber: number; model: unknown }) => {
      // Each step through the seam (a trace shows it, with the tools it called nested in it).
      state.step?.(undefined);
      if (host.context.instrumentation.on) {
        state.step = host.context.instrumentation.open({ api: 'Agent.step', title: `step ${step.stepNumber + 1}`, params: {} }).end;
      }
      const messages = trimHistory(step.messages);
      const theirs = (await callbacks?.prepareStep?.({ ...step, messages })) as { messages?: AgentMessage[] } | undefined;
      return { ...theirs, messages: theirs?.messages ?? messages };
    },
    onStepFinish: async (step: AgentStep) => {
      if (step.text) {
        state.reasoning.push(step.text);
        host.log({ category: 'agent', message: `reasoning: ${step.text}`, level: 1 });
      }
      for (const call of step.toolCalls) {
        const result = step.toolResults.find((each) => each.toolCallId === call.toolCallId);
        for (const action of actionsOf(call.toolName, call.input, result?.output, step.text || undefined)) {
          state.actions.push({ ...action, pageUrl: state.url, timestamp: Date.now() });
        }
      }
      state.url = host.context.activePage()?.url() ?? state.url;
      state.step?.({
        text: step.text || undefined,
        toolCalls: step.toolCalls.map((call) => ({ tool: call.toolName, input: call.input })),
        usage: step.usage,
      });
      state.step = undefined;
      await callbacks?.onStepFinish?.(step);
    },
    abortSignal: options.signal,
    // A step is one model request and the tools it calls, each within toolTimeout.
    timeout: { stepMs: DEFAULT_MODEL_TIMEOUT_MS + options.toolTimeout },
    maxRetries: model.maxRetries,
    providerOptions: model.providerOptions,
    temperature: model.temperature,
  };
  return { ai, model, settings, messages, state };
}

interface LoopEnd {
  steps: AgentStep[];
  response: { messages: unknown[] };
  totalUsage: AgentStep['usage'];
  text: string;
}

/** After the loop: the verdict, the metrics, the AgentResult. */
async function finish(setup: RunSetup, options: RunOptions, prepared: Prepared, end: LoopEnd): Promise<AgentResult> {
  const { ai, model, state } = prepared;
  const last = end.steps.at(-1);
  const doneCall = last?.toolCalls.find((call) => call.toolName === 'done');
  // The loop was cut off: the model still had tools to call when its steps ran out.
  const cutOff = !doneCall && end.steps.length >= options.maxSteps && last?.finishReason === 'tool-calls';
  let messages = [...prepared.messages, ...(end.response.messages as AgentMessage[])];
  let completed: boolean;
  let message: string;
  let output: Record<string, unknown> | undefined;
  const usage = [end.totalUsage];
  if (doneCall) {
    const input = (doneCall.input ?? {}) as { taskComplete?: unknown; reasoning?: unknown; output?: unknown };
    completed = true;
    message = [state.reasoning.join(' '), typeof input.reasoning === 'string' ? input.reasoning : ''].join(' ').trim() || 'Task completed.';
    if (input.output && typeof input.output === 'object') output = input.output as Record<string, unknown>;
  } else {
    try {
      const verdict = await askVerdict({
        ai,
        model,
        messages: trimHistory(messages),
        instruction: options.instruction,
        output: options.output,
        signal: options.signal,
        timeoutMs: DEFAULT_MODEL_TIMEOUT_MS,
      });
      usage.push(verdict.usage);
      messages = [...messages, ...verdict.messages];
      completed = verdict.taskComplete && !cutOff;
      message = verdict.reasoning || state.reasoning.join(' ').trim() || end.text;
      output = verdict.output;
      state.actions.push({
        type: 'done',
        reasoning: verdict.reasoning,
        taskCompleted: verdict.taskComplete,
        taskComplete: verdict.taskComplete,
        pageUrl: state.url,
        timestamp: Date.now(),
      });
    } catch (error) {
      if (options.signal?.aborted || error instanceof BudgetExceededError) throw error;
      // The verdict only sums the run up: its failure does not undo the work the loop did.
      setup.host.log({
        category: 'agent',
        message: `The closing verdict failed; the run is summed up without it: ${(error as Error).message}`,
        level: 1,
      });
      completed = !cutOff;
      message = state.reasoning.join(' ').trim() || end.text || 'The run ended.';
    }
  }
  if (cutOff) {
    setup.host.log({ category: 'agent', message: `Agent stopped: reached maximum steps (${options.maxSteps})`, level: 1 });
    message = `Agent stopped: reached maximum steps (${options.maxSteps}). ${message}`.trim();
  }
  const total = sum(usage, Date.now() - state.started);
  setup.recordUsage(total);
  return {
    success: completed,
    message: message || 'Task execution completed',
    actions: state.actions,
    completed,
    ...(output ? { output } : {}),
    usage: {
      input_tokens: total.promptTokens,
      output_tokens: total.completionTokens,
      reasoning_tokens: total.reasoningTokens,
      cached_input_tokens: total.cachedInputTokens,
      inference_time_ms: total.inferenceTimeMs,
    },
    messages,
  };
}

function sum(usages: Array<AgentStep['usage'] | undefined>, ms: number): ModelCallUsage {
  const total = { promptTokens: 0, completionTokens: 0, reasoningTokens: 0, cachedInputTokens: 0, inferenceTimeMs: ms };
  for (const usage of usages) {
    total.promptTokens += usage?.inputTokens ?? 0;
    total.completionTokens += usage?.outputTokens ?? 0;
    total.reasoningTokens += usage?.reasoningTokens ?? 0;
    total.cachedInputTokens += usage?.cachedInputTokens ?? 0;
  }
  return total;
}

function aborted(signal: AbortSignal | undefined): AgentAbortError {
  return new AgentAbortError(
    signal?.reason === undefined ? 'aborted' : signal.reason instanceof Error ? signal.reason.message : String(signal.reason),
  );
}

function failed(setup: RunSetup, prepared: Prepared, error: unknown): AgentResult {
  const { state, messages } = prepared;
  let text = error instanceof Error ? error.message : String(error);
  // A provider's error may quote the request; the key never goes further than this process.
  for (const secret of prepared.model.secrets) text = text.split(secret).join('***');
  setup.host.log({ category: 'agent', message: `Error executing agent task: ${text}`, level: 0 });
  return { success: false, message: `Failed to execute task: ${text}`, actions: state?.actions ?? [], completed: false, messages };
}

/** A kept run replayed (`result`), or how to keep this one. */
async function fromCache(
  setup: RunSetup,
  options: RunOptions,
  prepared: Prepared,
): Promise<{ result?: AgentResult; keep: (result: AgentResult) => Promise<void> }> {
  const { AgentRunCache, replay } = await import('./agentCache.js');
  const { host } = setup;
  const cache = new AgentRunCache(setup.cacheDir!);
  const startUrl = prepared.state.url;
  const file = cache.file(options.instruction, startUrl, [setup.signature, options.maxSteps], options.variables);
  const keep = async ({ success, message, completed, actions, output }: AgentResult) => {
    await cache
      .set(file, {
        instruction: options.instruction,
        startUrl,
        steps: prepared.state.steps,
        result: { success, message, completed, actions, ...(output ? { output } : {}) },
      })
      .catch((error: Error) => host.log({ category: 'cache', message: `Could not write the agent cache: ${error.message}`, level: 0 }));
  };
  const entry = await cache.get(file);
  if (!entry) return { keep };
  try {
    await replay(host, entry.steps, options.variables, (text) => fillVariables(text, options.variables), options.toolTimeout);
  } catch (error) {
    // The page changed since: what is left is done live, from where the replay stopped.
    host.log({ category: 'cache', message: `The kept agent run no longer fits; running the agent: ${(error as Error).message}`, level: 1 });
    return { keep };
  }
  host.log({
    category: 'cache',
    message: 'Replayed the kept agent run',
    level: 1,
    auxiliary: { instruction: { value: options.instruction, type: 'string' } },
  });
  const usage = {
    input_tokens: 0,
    output_tokens: 0,
    reasoning_tokens: 0,
    cached_input_tokens: 0,
    inference_time_ms: Date.now() - prepared.state.started,
  };
  return { keep, result: { ...entry.result, usage, messages: [], metadata: { cacheHit: true } } };
}

/** execute() without `stream`: resolves when the run ends. */
export async function runAgent(setup: RunSetup, options: RunOptions): Promise<AgentResult> {
  if (options.signal?.aborted) throw aborted(options.signal);
  // Configuration errors (no model, no key, a bad page) are the caller's to fix: they throw.
  const prepared = await prepare(setup, options, options.callbacks as AgentStreamCallbacks | undefined);
  const cached = setup.cacheDir ? await fromCache(setup, options, prepared) : undefined;
  if (cached?.result) return cached.result;
  try {
    const end = (await prepared.ai
      .generateText(prepared.settings as never)
      .finally(() => prepared.state.step?.(undefined))) as unknown as LoopEnd;
    const result = await finish(setup, options, prepared, end);
    if (result.success && prepared.state.steps.length > 0) await cached?.keep(result);
    return result;
  } catch (error) {
    if (options.signal?.aborted) throw aborted(options.signal);
    // Past its budget the run stops, as the caller asked, not as a failed task.
    if (error instanceof BudgetExceededError) throw error;
    return failed(setup, prepared, error);
  }
}

/** execute() with `stream: true`: the AI SDK's stream result at once, with `result` for the end. */
export async function streamAgent(setup: RunSetup, options: RunOptions): Promise<AgentStreamResult> {
  if (options.signal?.aborted) throw aborted(options.signal);
  const callbacks = options.callbacks as AgentStreamCallbacks | undefined;
  const prepared = await prepare(setup, options, callbacks);
  let resolve!: (result: AgentResult) => void;
  let reject!: (error: unknown) => void;
  const result = new Promise<AgentResult>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  // A caller that only reads the stream must not see an unhandled rejection of `result`.
  result.catch(() => {});
  let settled = false;
  const stream = prepared.ai.streamText({
    ...(prepared.settings as object),
    onChunk: callbacks?.onChunk,
    onError: async (event: { error: unknown }) => {
      // A step cut short ends with the run, as runAgent's does (ending one twice does nothing).
      prepared.state.step?.(undefined);
      await callbacks?.onError?.(event);
      if (settled) return;
      settled = true;
      if (options.signal?.aborted) reject(aborted(options.signal));
      else if (event.error instanceof BudgetExceededError) reject(event.error);
      else resolve(failed(setup, prepared, event.error));
    },
    onAbort: async (event: { steps: AgentStep[] }) => {
      prepared.state.step?.(undefined);
      await callbacks?.onAbort?.(event);
      if (settled) return;
      settled = true;
      reject(aborted(options.signal));
    },
    onFinish: async (event: LoopEnd) => {
      prepared.state.step?.(undefined);
      await callbacks?.onFinish?.(event);
      if (settled) return;
      settled = true;
      await finish(setup, options, prepared, event).then(resolve, (error: unknown) => {
        if (options.signal?.aborted) reject(aborted(options.signal));
        else if (error instanceof BudgetExceededError) reject(error);
        else resolve(failed(setup, prepared, error));
      });
    },
  } as never) as unknown as Record<string, unknown>;
  return Object.assign(stream, { result }) as AgentStreamResult;
}
