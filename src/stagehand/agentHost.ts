// What the agent layer (src/agent/) needs of a Stagehand to run on it: its pages, and its act,
// extract and observe with Stagehand's call options, through the narrow AgentHost interface.

import type { AgentHost } from '../agent/host.js';
import { matchForeignPage } from '../driver/foreignPage.js';
import { Page } from '../driver/page.js';
import { InvalidOptionError } from '../errors.js';
import type { StagehandPage } from './page.js';
import type { StagehandContext } from './page.js';
import type { StagehandLogLine, V3ActOptions, V3ObserveOptions } from './types.js';

/** How long a Playwright or Puppeteer page given to the agent may take to show up among ours. */
const FOREIGN_PAGE_MS = 5_000;

/** The part of a Stagehand the agent runs on (named here so this file need not import stagehand.ts). */
export interface AgentRunner {
  readonly context: StagehandContext;
  readonly usesTouch: boolean;
  act(input: Parameters<AgentHost['act']>[0], options?: V3ActOptions): ReturnType<AgentHost['act']>;
  extract: unknown;
  observe(instruction?: string, options?: V3ObserveOptions): ReturnType<AgentHost['observe']>;
  logger(line: StagehandLogLine): void;
}

export function stagehandAgentHost(stagehand: AgentRunner): AgentHost {
  return {
    get context() {
      return stagehand.context;
    },
    usesTouch: stagehand.usesTouch,
    showCursor: (page) => (page as StagehandPage).enableCursorOverlay(),
    // A run's meter travels as the calls' budget (llm/tokenMeter.ts sdkBudgets).
    act: (input, options) => stagehand.act(input, options as V3ActOptions),
    extract: ((...args: unknown[]) =>
      (stagehand.extract as (...all: unknown[]) => Promise<unknown>).apply(stagehand, args)) as AgentHost['extract'],
    observe: (instruction, options) => stagehand.observe(instruction, options as V3ObserveOptions),
    resolvePage: async (page) => {
      if (page instanceof Page) return page;
      const found = await matchForeignPage(stagehand.context, page, FOREIGN_PAGE_MS, undefined);
      if (!found)
        throw new InvalidOptionError(
          "execute(): `page` takes one of this instance's pages, or a Playwright or Puppeteer page connected through connectURL().",
        );
      return found;
    },
    log: (line) => stagehand.logger(line),
  };
}
