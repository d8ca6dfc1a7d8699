// What the agent needs of the Stagehand instance that runs it, named here so that the agent's modules
// never import stagehand.ts (which imports them).

import type { Context } from '../../driver/context.js';
import type { TokenMeter } from '../../llm/tokenMeter.js';
import type { Page } from '../../driver/page.js';
import type { ActResult, ObserveResult, PageTextResult } from '../../types.js';
import type { StagehandModelConfiguration } from '../model.js';
import type { StagehandLogLine, Variables } from '../types.js';

export interface AgentCallOptions {
  model?: StagehandModelConfiguration;
  variables?: Variables;
  timeout?: number;
  /** The run's token meter (llm/tokenMeter.ts) as the call's budget: the call counts against the run. */
  budget?: TokenMeter;
}

export interface AgentHost {
  readonly context: Context;
  /** `useTouch`: the hybrid mode's clicks are taps. */
  readonly usesTouch: boolean;
  act(input: string | ObserveResult, options?: AgentCallOptions): Promise<ActResult>;
  extract(options: { timeout?: number }): Promise<PageTextResult>;
  extract(instruction: string, options?: AgentCallOptions): Promise<unknown>;
  extract(instruction: string, schema: object, options?: AgentCallOptions): Promise<unknown>;
  observe(instruction: string, options?: AgentCallOptions): Promise<ObserveResult[]>;
  /** The instance's page for a page of its own, or of Playwright or Puppeteer connected through connectURL(). */
  resolvePage(page: unknown): Promise<Page>;
  /** Writes a Stagehand log line (category "agent"). */
  log(line: StagehandLogLine): void;
}
