// What the agent needs of the instance that runs it (the Stagehand class), named here so that the
// agent's modules never import the adapter (src/stagehand/, which imports them).

import type { Context } from '../driver/context.js';
import type { TokenMeter } from '../llm/tokenMeter.js';
import type { Page } from '../driver/page.js';
import type { ActResult, ObserveResult, PageTextResult } from '../types.js';
import type { AgentModelConfiguration, Variables } from './types.js';

/** A log line of the agent's (Stagehand's form: `auxiliary` values are `{ value, type }`). */
export interface AgentLogLine {
  category?: string;
  message: string;
  level?: 0 | 1 | 2;
  auxiliary?: Record<string, { value: string; type: 'object' | 'string' | 'html' | 'integer' | 'float' | 'boolean' }>;
}

export interface AgentCallOptions {
  model?: AgentModelConfiguration;
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
  /** Draws the pointer over the page, where the instance can (Stagehand's enableCursorOverlay()). */
  showCursor?(page: Page): Promise<void>;
  /** Writes a Stagehand log line (category "agent"). */
  log(line: AgentLogLine): void;
}
