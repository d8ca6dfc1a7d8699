// `tendril mcp` as MCP clients use it: the SDK's own Client, over stdio (the server is a child
// process it starts) and over Streamable HTTP, against fixture pages and the fake model server.

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServers, type FixtureServers } from '../fixtures/server.js';
import { browserEnv, call, idOf, ok, textOf } from '../support/mcp.js';
import { descendants, processAlive, waitUntilGone } from '../helpers.js';
import { runScript, waitForLine } from '../support/child.js';
import { startFakeModel, type FakeModel } from '../support/fake-model.js';
import { readPng } from '../support/png.js';

const TOOLS = [
  'act',
  'back',
  'context',
  'dialogs',
  'drag',
  'extract',
  'find',
  'navigate',
  'observe',
  'page_text',
  'press',
  'screenshot',
  'start_tracing',
  'stop_tracing',
  'tabs',
  'upload',
  'wait_for',
];

let fixtures: FixtureServers;
let fake: FakeModel;
beforeAll(async () => {
  [fixtures, fake] = await Promise.all([startFixtureServers(), startFakeModel()]);
});
afterAll(async () => {
  await Promise.all([fixtures?.close(), fake?.close()]);
});

const modelEnv = () => ({ MODEL_NAME: 'openai/gpt-4.1-mini', MODEL_API_KEY: 'sk-mcp-test', MODEL_BASE_URL: fake.url });

async function startStdio(
  env: Record<string, string>,
): Promise<{ client: Client; transport: StdioClientTransport; stderr: () => string; problems: Error[] }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', 'src/cli/main.ts', 'mcp'],
    env,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'tendril-test', version: '1.0.0' });
  const problems: Error[] = [];
  await client.connect(transport);
  // Anything on the server's stdout that is not a protocol message is reported here.
  client.onerror = (error) => problems.push(error);
  return { client, transport, stderr: () => stderr, problems };
}

/**
 * Chromium processes under `pid` (tsx may run helpers of its own there); with `main`, only the
 * browser process, not its renderers and helpers, nor the shell that removes its profile after it.
 */
function browsersOf(pid: number, main = false): number[] {
  return descendants(pid).filter((each) => {
    try {
      // Chromium rewrites its helpers' command lines into one string: no NULs between the words.
      const command = readFileSync(`/proc/${each}/cmdline`, 'utf8');
      return /chrom/i.test(command.split(/[\0 ]/)[0]!) && !(main && command.includes('--type='));
    } catch {
      return false;
    }
  });
}

describe('tendril mcp over stdio', () => {
  it('lists the tools with schemas, and each tool works against the fixture pages', async () => {
    const { client, transport, stderr, problems } = await startStdio({ ...browserEnv(), ...modelEnv() });
    try {
      // The server says the package's version, as `tendril --version` does.
      const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
      expect(client.getServerVersion()).toMatchObject({ name: 'tendril', version });
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(TOOLS);
      for (const tool of tools) {
        expect(tool.description!.length).toBeGreaterThan(40);
        expect(tool.inputSchema.type).toBe('object');
      }
      const pageText = tools.find((tool) => tool.name === 'page_text')!;
      expect((pageText.inputSchema.properties as Record<string, { enum?: string[] }>).view!.enum).toEqual([
        'full',
        'viewport',
        'interactive',
        'delta',
      ]);
      // Listing the tools does not start a browser: the first tool call does.
      expect(browsersOf(transport.pid!)).toEqual([]);

      // back: the browser's first tab has nothing before its blank page.
      const nothingBefore = await call(client, 'back');
      expect(nothingBefore.isError).toBe(true);
      expect(textOf(nothingBefore)).toBe("NavigationError: There is no earlier page in this tab's history.");

      // navigate: a short confirmation, no page text unless asked.
      const opened = await ok(client, 'navigate', { url: fixtures.a.url('frames.html') });
      expect(opened).toBe(`Opened ${fixtures.a.url('frames.html')} (HTTP 200). Title: "Frames"`);
      // A bare loopback address is taken as http:// (a public host would be https://).
      const bare = await ok(client, 'navigate', { url: fixtures.a.url('frames.html').replace(/^http:\/\//, '') });
      expect(bare).toBe(`Opened ${fixtures.a.url('frames.html')} (HTTP 200). Title: "Frames"`);

      // page_text: the out-of-process iframe and the closed shadow root inside it are read.
      const text = await ok(client, 'page_text');
      expect(text).toMatch(/heading: Top/);
      expect(text).toMatch(/cross-origin child/);
      expect(text).toMatch(/button: closed in oopif/);
      expect(await ok(client, 'page_text', { selector: 'h1' })).toMatch(/^\[(?:\d+-)?\d+\] heading: Top\b[^\n]*\n?$/);
      // Views reach the library: `interactive` keeps the shadow root's button and drops the prose.
      expect(await ok(client, 'page_text', { view: 'full' })).toBe(text);
      const interactive = await ok(client, 'page_text', { view: 'interactive' });
      expect(interactive).toMatch(/button: closed in oopif/);
      expect(interactive).not.toMatch(/cross-origin child/);

      // act with an action (no model), with the page text asked for.
      await ok(client, 'navigate', { url: fixtures.a.url('act.html') });
      const acted = await ok(client, 'act', { action: { selector: '#top', method: 'click' }, include_page_text: true });
      expect(acted).toMatch(/top clicked 1/);
      expect(acted).toMatch(/Action: \{.*"selector":"#top"/);
      // Without it: a short answer only.
      const short = await ok(client, 'act', { action: { selector: '#top', method: 'click' } });
      expect(short).not.toMatch(/heading: Act page/);
      expect(await ok(client, 'page_text', { selector: '#top-state' })).toMatch(/top clicked 2/);

      // observe, then act on what it returned: one model request for both.
      fake.reset();
      fake.script((request) => ({
        json: {
          elements: [{ elementId: idOf(request, 'button', 'Top button'), description: 'the top button', method: 'click', arguments: [] }],
        },
      }));
      const observed = JSON.parse(await ok(client, 'observe', { instruction: 'the top button' })) as Array<{
        selector: string;
        description: string;
      }>;
      expect(observed).toHaveLength(1);
      expect(observed[0]!.selector).toMatch(/^xpath=\/html/);
      await ok(client, 'act', { action: observed[0] });
      expect(await ok(client, 'page_text', { selector: '#top-state' })).toMatch(/top clicked 3/);
      expect(fake.requests).toHaveLength(1);

      // act with an instruction: the model picks the element.
      fake.reset();
      fake.script((request) => ({
        json: { elementId: idOf(request, 'textbox', 'Name'), method: 'fill', arguments: ['Ada'], description: 'fill the name' },
      }));
      expect(await ok(client, 'act', { instruction: 'type Ada as the name' })).toMatch(/fill/i);
      expect(fake.requests).toHaveLength(1);

      // extract with a JSON Schema: the model's answer, checked, links as the page's real URLs.
      await ok(client, 'navigate', { url: fixtures.a.url('extract-shop.html') });
      fake.reset();
      fake.script((request) => ({ json: { title: 'Tendril Shop', link: idOf(request, 'link', 'Details of Widget A'), count: 2 } }));
      const schema = {
        type: 'object',
        properties: { title: { type: 'string' }, link: { type: 'string', format: 'uri' }, count: { type: 'integer' } },
        required: ['title', 'link', 'count'],
      };
      const extracted = JSON.parse(await ok(client, 'extract', { instruction: 'The title, first link and number of products', schema }));
      expect(extracted).toEqual({ title: 'Tendril Shop', link: `${fixtures.a.origin}/products/widget-a?ref=list`, count: 2 });
      expect(fake.requests[0]!.schema).toBeDefined();
      // An answer that does not fit (a link the page does not have) is a tool error naming why.
      fake.reset();
      fake.script([{ json: { title: 'Tendril Shop', link: 'nowhere', count: 2 } }]);
      const misfit = await call(client, 'extract', { instruction: 'The same', schema });
      expect(misfit.isError).toBe(true);
      expect(textOf(misfit)).toMatch(/^SchemaValidationError: .*not on the page/);

      // screenshot: the viewport, and an element in another origin's frame, scrolled into view.
      await ok(client, 'navigate', { url: fixtures.a.url('capture.html') });
      const shot = await call(client, 'screenshot');
      expect(shot.isError).toBeUndefined();
      expect(shot.content[0]).toMatchObject({ type: 'image', mimeType: 'image/png' });
      expect(readPng(Buffer.from(shot.content[0]!.data!, 'base64')).width).toBe(1280);
      const element = await call(client, 'screenshot', { selector: '#oop >> #inner' });
      const png = readPng(Buffer.from(element.content[0]!.data!, 'base64'));
      expect([png.width, png.height]).toEqual([120, 60]);
      expect(png.pixel(60, 30)).toEqual([0, 0, 204]);

      // back: to the shop, then its title says so.
      expect(await ok(client, 'back')).toBe(`Went back to ${fixtures.a.url('extract-shop.html')}. Title: "Tendril Shop"`);
      expect(await ok(client, 'back', { include_page_text: true })).toMatch(/heading: Act page/);

      // tabs: open one (it becomes current), select the first again, close the second.
      expect(await ok(client, 'tabs', { action: 'list' })).toBe(`Tabs (* is current):\n* 0: "Act page" — ${fixtures.a.url('act.html')}`);
      const two = await ok(client, 'tabs', { action: 'open', url: fixtures.b.url('leaf.html') });
      expect(two.split('\n').slice(1)).toEqual([
        `  0: "Act page" — ${fixtures.a.url('act.html')}`,
        `* 1: "Leaf" — ${fixtures.b.url('leaf.html')}`,
      ]);
      expect(await ok(client, 'page_text')).toMatch(/leaf text/);
      expect(await ok(client, 'tabs', { action: 'select', index: 0 })).toMatch(/\* 0: "Act page"/);
      expect(await ok(client, 'page_text', { selector: '#top-state' })).toMatch(/top idle|top clicked/);
      expect((await ok(client, 'tabs', { action: 'close', index: 1 })).split('\n')).toHaveLength(2);
      const noTab = await call(client, 'tabs', { action: 'select', index: 5 });
      expect(noTab.isError).toBe(true);
      expect(textOf(noTab)).toMatch(/^InvalidOptionError: There is no tab 5/);
    } finally {
      const pid = transport.pid!;
      const browser = descendants(pid);
      // Closing the client ends the server's stdin: it closes the browser and exits.
      await client.close();
      expect(await waitUntilGone([pid, ...browser], 15_000)).toEqual([]);
      expect(stderr()).toMatch(/stopping \(stdin (ended|closed)\)/);
      expect(stderr()).not.toContain('sk-mcp-test');
      expect(problems).toEqual([]);
    }
  }, 120_000);

  it('answers a bad selector and a missing model with tool errors, and the next call works', async () => {
    // No model key anywhere: the default model cannot be used.
    const { client, transport } = await startStdio(browserEnv());
    try {
      await ok(client, 'navigate', { url: fixtures.a.url('frames.html') });
      const bad = await call(client, 'page_text', { selector: '//div[' });
      expect(bad.isError).toBe(true);
      expect(textOf(bad)).toMatch(/^SelectorSyntaxError: The selector "\/\/div\[" is not valid/);
      const missing = await call(client, 'screenshot', { selector: '#no-such-element' });
      expect(textOf(missing)).toMatch(/^ElementNotFoundError: No element matches/);

      const noModel = await call(client, 'extract', { instruction: 'the heading' });
      expect(noModel.isError).toBe(true);
      expect(textOf(noModel)).toMatch(/^MissingLLMConfigurationError: .*OPENAI_API_KEY.*--model/s);
      const noModelAct = await call(client, 'act', { instruction: 'click the button' });
      expect(textOf(noModelAct)).toMatch(/^MissingLLMConfigurationError: /);
      const neither = await call(client, 'act', {});
      expect(textOf(neither)).toMatch(/^InvalidOptionError: Give act one of `ref` \(an id from page_text\), `instruction` or `action`/);
      // The schema the tool declares is checked before the tool runs.
      const wrongType = await call(client, 'navigate', { url: 42 });
      expect(wrongType.isError).toBe(true);
      expect(textOf(wrongType)).toMatch(/Input validation error/);

      // Still alive, and still on its page.
      expect(await ok(client, 'page_text')).toMatch(/cross-origin child/);
      expect(processAlive(transport.pid!)).toBe(true);

      // A browser that dies is a tool error, and the next call starts another.
      const browser = browsersOf(transport.pid!, true);
      expect(browser).toHaveLength(1);
      for (const pid of browser) process.kill(pid, 'SIGKILL');
      expect(await waitUntilGone(browser, 10_000)).toEqual([]);
      const dead = await call(client, 'page_text');
      expect(dead.isError).toBe(true);
      expect(textOf(dead)).toMatch(/^ConnectionClosedError: .*The next call starts a new browser\.$/s);
      await ok(client, 'navigate', { url: fixtures.a.url('frames.html') });
      expect(await ok(client, 'page_text')).toMatch(/cross-origin child/);
    } finally {
      await client.close();
    }
  }, 60_000);
});

describe('tendril mcp --port (Streamable HTTP)', () => {
  it('answers 401 and nothing else without the token, serves the tools with it, and on SIGTERM closes the browser and exits 0', async () => {
    const server = runScript('src/cli/main.ts', ['mcp', '--port', '0', '--token', 'tok-mcp-secret'], browserEnv());
    try {
      const [, url] = await waitForLine(server, /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/);
      const initialize = {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      };
      const post = (authorization?: string) =>
        fetch(url!, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...(authorization && { authorization }),
          },
          body: JSON.stringify(initialize),
        });
      for (const authorization of [
        undefined,
        'Bearer wrong',
        'Bearer tok-mcp-secre',
        'Bearer tok-mcp-secretx',
        'tok-mcp-secret',
        'Basic tok-mcp-secret',
      ]) {
        const response = await post(authorization);
        expect({ authorization, status: response.status }).toEqual({ authorization, status: 401 });
        expect(await response.text()).toBe('Unauthorized\n');
      }
      const accepted = await post('Bearer tok-mcp-secret');
      expect(accepted.status).toBe(200);
      await accepted.body?.cancel();
      // A web page the user visits may not reach a loopback server (DNS rebinding, cross-site posts).
      const foreign = await fetch(url!, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: 'Bearer tok-mcp-secret',
          origin: 'http://evil.example',
        },
        body: JSON.stringify(initialize),
      });
      expect(foreign.status).toBe(403);
      await foreign.body?.cancel();
      const rebound = await new Promise<number>((resolve, reject) => {
        const headers = {
          host: 'evil.example',
          authorization: 'Bearer tok-mcp-secret',
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        };
        const request = httpRequest(url!, { method: 'POST', headers }, (response) => {
          response.resume();
          resolve(response.statusCode!);
        });
        request.on('error', reject);
        request.end(JSON.stringify(initialize));
      });
      expect(rebound).toBe(403);
      expect((await fetch(url!.replace(/\/mcp$/, '/other'), { headers: { authorization: 'Bearer tok-mcp-secret' } })).status).toBe(404);

      const client = new Client({ name: 'tendril-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url!), { requestInit: { headers: { authorization: 'Bearer tok-mcp-secret' } } }),
      );
      expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(TOOLS);
      await ok(client, 'navigate', { url: fixtures.a.url('frames.html') });
      const text = await ok(client, 'page_text');
      expect(text).toMatch(/cross-origin child/);
      expect(text).toMatch(/closed in oopif/);
      const bad = await call(client, 'page_text', { selector: '//div[' });
      expect(textOf(bad)).toMatch(/^SelectorSyntaxError: /);
      expect(await ok(client, 'page_text', { selector: 'h1' })).toMatch(/heading: Top/);
      await client.close();

      const browser = descendants(server.child.pid!);
      expect(browser.length).toBeGreaterThan(0);
      server.child.kill('SIGTERM');
      expect(await server.exit).toBe(0);
      expect(await waitUntilGone(browser, 10_000)).toEqual([]);
      expect(server.stdout() + server.stderr()).not.toContain('tok-mcp-secret');
    } finally {
      server.child.kill('SIGKILL');
    }
  }, 90_000);

  it('lists every tool in its --help', async () => {
    const help = runScript('src/cli/main.ts', ['mcp', '--help'], browserEnv());
    expect(await help.exit).toBe(0);
    const listed = /Tools: ([\w, ]+)\./.exec(help.stdout().replace(/\s+/g, ' '))?.[1]?.split(', ');
    expect(listed?.sort()).toEqual(TOOLS);
  });

  it('refuses a wrong command line: --token without --port, a bad port, a bad --model-timeout', async () => {
    const noPort = runScript('src/cli/main.ts', ['mcp', '--token', 'x'], browserEnv());
    expect(await noPort.exit).toBe(2);
    expect(noPort.stderr()).toMatch(/--host and --token are for HTTP/);
    const badPort = runScript('src/cli/main.ts', ['mcp', '--port', 'eighty'], browserEnv());
    expect(await badPort.exit).toBe(2);
    expect(badPort.stderr()).toMatch(/--port takes a port number/);
    const badTimeout = runScript('src/cli/main.ts', ['mcp', '--model-timeout', 'soon'], browserEnv());
    expect(await badTimeout.exit).toBe(2);
    expect(badTimeout.stderr()).toMatch(/--model-timeout takes a positive number of milliseconds, not "soon"/);
  });
});
