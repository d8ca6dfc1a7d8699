// `tendril mcp --port`: one isolated browser context per client. Ten clients (the SDK's own) drive
// one server at once, each navigating, reading and acting by id, with 2025-era sessions and with
// `context` handles (revision 2026-07-28, which has no sessions). The server is attached to a Chrome
// the test started, so that the test sees, over a DevTools connection of its own, which browser
// contexts, tabs and cookies there are, and that a context's are gone once it ends.

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import CDP from 'chrome-remote-interface';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withDeadline } from '../../src/util/time.js';
import { startFixtureServers, type FixtureServers } from '../fixtures/server.js';
import { startDebugChrome, type DebugChrome } from '../helpers.js';
import { runScript, waitForLine, type Run } from '../support/child.js';
import { browserEnv, call, idOf, ok, textOf } from '../support/mcp.js';

const TOKEN = 'tok-contexts';
const CLIENTS = 10;

type Cdp = Awaited<ReturnType<typeof CDP>>;

let fixtures: FixtureServers;
let chrome: DebugChrome;
let cdp: Cdp;
const servers: Run[] = [];

beforeAll(async () => {
  [fixtures, chrome] = await Promise.all([startFixtureServers(), startDebugChrome()]);
  cdp = await CDP({ target: chrome.wsUrl });
}, 30_000);
afterAll(async () => {
  for (const server of servers) server.child.kill('SIGTERM');
  await Promise.all(servers.map((server) => server.exit));
  await cdp?.close();
  await chrome?.kill();
  await fixtures?.close();
});

/** Stops a server (as its tests end, so that the next test's server has the browser to itself). */
async function stop(server: Run): Promise<void> {
  server.child.kill('SIGTERM');
  await server.exit;
}

/** A `tendril mcp --port` attached to the test's Chrome; resolves with its URL. */
async function startServer(...flags: string[]): Promise<{ server: Run; url: URL }> {
  const server = runScript('src/cli/main.ts', ['mcp', '--port', '0', '--token', TOKEN, '--cdp-url', chrome.wsUrl, ...flags], browserEnv());
  servers.push(server);
  const [, url] = await waitForLine(server, /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/);
  return { server, url: new URL(url!) };
}

async function connect(url: URL, modern: boolean): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client(
    { name: 'tendril-contexts-test', version: '1.0.0' },
    modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } });
  await client.connect(transport);
  expect(client.getNegotiatedProtocolVersion() === '2026-07-28').toBe(modern);
  return { client, transport };
}

/** The browser's own view: each browser context's tabs (their URLs) and cookies, by context id. */
async function browserState(): Promise<Map<string, { urls: string[]; cookies: string[] }>> {
  const { browserContextIds } = await cdp.send('Target.getBrowserContexts');
  const { targetInfos } = await cdp.send('Target.getTargets');
  const state = new Map<string, { urls: string[]; cookies: string[] }>();
  for (const id of browserContextIds) {
    // A context may end between the two questions (on its idle limit): it is then not there.
    const cookies = await cdp.send('Storage.getCookies', { browserContextId: id }).then(
      ({ cookies }) => cookies,
      () => undefined,
    );
    if (!cookies) continue;
    const urls = targetInfos.filter((info) => info.type === 'page' && info.browserContextId === id).map((info) => info.url);
    state.set(id, { urls, cookies: cookies.map((cookie) => `${cookie.name}=${cookie.value}`) });
  }
  return state;
}

/** The context whose tab shows client `i`'s page. */
function contextOf(state: Map<string, { urls: string[] }>, i: number): string {
  const found = [...state].filter(([, { urls }]) => urls.some((url) => url.endsWith(`?client=${i}`)));
  expect(found).toHaveLength(1);
  return found[0]![0];
}

/**
 * One client's work: open its page, read it, fill its name by id and press Remember by id, then
 * open the page afresh. At each step it sees its own page, and only its own cookie and storage.
 */
async function drive(client: Client, i: number, extra: Record<string, unknown> = {}): Promise<void> {
  const url = fixtures.a.url(`mcp-contexts.html?client=${i}`);
  expect(await ok(client, 'navigate', { url, ...extra })).toBe(`Opened ${url} (HTTP 200). Title: "Contexts"`);
  const text = await ok(client, 'page_text', extra);
  expect(text).toMatch(new RegExp(`heading: Client ${i} \\[level=1\\]`));
  expect(text).toMatch(/Cookie: none; stored: none/);
  await ok(client, 'act', { ref: idOf({ user: text }, 'textbox', 'Name'), method: 'fill', arguments: [`c${i}`], ...extra });
  const found = await ok(client, 'find', { query: 'Remember', ...extra });
  const acted = await ok(client, 'act', { ref: idOf({ user: found }, 'button', 'Remember'), include_page_text: true, ...extra });
  expect(acted).toMatch(new RegExp(`Cookie: who=c${i}; stored: c${i}$`, 'm'));
  await ok(client, 'navigate', { url, ...extra });
  const again = await ok(client, 'page_text', extra);
  expect(again).toMatch(new RegExp(`heading: Client ${i} \\[level=1\\]`));
  expect(again).toMatch(new RegExp(`Cookie: who=c${i}; stored: c${i}$`, 'm'));
  expect(await ok(client, 'tabs', { action: 'list', ...extra })).toBe(`Tabs (* is current):\n* 0: "Contexts" — ${url}`);
}

/** Every client's context holds its own tab and cookie, and no other's; returns the contexts in client order. */
async function expectIsolated(): Promise<string[]> {
  const state = await browserState();
  const ids = Array.from({ length: CLIENTS }, (_, i) => contextOf(state, i));
  expect(new Set(ids).size).toBe(CLIENTS);
  ids.forEach((id, i) =>
    expect(state.get(id)).toEqual({ urls: [fixtures.a.url(`mcp-contexts.html?client=${i}`)], cookies: [`who=c${i}`] }),
  );
  // The browser's default context, where the server's own first tab is, has none of them.
  const { cookies } = await cdp.send('Storage.getCookies', {});
  expect(cookies.filter((cookie) => cookie.name === 'who')).toEqual([]);
  return ids;
}

describe('tendril mcp --port: one browser context per client', () => {
  it('isolates 10 concurrent 2025-era clients by their MCP session, and ends a context with its session', async () => {
    const { server, url } = await startServer();
    const clients = await Promise.all(Array.from({ length: CLIENTS }, () => connect(url, false)));
    try {
      await Promise.all(clients.map(({ client }, i) => drive(client, i)));
      const ids = await expectIsolated();

      // Ending a session (DELETE) disposes its context: its tab and cookie are gone, the others' stay.
      await Promise.all(clients.slice(0, 5).map(({ transport }) => transport.terminateSession()));
      const after = await browserState();
      for (const [i, id] of ids.entries()) expect({ i, alive: after.has(id) }).toEqual({ i, alive: i >= 5 });
      expect([...after.values()].flatMap(({ urls }) => urls).filter((each) => /client=[0-4]$/.test(each))).toEqual([]);
      expect(after.get(ids[7]!)!.cookies).toEqual(['who=c7']);
      // The rest go on where they were.
      expect(await ok(clients[7]!.client, 'page_text', { selector: '#state' })).toMatch(/Cookie: who=c7; stored: c7/);
    } finally {
      await Promise.all(clients.map(({ client }) => client.close()));
      await stop(server);
    }
  }, 120_000);

  it("isolates 10 concurrent 2026-07-28 clients by `context` handles, apart from the caller's default context; close ends one", async () => {
    const { server, url } = await startServer();
    const clients = await Promise.all(Array.from({ length: CLIENTS }, () => connect(url, true)));
    try {
      const handles = await Promise.all(
        clients.map(async ({ client }) => (JSON.parse(await ok(client, 'context', { action: 'open' })) as { context: string }).context),
      );
      expect(new Set(handles).size).toBe(CLIENTS);
      await Promise.all(clients.map(({ client }, i) => drive(client, i, { context: handles[i] })));
      const ids = await expectIsolated();

      // Without a handle, a call works in the token holder's default context, which none of them is.
      const own = await ok(clients[0]!.client, 'tabs', { action: 'list' });
      expect(own).not.toMatch(/Contexts/);
      const listed = JSON.parse(await ok(clients[3]!.client, 'context', { action: 'list' })) as {
        contexts: Array<{ context: string; tabs: number }>;
      };
      expect(listed.contexts.map((each) => each.context).sort()).toEqual([...handles].sort());
      expect(listed.contexts.every((each) => each.tabs === 1)).toBe(true);

      // close: the context, its tab and its cookie are gone; its handle is refused from then on.
      expect(await ok(clients[2]!.client, 'context', { action: 'close', context: handles[2] })).toMatch(/^Closed context/);
      const after = await browserState();
      expect(after.has(ids[2]!)).toBe(false);
      expect([...after.values()].flatMap(({ urls }) => urls).filter((each) => each.endsWith('client=2'))).toEqual([]);
      expect(after.get(ids[3]!)!.cookies).toEqual(['who=c3']);
      const closed = await call(clients[2]!.client, 'page_text', { context: handles[2] });
      expect(closed.isError).toBe(true);
      expect(textOf(closed)).toMatch(
        /^ContextClosedError: There is no open context ".*": it was closed, or ended after 30 minutes without a tool call\. Open another/,
      );
      const unknown = await call(clients[2]!.client, 'navigate', { url: fixtures.a.url('leaf.html'), context: 'made-up' });
      expect(textOf(unknown)).toMatch(/^ContextClosedError: There is no open context "made-up"/);
      // The others are as they were.
      expect(await ok(clients[3]!.client, 'page_text', { selector: '#state', context: handles[3] })).toMatch(/Cookie: who=c3; stored: c3/);
    } finally {
      await Promise.all(clients.map(({ client }) => client.close()));
      await stop(server);
    }
  }, 120_000);

  it('ends a context after the idle limit (a handle, and a 2025-era session, which the server then lets go)', async () => {
    const { server, url } = await startServer('--context-idle-timeout', '3000');
    const modern = await connect(url, true);
    const legacy = await connect(url, false);
    try {
      const handle = (JSON.parse(await ok(modern.client, 'context', { action: 'open' })) as { context: string }).context;
      // Each opened a tab in its context (the answer says so); both go once the contexts end.
      expect(await ok(modern.client, 'navigate', { url: fixtures.a.url('mcp-contexts.html?client=idle-handle'), context: handle })).toMatch(
        /^Opened/,
      );
      expect(await ok(legacy.client, 'navigate', { url: fixtures.a.url('mcp-contexts.html?client=idle-session') })).toMatch(/^Opened/);

      // The server says so when each ends; nothing is polled.
      const ended = (what: RegExp) =>
        withDeadline(
          new Promise<void>((resolve) => {
            const check = () => what.test(server.stderr()) && resolve();
            server.child.stderr!.on('data', check);
            check();
          }),
          15_000,
          `Waiting for ${what}`,
        );
      await Promise.all([
        ended(/a context ended after 3 s without a tool call \(a `context` handle\)/),
        ended(/a context ended after 3 s without a tool call \(an MCP session\)/),
      ]);
      const after = await browserState();
      expect([...after.values()].flatMap(({ urls }) => urls).filter((each) => /client=idle-/.test(each))).toEqual([]);
      expect(textOf(await call(modern.client, 'page_text', { context: handle }))).toMatch(/^ContextClosedError: There is no open context/);
      // The session is gone with its context: its next request is refused, and a new session starts afresh.
      await expect(legacy.client.callTool({ name: 'page_text', arguments: {} })).rejects.toThrow(/404|Session not found/);
      const fresh = await connect(url, false);
      expect(await ok(fresh.client, 'tabs', { action: 'list' })).toBe('Tabs (* is current):\n* 0: "" — about:blank');
      await fresh.client.close();
    } finally {
      await Promise.all([modern.client.close(), legacy.client.close()]);
      await stop(server);
    }
  }, 60_000);

  it('with --shared, every client works in one browser context, as one', async () => {
    const { server, url } = await startServer('--shared');
    const [first, second] = await Promise.all([connect(url, false), connect(url, true)]);
    try {
      expect((await first.client.listTools()).tools.map((tool) => tool.name)).not.toContain('context');
      await ok(first.client, 'navigate', { url: fixtures.a.url('mcp-contexts.html?client=shared') });
      expect(await ok(second.client, 'page_text', { selector: 'h1' })).toMatch(/heading: Client shared/);
      const refused = await call(second.client, 'page_text', { context: 'any' });
      expect(textOf(refused)).toMatch(/Input validation error/);
    } finally {
      await Promise.all([first.client.close(), second.client.close()]);
      await stop(server);
    }
  }, 60_000);
});
