// Traces of MCP sessions, over the SDK's own client and stdio as a client runs `tendril mcp`:
// --trace-dir traces the session's context from its first tool call to its end, and the
// start_tracing / stop_tracing tools record a stretch of it, stop_tracing answering the file's path.

import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServers, type FixtureServers } from '../fixtures/server.js';
import { waitUntilGone } from '../helpers.js';
import { browserEnv, ok } from '../support/mcp.js';
import { traceActions } from '../support/trace-file.js';

let fixtures: FixtureServers;
const dir = mkdtempSync(path.join(os.tmpdir(), 'tendril-mcp-trace-'));

beforeAll(async () => {
  fixtures = await startFixtureServers();
});

afterAll(async () => {
  await fixtures?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function startStdio(flags: string[]): Promise<{ client: Client; transport: StdioClientTransport; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', 'src/cli/main.ts', 'mcp', ...flags],
    env: browserEnv(),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'tendril-trace-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport, stderr: () => stderr };
}

describe('tendril mcp traces', () => {
  it('--trace-dir: the session ends, and its trace holds the actions its tool calls made', async () => {
    const traces = path.join(dir, 'sessions');
    const { client, transport, stderr } = await startStdio(['--trace-dir', traces]);
    const pid = transport.pid!;
    const page = fixtures.a.url('leaf.html');
    await ok(client, 'navigate', { url: page });
    await ok(client, 'screenshot');
    await client.close();
    expect(await waitUntilGone([pid], 20_000)).toEqual([]);
    const files = readdirSync(traces);
    expect(files, stderr()).toHaveLength(1);
    expect(files[0]).toMatch(/^mcp-own-process-.*\.zip$/);
    expect(stderr()).toContain(`trace of a session: ${path.join(traces, files[0]!)}`);
    const titles = traceActions(path.join(traces, files[0]!)).map((action) => action.title);
    expect(titles).toContain(`goto ${page}`);
    expect(titles).toContain('screenshot');
  }, 90_000);

  it('start_tracing and stop_tracing record what lies between, and stop_tracing answers the file', async () => {
    const traces = path.join(dir, 'tools');
    const { client } = await startStdio(['--trace-dir', traces]);
    try {
      const before = fixtures.a.url('leaf.html');
      await ok(client, 'navigate', { url: before });
      // The session's own trace (--trace-dir) already records: a second start is refused, clearly.
      const refused = await client.callTool({ name: 'start_tracing', arguments: {} });
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content)).toContain('TracingStateError');
      const stopped = JSON.parse(await ok(client, 'stop_tracing')) as { trace: string };
      expect(path.dirname(stopped.trace)).toBe(traces);
      expect(traceActions(stopped.trace).map((action) => action.title)).toContain(`goto ${before}`);

      await ok(client, 'start_tracing', { title: 'second' });
      const during = fixtures.b.url('leaf.html');
      await ok(client, 'navigate', { url: during });
      const second = JSON.parse(await ok(client, 'stop_tracing')) as { trace: string };
      expect(second.trace).not.toBe(stopped.trace);
      const titles = traceActions(second.trace).map((action) => action.title);
      expect(titles).toContain(`goto ${during}`);
      expect(titles).not.toContain(`goto ${before}`);
    } finally {
      await client.close();
    }
  }, 90_000);
});
