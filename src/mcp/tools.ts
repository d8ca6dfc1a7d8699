// The tools an MCP client sees. Their names, descriptions and schemas are read by models, so they
// say what each tool is for and when to prefer another. Results are short text by default: an
// agent pays for every byte it is sent, so page text comes only when asked for.

import { fromJsonSchema, type CallToolResult, type JsonSchemaType, type McpServer, type StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { ConnectionClosedError, MissingLLMConfigurationError, TimeoutError } from '../errors.js';
import { schemaFromJson } from '../extract/jsonSchemaInput.js';
import type { Page } from '../driver/page.js';
import type { ActionInput, ExtractOptions, ModelConfiguration, PageTextResult, PageTextView } from '../types.js';
import { clientSampling, samplingModelConfiguration, serverHasModel } from './sampling.js';
import type { Sample } from './rounds.js';
import { CHUNKS_PER_ROUND, declaresSampling, isModernRequest, SamplingRounds } from './rounds.js';
import type { BrowserSession } from './session.js';

/** What the server's tools are given besides the browser. */
export interface ToolSettings {
  /** The deadline of a tool call that asks a model, the client's sampling requests included. */
  modelTimeoutMs: number;
  /** A line for the server's log (stderr). */
  log: (line: string) => void;
}

/** The model options of one tool call: the server's own model, or else the client's through sampling. */
interface ToolCall {
  modelOptions(): Promise<{ model?: ModelConfiguration; timeout: number }>;
  /** Whether the call took them: its timeouts are then the model deadline's. */
  askedModel: boolean;
}

const METHODS = ['click', 'doubleClick', 'hover', 'fill', 'type', 'press', 'selectOption', 'scrollTo', 'scrollIntoView', 'nextChunk', 'prevChunk'];

const INCLUDE_PAGE_TEXT = {
  type: 'boolean',
  description: 'Also return the page text after this step (default false: only a short confirmation). Call page_text later instead if unsure.',
} as const;

const SELECTOR_HELP = 'XPath (starting with / or xpath=) or CSS; XPaths cross iframes and shadow roots';

interface Tool {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  readOnly: boolean;
  run(args: Record<string, unknown>, session: BrowserSession, call: ToolCall): Promise<CallToolResult>;
}

const TOOLS: Tool[] = [
  {
    name: 'navigate',
    title: 'Open a URL',
    description: 'Open a URL in the current tab and wait until it has loaded. Returns the final URL, HTTP status and title.',
    inputSchema: {
      type: 'object',
      properties: {
        url: { type: 'string', description: 'The address to open; a bare host such as example.org is taken as https://.' },
        include_page_text: INCLUDE_PAGE_TEXT,
      },
      required: ['url'],
    },
    readOnly: false,
    async run(args, session) {
      const page = await session.page();
      const response = await page.goto(absoluteUrl(String(args.url)));
      const status = response ? ` (HTTP ${response.status()})` : '';
      return withPageText(args, session, page, `Opened ${page.url()}${status}. Title: ${await titleOf(page)}`);
    },
  },
  {
    name: 'page_text',
    title: 'Read the page as text',
    description:
      'The current tab as text, one line per element: `[id] role: name`, nested by indentation. Includes every iframe (cross-origin ones too) ' +
      'and shadow root (closed ones too). Use it to read a page or find what to act on; it is far smaller than a screenshot. ' +
      '`selector` reads one part of the page only; `view` picks a smaller view of it.',
    inputSchema: {
      type: 'object',
      properties: {
        selector: { type: 'string', description: `Read only this element and what is inside it: ${SELECTOR_HELP}.` },
        view: {
          type: 'string',
          enum: ['full', 'viewport', 'interactive', 'delta'],
          description:
            'full (default): the whole page. viewport: only what is on screen (and an open dialog). interactive: only what can be ' +
            'clicked or typed into, each with its label or row text. delta: only the lines that changed since the last page_text of this tab.',
        },
      },
    },
    readOnly: true,
    async run(args, session) {
      const page = await session.page();
      return text((await readPage(session, page, args)).pageText);
    },
  },
  {
    name: 'extract',
    title: 'Extract data with a model',
    description:
      'Ask a model to pull data out of the current tab: an instruction, and optionally a JSON Schema the answer must fit. Returns JSON ' +
      '(`{"extraction": "…"}` without a schema). Links in fields with "format": "uri" are the page\'s real URLs. Use page_text instead to just read.',
    inputSchema: {
      type: 'object',
      properties: {
        instruction: { type: 'string', description: 'What to extract, e.g. "the name and price of every product".' },
        schema: {
          type: 'object',
          description: 'A JSON Schema of the result: object, array, string, number, integer, boolean, enum, anyOf.',
        },
        selector: { type: 'string', description: `Extract from this element only: ${SELECTOR_HELP}.` },
      },
      required: ['instruction'],
    },
    readOnly: true,
    async run(args, session, call) {
      const sdk = await session.sdk();
      const page = await session.page();
      const options: ExtractOptions = { page, selector: optionalString(args.selector), ...(await call.modelOptions()) };
      const instruction = String(args.instruction);
      const result: unknown = args.schema === undefined ? await sdk.extract(instruction, options) : await sdk.extract(instruction, schemaFromJson(args.schema), options);
      // The hosted cache's verdict is about the run, not the data.
      if (result && typeof result === 'object' && !Array.isArray(result) && 'cacheStatus' in result) delete (result as { cacheStatus?: unknown }).cacheStatus;
      return text(JSON.stringify(result, null, 2));
    },
  },
  {
    name: 'act',
    title: 'Do one action',
    description:
      'Do one thing on the current tab with real mouse and keyboard input. Either `instruction` in plain words ("click Sign in", ' +
      '"type hello into the search box"; a model picks the element) or `action`, one item returned by observe, replayed exactly without a model. ' +
      'Returns what was done and the action as JSON, which act takes again to repeat it.',
    inputSchema: {
      type: 'object',
      properties: {
        instruction: { type: 'string', description: 'The action in plain words. Give this or `action`.' },
        action: {
          type: 'object',
          description: 'An action from observe (or from an earlier act). Give this or `instruction`.',
          properties: {
            selector: { type: 'string', description: SELECTOR_HELP },
            method: { type: 'string', enum: METHODS, description: 'Default click.' },
            arguments: { type: 'array', items: { type: 'string' }, description: 'The text to fill or type, the key to press, the option to pick.' },
            description: { type: 'string' },
          },
          required: ['selector'],
        },
        variables: {
          type: 'object',
          additionalProperties: { type: 'string' },
          description: 'Values for %name% placeholders in the arguments (passwords and such); they are never sent to the model.',
        },
        include_page_text: INCLUDE_PAGE_TEXT,
      },
    },
    readOnly: false,
    async run(args, session, call) {
      const sdk = await session.sdk();
      const page = await session.page();
      const instruction = optionalString(args.instruction);
      const action = args.action as ActionInput | undefined;
      if ((instruction === undefined) === (action === undefined)) return failure('InvalidOptionError', 'Give act either `instruction` or `action`, not both and not neither.');
      const variables = args.variables as Record<string, string> | undefined;
      // An action replays without a model, under the browser's deadline (only its self-healing, when
      // the element is gone, would ask the server's model).
      const model = instruction === undefined ? {} : await call.modelOptions();
      const result = await sdk.act(instruction ?? action!, { page, variables, ...model });
      const done = `${result.message}${result.actions[0] ? `\nAction: ${JSON.stringify(result.actions[0])}` : ''}`;
      if (!result.success) return failure('ActionFailedError', done);
      return withPageText(args, session, await session.page(), done);
    },
  },
  {
    name: 'observe',
    title: 'List possible actions',
    description:
      'List what can be done on the current tab, or only what fits `instruction` ("the search box", "links to products"), each as ' +
      '{selector, description, method, arguments}. Pass one item to act as `action` to perform it without another model call.',
    inputSchema: {
      type: 'object',
      properties: { instruction: { type: 'string', description: 'What to look for. Default: the main actions of the page.' } },
    },
    readOnly: true,
    async run(args, session, call) {
      const sdk = await session.sdk();
      const page = await session.page();
      const actions = await sdk.observe(optionalString(args.instruction), { page, ...(await call.modelOptions()) });
      return text(actions.length ? JSON.stringify(actions, null, 2) : 'Nothing on the page fits.');
    },
  },
  {
    name: 'tabs',
    title: 'List, open, select or close tabs',
    description:
      'Manage tabs. list: every tab with its index, title and URL, the current one marked. open: a new tab (at `url` if given), which ' +
      'becomes current. select: make tab `index` current. close: close tab `index` (default: the current one). A tab the page opens becomes current.',
    inputSchema: {
      type: 'object',
      properties: {
        action: { type: 'string', enum: ['list', 'open', 'select', 'close'] },
        index: { type: 'integer', minimum: 0, description: 'The tab, as list numbers them (select, close).' },
        url: { type: 'string', description: 'What to open in the new tab (open).' },
      },
      required: ['action'],
    },
    readOnly: false,
    async run(args, session) {
      const index = args.index as number | undefined;
      switch (args.action) {
        case 'open': {
          const page = await session.open();
          if (typeof args.url === 'string' && args.url.trim()) await page.goto(absoluteUrl(args.url));
          break;
        }
        case 'select':
          if (index === undefined) return failure('InvalidOptionError', 'tabs "select" needs `index`; call tabs "list" to see them.');
          await session.select(index);
          break;
        case 'close': {
          const page = index === undefined ? await session.page() : (await session.pages()).pages[index];
          if (!page) return failure('InvalidOptionError', `There is no tab ${index}; call tabs "list" to see them.`);
          await page.close();
          break;
        }
      }
      return text(await listTabs(session));
    },
  },
  {
    name: 'screenshot',
    title: 'Take a screenshot',
    description:
      'A PNG of what the current tab shows, or of one element (`selector`) scrolled into view. Use it to see layout, images or charts; ' +
      'to read text or find what to act on, page_text is smaller and complete.',
    inputSchema: {
      type: 'object',
      properties: { selector: { type: 'string', description: `Capture only this element: ${SELECTOR_HELP}.` } },
    },
    readOnly: true,
    async run(args, session) {
      const page = await session.page();
      const png = await page.screenshot({ selector: optionalString(args.selector) });
      return { content: [{ type: 'image', data: Buffer.from(png).toString('base64'), mimeType: 'image/png' }] };
    },
  },
  {
    name: 'back',
    title: 'Go back',
    description: "Go back one page in the current tab's history, as the browser's Back button does.",
    inputSchema: { type: 'object', properties: { include_page_text: INCLUDE_PAGE_TEXT } },
    readOnly: false,
    async run(args, session) {
      const page = await session.page();
      if (!(await page.goBack())) return failure('NavigationError', 'There is no earlier page in this tab\'s history.');
      return withPageText(args, session, page, `Went back to ${page.url()}. Title: ${await titleOf(page)}`);
    },
  },
];

export const TOOL_NAMES = TOOLS.map((tool) => tool.name);

/**
 * The tools' schemas, compiled once: over HTTP the SDK asks for a new protocol instance, and so
 * registers the tools again, on every request.
 */
let compiled: Map<string, StandardSchemaWithJSON<Record<string, unknown>>> | undefined;

export function registerTools(server: McpServer, session: BrowserSession, settings: ToolSettings): void {
  compiled ??= new Map(TOOLS.map((tool) => [tool.name, fromJsonSchema<Record<string, unknown>>({ ...tool.inputSchema, additionalProperties: false } as JsonSchemaType)]));
  for (const tool of TOOLS) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: compiled.get(tool.name)!,
        annotations: { title: tool.title, readOnlyHint: tool.readOnly, openWorldHint: true },
      },
      async (args, ctx) => {
        // On revision 2026-07-28 the client's model is asked in rounds, the call running again in each.
        const rounds = isModernRequest(ctx) && declaresSampling(ctx) ? await SamplingRounds.start(ctx, tool.name, args) : undefined;
        if (rounds && !(rounds instanceof SamplingRounds)) return rounds;
        const call: ToolCall = {
          askedModel: false,
          modelOptions: () => {
            call.askedModel = true;
            return modelOptions(session, settings, rounds ? { sample: rounds.sample, parallel: CHUNKS_PER_ROUND } : { sample: clientSampling(server, ctx) });
          },
        };
        try {
          return await tool.run(args ?? {}, session, call);
        } catch (error) {
          const more = await rounds?.inputRequired(error);
          if (more) return more;
          if (error instanceof ConnectionClosedError) await session.forget();
          return errorResult(error, call.askedModel, ctx.http?.req !== undefined && !isModernRequest(ctx));
        }
      },
    );
  }
}

let announced = false;

/**
 * The server's own model when it has one; else the client's, through sampling, when the client
 * offers it; else the server's settings still, whose call then fails naming what is missing.
 */
async function modelOptions(
  session: BrowserSession,
  settings: ToolSettings,
  { sample, parallel }: { sample: Sample | undefined; parallel?: number },
): Promise<{ model?: ModelConfiguration; timeout: number }> {
  const timeout = settings.modelTimeoutMs;
  if (!sample || (await serverHasModel(session.options))) return { timeout };
  if (!announced) {
    announced = true;
    settings.log('the server has no model of its own (no key for it): extract, act and observe ask the client\'s model, through sampling');
  }
  return { model: samplingModelConfiguration(sample, timeout, parallel), timeout };
}

/**
 * A tool error carries the typed error's name and message: the model can tell what to change.
 * `statelessLegacy`: a 2025-era request over HTTP, which cannot say whether its client samples.
 */
function errorResult(error: unknown, askedModel: boolean, statelessLegacy: boolean): CallToolResult {
  if (!(error instanceof Error)) return failure('Error', String(error));
  const hint =
    error instanceof MissingLLMConfigurationError
      ? ' For the MCP server: start `tendril mcp` with --model (or MODEL_NAME) and the key in MODEL_API_KEY or the provider\'s variable;' +
        ' or use it from an MCP client that offers sampling (the `sampling` capability), whose own model is then asked.' +
        (statelessLegacy ? ' Over HTTP, that takes a client of protocol revision 2026-07-28: a 2025-era request does not say what its client offers.' : '')
      : error instanceof ConnectionClosedError
        ? ' The next call starts a new browser.'
        : error instanceof TimeoutError && askedModel
          ? ' For the MCP server: --model-timeout MS sets the deadline of a tool call that asks a model.'
          : '';
  return failure(error.name, error.message + hint);
}

function failure(name: string, message: string): CallToolResult {
  return { content: [{ type: 'text', text: `${name}: ${message}` }], isError: true };
}

function text(value: string): CallToolResult {
  return { content: [{ type: 'text', text: value }] };
}

async function withPageText(args: Record<string, unknown>, session: BrowserSession, page: Page, summary: string): Promise<CallToolResult> {
  if (args.include_page_text !== true) return text(summary);
  const { pageText } = await readPage(session, page, {});
  return text(`${summary}\n\n${pageText}`);
}

async function readPage(session: BrowserSession, page: Page, args: Record<string, unknown>): Promise<PageTextResult> {
  const options: ExtractOptions = { page, selector: optionalString(args.selector) };
  if (typeof args.view === 'string') options.view = args.view as PageTextView;
  return (await session.sdk()).extract(options);
}

async function listTabs(session: BrowserSession): Promise<string> {
  const { pages, current } = await session.pages();
  const lines = await Promise.all(pages.map(async (page, index) => `${page === current ? '*' : ' '} ${index}: ${await titleOf(page)} — ${page.url()}`));
  return `Tabs (* is current):\n${lines.join('\n')}`;
}

/** A page busy with a dialog or a navigation cannot say its title; that is no reason to fail. */
async function titleOf(page: Page): Promise<string> {
  return page.title().then((title) => JSON.stringify(title), () => '(unknown)');
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() ? value : undefined;
}

/** As the command line reads URLs: a bare host is https://. */
function absoluteUrl(raw: string): string {
  const value = raw.trim();
  return /^[a-z][a-z0-9+.-]*:/i.test(value) ? value : `https://${value}`;
}
