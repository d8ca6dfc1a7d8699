// An agent's loop over MCP with no model anywhere: read the page (in parts when it is long), find
// lines in it, and act on the ids it read, in the top document, an out-of-process iframe and a
// closed shadow root. Over stdio and over Streamable HTTP, with the SDK's own client.

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServers, type FixtureServers } from '../fixtures/server.js';
import { runScript, waitForLine, type Run } from '../support/child.js';
import { browserEnv, call, ok, textOf } from '../support/mcp.js';

let fixtures: FixtureServers;
beforeAll(async () => {
  fixtures = await startFixtureServers();
});
afterAll(async () => {
  await fixtures?.close();
});

/** A client of `tendril mcp` (no model configured), over stdio or over HTTP. */
async function connect(kind: 'stdio' | 'http'): Promise<{ client: Client; stop: () => Promise<void> }> {
  const client = new Client({ name: 'tendril-agent-test', version: '1.0.0' });
  if (kind === 'stdio') {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', 'src/cli/main.ts', 'mcp'],
      env: browserEnv(),
      stderr: 'pipe',
    });
    await client.connect(transport);
    return { client, stop: () => client.close() };
  }
  const server: Run = runScript('src/cli/main.ts', ['mcp', '--port', '0'], browserEnv());
  const [, url] = await waitForLine(server, /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/);
  await client.connect(new StreamableHTTPClientTransport(new URL(url!)));
  return {
    client,
    stop: async () => {
      await client.close();
      server.child.kill('SIGTERM');
      await server.exit;
    },
  };
}

function idOfLine(text: string, line: RegExp): string {
  const found = text.split('\n').find((each) => line.test(each));
  const id = found && /\[((?:\d+-)?\d+)\]/.exec(found)?.[1];
  if (!id) throw new Error(`no line like ${line} in:\n${text}`);
  return id;
}

describe.each(['stdio', 'http'] as const)('an agent over %s, with no model', (kind) => {
  it('reads the page, then acts on the ids it read: top document, out-of-process iframe, closed shadow root', async () => {
    const { client, stop } = await connect(kind);
    try {
      await ok(client, 'navigate', { url: fixtures.a.url('/act.html') });
      const pageText = await ok(client, 'page_text');
      const oopFrame = pageText
        .split('\n')
        .filter((line) => /button: Frame button/.test(line))
        .map((line) => /\[(\d+-\d+)\]/.exec(line)![1]!)[1]!;
      expect(await ok(client, 'act', { ref: idOfLine(pageText, /button: Top button/) })).toMatch(/^Done: click on \[\d+\]\.$/);
      await ok(client, 'act', { ref: oopFrame });
      await ok(client, 'act', { ref: idOfLine(pageText, /button: Shadow button/) });
      await ok(client, 'act', { ref: idOfLine(pageText, /textbox: Name/), method: 'fill', arguments: ['Grace'] });
      const after = await ok(client, 'page_text');
      expect(after).toContain('top clicked 1');
      expect(after).toMatch(/frame clicked 1/);
      expect(after).toContain('shadow clicked');
      expect(after).toMatch(/textbox: Name.*Grace/);

      // A stale id (the page was read again and navigated since) says to read again; the next call works.
      await ok(client, 'navigate', { url: fixtures.a.url('/act.html') });
      const stale = await call(client, 'act', { ref: '99999' });
      expect(stale.isError).toBe(true);
      expect(textOf(stale)).toMatch(/^ElementIdNotFoundError: .*Read the page again/);
      const both = await call(client, 'act', { ref: '1', instruction: 'click it' });
      expect(textOf(both)).toMatch(/^InvalidOptionError: Give act one of `ref`/);
      expect(await ok(client, 'page_text')).toContain('top idle');
    } finally {
      await stop();
    }
  });

  it('acts on the ref it read before the page changed: the same element, or ElementIdNotFoundError once it is gone', async () => {
    const { client, stop } = await connect(kind);
    try {
      await ok(client, 'navigate', { url: fixtures.a.url('/ids.html') });
      const first = await ok(client, 'page_text');
      const [target, inShadow, doomed] = [/button: Target$/, /button: Shadow target$/, /button: Doomed$/].map((line) =>
        idOfLine(first, line),
      );
      // The page adds lines above the targets; the agent reads it again, and acts on the refs of the first read.
      await ok(client, 'act', { ref: idOfLine(first, /button: Add above$/) });
      const second = await ok(client, 'page_text');
      expect(second).toContain('button: Inserted 1');
      expect(idOfLine(second, /button: Target$/)).toBe(target);
      expect(idOfLine(await ok(client, 'find', { query: 'Target' }), /button: Target$/)).toBe(target);
      await ok(client, 'act', { ref: target });
      expect(await ok(client, 'find', { query: 'pressed' })).toContain('pressed Target');
      await ok(client, 'act', { ref: idOfLine(first, /button: Add above$/) });
      await ok(client, 'act', { ref: inShadow });
      expect(await ok(client, 'find', { query: 'pressed' })).toContain('pressed Shadow target');
      // Gone: a typed error that says to read again, and nothing else pressed.
      await ok(client, 'act', { ref: idOfLine(first, /button: Remove doomed$/) });
      const gone = await call(client, 'act', { ref: doomed });
      expect(gone.isError).toBe(true);
      expect(textOf(gone)).toMatch(/^ElementIdNotFoundError: .*gone.*Read the page again/);
      expect(await ok(client, 'find', { query: 'pressed' })).toContain('pressed Shadow target');
    } finally {
      await stop();
    }
  });

  it('reads a 10,000-row table in parts under the budget, every row once, and finds a row with where it sits', async () => {
    const { client, stop } = await connect(kind);
    try {
      await ok(client, 'navigate', { url: fixtures.a.url('/extract-table.html') });
      const rows: string[] = [];
      let cursor: string | undefined;
      let parts = 0;
      do {
        const answer = await ok(client, 'page_text', { max_chars: 20_000, ...(cursor && { cursor }) });
        const [body, footer] = answer.split(/\n\n(?=\(lines \d+-\d+ of \d+;)/);
        expect(body!.length).toBeLessThanOrEqual(20_000);
        expect(footer).toMatch(/^\(lines \d+-\d+ of \d+; /);
        for (const match of body!.matchAll(/row: (Item \d+) \|/g)) rows.push(match[1]!);
        cursor = /cursor "([^"]+)"/.exec(footer!)?.[1];
        parts++;
      } while (cursor && parts < 200);
      expect(parts).toBeGreaterThan(5);
      expect(rows).toHaveLength(10_000);
      expect(new Set(rows).size).toBe(10_000);

      const found = await ok(client, 'find', { query: 'item 7777' });
      expect(found).toMatch(/^1 line match:/);
      const lines = found.split('\n').slice(1);
      // The row, and the lines it sits in (the table, the main part, the page), in page order.
      expect(lines.at(-1)).toMatch(/^ *\[\d+\] row: Item 7777 \| \d+$/);
      expect(lines.some((line) => /\] table$/.test(line))).toBe(true);
      expect(lines[0]).toMatch(/RootWebArea: Big table/);
      const depths = lines.map((line) => line.length - line.trimStart().length);
      expect([...depths].sort((a, b) => a - b)).toEqual(depths);
      // A cursor from an earlier read is refused, plainly.
      const old = await call(client, 'page_text', { cursor: '5.aaaaaaaaaaaa' });
      expect(textOf(old)).toMatch(/^InvalidOptionError: This cursor belongs to an earlier read/);
    } finally {
      await stop();
    }
  });
});
