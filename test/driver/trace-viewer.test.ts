// context.tracing end to end: a run over the fixture pages (an out-of-process frame, a closed shadow
// root, a model request through the fake model, a failing call) is recorded, and the zip is opened
// in playwright-core's own trace viewer (its show-trace command, the version the tests pin), whose
// page is then read as a user would: the actions by title, the model request's attachment, the
// filmstrip, the network list, the snapshot of an action. The model's API key is in no file.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SdkEvalError } from '../../src/index.js';
import { CHROME, TEST_ARGS, useBrowser } from '../helpers.js';
import { startFakeModel, type FakeModel } from '../support/fake-model.js';
import { traceEvents } from '../support/trace-file.js';
import { unzip } from '../support/zip.js';

const KEY = 'sk-trace-secret-5b7c9e21f0';
const fixture = useBrowser();
let fake: FakeModel;
let dir: string;
let viewer: ChildProcess | undefined;
let browser: Browser | undefined;

beforeAll(async () => {
  fake = await startFakeModel();
  dir = mkdtempSync(path.join(os.tmpdir(), 'tendril-trace-'));
});
afterAll(async () => {
  await browser?.close();
  viewer?.kill();
  await fake.close();
  await rm(dir, { recursive: true, force: true });
});

/** Serves `file` with `playwright-core show-trace` and resolves with the address it prints. */
function showTrace(file: string): Promise<string> {
  const cli = path.resolve('node_modules/playwright-core/cli.js');
  // No display and a browser command that does nothing: the command only serves, it opens nothing.
  viewer = spawn(process.execPath, [cli, 'show-trace', '--host', '127.0.0.1', '--port', '0', file], {
    env: { ...process.env, DISPLAY: '', BROWSER: 'true' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const child = viewer;
  return new Promise((resolve, reject) => {
    let text = '';
    const read = (chunk: Buffer) => {
      text += chunk.toString();
      const match = /Listening on (http:\/\/\S+)/.exec(text);
      if (match) resolve(match[1]!);
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => reject(new Error(`show-trace exited (${code}): ${text}`)));
  });
}

describe('a trace in Playwright’s trace viewer', () => {
  it('shows each call by title, the model request with its messages and answer, the filmstrip, the network and the snapshots; the key is in no file', async () => {
    const { sdk, page, servers } = fixture;
    fake.script([{ json: { extraction: 'Widget A costs 12.50' } }]);
    const tracing = sdk.context.tracing;
    await tracing.start({ screenshots: true, snapshots: true, title: 'the shop run' });
    await page.goto(servers.a.url('extract-shop.html'));
    await tracing.group('read the shop');
    const { pageText } = await sdk.extract();
    const answer = await sdk.extract("the product's price", {
      model: { modelName: 'openai/gpt-4.1-mini', apiKey: KEY, baseURL: fake.url },
    });
    await tracing.groupEnd();
    const failure = await page
      .evaluate(() => {
        throw new Error('boom in the page');
      })
      .catch((error: unknown) => error);
    const file = path.join(dir, 'shop.zip');
    const bytes = await tracing.stop({ path: file });

    expect(answer).toEqual({ extraction: 'Widget A costs 12.50' });
    expect(failure).toBeInstanceOf(SdkEvalError);
    expect(fake.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(new Uint8Array(await readFile(file))).toEqual(bytes);

    // In the file: the actions, the group as their parent, and no file holds the key.
    const files = unzip(bytes);
    expect([...files.keys()]).toEqual(expect.arrayContaining(['trace.trace', 'trace.network']));
    for (const [name, content] of files) expect(content.includes(KEY), `the key is in ${name}`).toBe(false);
    const events = traceEvents(bytes);
    const before = events.filter((event) => event.type === 'before');
    const group = before.find((event) => event.title === 'read the shop')!;
    const extract = before.find((event) => event.title === "extract: the product's price")!;
    expect(extract.parentId).toBe(group.callId);
    expect(events.filter((event) => event.type === 'screencast-frame').length).toBeGreaterThan(0);
    const pageTextFile = events.find((event) => event.type === 'after' && event.attachments?.some((a: any) => a.name === 'page text'));
    expect(files.get(pageTextFile!.attachments[0].file)!.toString()).toBe(pageText);

    // In the viewer.
    const address = await showTrace(file);
    browser = await chromium.launch({ executablePath: CHROME, args: TEST_ARGS });
    const view = await browser.newPage();
    await view.goto(address);
    await expect.poll(() => view.getByText('the shop run').count()).toBeGreaterThan(0);
    await view
      .getByText(`goto ${servers.a.url('extract-shop.html')}`, { exact: true })
      .first()
      .waitFor();
    // The group holds the two extracts: they show once it is opened.
    await view.getByText('read the shop', { exact: true }).first().click();
    await view.keyboard.press('ArrowRight');
    for (const title of ['extract: page text', "extract: the product's price"])
      await view.getByText(title, { exact: true }).first().waitFor();
    await view.getByText('evaluate ', { exact: false }).first().click();
    await view.getByRole('tab', { name: /Errors/ }).click();
    await view.getByText('SdkEvalError: JavaScript evaluated in the page threw: Error: boom in the page').first().waitFor();

    // The model request, as an attachment of the extract that made it: messages sent and the answer.
    await view.getByText("extract: the product's price", { exact: true }).first().click();
    await view.getByRole('tab', { name: /Attachments/ }).click();
    await view.getByText('model request 1: openai/gpt-4.1-mini').click();
    const panel = view.getByRole('tabpanel').last();
    await expect.poll(() => panel.innerText()).toContain('Widget A costs 12.50');
    const shown = await panel.innerText();
    expect(shown).toContain("Instruction: the product's price");
    expect(shown).toContain('"promptTokens"');

    // The snapshot after it: the page, its closed shadow root (Widget B) and its out-of-process frame (Widget C).
    await view.getByRole('tab', { name: 'After' }).click();
    const snapshot = view.frameLocator('iframe.snapshot-visible');
    await snapshot.getByText('Widget B', { exact: true }).waitFor();
    await snapshot.frameLocator('iframe').getByText('Widget C', { exact: true }).waitFor();

    // The filmstrip has frames, which load.
    expect(await view.locator('.film-strip-frame').count()).toBeGreaterThan(0);
    const image = await view
      .locator('.film-strip-frame')
      .first()
      .evaluate((el) => getComputedStyle(el).backgroundImage);
    const frameUrl = /url\("(.+)"\)/.exec(image)![1]!;
    const loaded = await view.evaluate(async (url) => [...new Uint8Array(await (await fetch(url)).arrayBuffer()).slice(0, 3)], frameUrl);
    expect(loaded).toEqual([0xff, 0xd8, 0xff]); // a JPEG

    // The network list has the page's document.
    await view.getByRole('tab', { name: /Network/ }).click();
    await view.getByRole('tabpanel').last().getByText('extract-shop.html').first().waitFor();
  }, 60_000);
});
