// What every method that asks a model shares: resolving the model once per call, one deadline whose
// signal cancels the requests, and the bookkeeping of each request (metrics, a log line).

import { processInstrumentation, type CallDescription } from '../util/instrumentation.js';
import type { Logger } from '../logger.js';
import { Deadline } from '../util/time.js';
import { defaultMaxInputTokens, estimateTokens } from './budget.js';
import { describeModel, type ModelSpec } from './config.js';
import { generateJson, loadAiSdk, type ModelObject } from './generate.js';
import type { Metrics, MetricsMethod } from './metrics.js';
import { askModelServer } from './modelServer.js';
import { apiKeyFor, isLocalProvider, languageModel } from './providers.js';

/** Retries of a failed model request (429, 5xx, network) when the model configuration names none. */
export const DEFAULT_RETRIES = 2;
/**
 * Deadline of a call that asks a model when the caller gives none (the library's, the MCP server's,
 * the hosted server's): model calls are slower than the browser, and a large page in chunks can
 * take a minute or more.
 */
export const DEFAULT_MODEL_TIMEOUT_MS = 120_000;

/**
 * Internal, for the MCP server's client sampling (src/mcp/sampling.ts): a model object built by our
 * own code, carried in a model configuration under this key (a symbol: no JSON body can hold it),
 * is used as it is instead of one built from the provider's name.
 */
export const MODEL_OBJECT = Symbol();

/**
 * A cache that may answer instead of the model (the hosted server's): keyed by the text of the page
 * as the model would have read it, so a changed page is a miss. The caller adds the rest of the key.
 */
export interface AnswerCache {
  get(snapshotText: string): Promise<unknown | undefined>;
  set(snapshotText: string, value: unknown): Promise<void>;
  /** Called when a cached answer was used (a cached action can turn out stale and not be). */
  served?(): void;
}

export class ModelCall {
  private constructor(
    readonly spec: ModelSpec,
    /** Undefined when a model server runs the requests (spec.server). */
    readonly model: ModelObject | undefined,
    readonly label: string,
    readonly method: MetricsMethod,
    readonly deadline: Deadline,
    private readonly metrics: Metrics,
    private readonly logger: Logger,
  ) {}

  /**
   * Resolves the model (its configuration errors come first, before any page work) and starts the
   * call's deadline. Dispose the result when the call ends.
   */
  static async start(options: {
    spec: ModelSpec;
    method: MetricsMethod;
    timeoutMs: number;
    what: string;
    metrics: Metrics;
    logger: Logger;
  }): Promise<ModelCall> {
    const { spec } = options;
    // Through a model server, the provider's package is the server's business, not this process's.
    const given = (spec.providerSettings as { [MODEL_OBJECT]?: ModelObject })[MODEL_OBJECT];
    const model = spec.server ? undefined : (given ?? (await languageModel(spec)));
    // The AI SDK is loaded by a process's first model call, which takes seconds on a busy machine
    // (3.6 s at load 30): loaded here, before the deadline starts, it is not counted as the call's.
    // A short deadline used to pass while it loaded, so the first call asked no model at all.
    if (!spec.server) await loadAiSdk();
    const deadline = new Deadline(
      options.timeoutMs,
      options.what,
      'Raise `timeout` (ms) in the options, or scope the page with `selector`.',
    );
    const label = describeModel(spec) + (spec.server ? ` via ${new URL(spec.server.url).host}` : '');
    return new ModelCall(spec, model, label, options.method, deadline, options.metrics, options.logger);
  }

  get maxInputTokens(): number {
    const own = this.spec.systemPrompt ? estimateTokens(this.spec.systemPrompt) + 32 : 0;
    return (this.spec.maxInputTokens ?? defaultMaxInputTokens(this.spec.modelId, isLocalProvider(this.spec.provider))) - own;
  }

  get maxParallelCalls(): number {
    return this.spec.maxParallelCalls ?? 4;
  }

  /** One request; `part` names the chunk in the log. It passes the call's budget first (tokenMeter.ts). */
  async ask(system: string, user: string, schema: Record<string, unknown>, part?: string): Promise<unknown> {
    const maxRetries = this.spec.maxRetries ?? DEFAULT_RETRIES;
    const { server, systemPrompt, providerSettings, meter } = this.spec;
    if (systemPrompt)
      system += `\n\nThe user of this program adds these instructions; follow them where they bear on the task:\n${systemPrompt}`;
    const signal = this.deadline.signal;
    const maxOutputTokens = meter?.outputCap;
    const send = () =>
      server
        ? askModelServer(server, this.spec, apiKeyFor(this.spec), {
            system,
            user,
            schema,
            signal,
            timeoutMs: this.deadline.remaining(),
            maxRetries,
            maxOutputTokens,
          })
        : generateJson({
            model: this.model!,
            label: this.label,
            system,
            user,
            schema,
            signal,
            maxRetries,
            maxOutputTokens,
            providerOptions: providerSettings.providerOptions as Record<string, Record<string, unknown>> | undefined,
            temperature: providerSettings.temperature as number | undefined,
            secrets: [this.spec.apiKey],
          });
    const instrumentation = this.spec.instrumentation ?? processInstrumentation;
    const describe = (): CallDescription => ({
      api: 'Model.request',
      title: `model ${this.label.split(' ')[0]}${part ? ` (${part})` : ''}`,
      params: { model: this.label, system, user, schema, ...(part ? { part } : {}) },
      parent: this.spec.parentCall,
      // For a listener that writes what it sees (a trace): the key, so that it can make sure it never does.
      details: { secrets: [apiKeyFor(this.spec)] },
      leaf: true,
    });
    const reply = await instrumentation.run(describe, async (call) => {
      const answer = meter
        ? await meter.request(estimateTokens(system + user + JSON.stringify(schema)), signal, send, (each) => each.usage)
        : await send();
      if (call && meter)
        call.notes.budgetLeft = meter.limits.map(({ scope, limit, used }) => ({ scope, limit, left: Math.max(0, limit - used) }));
      return answer;
    });
    this.metrics.recordCall(this.method, reply.usage);
    this.logger.debug(this.method, 'Model call', {
      model: this.label,
      chunk: part,
      ms: reply.usage.inferenceTimeMs,
      promptTokens: reply.usage.promptTokens,
      completionTokens: reply.usage.completionTokens,
    });
    return reply.value;
  }

  /** A call's work, rejected with the deadline's TimeoutError the moment it passes. */
  run<T>(work: Promise<T>): Promise<T> {
    return this.deadline.race(work);
  }

  recordOperation(chunks: number): void {
    this.metrics.recordOperation(this.method, chunks);
  }

  dispose(): void {
    this.deadline.dispose();
  }
}
