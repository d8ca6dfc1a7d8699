// The option and result types of Stagehand 3's V3 class, as Tendril's Stagehand class takes and
// gives them (docs/migrating-from-stagehand-3.md says what each option does here).

import type {
  ActOptions,
  ExtractOptions,
  LocalBrowserLaunchOptions,
  ObserveOptions,
  ObserveResult,
  SdkMetrics,
  SdkOptions,
  Viewport,
} from '../types.js';
import type { Variables } from '../agent/types.js';
import type { LLMClient, StagehandModelConfiguration } from './model.js';

/** Stagehand's `env`. "BROWSERBASE" is refused, naming Tendril's hosted settings. */
export type V3Env = 'LOCAL' | 'BROWSERBASE' | 'HOSTED' | 'EXTENSION';

/** Stagehand's log line: `auxiliary` values are `{ value, type }`. */
export interface StagehandLogLine {
  id?: string;
  category?: string;
  message: string;
  level?: 0 | 1 | 2;
  timestamp?: string;
  auxiliary?: Record<string, { value: string; type: 'object' | 'string' | 'html' | 'integer' | 'float' | 'boolean' }>;
}

/** Stagehand's launch options: Tendril's, plus where Stagehand puts the download settings. */
export interface StagehandLaunchOptions extends Omit<LocalBrowserLaunchOptions, 'proxy'> {
  proxy?: { server: string; bypass?: string; username?: string; password?: string };
  /** Tendril's `downloadsPath` (an Sdk option). */
  downloadsPath?: string;
  /** `true` (Tendril's behaviour); `false` is refused. */
  acceptDownloads?: boolean;
}

/** Stagehand's Browserbase session parameters; with env "HOSTED" they become hostedSessionCreateParams. */
export interface BrowserbaseSessionCreateParams {
  projectId?: string;
  region?: string;
  keepAlive?: boolean;
  timeout?: number;
  browserSettings?: { viewport?: Viewport; blockAds?: boolean; [setting: string]: unknown };
  [param: string]: unknown;
}

export interface V3Options extends Omit<SdkOptions, 'env' | 'model' | 'logger' | 'localBrowserLaunchOptions'> {
  /** Default "LOCAL". "HOSTED" is Tendril's hosted browser (hostedApiUrl, apiKey, projectId). */
  env?: V3Env;
  /** A name for this instance; Tendril keeps it as `stagehand.sessionId`. */
  sessionId?: string;
  localBrowserLaunchOptions?: StagehandLaunchOptions;
  /** Default "openai/gpt-4.1-mini", as Stagehand's. */
  model?: StagehandModelConfiguration;
  llmClient?: LLMClient;
  logger?: (line: StagehandLogLine) => void;
  /** Default for act()'s `timeout`. */
  actTimeoutMs?: number;
  /** Where act() keeps the actions it found, to replay them without a model next time. */
  cacheDir?: string;
  browserbaseSessionCreateParams?: BrowserbaseSessionCreateParams;
  browserbaseSessionID?: string;
  keepAlive?: boolean;
  useTouch?: boolean;
  logInferenceToFile?: boolean;
  experimental?: boolean;
  waitForCaptchaSolves?: boolean;
  disableAPI?: boolean;
}

export type { Variables, VariableValue } from '../agent/types.js';

export type V3ActOptions = Omit<ActOptions, 'model' | 'variables'> & { model?: StagehandModelConfiguration; variables?: Variables };
export type V3ExtractOptions = Omit<ExtractOptions, 'model'> & {
  model?: StagehandModelConfiguration;
  ignoreSelectors?: string[];
  screenshot?: boolean;
};
export type V3ObserveOptions = Omit<ObserveOptions, 'model'> & {
  model?: StagehandModelConfiguration;
  variables?: Variables;
  ignoreSelectors?: string[];
};

/** An action as observe() returns it and act() takes it. */
export type Action = ObserveResult;

export interface HistoryEntry {
  method: 'act' | 'extract' | 'observe' | 'navigate' | 'agent';
  parameters: unknown;
  result: unknown;
  timestamp: string;
}

/** Stagehand's flat metrics (agent ones stay 0). */
export type StagehandMetrics = {
  [K in `${'act' | 'extract' | 'observe' | 'agent' | 'total'}${'PromptTokens' | 'CompletionTokens' | 'ReasoningTokens' | 'CachedInputTokens' | 'InferenceTimeMs'}`]: number;
};

/** `stagehand.metrics`: Tendril's per-method counters and Stagehand's flat ones, awaitable as Stagehand's are. */
export type V3Metrics = SdkMetrics & StagehandMetrics & PromiseLike<SdkMetrics & StagehandMetrics>;
