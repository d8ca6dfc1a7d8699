// What every tool shares: the Tool shape, the bits of schema several use, and the small helpers
// that turn results into what an MCP client is sent.

import type { CallToolResult } from '@modelcontextprotocol/server';
import type { Page } from '../../driver/page.js';
import type { ExtractOptions, ModelConfiguration, PageTextResult, PageTextView } from '../../types.js';
import type { BrowserSession } from '../session.js';
import { withScheme } from '../../util/bareUrl.js';

/** The model options of one tool call: the server's own model, or else the client's through sampling. */
export interface ToolCall {
  modelOptions(): Promise<{ model?: ModelConfiguration; timeout: number }>;
  /** Where `upload` may take files from (--upload-dir); undefined: upload is off. */
  uploadDir?: string;
  /** Where stop_tracing writes (--trace-dir); undefined: the system's temp folder. */
  traceDir?: string;
  /** Whether the call took them: its timeouts are then the model deadline's. */
  askedModel: boolean;
}

export const METHODS = [
  'click',
  'doubleClick',
  'hover',
  'fill',
  'type',
  'press',
  'selectOption',
  'scrollTo',
  'scrollIntoView',
  'nextChunk',
  'prevChunk',
];

export const INCLUDE_PAGE_TEXT = {
  type: 'boolean',
  description:
    'Also return the page text after this step (default false: only a short confirmation). Call page_text later instead if unsure.',
} as const;

export const SELECTOR_HELP = 'XPath (starting with / or xpath=) or CSS; XPaths cross iframes and shadow roots';

export interface Tool {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  readOnly: boolean;
  run(args: Record<string, unknown>, session: BrowserSession, call: ToolCall): Promise<CallToolResult>;
}

export function failure(name: string, message: string): CallToolResult {
  return { content: [{ type: 'text', text: `${name}: ${message}` }], isError: true };
}

export function text(value: string): CallToolResult {
  return { content: [{ type: 'text', text: value }] };
}

export async function withPageText(
  args: Record<string, unknown>,
  session: BrowserSession,
  page: Page,
  summary: string,
): Promise<CallToolResult> {
  if (args.include_page_text !== true) return text(summary);
  const { pageText } = await readPage(session, page, {});
  return text(`${summary}\n\n${pageText}`);
}

export async function readPage(session: BrowserSession, page: Page, args: Record<string, unknown>): Promise<PageTextResult> {
  const options: ExtractOptions = { page, selector: optionalString(args.selector) };
  if (typeof args.view === 'string') options.view = args.view as PageTextView;
  return (await session.sdk()).extract(options);
}

export async function listTabs(session: BrowserSession): Promise<string> {
  const { pages, current } = await session.pages();
  const lines = await Promise.all(
    pages.map(async (page, index) => `${page === current ? '*' : ' '} ${index}: ${await titleOf(page)} — ${page.url()}`),
  );
  return `Tabs (* is current):\n${lines.join('\n')}`;
}

/** A page busy with a dialog or a navigation cannot say its title; that is no reason to fail. */
export async function titleOf(page: Page): Promise<string> {
  return page.title().then(
    (title) => JSON.stringify(title),
    () => '(unknown)',
  );
}

export function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() ? value : undefined;
}

/** As the command line reads URLs: a bare host is https://, or http:// when it is local (util/bareUrl.ts). */
export function absoluteUrl(raw: string): string {
  return withScheme(raw);
}
