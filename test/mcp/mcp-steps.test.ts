// The agent's other steps over MCP, with no model: a key, files for a file input (only from the
// upload directory), a drag, a wait for a text, and a dialog policy.

import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { mkdtempSync, writeFileSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServers, type FixtureServers } from '../fixtures/server.js';
import { browserEnv, call, ok, textOf } from '../support/mcp.js';

let fixtures: FixtureServers;
let client: Client;
const uploads = mkdtempSync(path.join(os.tmpdir(), 'tendril-uploads-'));
const outside = mkdtempSync(path.join(os.tmpdir(), 'tendril-outside-'));

beforeAll(async () => {
  fixtures = await startFixtureServers();
  writeFileSync(path.join(uploads, 'notes.txt'), 'twelve bytes');
  writeFileSync(path.join(outside, 'secret.txt'), 'not for pages');
  symlinkSync(path.join(outside, 'secret.txt'), path.join(uploads, 'link.txt'));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', 'src/cli/main.ts', 'mcp', '--upload-dir', uploads],
    env: browserEnv(),
    stderr: 'pipe',
  });
  client = new Client({ name: 'tendril-steps-test', version: '1.0.0' });
  await client.connect(transport);
});
afterAll(async () => {
  await client?.close();
  await fixtures?.close();
});

const idOf = (pageText: string, line: RegExp) =>
  /\[((?:\d+-)?\d+)\]/.exec(pageText.split('\n').find((each) => line.test(each)) ?? '')?.[1] ?? '';

describe('the step tools', () => {
  it('press, upload, drag, wait_for and dialogs, each doing what it says', async () => {
    await ok(client, 'navigate', { url: fixtures.a.url('/mcp-steps.html') });
    const pageText = await ok(client, 'page_text');

    // A key into an element, and a chord into whatever has focus.
    await ok(client, 'press', { key: 'Enter', ref: idOf(pageText, /textbox: Search/) });
    expect(await ok(client, 'find', { query: 'searched' })).toMatch(/searched for nothing/);

    // Files only from the upload directory: a path out of it, or a link leading out, is refused.
    const input = idOf(pageText, /button: Attachment/);
    expect(textOf(await call(client, 'upload', { ref: input, paths: ['../' + path.basename(outside) + '/secret.txt'] }))).toMatch(
      /^InvalidOptionError: .*outside the upload directory/,
    );
    expect(textOf(await call(client, 'upload', { ref: input, paths: ['link.txt'] }))).toMatch(
      /^InvalidOptionError: .*outside the upload directory/,
    );
    await ok(client, 'upload', { ref: input, paths: ['notes.txt'] });
    expect(await ok(client, 'find', { query: 'chosen' })).toMatch(/chosen: notes\.txt \(12 bytes\)/);

    // A drag from the card onto the bin.
    await ok(client, 'drag', { from: idOf(pageText, /Drag me/), to: idOf(pageText, /Bin/) });
    expect(await ok(client, 'find', { query: 'dropped' })).toMatch(/dropped in the bin/);

    // A text that shows later, and one that goes.
    await ok(client, 'act', { ref: idOf(pageText, /button: Start/) });
    await ok(client, 'wait_for', { text: 'Job done' });
    await ok(client, 'wait_for', { text: 'Working', gone: true });
    const late = await call(client, 'wait_for', { text: 'Never shows', timeout_ms: 300 });
    expect(textOf(late)).toMatch(/^TimeoutError: /);

    // Dialogs: a confirm is dismissed by default, accepted once asked, and a prompt gets its answer.
    // (The page grew a line since the first read: ids are of the latest read, so read again.)
    const now = await ok(client, 'page_text');
    await ok(client, 'act', { ref: idOf(now, /button: Confirm/) });
    expect(await ok(client, 'find', { query: 'confirmed' })).toMatch(/confirmed: false/);
    await ok(client, 'dialogs', { policy: 'accept', prompt_text: 'Ada' });
    const again = await ok(client, 'page_text');
    await ok(client, 'act', { ref: idOf(again, /button: Confirm/) });
    await ok(client, 'act', { ref: idOf(again, /button: Ask name/) });
    const after = await ok(client, 'page_text');
    expect(after).toMatch(/confirmed: true/);
    expect(after).toMatch(/name: Ada/);
  });
});
