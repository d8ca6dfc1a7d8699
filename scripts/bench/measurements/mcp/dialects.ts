// How an agent uses each server's own tools: open a page, read all of it, search it, and the
// scripted shop task. The task is a small deterministic agent: it reads the page as that server
// writes it, takes the ids of the first two Add buttons and of View cart in that server's notation,
// clicks them, and confirms that the cart, an out-of-process iframe of the other origin, lists the
// two items. Each agent takes the fewest calls its server's tools allow: where a tool can hand the
// page text back with an action (Tendril's `include_page_text`, chrome-devtools-mcp's
// `includeSnapshot`), it asks for it instead of making one more call.
import type { Answer, McpConnection } from './connection.js';
import type { ServerId } from './peers.js';

export interface Dialect {
  /** The tool a full read calls. */
  readonly readTool: string;
  /** The tool that searches the page, or null where the server has none. */
  readonly findTool: string | null;
  /** Opens `url` in the tab the other calls read; not measured. */
  open(c: McpConnection, url: string): Promise<void>;
  /** The whole page, every part of it: one answer per call. */
  read(c: McpConnection): Promise<Answer[]>;
  /** The server's search for `query` (only where `findTool` is set). */
  find(c: McpConnection, query: string): Promise<Answer>;
  /** The shop task on a fresh connection; throws unless the cart is confirmed. */
  shop(c: McpConnection, url: string): Promise<void>;
}

/** What the shop's cart says once the agent has added two items. */
export const CART_LINE = '2 items in your cart';
/** The first two products, whose Add buttons the agent clicks. */
export const CART_ITEMS = ['Seed tray', 'Watering can'] as const;

/** Every capture of `pattern` (global) in `text`, in order. */
const all = (text: string, pattern: RegExp): string[] => [...text.matchAll(pattern)].map((m) => m[1]!);

/** The refs the task acts on, from the first read, in the server's notation. */
function shopRefs(text: string, add: RegExp, viewCart: RegExp): { add: [string, string]; viewCart: string } {
  const adds = all(text, add);
  const cart = all(text, viewCart)[0];
  if (adds.length < 2 || !cart)
    throw new Error(`the first read shows ${adds.length} Add button(s) and ${cart ? 'a' : 'no'} View cart button`);
  // The cart is hidden until View cart is clicked: a read that already shows it would prove nothing.
  if (text.includes('in your cart')) throw new Error('the first read already shows the cart');
  return { add: [adds[0]!, adds[1]!], viewCart: cart };
}

/** The last read must show the cart's count and, between it and the cart's own button, both items. */
function confirmCart(text: string): void {
  const at = text.indexOf(CART_LINE);
  const end = text.indexOf('Check out', at);
  if (at < 0 || end < 0) throw new Error(`the last read does not show "${CART_LINE}" in the cart`);
  const cart = text.slice(at, end);
  const missing = CART_ITEMS.filter((item) => !cart.includes(item));
  if (missing.length) throw new Error(`the cart in the last read lacks ${missing.join(', ')}`);
}

/** Tendril: `[12] button: Add`; act takes the id as `ref`. */
const tendril: Dialect = {
  readTool: 'page_text',
  findTool: 'find',
  open: async (c, url) => void (await c.call('navigate', { url })),
  async read(c) {
    // A long page comes in parts under the default budget, each ending with the cursor of the next.
    const answers = [await c.call('page_text')];
    for (let cursor = nextCursor(answers[0]!.text); cursor; cursor = nextCursor(answers.at(-1)!.text)) {
      if (answers.length > 1000) throw new Error('page_text gave more than 1000 parts');
      answers.push(await c.call('page_text', { cursor }));
    }
    return answers;
  },
  find: (c, query) => c.call('find', { query }),
  async shop(c, url) {
    const first = await c.call('navigate', { url, include_page_text: true });
    const refs = shopRefs(first.text, /\[([\d-]+)\] button: Add(?= \[|$)/gm, /\[([\d-]+)\] button: View cart(?= \[|$)/gm);
    for (const ref of refs.add) await c.call('act', { ref });
    confirmCart((await c.call('act', { ref: refs.viewCart, include_page_text: true })).text);
  },
};

function nextCursor(text: string): string | undefined {
  return /call page_text with cursor "([^"]+)" for the next part\.\)$/.exec(text)?.[1];
}

/** Playwright MCP: `button "Add" [ref=e16]`; browser_click takes it as `target`. */
const playwright: Dialect = {
  readTool: 'browser_snapshot',
  findTool: 'browser_find',
  open: async (c, url) => void (await c.call('browser_navigate', { url })),
  read: async (c) => [await c.call('browser_snapshot')],
  find: (c, query) => c.call('browser_find', { text: query }),
  async shop(c, url) {
    // 0.0.83 writes the snapshot an action takes to a file and answers with its name, so reading the
    // page is always a browser_snapshot of its own.
    await c.call('browser_navigate', { url });
    const refs = shopRefs(
      (await c.call('browser_snapshot')).text,
      /button "Add" \[ref=(\w+)\]/g,
      /button "View cart" (?:\[[^\]]*\] )*\[ref=(\w+)\]/g,
    );
    for (const [i, target] of refs.add.entries()) await c.call('browser_click', { element: `Add button of ${CART_ITEMS[i]}`, target });
    await c.call('browser_click', { element: 'View cart button', target: refs.viewCart });
    confirmCart((await c.call('browser_snapshot')).text);
  },
};

/** chrome-devtools-mcp: `uid=1_15 button "Add"`; click takes it as `uid`, and every page tool a `pageId`. */
function devtools(): Dialect {
  let pageId: number | undefined;
  const selected = (text: string): number => {
    const id = /^(\d+): .*\[selected\]$/m.exec(text)?.[1];
    if (!id) throw new Error(`no selected page in: ${text.slice(0, 200)}`);
    return Number(id);
  };
  return {
    readTool: 'take_snapshot',
    findTool: null,
    async open(c, url) {
      // Its page tools want the id of their page (page-id routing is on by default): learnt once.
      pageId ??= selected((await c.call('list_pages')).text);
      await c.call('navigate_page', { pageId, url });
    },
    read: async (c) => [await c.call('take_snapshot', { pageId })],
    find: () => Promise.reject(new Error('chrome-devtools-mcp has no search tool')),
    async shop(c, url) {
      // new_page opens the URL and lists the pages with their ids in one call; navigate_page would
      // need list_pages first to learn the id of the page it is to navigate.
      const page = selected((await c.call('new_page', { url })).text);
      const refs = shopRefs(
        (await c.call('take_snapshot', { pageId: page })).text,
        /uid=(\S+) button "Add"(?= |$)/gm,
        /uid=(\S+) button "View cart"(?= |$)/gm,
      );
      for (const uid of refs.add) await c.call('click', { pageId: page, uid });
      confirmCart((await c.call('click', { pageId: page, uid: refs.viewCart, includeSnapshot: true })).text);
    },
  };
}

/** A dialect per connection: chrome-devtools-mcp's keeps the id of its page. */
export function dialectOf(id: ServerId): Dialect {
  return id === 'tendril' ? tendril : id === 'playwright' ? playwright : devtools();
}
