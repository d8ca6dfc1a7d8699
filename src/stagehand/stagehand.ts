// `import { Stagehand } from 'tendril'`: the Sdk with Stagehand 3's constructor options (V3Options,
// options.ts), its `logger`, `metrics` and `history` as Stagehand has them, act/extract/observe
// taking Stagehand's call options and failing with its error classes, and Stagehand's act() cache
// (`cacheDir`). Everything else is the Sdk's: a Stagehand is an Sdk.

import { ActionFailedError, InvalidOptionError, SdkClosedError } from '../errors.js';
import { isZodSchema } from '../extract/schema.js';
import type { SdkLogger } from '../logger.js';
import { mainEntry, Sdk } from '../sdk.js';
import type {
  ActionInput,
  ActOptions,
  ActResult,
  ElementAction,
  ExtractResult,
  ExtractSchema,
  InferSchema,
  ModelConfiguration,
  NewContextOptions,
  ObserveResult,
  PageTextResult,
  TokenBudget,
  Viewport,
} from '../types.js';
import type { ActCache } from './actCache.js';
import { createAgent } from '../agent/agent.js';
import { checkStagehandGate } from './agentGate.js';
import type { AgentConfig, AgentExecuteOptions, AgentResult, AgentStreamExecuteOptions, AgentStreamResult } from '../agent/types.js';
import type { ModelCallUsage } from '../llm/metrics.js';
import { ActTimeoutError, ExtractTimeoutError, ObserveTimeoutError } from './errors.js';
import { stagehandAgentHost } from './agentHost.js';
import { flatMetrics, v3Metrics } from './metrics.js';
import { describe, retyped, strings } from './calls.js';
import { toModelConfiguration } from './model.js';
import { callModel, fromStagehandLine, toSdkOptions } from './options.js';
import { StagehandContext } from './page.js';
import type {
  HistoryEntry,
  StagehandLogLine,
  StagehandMetrics,
  V3ActOptions,
  V3ExtractOptions,
  V3Metrics,
  V3ObserveOptions,
  V3Options,
} from './types.js';

/** `stagehand.logger`: Stagehand's `(line) => void`, which also has the Sdk logger's methods. */
export type StagehandLogger = ((line: StagehandLogLine) => void) & SdkLogger;

/** What init() says it starts, for the envs other than "LOCAL" (whose words are Stagehand's). */
const STARTING: Partial<Record<string, string>> = {
  HOSTED: 'Starting a hosted browser session',
  EXTENSION: "Attaching to the extension's tabs",
};

/** The main entry's environments, with the context class that carries Stagehand's shapes (page.ts). */
const STAGEHAND_ENTRY = { ...mainEntry, Context: StagehandContext };

/**
 * Stagehand 3's V3 class on Tendril: `new Stagehand({ env: "LOCAL", ... })`, `init()`,
 * `context.pages()[0]`, `act`, `extract`, `observe`, `close()`. Also exported as `V3`.
 */
export class Stagehand extends Sdk {
  /** The `sessionId` option, else an id of this instance's own. */
  readonly sessionId: string;
  readonly experimental: boolean;
  readonly disableAPI: boolean;
  readonly logInferenceToFile = false;
  readonly #actTimeoutMs: number | undefined;
  readonly #cacheDir: string | undefined;
  readonly #useTouch: boolean;
  readonly #viewport: Viewport | undefined;
  readonly #starting: string;
  #cache: Promise<ActCache> | undefined;
  readonly #history: HistoryEntry[] = [];
  #logger: StagehandLogger | undefined;
  /** The instance's model in Tendril's form (from `model` or `llmClient`), for agent(). */
  readonly #model: ModelConfiguration | undefined;
  /** What agent runs used of their models (their act/extract/observe calls count as those methods). */
  readonly #agentUsage: ModelCallUsage = {
    promptTokens: 0,
    completionTokens: 0,
    reasoningTokens: 0,
    cachedInputTokens: 0,
    inferenceTimeMs: 0,
  };
  /** close() was called and init() not since. */
  #closed = false;

  constructor(options: V3Options = {}) {
    const sdkOptions = toSdkOptions(options);
    super(sdkOptions, STAGEHAND_ENTRY);
    this.sessionId = options.sessionId ?? `tendril-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
    this.experimental = options.experimental === true;
    this.disableAPI = options.disableAPI === true;
    this.#actTimeoutMs = options.actTimeoutMs;
    this.#cacheDir = options.cacheDir;
    this.#useTouch = options.useTouch === true;
    this.#viewport = sdkOptions.localBrowserLaunchOptions?.viewport;
    this.#model = sdkOptions.model;
    this.#starting =
      STARTING[sdkOptions.env ?? ''] ??
      (sdkOptions.localBrowserLaunchOptions?.cdpUrl ? 'Connecting to local browser' : 'Launching local browser');
  }

  /** Writes a Stagehand log line (`{ message, category?, level?, auxiliary? }`) where this instance's lines go. */
  override get logger(): StagehandLogger {
    const base = super.logger;
    this.#logger ??= Object.assign((line: StagehandLogLine) => base.log(...fromStagehandLine(line)), {
      verbose: base.verbose,
      log: base.log.bind(base),
      error: base.error.bind(base),
      info: base.info.bind(base),
      debug: base.debug.bind(base),
    });
    return this.#logger;
  }

  get verbose(): 0 | 1 | 2 {
    return super.logger.verbose;
  }

  /**
   * Model use so far: the Sdk's per-method counters and Stagehand's flat ones (`totalPromptTokens`,
   * `actInferenceTimeMs`, ...). Stagehand's is a promise: this one can be awaited the same way.
   */
  override get metrics(): V3Metrics {
    return v3Metrics(super.metrics, this.#agentUsage);
  }

  /** Stagehand's flat counters now, without awaiting (`totalPromptTokens`, `actInferenceTimeMs`, ...). */
  get stagehandMetrics(): StagehandMetrics {
    return flatMetrics(super.metrics, this.#agentUsage);
  }

  /** The act, extract and observe calls that returned, oldest first: `{ method, parameters, result, timestamp }`. */
  get history(): Promise<ReadonlyArray<HistoryEntry>> {
    return Promise.resolve(Object.freeze([...this.#history]));
  }

  addToHistory(method: HistoryEntry['method'], parameters: unknown, result?: unknown): void {
    this.#history.push({ method, parameters, result: result ?? null, timestamp: new Date().toISOString() });
  }

  /**
   * Stagehand's act(): an action that cannot be done resolves with `success: false` (the Sdk's act
   * throws ActionFailedError); a timeout is an ActTimeoutError. `actTimeoutMs` is the default
   * `timeout`; with `cacheDir`, an instruction done before on the same page replays its action. As the
   * Sdk's, it also takes an element by its id in the page text (`{ elementId }`, page.snapshot()'s too).
   */
  override async act(input: string | ActionInput | ElementAction, options?: V3ActOptions): Promise<ActResult> {
    const call: ActOptions = {
      ...options,
      model: callModel('act', options),
      variables: strings(options?.variables),
      timeout: options?.timeout ?? this.#actTimeoutMs,
    };
    let result: ActResult;
    try {
      result = typeof input === 'string' && this.#cacheDir ? await this.#cachedAct(input, call) : await super.act(input, call);
    } catch (error) {
      if (!(error instanceof ActionFailedError)) throw retyped(error, ActTimeoutError);
      const actionDescription = typeof input === 'string' ? input : (input.description ?? '');
      result = { success: false, message: error.message, actionDescription, actions: [] };
    }
    this.addToHistory(
      'act',
      typeof input === 'string'
        ? { instruction: input, variables: options?.variables, timeout: options?.timeout }
        : { observeResult: input },
      result,
    );
    return result;
  }

  async #cachedAct(instruction: string, options: ActOptions): Promise<ActResult> {
    const folder = this.#cacheDir!;
    const cache = await (this.#cache ??= import('./actCache.js').then(({ ActCache }) => new ActCache(folder)));
    const url = (options.page as { url?: () => string } | undefined)?.url?.() ?? this.context.activePage()?.url() ?? '';
    const names = Object.keys(options.variables ?? {});
    const cached = await cache.get(instruction, url, names);
    let result: ActResult | undefined;
    if (cached) {
      // act(action) replays it; where it no longer fits, the model finds the element again.
      result = await super.act(cached, { ...options, timeout: options.timeout ?? this.#actTimeoutMs }).catch((error: unknown) => {
        if (error instanceof ActionFailedError) return undefined;
        throw error;
      });
      if (result?.success) super.logger.debug('act', 'Replayed the cached action', { instruction, selector: cached.selector });
    }
    result = result?.success ? result : await super.act(instruction, options);
    const action = result.actions[0];
    if (result.success && result.actions.length === 1 && action && action.selector !== cached?.selector) {
      await cache
        .set(instruction, url, names, action)
        .catch((error: Error) => super.logger.error('act', `Could not write the act cache: ${error.message}`, { cacheDir: folder }));
    }
    return result;
  }

  /** Stagehand's extract(): `ignoreSelectors` and `screenshot` are refused; a timeout is an ExtractTimeoutError. */
  override extract(): Promise<PageTextResult>;
  override extract(options: V3ExtractOptions): Promise<PageTextResult>;
  override extract(instruction: string, options?: V3ExtractOptions): Promise<ExtractResult>;
  override extract<T extends ExtractSchema>(instruction: string, schema: T, options?: V3ExtractOptions): Promise<InferSchema<T>>;
  override async extract(first?: unknown, second?: unknown, third?: unknown): Promise<unknown> {
    const args = [first, second, third];
    const at = typeof first === 'string' ? (isZodSchema(second) ? 2 : 1) : 0;
    const given = args[at] as V3ExtractOptions | undefined;
    if (given !== undefined && given !== null && typeof given === 'object') {
      const { ignoreSelectors, screenshot, ...rest } = given;
      if (Array.isArray(ignoreSelectors) ? ignoreSelectors.length > 0 : ignoreSelectors !== undefined) {
        throw new InvalidOptionError('extract(): `ignoreSelectors` is not supported; limit the read to the part you want with `selector`.');
      }
      if (screenshot)
        throw new InvalidOptionError('extract(): `screenshot: true` is not supported; extract reads the page text. Leave it out.');
      args[at] = { ...rest, model: callModel('extract', rest) };
    }
    const options = args[at] as V3ExtractOptions | undefined;
    // The Sdk tells its forms apart by how many arguments there are.
    while (args.length > 0 && args[args.length - 1] === undefined) args.pop();
    const call = super.extract as (...all: unknown[]) => Promise<unknown>;
    const result = await call.apply(this, args).catch((error: unknown) => {
      throw retyped(error, ExtractTimeoutError);
    });
    this.addToHistory(
      'extract',
      { instruction: typeof first === 'string' ? first : undefined, selector: options?.selector, timeout: options?.timeout },
      result,
    );
    return result;
  }

  /**
   * Stagehand's observe(): also `observe(options)`; `variables` name the placeholders the model may
   * write into arguments (act(action, { variables }) fills them); a timeout is an ObserveTimeoutError.
   */
  override observe(options?: V3ObserveOptions): Promise<ObserveResult[]>;
  override observe(instruction?: string, options?: V3ObserveOptions): Promise<ObserveResult[]>;
  override async observe(first?: string | V3ObserveOptions, second?: V3ObserveOptions): Promise<ObserveResult[]> {
    const [instruction, given] =
      typeof first === 'object' && first !== null && second === undefined ? [undefined, first] : [first as string | undefined, second];
    const { variables, ignoreSelectors, ...rest } = given ?? {};
    if (Array.isArray(ignoreSelectors) ? ignoreSelectors.length > 0 : ignoreSelectors !== undefined) {
      throw new InvalidOptionError('observe(): `ignoreSelectors` is not supported; limit it to the part you want with `selector`.');
    }
    const values = strings(variables);
    const names = Object.keys(values ?? {});
    const asked =
      typeof instruction === 'string' && instruction.trim() && names.length > 0
        ? `${instruction}\n(Placeholders for values the program fills in: ${names.map((name) => `%${name}%${describe(variables![name])}`).join(', ')}.)`
        : instruction;
    const results = await super.observe(asked, { ...rest, model: callModel('observe', rest) }).catch((error: unknown) => {
      throw retyped(error, ObserveTimeoutError);
    });
    this.addToHistory('observe', { instruction, variables, selector: rest.selector, timeout: rest.timeout }, results);
    return results;
  }

  /**
   * Stagehand's agent in its DOM and hybrid modes: `agent({ model?, systemPrompt?, tools?, stream?,
   * mode? })`, then `execute(instruction | { instruction, maxSteps, signal, callbacks, ... })`. The
   * model reads the page text (and, in the hybrid mode, screenshots) and calls tools built on act(),
   * extract(), observe() and the page's methods (docs/agent.md). Mode "cua" and MCP `integrations`
   * are refused.
   */
  agent(config: AgentConfig & { stream: true }): {
    execute: (instructionOrOptions: string | AgentStreamExecuteOptions) => Promise<AgentStreamResult>;
  };
  agent(config?: AgentConfig & { stream?: false }): {
    execute: (instructionOrOptions: string | AgentExecuteOptions) => Promise<AgentResult>;
  };
  agent(config?: AgentConfig): {
    execute: (instructionOrOptions: string | AgentExecuteOptions) => Promise<AgentResult | AgentStreamResult>;
  } {
    const host = stagehandAgentHost(this);
    const recordUsage = (usage: ModelCallUsage) => {
      for (const key of Object.keys(usage) as Array<keyof ModelCallUsage>) this.#agentUsage[key] += usage[key];
    };
    const meter = (own: TokenBudget | undefined, run: TokenBudget | undefined) => {
      this.meter(own, 'agent({ budget })');
      this.meter(run, 'execute({ budget })');
      return this.meter(own && run ? { ...own, ...run } : (run ?? own));
    };
    const gate = (given: AgentConfig, execute: Parameters<typeof checkStagehandGate>[2]) =>
      checkStagehandGate(given, this.experimental, execute);
    return createAgent(
      { host, instanceModel: this.#model, recordUsage, gate, toModelConfiguration, cacheDir: this.#cacheDir, meter },
      config,
    ) as never;
  }

  /**
   * Gets a browser. After close(), as in Stagehand, a fresh one: a closed instance can start again (a
   * closed Sdk cannot). Says first, under the category "init", what it starts, as Stagehand's does:
   * code filters its logs by it.
   */
  override async init(): Promise<void> {
    super.logger.info('init', this.#starting);
    this.#closed = false;
    await this.reopen();
    return super.init();
  }

  /** The browser's pages, once init() has resolved; after close(), until init() again, an SdkClosedError (an SdkStateError). */
  override get context(): StagehandContext {
    if (this.#closed)
      throw new SdkClosedError('This Stagehand is closed; call `await stagehand.init()` to start again with a fresh browser.');
    return super.context as StagehandContext;
  }

  /** An isolated context, as the Sdk's newContext() makes it: a StagehandContext, whose pages are StagehandPages. */
  override newContext(options?: NewContextOptions): Promise<StagehandContext> {
    return super.newContext(options) as Promise<StagehandContext>;
  }

  /**
   * Ends the session, as the Sdk's close() does, and empties `history`, as Stagehand's does; init()
   * starts another. `force` changes nothing: closing twice is safe.
   */
  override async close(options?: { force?: boolean }): Promise<void> {
    if (options !== undefined && (typeof options !== 'object' || options === null)) {
      throw new InvalidOptionError('close(options) takes { force?: boolean }, or nothing.');
    }
    this.#closed = true;
    await super.close();
    this.#history.length = 0;
  }

  /** The viewport every page gets: `localBrowserLaunchOptions.viewport`, 1288x711 for a launched browser. */
  get configuredViewport(): Viewport {
    return this.#viewport ?? { width: 1288, height: 711 };
  }

  get hasConfiguredViewport(): boolean {
    return this.#viewport !== undefined;
  }

  /** The active page's viewport as its window reports it, else configuredViewport. */
  async resolveViewport(): Promise<Viewport> {
    const page = this.context.activePage();
    const size = await page?.evaluate(() => ({ width: window.innerWidth, height: window.innerHeight })).catch(() => undefined);
    return size?.width && size.height ? size : this.configuredViewport;
  }

  // Browserbase's session details: a Tendril instance never has any.
  get browserbaseSessionID(): string | undefined {
    return undefined;
  }
  get browserbaseSessionId(): string | undefined {
    return undefined;
  }
  get browserbaseApiKey(): string | undefined {
    return undefined;
  }
  get browserbaseSessionURL(): string | undefined {
    return undefined;
  }
  get browserbaseDebugURL(): string | undefined {
    return undefined;
  }
  get isBrowserbase(): boolean {
    return false;
  }
  get isCaptchaAutoSolveEnabled(): boolean {
    return false;
  }
  get isVerified(): boolean {
    return false;
  }
  get isAdvancedStealth(): boolean {
    return false;
  }
  /** `useTouch`: whether pointer actions of an agent should be taps rather than clicks (Stagehand's agent reads it). */
  get usesTouch(): boolean {
    return this.#useTouch;
  }
}
