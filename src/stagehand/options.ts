// Stagehand 3's constructor options (V3Options) as Tendril's SdkOptions, and the `model` of its calls.
// Each option either maps onto Tendril's, is kept by the Stagehand class itself (actTimeoutMs,
// cacheDir, sessionId), is taken with the meaning docs/migrating-from-stagehand-3.md gives it, or
// fails here naming what to use instead.

import { InvalidOptionError } from '../errors.js';
import { Sdk } from '../sdk.js';
import type { LogLine, ModelConfiguration, SdkOptions } from '../types.js';
import { modelOfClient, toModelConfiguration, type StagehandModelConfiguration } from './model.js';
import type { BrowserbaseSessionCreateParams, StagehandLogLine, V3Options } from './types.js';

/** Stagehand's default model, used when neither `model` nor `llmClient` is given. */
export const DEFAULT_MODEL = 'openai/gpt-4.1-mini';
/** Stagehand's default viewport for a browser it launches. */
/** What a page needs to register WebMCP tools, and DevTools to report them (page.listWebMCPTools()). */
export const WEBMCP_FEATURES = '--enable-features=WebMCPTesting,DevToolsWebMCPSupport';
const DEFAULT_VIEWPORT = { width: 1288, height: 711 };

function refuse(message: string): never {
  throw new InvalidOptionError(message);
}

export function toSdkOptions(given: V3Options | undefined): SdkOptions {
  if (given !== undefined && (typeof given !== 'object' || given === null || Array.isArray(given)))
    refuse('new Stagehand(options) takes an options object, such as { env: "LOCAL" }.');
  const {
    env,
    sessionId,
    localBrowserLaunchOptions,
    model,
    llmClient,
    logger,
    actTimeoutMs,
    cacheDir,
    browserbaseSessionCreateParams,
    browserbaseSessionID,
    keepAlive,
    useTouch,
    logInferenceToFile,
    experimental: _experimental,
    waitForCaptchaSolves,
    disableAPI,
    ...tendril
  } = given ?? {};
  // "BROWSERBASE" is refused by the Sdk's own check, naming Tendril's hosted settings.
  const options: SdkOptions = { ...tendril, env: env as SdkOptions['env'] };
  for (const [name, value] of [
    ['sessionId', sessionId],
    ['cacheDir', cacheDir],
    ['browserbaseSessionID', browserbaseSessionID],
  ] as const) {
    if (value !== undefined && (typeof value !== 'string' || !value.trim())) refuse(`\`${name}\` must be a non-empty string.`);
  }
  if (actTimeoutMs !== undefined && !(typeof actTimeoutMs === 'number' && actTimeoutMs > 0 && Number.isFinite(actTimeoutMs))) {
    refuse(`\`actTimeoutMs\` must be a positive number of milliseconds, not ${String(actTimeoutMs)}.`);
  }
  // Stagehand's useTouch changes only what its agent's pointer tools send (a tap for a click); the
  // Stagehand class keeps it as `usesTouch`.
  if (useTouch !== undefined && typeof useTouch !== 'boolean')
    refuse(`\`useTouch\` must be true or false, not ${JSON.stringify(useTouch) ?? String(useTouch)}.`);
  if (logInferenceToFile) {
    refuse(
      '`logInferenceToFile` is not supported: pass `logger` with `verbose: 2`, whose lines include every model call (model, tokens, time), or use OpenTelemetry (docs/logging-tracing.md).',
    );
  }

  if (localBrowserLaunchOptions !== undefined) {
    if (typeof localBrowserLaunchOptions !== 'object' || localBrowserLaunchOptions === null)
      refuse('`localBrowserLaunchOptions` must be an object.');
    const { downloadsPath, acceptDownloads, ...launch } = localBrowserLaunchOptions;
    if (acceptDownloads === false) {
      refuse(
        'localBrowserLaunchOptions.acceptDownloads: false is not supported: Tendril saves every download (in `downloadsPath`, else a temporary folder removed on close) and reports it on page.on("download"). Leave it out.',
      );
    }
    if (downloadsPath !== undefined && options.downloadsPath !== undefined && downloadsPath !== options.downloadsPath) {
      refuse('`downloadsPath` is given twice with different folders (in localBrowserLaunchOptions and beside it): give one.');
    }
    if (downloadsPath !== undefined) options.downloadsPath = downloadsPath;
    options.localBrowserLaunchOptions = launch;
  }
  // The environment the options name, their checks run: a hosted one, or one that launches Chrome.
  const environment = Sdk.environment(options);
  const hosted = environment.modelsOnService;
  const fromClient = modelOfClient(llmClient);
  if (fromClient !== undefined && hosted) {
    refuse(
      '`llmClient` runs its model in this process, and with env "HOSTED" the models run on the hosted server: pass `model` ({ modelName, apiKey }) instead.',
    );
  }
  options.model = fromClient ?? toModelConfiguration(model, 'model') ?? DEFAULT_MODEL;
  if (logger !== undefined) {
    if (typeof logger !== 'function') refuse('`logger` must be a function that takes a log line.');
    options.logger = (line) => logger(toStagehandLine(line));
  }

  const launching = environment.launches(options);
  if (launching && !localBrowserLaunchOptions?.viewport)
    options.localBrowserLaunchOptions = { ...options.localBrowserLaunchOptions, viewport: DEFAULT_VIEWPORT };
  // Stagehand's launcher lets pages register WebMCP tools (document.modelContext); a plain Sdk's
  // does not, since a page could tell such a browser from everyone else's by it. The launcher merges
  // this list with an --enable-features of the caller's.
  if (launching) {
    const launch = options.localBrowserLaunchOptions;
    options.localBrowserLaunchOptions = { ...launch, args: [WEBMCP_FEATURES, ...(launch?.args ?? [])] };
  }
  if (keepAlive === true && launching) {
    refuse(
      '`keepAlive` cannot keep a Chrome that Tendril launches: it runs on a pipe and ends with this process. Start Chrome yourself ' +
        '(google-chrome --remote-debugging-port=9222 --user-data-dir=...) and attach with localBrowserLaunchOptions.cdpUrl: close() then leaves it running.',
    );
  }

  // What only Browserbase knows means nothing with env "LOCAL", where Stagehand ignores it too.
  if (hosted) {
    if (browserbaseSessionID !== undefined)
      refuse('`browserbaseSessionID` is not supported: a Tendril hosted session cannot be resumed by id. Leave it out to start a new one.');
    if (waitForCaptchaSolves) refuse("`waitForCaptchaSolves` is not supported: Tendril's hosted server solves no captchas. Leave it out.");
    if (disableAPI)
      refuse('`disableAPI` is not supported with env "HOSTED": extract, act and observe run on the hosted server. Leave it out.');
    const params = hostedParams(browserbaseSessionCreateParams);
    if (params && options.hostedSessionCreateParams)
      refuse('Give `hostedSessionCreateParams` or `browserbaseSessionCreateParams`, not both.');
    if (params) options.hostedSessionCreateParams = params;
    if (keepAlive !== undefined) options.hostedSessionCreateParams = { ...options.hostedSessionCreateParams, keepAlive };
  }
  return options;
}

const SESSION_KEYS = ['projectId', 'region', 'keepAlive', 'timeout', 'browserSettings'];
const SETTING_KEYS = ['viewport', 'blockAds'];

/** browserbaseSessionCreateParams, for a Tendril hosted session: what it has of them, or a refusal naming the rest. */
function hostedParams(params: BrowserbaseSessionCreateParams | undefined): SdkOptions['hostedSessionCreateParams'] {
  if (params === undefined) return undefined;
  if (typeof params !== 'object' || params === null) refuse('`browserbaseSessionCreateParams` must be an object.');
  const settings = (params.browserSettings ?? {}) as Record<string, unknown>;
  const unknown = [
    ...Object.keys(params).filter((key) => !SESSION_KEYS.includes(key) && params[key] !== undefined),
    ...Object.keys(settings)
      .filter((key) => !SETTING_KEYS.includes(key) && settings[key] !== undefined && settings[key] !== false)
      .map((key) => `browserSettings.${key}`),
  ];
  if (unknown.length > 0) {
    refuse(
      `browserbaseSessionCreateParams: ${unknown.join(', ')} ${unknown.length > 1 ? 'are' : 'is'} Browserbase's own; a Tendril hosted session takes ` +
        'projectId, region, keepAlive, timeout and browserSettings.{viewport, blockAds}. Leave the rest out (see hostedSessionCreateParams).',
    );
  }
  const { viewport, blockAds } = settings as { viewport?: { width: number; height: number }; blockAds?: boolean };
  const { projectId, region, keepAlive, timeout } = params;
  return { projectId, region, keepAlive, timeout, browserSettings: params.browserSettings ? { viewport, blockAds } : undefined };
}

/** A Tendril log line as Stagehand's loggers read it: each auxiliary value as `{ value, type }`. */
export function toStagehandLine(line: LogLine): StagehandLogLine {
  const out: StagehandLogLine = { category: line.category, message: line.message, level: line.level, timestamp: line.timestamp };
  if (line.auxiliary) {
    out.auxiliary = Object.fromEntries(
      Object.entries(line.auxiliary).map(([key, value]) => {
        // A line written through stagehand.logger() has its values typed already.
        if (isTyped(value)) return [key, value];
        const type: Typed['type'] =
          typeof value === 'string'
            ? 'string'
            : typeof value === 'boolean'
              ? 'boolean'
              : typeof value === 'number'
                ? Number.isInteger(value)
                  ? 'integer'
                  : 'float'
                : 'object';
        return [key, { value: typeof value === 'string' ? value : type === 'object' ? JSON.stringify(value) : String(value), type }];
      }),
    );
  }
  return out;
}

type Typed = NonNullable<StagehandLogLine['auxiliary']>[string];

function isTyped(value: unknown): value is Typed {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { value?: unknown }).value === 'string' &&
    typeof (value as { type?: unknown }).type === 'string'
  );
}

/** A Stagehand log line as Tendril's logger takes it (level 1 and category "log" unless given). */
export function fromStagehandLine(line: StagehandLogLine): [0 | 1 | 2, string, string, Record<string, unknown> | undefined] {
  if (typeof line !== 'object' || line === null || typeof line.message !== 'string')
    refuse('stagehand.logger(line) takes a log line: { message, category?, level? }.');
  const level = line.level === 0 || line.level === 2 ? line.level : 1;
  return [level, line.category ?? 'log', line.message, line.auxiliary];
}

/** Call options of Stagehand 2 that code may still pass, and what to write instead. */
const OLDER: Record<string, string> = {
  domSettleTimeoutMs: 'set `domSettleTimeout` on the constructor',
  modelName: 'pass `model`, such as "openai/gpt-4.1-mini"',
  modelClientOptions: 'pass `model`: { modelName, apiKey, baseURL }',
};

/** A call's `model` as Tendril's, after refusing what would otherwise be ignored. */
export function callModel(method: string, options: { model?: StagehandModelConfiguration } | undefined): ModelConfiguration | undefined {
  const given = (options ?? {}) as Record<string, unknown>;
  const older = Object.keys(OLDER).find((name) => given[name] !== undefined);
  if (older) throw new InvalidOptionError(`${method}(): \`${older}\` is an option of Stagehand 2; ${OLDER[older]}.`);
  if (given.iframes === false) {
    throw new InvalidOptionError(
      `${method}(): iframes are always read, out-of-process ones too; to leave some out, limit the call with \`selector\`.`,
    );
  }
  return toModelConfiguration(options?.model, `${method} options.model`);
}
