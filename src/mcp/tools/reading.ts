// The tools that open and read pages: navigate, page_text (with a budget and a cursor), find,
// screenshot, back and tabs.

import { DEFAULT_MAX_CHARS, findLines, firstPart, MIN_MAX_CHARS, nextPart } from './parts.js';
import {
  absoluteUrl,
  failure,
  INCLUDE_PAGE_TEXT,
  listTabs,
  optionalString,
  readPage,
  SELECTOR_HELP,
  text,
  titleOf,
  withPageText,
  type Tool,
} from './kit.js';

export const READING_TOOLS: Tool[] = [
  {
    name: 'navigate',
    title: 'Open a URL',
    description: 'Open a URL in the current tab and wait until it has loaded. Returns the final URL, HTTP status and title.',
    inputSchema: {
      type: 'object',
      properties: {
        url: {
          type: 'string',
          description:
            'The address to open; a bare host is taken as https:// (example.org), or as http:// when it is this machine or a private network (localhost:3000, 127.0.0.1:8765, 192.168.1.1).',
        },
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
      'The ids are what act takes as `ref`; each keeps naming its element across reads, while it is on the page. `selector` reads one part of the page only; `view` picks a smaller view of it. A long page ' +
      'comes in parts of whole lines under `max_chars`: pass the `cursor` the answer ends with to get the next part. To look for ' +
      'something on a long page, find is faster than reading every part.',
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
        max_chars: {
          type: 'integer',
          minimum: MIN_MAX_CHARS,
          description: `The most characters of page text in one answer (default ${DEFAULT_MAX_CHARS}, about a quarter as many tokens). Lines are never cut.`,
        },
        cursor: {
          type: 'string',
          description: 'From the end of an earlier answer: the next part of that same read, without reading the page again.',
        },
      },
    },
    readOnly: true,
    async run(args, session) {
      const page = await session.page();
      const maxChars = typeof args.max_chars === 'number' ? args.max_chars : DEFAULT_MAX_CHARS;
      const cursor = optionalString(args.cursor);
      const part = cursor ? nextPart(page, cursor, maxChars) : firstPart(page, (await readPage(session, page, args)).pageText, maxChars);
      if (part.from === 1 && !part.cursor) return text(part.text);
      const more = part.cursor ? `call page_text with cursor "${part.cursor}" for the next part.` : 'this is the last part.';
      return text(`${part.text}\n\n(lines ${part.from}-${part.to} of ${part.lines}; ${more})`);
    },
  },
  {
    name: 'find',
    title: 'Find lines of the page',
    description:
      "Search the current tab's page text: the lines holding every word of `query` (ignoring case), each with the lines it sits in " +
      '(its table row, list, form, dialog...), so you know where it is, and their ids, which act takes as `ref`. Use it on long pages ' +
      'instead of reading every part of page_text.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'Words to look for, e.g. "Add to cart" or "Item 7777".' },
        selector: { type: 'string', description: `Search only this element and what is inside it: ${SELECTOR_HELP}.` },
        max_results: {
          type: 'integer',
          minimum: 1,
          description: 'The most matches to show (default 50); the answer says how many there are.',
        },
      },
      required: ['query'],
    },
    readOnly: true,
    async run(args, session) {
      const page = await session.page();
      const { pageText } = await readPage(session, page, { selector: args.selector });
      const maxResults = typeof args.max_results === 'number' ? args.max_results : 50;
      const found = findLines(pageText, String(args.query), maxResults, DEFAULT_MAX_CHARS);
      if (!found.matches) return text(`Nothing on the page matches ${JSON.stringify(args.query)}.`);
      const head =
        found.shown < found.matches
          ? `${found.matches} lines match; the first ${found.shown}:`
          : `${found.matches} line${found.matches === 1 ? '' : 's'} match:`;
      return text(`${head}\n${found.text}`);
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
      // goBack() resolves null both when there is nothing to go back to and for a page the back-forward cache gives back: the history tells.
      const { currentIndex } = await page.session.send('Page.getNavigationHistory');
      if (currentIndex < 1) return failure('NavigationError', "There is no earlier page in this tab's history.");
      await page.goBack();
      return withPageText(args, session, page, `Went back to ${page.url()}. Title: ${await titleOf(page)}`);
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
];
