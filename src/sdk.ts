import { matchForeignPage } from './driver/foreignPage.js';
import { sdkBudgets } from './llm/tokenMeter.js';
import { extension } from './env/extension.js';
import { hosted } from './env/hosted.js';
import { local } from './env/local.js';
import { chooseEnvironment } from './env/choose.js';
import type { Environment } from './env/types.js';
import { SdkCore, type SdkEntry } from './sdkCore.js';
import { recordTraces } from './trace/recorder.js';
import type { SdkOptions } from './types.js';

/** The package's main entry: every environment (env/), and pages of Playwright and Puppeteer. */
export const mainEntry: SdkEntry = {
  available: [local, hosted, extension],
  refuse: (env) => `env ${JSON.stringify(env)} is not available.`,
  foreignPage: matchForeignPage,
  budgets: sdkBudgets,
  tracing: recordTraces,
};

/**
 * The client. `init()` gets a browser (launches Chrome, attaches to `cdpUrl`, opens a hosted
 * session, or, inside a Chrome extension, attaches to its tabs), `context` holds its pages,
 * `close()` lets it go.
 */
export class Sdk extends SdkCore {
  constructor(options: SdkOptions = {}, /** @internal The Stagehand entry's classes. */ entry: SdkEntry = mainEntry) {
    super(options, entry);
  }

  /** The environment `options` choose (see env/), without creating an Sdk: its checks run too. */
  static environment(options: SdkOptions = {}): Environment {
    return chooseEnvironment(options, mainEntry);
  }
}
