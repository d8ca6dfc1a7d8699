// `cacheDir` for the agent: a run that succeeded keeps the steps that changed the page (the actions
// act and fillForm performed, gotos, going back, scrolls, keys, waits, the hybrid mode's pointer
// input) and its result, in a JSON file of the folder named by the instruction, the page it started
// on, the agent's configuration and the variable names. The same execute() there later replays the
// steps with no model request and resolves the kept result. A step that no longer fits (act(action)
// heals a moved element with the model, as anywhere) ends the replay, and the agent runs live.
// Node only: loaded when a Stagehand has a cacheDir. The files are Tendril's own.

import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ObserveResult } from '../types.js';
import type { Variables } from './types.js';
import type { AgentHost } from './host.js';
import type { AgentResult } from './types.js';

export type ReplayStep =
  | { type: 'act'; actions: ObserveResult[] }
  | { type: 'goto'; url: string }
  | { type: 'navback' }
  | { type: 'scroll'; x: number; y: number; deltaY: number }
  | { type: 'keys'; method: 'press' | 'type'; value: string; times: number }
  | { type: 'wait'; timeMs: number }
  | { type: 'click'; x: number; y: number; touch: boolean }
  | { type: 'typeAt'; x: number; y: number; text: string; touch: boolean }
  | { type: 'drag'; from: [number, number]; to: [number, number]; delay: number };

interface Entry {
  version: 1;
  instruction: string;
  startUrl: string;
  steps: ReplayStep[];
  result: Pick<AgentResult, 'success' | 'message' | 'completed' | 'actions' | 'output'>;
}

export class AgentRunCache {
  constructor(private readonly folder: string) {}

  /** As act()'s cache, the page counts without its query and fragment. */
  file(instruction: string, startUrl: string, signature: unknown, variables: Variables | undefined): string {
    let page = startUrl;
    try {
      const parsed = new URL(startUrl);
      page = parsed.origin + parsed.pathname;
    } catch {
      // about:blank and the like stay as they are.
    }
    const names = Object.keys(variables ?? {}).sort();
    const key = createHash('sha256')
      .update(JSON.stringify([instruction.trim(), page, signature, names]))
      .digest('hex')
      .slice(0, 32);
    return path.join(this.folder, `agent-${key}.json`);
  }

  async get(file: string): Promise<Entry | undefined> {
    try {
      const entry = JSON.parse(await readFile(file, 'utf8')) as Entry;
      return entry?.version === 1 && Array.isArray(entry.steps) && entry.result ? entry : undefined;
    } catch {
      // No entry, or one this version cannot read: the agent runs.
      return undefined;
    }
  }

  /** Written to a temporary name first: two processes sharing the folder never read half a file. */
  async set(file: string, entry: Omit<Entry, 'version'>): Promise<void> {
    await mkdir(this.folder, { recursive: true });
    const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
    await writeFile(temporary, JSON.stringify({ version: 1, ...entry } satisfies Entry, null, 2));
    await rename(temporary, file);
  }
}

/** Performs the kept steps; throws at the first one that cannot be done. */
export async function replay(
  host: AgentHost,
  steps: ReplayStep[],
  variables: Variables | undefined,
  fill: (text: string) => string,
  timeout: number,
): Promise<void> {
  for (const step of steps) {
    const page = await host.context.awaitActivePage();
    switch (step.type) {
      case 'act':
        for (const action of step.actions) {
          const done = await host.act(action, { ...(variables ? { variables } : {}), timeout });
          if (!done.success) throw new Error(`the kept action "${action.description}" failed: ${done.message}`);
        }
        break;
      case 'goto':
        await page.goto(step.url, { waitUntil: 'load', timeoutMs: timeout });
        break;
      case 'navback':
        await page.goBack({ waitUntil: 'domcontentloaded', timeoutMs: timeout });
        break;
      case 'scroll':
        await page.scroll(step.x, step.y, 0, step.deltaY);
        break;
      case 'keys':
        for (let i = 0; i < step.times; i++) {
          if (step.method === 'type') await page.type(fill(step.value), { delay: 20 });
          else await page.keyPress(step.value, { delay: 20 });
        }
        break;
      case 'wait':
        await page.waitForTimeout(step.timeMs);
        break;
      case 'click':
      case 'typeAt':
        await (step.touch ? page.tap(step.x, step.y) : page.click(step.x, step.y));
        if (step.type === 'typeAt') await page.type(fill(step.text));
        break;
      case 'drag':
        await page.dragAndDrop(step.from[0], step.from[1], step.to[0], step.to[1], { steps: 10, delay: step.delay });
        break;
    }
  }
}
