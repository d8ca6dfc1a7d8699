import type { BrowserHandle } from './browser/browser.js';
import { checkAction } from './act/perform.js';
import { Context } from './driver/context.js';
import type { matchForeignPage } from './driver/foreignPage.js';
import { Page } from './driver/page.js';
import { chooseEnvironment, type EnvironmentChoice } from './env/choose.js';
import { localOperations } from './env/operations.js';
import { pageOfCall } from './env/pageOfCall.js';
import type { ActInput, Environment, OperationCall, Operations, SdkBridge } from './env/types.js';
import { InvalidOptionError, SdkClosedError, SdkStateError } from './errors.js';
import { isZodSchema } from './extract/schema.js';
import { DEFAULT_MODEL_TIMEOUT_MS } from './llm/ask.js';
import type { ModelServer, ModelSpec } from './llm/config.js';
import { Metrics } from './llm/metrics.js';
import { Logger, type SdkLogger } from './logger.js';
import {
  checkActOptions,
  checkBehaviourOptions,
  checkExtractArguments,
  checkExtractOptions,
  checkModelServer,
  modelSpec,
  requireModel,
} from './sdkOptions.js';
import type { sdkBudgets, TokenMeter } from './llm/tokenMeter.js';
import { actionOfId, isElementAction } from './act/elementId.js';
import { captureSnapshot } from './snapshot/index.js';
import { READER_SOURCE } from './generated/reader.js';
import { PageTexts } from './snapshot/views.js';
import type {
  ActionInput,
  ActOptions,
  ElementAction,
  ActResult,
  ExtractOptions,
  ExtractResult,
  ExtractSchema,
  InferSchema,
  ModelConfiguration,
  NewContextOptions,
  ObserveOptions,
  ObserveResult,
  PageTextResult,
  SdkMetrics,
  SdkOptions,
  TokenBudget,
} from './types.js';
import { checkDomainPolicy, type CheckedPolicy } from './util/domainPolicy.js';
import { loadTracing } from './util/tracing.js';
import { processInstrumentation } from './util/instrumentation.js';
import { describeOperation, type Operation } from './sdkCalls.js';
import type { ContextOptions } from './driver/contextOptions.js';

/**
 * What an entry point of the package gives its Sdk: the environments it carries (env/), and, where
 * Node runs, a way to find the page of a Playwright or Puppeteer page object. The main entry
 * (sdk.ts) carries all three environments; tendril/extension (extension.ts) only EXTENSION, so that
 * its bundle has no Node built-in and no hosted client.
 */
export interface SdkEntry extends EnvironmentChoice {
  readonly foreignPage?: typeof matchForeignPage;
  /** Token budgets (llm/tokenMeter.ts); without, the `budget` options are refused. */
  readonly budgets?: typeof sdkBudgets;
  /**
   * The context class this entry's callers get (and through its options, their pages' class): the
   * Stagehand entry's subclasses add Stagehand's methods and shapes; absent: Tendril's own.
   */
  readonly Context?: typeof Context;
  /** @internal The trace recorder of each context (src/trace/); without, `context.tracing.start()` is refused. */
  readonly tracing?: ContextOptions['tracing'];
}

const DEFAULT_CDP_TIMEOUT_MS = 30_000;

/**
 * The client, whatever its runtime: `init()` gets a browser, `context` holds its pages, `close()`
 * lets it go. Public as `Sdk` (sdk.ts, extension.ts), which give it its runtime.
 */
export class SdkCore {
  readonly #logger: Logger;
  #options: SdkOptions;
  readonly #modelServer: ModelServer | undefined;
  #browser: BrowserHandle | undefined;
  #context: Context | undefined;
  #initializing: Promise<void> | undefined;
  #closing: Promise<void> | undefined;
  readonly #metrics = new Metrics();
  /** The last full text each page gave, for `view: "delta"`. */
  readonly #pageTexts = new PageTexts();
  #bridge: SdkBridge | undefined;
  readonly #entry: SdkEntry;
  readonly #environment: Environment;
  #removeDownloads: (() => Promise<void>) | undefined;
  /** Where extract(instruction), act and observe run: here, or on the hosted service. */
  #operations: Operations = localOperations;
  /** The domainPolicy this Sdk's driver enforces on every page and frame; undefined without one. */
  readonly #policy: CheckedPolicy | undefined;
  /** Makes the token meter of one operation (llm/tokenMeter.ts); undefined without budgets in the entry. */
  readonly #meterFor: ReturnType<typeof sdkBudgets> | undefined;

  constructor(options: SdkOptions, entry: SdkEntry) {
    this.#options = { ...options };
    this.#entry = entry;
    this.#logger = new Logger({ verbose: options.verbose, disablePino: options.disablePino, logger: options.logger });
    checkBehaviourOptions(options);
    this.#environment = chooseEnvironment(options, entry);
    this.#modelServer = checkModelServer(options, this.#environment.modelsOnService);
    this.#policy = this.#environment.policy(options, checkDomainPolicy(options.domainPolicy));
    this.#meterFor = entry.budgets?.(options.budget, this.#environment.modelsOnService);
    // Without budgets in its entry (tendril/extension), the option is refused.
    this.#meterFor ?? this.meter(options.budget);
  }

  /** @internal The token meter of one operation or agent run (llm/tokenMeter.ts); undefined without a budget. */
  protected meter(budget: TokenBudget | undefined, where?: string): TokenMeter | undefined {
    if (!this.#meterFor && budget !== undefined) throw new InvalidOptionError('Token budgets are not in tendril/extension.');
    return this.#meterFor?.(budget, where);
  }

  /** Writes a line where this Sdk's lines go (the `logger` callback, pino), at or below `verbose`. */
  get logger(): SdkLogger {
    return this.#logger;
  }

  /** The browser's pages. Available once `init()` has resolved. */
  get context(): Context {
    if (!this.#context) {
      throw this.#closing
        ? new SdkClosedError('This Sdk is closed; create a new one.')
        : new SdkStateError('Call `await sdk.init()` before using sdk.context.');
    }
    return this.#context;
  }

  /**
   * A new browser context in this Sdk's browser, isolated from `sdk.context` and from every other:
   * its own cookies, storage, cache and pages (none open at first: `newPage()` opens one). Its pages
   * go to extract, act and observe as `page`. `close()` disposes it with everything in it; the
   * others stay as they were. Ends with the Sdk too. `storageState` (an object, or a JSON file's
   * path) gives it cookies and localStorage before its first navigation (docs/browsers.md).
   */
  async newContext(options?: NewContextOptions): Promise<Context> {
    const context = this.context;
    this.#browser?.connection.assertOpen('newContext()');
    return context.newContext(options);
  }

  /** Process id of the browser this Sdk launched; undefined when attached or not running. */
  browserProcessId(): number | undefined {
    return this.#browser?.pid;
  }

  /** Gets the browser and attaches to its pages. Calling it again returns the same promise. */
  init(): Promise<void> {
    if (this.#closing) return Promise.reject(new SdkClosedError('This Sdk is closed; create a new one to start again.'));
    this.#initializing ??= this.#init().catch(async (error) => {
      await this.#bridge?.close();
      this.#bridge = undefined;
      await this.#browser?.close();
      this.#browser = undefined;
      await this.#removeDownloads?.();
      this.#removeDownloads = undefined;
      this.#initializing = undefined;
      throw error;
    });
    return this.#initializing;
  }

  /** @internal For Stagehand's init() after close() (an Sdk's stays closed): forgets the session once it has ended. */
  protected reopen(): Promise<void> | undefined {
    return this.#closing?.then(() => {
      this.#closing = this.#initializing = undefined;
    });
  }

  async #init(): Promise<void> {
    const cdpTimeoutMs = this.#options.cdpTimeoutMs ?? DEFAULT_CDP_TIMEOUT_MS;
    // OpenTelemetry, when the application has it: loaded beside the browser, never failing.
    const tracing = loadTracing();
    const opened = await this.#environment.open(this.#options, this.#logger, cdpTimeoutMs);
    await tracing;
    this.#browser = opened.browser;
    this.#removeDownloads = opened.removeDownloads;
    this.#operations = opened.operations ?? localOperations;
    const { viewport, downloads, closedRootWatch, readFile, storage, egressProxy } = opened;
    const given = { viewport, downloads, closedRootWatch, readFile, storage, egressProxy, reader: READER_SOURCE };
    const context = new (this.#entry.Context ?? Context)(this.#browser, this.#logger, {
      ...given,
      timeoutMs: cdpTimeoutMs,
      policy: this.#policy,
      tracing: this.#entry.tracing,
    });
    // The bridge server needs nothing from the context: start both at once.
    await Promise.all([
      context.start(),
      opened.startBridge?.().then((bridge) => {
        this.#bridge = bridge;
      }),
    ]);
    await context.setStorageState(this.#options.storageState);
    // The contract's first step after init is context.pages()[0]: make sure there is one.
    if (context.pages().length === 0) await context.newPage();
    this.#context = context;
  }

  /** Model use so far (tokens, requests, time), per method and in total. A copy. */
  get metrics(): SdkMetrics {
    return this.#metrics.snapshot();
  }

  /**
   * Reads the page.
   * - `extract()` / `extract(options)` → `{ pageText }`: the page as accessibility-tree text, iframes
   *   (out-of-process ones too) and shadow roots (closed ones too) included. No model involved.
   * - `extract(instruction, options?)` → `{ extraction }`: the model's answer as text.
   * - `extract(instruction, schema, options?)` → the value the zod schema (3 or 4) describes, checked
   *   by it. `.url()` fields hold the real URLs of the page's links.
   * `selector` limits the call to one element's subtree, `page` picks the page, `model` the model,
   * and `timeout` (ms) bounds the whole call, model requests included. `view` (page text only)
   * returns the viewport, the interactive elements, or the delta since the last page text.
   */
  extract(): Promise<PageTextResult>;
  extract(options: ExtractOptions): Promise<PageTextResult>;
  extract(instruction: string, options?: ExtractOptions): Promise<ExtractResult>;
  extract<T extends ExtractSchema>(instruction: string, schema: T, options?: ExtractOptions): Promise<InferSchema<T>>;
  async extract(first?: ExtractOptions | string, second?: unknown, third?: unknown): Promise<unknown> {
    const options = typeof first === 'string' ? (isZodSchema(second) ? third : second) : first;
    return this.#traced('extract', [first, second, third], options, () => this.#extract(first, second, third));
  }

  async #extract(first?: ExtractOptions | string, second?: unknown, third?: unknown): Promise<unknown> {
    const args = checkExtractArguments(first, second, third);
    if (!('instruction' in args)) return this.#pageText(args.options);
    const { instruction, schema, options } = args;
    const model = requireModel(
      this.#spec(options.model),
      'extract(instruction)',
      ' extract() without an instruction returns the page text and needs no model.',
    );
    const page = await this.#pageFor(options.page);
    const timeoutMs = options.timeout ?? DEFAULT_MODEL_TIMEOUT_MS;
    return this.#operations.extract(this.#call(page, options, model, timeoutMs), instruction, schema, options.selector);
  }

  #call(
    page: Page,
    options: OperationCall['options'],
    model: ModelSpec | undefined,
    timeoutMs: number,
    modelTimeoutMs = timeoutMs,
  ): OperationCall {
    const { selfHeal, domSettleTimeout: settleMs } = this.#options;
    const meter = this.meter((options as { budget?: TokenBudget }).budget);
    if (model) Object.assign(model, { meter, instrumentation: page.instrumentation, parentCall: page.instrumentation.current() });
    return { page, options, model, timeoutMs, modelTimeoutMs, logger: this.#logger, metrics: this.#metrics, selfHeal, settleMs };
  }

  /**
   * Performs one action on the page with real input events.
   * - `act(instruction, options?)`: the model picks the element and the method (click, fill, type,
   *   press, selectOption, scroll...). If that element is gone or cannot take the action, the page is
   *   read again and the model asked again, once; then it fails with ActionFailedError.
   * - `act(action)`: replays an action from observe() (or a previous act's `actions`) without a model.
   * `variables` fill `%name%` placeholders in the arguments; their values never reach the model.
   */
  act(instructionOrAction: string | ActionInput | ElementAction, options?: ActOptions): Promise<ActResult> {
    return this.#traced('act', [instructionOrAction], options, () => this.#act(instructionOrAction, options));
  }

  async #act(given: string | ActionInput | ElementAction, options?: ActOptions): Promise<ActResult> {
    const checked = checkActOptions(options);
    const page = await this.#pageFor(checked.page);
    const instructionOrAction = isElementAction(given) ? actionOfId(given) : given;
    if (typeof instructionOrAction !== 'string') checkAction(instructionOrAction);
    const modelTimeoutMs = checked.timeout ?? DEFAULT_MODEL_TIMEOUT_MS;
    let what: ActInput;
    let model: ModelSpec | undefined;
    let timeoutMs: number;
    if (typeof instructionOrAction === 'string') {
      if (!instructionOrAction.trim()) throw new InvalidOptionError('act() needs an instruction, such as "click the Sign in button".');
      model = requireModel(this.#spec(checked.model), 'act(instruction)', ' act(action) with an action from observe() needs none.');
      what = { instruction: instructionOrAction };
      timeoutMs = modelTimeoutMs;
    } else {
      // A model only heals the action when its element cannot take it.
      model = this.#spec(checked.model);
      what = { action: instructionOrAction };
      timeoutMs = checked.timeout ?? this.#options.cdpTimeoutMs ?? DEFAULT_CDP_TIMEOUT_MS;
    }
    return this.#operations.act(this.#call(page, checked, model, timeoutMs, modelTimeoutMs), what, checked.variables);
  }

  /**
   * Candidate actions for the page (or for `instruction`): `[{ selector, description, method, arguments }]`.
   * `observe(options)` is `observe(undefined, options)`.
   */
  observe(options?: ObserveOptions): Promise<ObserveResult[]>;
  observe(instruction?: string, options?: ObserveOptions): Promise<ObserveResult[]>;
  observe(first?: string | ObserveOptions, second?: ObserveOptions): Promise<ObserveResult[]> {
    const [instruction, options] =
      typeof first === 'object' && first !== null && second === undefined ? [undefined, first] : [first as string | undefined, second];
    return this.#traced('observe', [instruction], options, () => this.#observe(instruction, options));
  }

  async #observe(instruction?: string, options?: ObserveOptions): Promise<ObserveResult[]> {
    if (instruction !== undefined && (typeof instruction !== 'string' || !instruction.trim())) {
      throw new InvalidOptionError('observe(instruction) takes a non-empty string, or nothing.');
    }
    const checked = checkExtractOptions(options) as ObserveOptions;
    const page = await this.#pageFor(checked.page);
    const model = requireModel(this.#spec(checked.model), 'observe()', '');
    const timeoutMs = checked.timeout ?? DEFAULT_MODEL_TIMEOUT_MS;
    return this.#operations.observe(this.#call(page, checked, model, timeoutMs), instruction, checked.selector);
  }

  /** One public operation through the seam (util/instrumentation.ts), the given page's context's if any: its span, its trace action. */
  #traced<T>(operation: Operation, args: unknown[], options: unknown, work: () => Promise<T>): Promise<T> {
    const context = this.#context;
    const describe = () => describeOperation(operation, args, options, { env: this.#environment.name, metrics: this.#metrics, context });
    const page = (options as { page?: unknown } | undefined)?.page;
    return (page instanceof Page ? page.instrumentation : (context?.instrumentation ?? processInstrumentation)).run(describe, work);
  }

  /** The call's model, else the Sdk's; sent through the model server when there is one. */
  #spec(model: ModelConfiguration | undefined): ModelSpec | undefined {
    return modelSpec(model ?? this.#options.model, this.#modelServer, this.#options.systemPrompt);
  }

  async #pageText(options: ExtractOptions): Promise<PageTextResult> {
    const page = await this.#pageFor(options.page);
    const started = Date.now();
    const view = options.view ?? 'full';
    const snapshot = await captureSnapshot(page, {
      selector: options.selector,
      timeoutMs: options.timeout ?? this.#options.cdpTimeoutMs ?? DEFAULT_CDP_TIMEOUT_MS,
      logger: this.#logger,
      view: view === 'delta' ? 'full' : view,
    });
    // Works the same with HOSTED: the page text is read over the session's own connection.
    const pageText =
      view === 'full' || view === 'delta' ? this.#pageTexts.take(page, options.selector, snapshot.text, view === 'delta') : snapshot.text;
    this.#logger.debug('extract', 'Read the page text', {
      url: page.url(),
      ms: Date.now() - started,
      bytes: pageText.length,
      selector: options.selector,
      view,
    });
    return { pageText };
  }

  /**
   * A WebSocket URL on loopback (with a secret token in its path) through which Playwright
   * (`chromium.connectOverCDP(url)`) or Puppeteer (`puppeteer.connect({ browserWSEndpoint: url })`)
   * drive this Sdk's browser, so their pages can be passed as `page`. Each client gets a browser
   * session of its own; nothing it does disturbs this Sdk's. Available once `init()` has resolved.
   */
  connectURL(): string {
    this.context; // throws the usual state error before init or after close
    if (!this.#bridge) {
      throw new SdkStateError(this.#environment.noBridge);
    }
    return this.#bridge.url;
  }

  async #pageFor(page: unknown): Promise<Page> {
    const context = this.context;
    // A dead browser has no pages left; say that, not "there is no open page".
    this.#browser?.connection.assertOpen('this call');
    return pageOfCall(context, page, {
      foreignPage: this.#entry.foreignPage,
      timeoutMs: this.#options.cdpTimeoutMs ?? DEFAULT_CDP_TIMEOUT_MS,
      bridgeUrl: this.#bridge?.url,
    });
  }

  /**
   * Ends the session: closes a browser we launched (and removes its temporary profile), or only
   * detaches from one we attached to (with env "EXTENSION", from the tabs, which stay open). Safe
   * to call more than once.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#initializing?.catch(() => undefined);
      const browser = this.#browser;
      const bridge = this.#bridge;
      this.#browser = undefined;
      this.#context = undefined;
      this.#bridge = undefined;
      await bridge?.close();
      await browser?.close();
      await this.#removeDownloads?.();
      this.#removeDownloads = undefined;
    })();
    return this.#closing;
  }
}
