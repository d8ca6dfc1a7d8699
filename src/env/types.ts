// The seam between the ways to a browser: launched or attached (LOCAL), a hosted session (HOSTED),
// the user's own tabs through chrome.debugger (EXTENSION). Each is one Environment; the Sdk picks one
// from its options, once (choose.ts), and from then on talks only to this interface.

import type { BrowserHandle } from '../browser/browser.js';
import type { ContextOptions } from '../driver/contextOptions.js';
import type { Page } from '../driver/page.js';
import type { ZodLike } from '../extract/schema.js';
import type { ModelSpec } from '../llm/config.js';
import type { Metrics } from '../llm/metrics.js';
import type { Logger } from '../logger.js';
import type { ActInput } from '../act/act.js';
import type { ActResult, ModelConfiguration, ObserveResult, SdkEnv, SdkOptions } from '../types.js';
import type { CheckedPolicy } from '../util/domainPolicy.js';

export interface Environment {
  readonly name: SdkEnv;
  /** Fails on options that mean nothing here, so a setting that would be ignored is not. */
  check(options: SdkOptions): void;
  /** The domainPolicy the Sdk's driver enforces, given the Sdk's own (checked). */
  policy(options: SdkOptions, own: CheckedPolicy | undefined): CheckedPolicy | undefined;
  /**
   * A hosted service: it runs the models (no `modelServer`, and no model needed here) and the
   * session whose browser this Sdk attaches to.
   */
  readonly modelsOnService: boolean;
  /** Whether, with these options, this Sdk starts a browser of its own (and so sets its window and switches). */
  launches(options: SdkOptions): boolean;
  /** Getting the browser, in a few words (the command line's progress line). */
  startStep(options: SdkOptions): string;
  /** Why connectURL() is unavailable, when it is. */
  readonly noBridge: string;
  /** Gets the browser; on failure, lets go of whatever it had got. */
  open(options: SdkOptions, logger: Logger, cdpTimeoutMs: number): Promise<OpenedBrowser>;
}

export interface OpenedBrowser {
  browser: BrowserHandle;
  /** Where downloads go (see ContextOptions.downloads); absent: none of the context's business. */
  downloads?: ContextOptions['downloads'];
  /** Removes what was made for downloads; called on close and when init fails. */
  removeDownloads?: () => Promise<void>;
  /** Starts the connectURL() bridge; undefined when it could not start. Runs beside context.start(). */
  startBridge?: () => Promise<SdkBridge | undefined>;
  /** The size of every page's viewport, when this Sdk sets it. */
  viewport?: { width: number; height: number };
  /** See ContextOptions.closedRootWatch. */
  closedRootWatch?: string;
  /** See ContextOptions.readFile. */
  readFile?: ContextOptions['readFile'];
  /** Where extract(instruction), act and observe run; absent: in this process (operations.ts). */
  operations?: Operations;
  /** See ContextOptions.storage. */
  storage?: ContextOptions['storage'];
  /** See ContextOptions.egressProxy. */
  egressProxy?: boolean;
}

export interface SdkBridge {
  readonly url: string;
  close(): Promise<void>;
}

/** One call of extract, act or observe: its page, its own options, its model (resolved) and deadline. */
export interface OperationCall {
  page: Page;
  options: { model?: ModelConfiguration; serverCache?: boolean };
  model: ModelSpec | undefined;
  /** The call's deadline; for a replayed action, its own (the model's, if it heals, is `modelTimeoutMs`). */
  timeoutMs: number;
  modelTimeoutMs: number;
  logger: Logger;
  metrics: Metrics;
  /** SdkOptions.selfHeal and domSettleTimeout, for the operations that run here (act, observe). */
  selfHeal?: boolean;
  settleMs?: number;
}

export type { ActInput };

/** extract(instruction[, schema]), act and observe, wherever they run. */
export interface Operations {
  extract(call: OperationCall, instruction: string, schema: ZodLike | undefined, selector: string | undefined): Promise<unknown>;
  act(call: OperationCall, what: ActInput, variables: Record<string, string> | undefined): Promise<ActResult>;
  observe(call: OperationCall, instruction: string | undefined, selector: string | undefined): Promise<ObserveResult[]>;
}
