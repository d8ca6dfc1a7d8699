// The tools the agent's model calls in the DOM mode, each on Tendril's own methods: act, observe and
// extract of the Stagehand instance (so their history entries and metrics are kept as for any call),
// and the active page's goto, goBack, scroll, type, keyPress and screenshot. A tool never throws at
// the loop: what goes wrong (a failed action, a timeout, a bad argument) comes back to the model as
// `{ success: false, error }`, so it can try another way. Only aborting the run ends it.

import { NavigationError } from '../errors.js';
import { schemaFromJson } from '../extract/jsonSchemaInput.js';
import type { Variables } from './types.js';
import type { AgentModelConfiguration } from './types.js';
import type { ReplayStep } from './agentCache.js';
import type { AgentHost } from './host.js';
import type { TokenMeter } from '../llm/tokenMeter.js';

/** The names of the DOM mode's tools, in the order the prompt lists them. */
export const DOM_TOOLS = [
  'ariaTree',
  'act',
  'fillForm',
  'extract',
  'goto',
  'navback',
  'scroll',
  'keys',
  'screenshot',
  'wait',
  'think',
] as const;

/** Stagehand's tool names of other modes and services, which excludeTools may name without effect. */
export const OTHER_TOOLS = ['click', 'type', 'dragAndDrop', 'clickAndHold', 'fillFormVision', 'search', 'done'];

/** Page text handed to the model at most (about 70,000 tokens): the rest is cut, and says so. */
const MAX_PAGE_TEXT = 280_000;

export interface ToolSetup {
  host: AgentHost;
  /** The model of act/extract/observe inside tools; the instance's when undefined. */
  executionModel?: AgentModelConfiguration;
  variables?: Variables;
  toolTimeoutMs: number;
  /** The AI SDK's jsonSchema(), loaded with it. */
  jsonSchema: (schema: Record<string, unknown>) => unknown;
  /** Keeps what a tool did to the page, for `cacheDir` (cache.ts); absent without one. */
  record?: (step: ReplayStep) => void;
  /** The run's turn-taking (serial()): one tool at a time on the page. */
  lock: <T>(work: () => Promise<T>) => Promise<T>;
  /** The run's token budget, which the act/extract/observe calls of the tools count against. */
  meter?: TokenMeter | undefined;
}

/**
 * One at a time, in the order asked. The AI SDK runs the tool calls of one step at once; two actions
 * on one page at once would interleave their keys and clicks.
 */
export function serial(): <T>(work: () => Promise<T>) => Promise<T> {
  let last: Promise<unknown> = Promise.resolve();
  return (work) => {
    const turn = last.then(work);
    last = turn.catch(() => undefined);
    return turn;
  };
}

export type Result = Record<string, unknown>;
export interface ToolDef {
  description: string;
  inputSchema: unknown;
  execute: (input: never, options: { abortSignal?: AbortSignal }) => Promise<Result>;
  toModelOutput?: (options: { output: Result }) => unknown;
}

/** `%name%` in a text replaced by the variable's value. */
export function fillVariables(text: string, variables: Variables | undefined): string {
  if (!variables) return text;
  return text.replace(/%(\w+)%/g, (whole, name: string) => {
    if (!Object.hasOwn(variables, name)) return whole;
    const item = variables[name]!;
    return String(typeof item === 'object' && item !== null ? item.value : item);
  });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? `${error.name === 'Error' ? '' : `${error.name}: `}${error.message}` : String(error);
}

/**
 * Runs a tool's work within its deadline and the run's signal. The work itself may go on after a
 * timeout (an act's own `timeout` is the same, so it ends about then too); the model hears of it now.
 */
export function guarded(name: string, timeoutMs: number, work: (input: never, options: never) => Promise<Result>): ToolDef['execute'] {
  return async (input, options) => {
    const { abortSignal } = options;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    try {
      abortSignal?.throwIfAborted();
      const limits = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(new Error(`${name} did not finish within ${timeoutMs} ms (toolTimeout); it may still be running. Try a smaller step.`)),
          timeoutMs,
        );
        onAbort = () => reject(abortSignal!.reason);
        abortSignal?.addEventListener('abort', onAbort, { once: true });
      });
      return await Promise.race([work(input, options as never), limits]);
    } catch (error) {
      if (abortSignal?.aborted) throw abortSignal.reason;
      return { success: false, error: messageOf(error) };
    } finally {
      clearTimeout(timer);
      if (onAbort) abortSignal?.removeEventListener('abort', onAbort);
    }
  };
}

/** Base64 without Node's Buffer: the main entry also runs where there is none (edge runtimes). */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

export const textOutput = (text: string) => ({ type: 'content', value: [{ type: 'text', text }] });

/** What every tool is built with: schemas, the log line, the deadline, the active page. */
export function toolKit(setup: ToolSetup) {
  const { host, variables, toolTimeoutMs: timeout, jsonSchema } = setup;
  const model = setup.executionModel;
  const run = setup.meter ? { budget: setup.meter } : {};
  const callOptions = { ...(model ? { model } : {}), ...(variables ? { variables } : {}), timeout, ...run };
  const names = Object.keys(variables ?? {});
  const placeholders = names.length ? ` Placeholders you may write: ${names.map((name) => `%${name}%`).join(', ')}.` : '';
  const shape = (properties: Record<string, unknown>, required: string[]) => ({
    type: 'object',
    properties,
    required,
    additionalProperties: false,
  });
  const object = (properties: Record<string, unknown>, required: string[]) => jsonSchema(shape(properties, required));
  const page = () => host.context.awaitActivePage();
  const log = (tool: string, args?: unknown) =>
    host.log({
      category: 'agent',
      message: `Agent calling tool: ${tool}`,
      level: 1,
      ...(args === undefined
        ? {}
        : {
            auxiliary: {
              arguments: {
                value: typeof args === 'string' ? args : JSON.stringify(args),
                type: typeof args === 'string' ? 'string' : 'object',
              },
            },
          }),
    });
  const tool = (
    name: string,
    description: string,
    inputSchema: unknown,
    work: (input: never) => Promise<Result>,
    toModelOutput?: ToolDef['toModelOutput'],
  ): ToolDef => ({
    description,
    inputSchema,
    // Inside the turn: a tool's deadline counts from its start, and an aborted holder lets the next one go at once.
    execute: (input, options) => setup.lock(() => guarded(name, timeout, work)(input, options)),
    ...(toModelOutput ? { toModelOutput } : {}),
  });
  const record = (step: ReplayStep) => setup.record?.(step);
  return { host, variables, timeout, callOptions, run, placeholders, shape, object, page, log, tool, record };
}

export function domTools(setup: ToolSetup): Record<string, ToolDef> {
  const { host, variables, timeout, callOptions, run, placeholders, shape, object, page, log, tool, record } = toolKit(setup);
  return {
    ariaTree: tool(
      'ariaTree',
      'Returns the current page as text: one line per element with its role, name and state, across iframes and shadow roots, including parts scrolled out of view. Read it to find what to act on.',
      object({}, []),
      async () => {
        log('ariaTree');
        const { pageText } = await host.extract({ timeout });
        const content =
          pageText.length > MAX_PAGE_TEXT
            ? `${pageText.slice(0, MAX_PAGE_TEXT)}\n\n[The page text was cut here: it is too long to show whole.]`
            : pageText;
        return { success: true, content, pageUrl: (await page()).url() };
      },
      ({ output }) =>
        output.success
          ? textOutput(`Page text of ${String(output.pageUrl)}:\n${String(output.content)}`)
          : textOutput(JSON.stringify(output)),
    ),
    act: tool(
      'act',
      'Performs one action on one element of the page: a click, typing into a field, choosing an option, pressing a key in a field. Name the element plainly, with its kind, as the page text shows it.',
      object(
        {
          action: {
            type: 'string',
            description: `The action, e.g. "click the Log in button" or "type Ada into the First name field".${placeholders}`,
          },
        },
        ['action'],
      ),
      async ({ action }: { action: string }) => {
        log('act', action);
        const result = await host.act(action, callOptions);
        const out: Result = { success: result.success, action: result.actionDescription || action };
        if (!result.success) out.error = result.message;
        if (result.actions[0]) out.playwrightArguments = result.actions[0];
        if (result.success && result.actions.length) record({ type: 'act', actions: result.actions });
        return out;
      },
    ),
    fillForm: tool(
      'fillForm',
      'Fills several fields of a form in one call: one entry per field, each saying what to type into which field.',
      object(
        {
          fields: {
            type: 'array',
            minItems: 1,
            items: shape({ action: { type: 'string', description: `e.g. "type jo@example.com into the Email field".${placeholders}` } }, [
              'action',
            ]),
          },
        },
        ['fields'],
      ),
      async ({ fields }: { fields: Array<{ action: string }> }) => {
        log('fillForm', fields);
        const wanted = fields.map((field) => field.action).join('; ');
        const found = await host.observe(`Find one action for each of these: ${wanted}`, callOptions);
        if (found.length === 0)
          return { success: false, error: 'No field on the page matched; read the page text and name the fields as it does.' };
        const actions = [];
        const playwrightArguments = [];
        for (const step of found) {
          const done = await host.act(step, { ...(variables ? { variables } : {}), timeout, ...run });
          actions.push(done);
          playwrightArguments.push(...done.actions);
        }
        const success = actions.every((each) => each.success);
        if (success) record({ type: 'act', actions: playwrightArguments });
        return { success, actions, playwrightArguments };
      },
    ),
    extract: tool(
      'extract',
      'Pulls data out of the current page, shaped by an optional JSON Schema (keep it to the fields the task needs; format "url" for links). Use it when the task asks for data, not to find your way.',
      object(
        {
          instruction: { type: 'string', description: 'What to extract, e.g. "the price and name of each product".' },
          // Its own fields named, so that providers strict about object schemas (Gemini) take it.
          schema: {
            type: 'object',
            description: 'A JSON Schema object, e.g. {"type":"object","properties":{"price":{"type":"number"}}}.',
            properties: {
              type: { type: 'string' },
              properties: { type: 'object', additionalProperties: true },
              items: { type: 'object', additionalProperties: true },
              required: { type: 'array', items: { type: 'string' } },
            },
            additionalProperties: true,
          },
        },
        ['instruction'],
      ),
      async ({ instruction, schema }: { instruction: string; schema?: Record<string, unknown> }) => {
        log('extract', { instruction, schema });
        const result = schema
          ? await host.extract(instruction, schemaFromJson(schema), callOptions)
          : await host.extract(instruction, callOptions);
        return { success: true, result };
      },
    ),
    goto: tool(
      'goto',
      'Opens a URL in the current tab and waits for it to load.',
      object({ url: { type: 'string', description: 'The full URL, e.g. https://example.org/login.' } }, ['url']),
      async ({ url }: { url: string }) => {
        log('goto', url);
        const current = await page();
        const response = await current.goto(url, { waitUntil: 'load', timeoutMs: timeout });
        // A Stagehand page resolves on Chrome's error page where the Sdk's throws: the model hears it failed either way.
        if (response === null && current.url().startsWith('chrome-error:')) {
          throw new NavigationError(
            `Navigation to ${url} failed: the host does not resolve or refused the connection (Chrome shows its error page).`,
            url,
          );
        }
        record({ type: 'goto', url });
        return { success: true, url };
      },
    ),
    navback: tool(
      'navback',
      "Goes back to the previous page of the tab's history.",
      object({ reasoningText: { type: 'string', description: 'Why you go back.' } }, ['reasoningText']),
      async () => {
        log('navback');
        await (await page()).goBack({ waitUntil: 'domcontentloaded', timeoutMs: timeout });
        record({ type: 'navback' });
        return { success: true };
      },
    ),
    scroll: tool(
      'scroll',
      "Scrolls the page up or down by a share of the window's height (80% unless told).",
      object({ direction: { type: 'string', enum: ['up', 'down'] }, percentage: { type: 'number', minimum: 1, maximum: 200 } }, [
        'direction',
      ]),
      async ({ direction, percentage = 80 }: { direction: 'up' | 'down'; percentage?: number }) => {
        log('scroll', { direction, percentage });
        const current = await page();
        const size = await current.evaluate(() => ({ w: window.innerWidth, h: window.innerHeight }));
        const pixels = Math.round((size.h * percentage) / 100);
        const at = { x: Math.floor(size.w / 2), y: Math.floor(size.h / 2), deltaY: direction === 'up' ? -pixels : pixels };
        await current.scroll(at.x, at.y, 0, at.deltaY);
        record({ type: 'scroll', ...at });
        return { success: true, message: `Scrolled ${direction} by ${percentage}% of the window (${pixels} px)`, scrolledPixels: pixels };
      },
    ),
    keys: tool(
      'keys',
      'Sends keys to whatever has the focus. method "press": a key or shortcut (Enter, Tab, Escape, ArrowDown, Shift+Tab, Cmd+A). method "type": text, key by key (codes split over several boxes, for instance).',
      object(
        {
          method: { type: 'string', enum: ['press', 'type'] },
          value: { type: 'string', description: `The key or shortcut to press, or the text to type.${placeholders}` },
          repeat: { type: 'integer', minimum: 1, maximum: 50, description: 'How many times (default once).' },
        },
        ['method', 'value'],
      ),
      async ({ method, value, repeat }: { method: 'press' | 'type'; value: string; repeat?: number }) => {
        log('keys', { method, value, repeat });
        const current = await page();
        const times = Math.max(1, Math.min(50, repeat ?? 1));
        for (let i = 0; i < times; i++) {
          if (method === 'type') await current.type(fillVariables(value, variables), { delay: 20 });
          else await current.keyPress(value, { delay: 20 });
        }
        // The value as the model wrote it: placeholders stay placeholders.
        record({ type: 'keys', method, value, times });
        return { success: true, method, value, times };
      },
    ),
    screenshot: tool(
      'screenshot',
      'Takes a picture of the visible part of the page, to check how it looks.',
      object({}, []),
      async () => {
        log('screenshot');
        const current = await page();
        const image = await current.screenshot({ fullPage: false });
        return { success: true, base64: toBase64(image), pageUrl: current.url() };
      },
      ({ output }) =>
        output.success
          ? { type: 'content', value: [{ type: 'media', mediaType: 'image/png', data: output.base64 }] }
          : textOutput(JSON.stringify(output)),
    ),
    wait: tool(
      'wait',
      'Waits the given time, for a page that is still loading or animating.',
      object({ timeMs: { type: 'number', minimum: 0, description: 'Milliseconds.' } }, ['timeMs']),
      async ({ timeMs }: { timeMs: number }) => {
        log('wait', `Waiting for ${timeMs} ms`);
        // Kept inside the tool's own deadline, so that a long wait ends as a wait, not as a timeout.
        const waited = Math.max(0, Math.min(timeMs, timeout * 0.9));
        await (await page()).waitForTimeout(waited);
        record({ type: 'wait', timeMs: waited });
        return { success: true, waited: timeMs };
      },
    ),
    think: tool(
      'think',
      'A place to plan or reason through the next steps; it changes nothing on the page.',
      object({ reasoning: { type: 'string', description: 'Your reasoning or plan.' } }, ['reasoning']),
      async ({ reasoning }: { reasoning: string }) => ({ acknowledged: true, message: reasoning }),
    ),
  };
}
