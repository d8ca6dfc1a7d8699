// What Stagehand 3.7.0's own offline integration specs rely on beyond the methods themselves,
// found by running them against Tendril with only the import swapped: the text a model reads is
// well-formed Unicode, as Stagehand makes it before its model calls; a screenshot's mask covers
// elements in the top layer (a modal dialog, a popover) too; goto()'s response has Stagehand's
// Response methods, and a data: URL gives null; init() logs under the category "init".

import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ResponseBodyError, ResponseParseError, Stagehand, StagehandError, type StagehandLogLine } from '../../src/index.js';
import type { FixtureServers } from '../fixtures/server.js';
import { CHROME, startDebugChrome, stagehandOptions, TEST_ARGS, useStagehandWithModel } from '../helpers.js';
import type { FakeModel } from '../support/fake-model.js';
import { readPng } from '../support/png.js';

let servers: FixtureServers;
let fake: FakeModel;
let stagehand: Stagehand;

useStagehandWithModel((startedServers, startedModel) => {
  [servers, fake] = [startedServers, startedModel];
  stagehand = new Stagehand(stagehandOptions({ model: { modelName: 'openai/gpt-4.1-mini', apiKey: 'sk-sh3-test', baseURL: fake.url } }));
  return stagehand;
});
beforeEach(() => fake.reset());

describe('the text a model reads', () => {
  it('has each half of a cut surrogate pair as U+FFFD, in the page, shadow roots and an out-of-process frame (and the calls count in stagehandMetrics)', async () => {
    const page = stagehand.context.pages()[0]!;
    await page.goto(servers.a.url('/sh3-compat.html'));
    await page.waitForSelector('#oop >> #framed', { state: 'attached', timeout: 10_000 });
    // The page really holds the broken strings: what the model gets is repaired, not the page.
    expect(await page.evaluate(() => /\p{Cs}/u.test(document.getElementById('top')!.textContent!))).toBe(true);

    fake.script(() => ({ json: { elements: [] } }));
    expect(await stagehand.observe('find the promo banner text')).toEqual([]);
    fake.script(() => ({ json: { heading: 'Draw Again.' } }));
    expect(await stagehand.extract('the heading', z.object({ heading: z.string() }))).toEqual({ heading: 'Draw Again.' });

    expect(fake.requests).toHaveLength(2);
    // Stagehand's flat counters, read without awaiting, and the same as the awaited metrics' ones.
    const flat = stagehand.stagehandMetrics;
    expect(flat.observePromptTokens).toBeGreaterThan(0);
    expect(flat.extractPromptTokens).toBeGreaterThan(0);
    expect(flat.totalPromptTokens).toBe(flat.observePromptTokens + flat.extractPromptTokens + flat.actPromptTokens);
    expect(Object.keys(flat)).toHaveLength(25);
    expect(await stagehand.metrics).toEqual(expect.objectContaining(flat));
    expect([stagehand.browserbaseSessionId, stagehand.browserbaseApiKey]).toEqual([undefined, undefined]);
    for (const request of fake.requests) {
      // With the u flag a whole pair is one code point: \p{Cs} finds only halves left alone.
      expect(request.prompt).not.toMatch(/\p{Cs}/u);
      expect(request.user).toContain('Draw Again. \uFFFD');
      expect(request.user).toContain('Open card \uFFFD end');
      expect(request.user).toContain('Closed card \uFFFD end');
      // A whole pair is left as it is.
      expect(request.user).toContain('Framed \uFFFD and a whole \u{1F600}');
    }
  });
});

describe('a screenshot mask in the top layer', () => {
  const RED = [204, 0, 0];
  const MAGENTA = [255, 0, 255];
  // A point in each masked element: in a scrolled modal dialog, in a closed shadow root inside it,
  // in a popover, and in an out-of-process frame's own modal dialog.
  const points: Array<[number, number]> = [
    [100, 65],
    [100, 105],
    [550, 60],
    [70, 340],
  ];
  const masks = ['#in-dialog', '#in-shadow', '#in-popover', '#framed >> #in-frame-dialog'];

  it("covers elements of a modal dialog (scrolled, and in its shadow roots), a popover and a frame's dialog, and leaves nothing behind", async () => {
    const page = stagehand.context.pages()[0]!;
    await page.goto(servers.a.url('/sh3-compat-dialog.html'));
    await page.waitForSelector('#framed >> #in-frame-dialog', { timeout: 10_000 });
    const plain = readPng(await page.screenshot());
    expect(points.map(([x, y]) => plain.pixel(x, y))).toEqual(points.map(() => RED));

    const masked = readPng(await page.screenshot({ mask: masks.map((selector) => page.locator(selector)) }));
    expect(points.map(([x, y]) => masked.pixel(x, y))).toEqual(points.map(() => MAGENTA));
    // The dialog's own border is not covered: the box sits on the element, not on the dialog.
    expect(masked.pixel(42, 100)).toEqual([0, 0, 0]);

    const after = readPng(await page.screenshot());
    expect(points.map(([x, y]) => after.pixel(x, y))).toEqual(points.map(() => RED));
    expect(await page.evaluate('document.querySelectorAll("[data-tendril-mask]").length')).toBe(0);
  });
});

describe("goto()'s response, as Stagehand's Response", () => {
  it('has the headers by name and as a list, the body as bytes, text and JSON, the frame and the server, and finished()', async () => {
    const page = stagehand.context.pages()[0]!;
    const response = (await page.goto(servers.a.url('/sh3-compat-dialog.html')))!;
    expect(response.status()).toBe(200);
    expect(await response.headersArray()).toEqual(
      expect.arrayContaining([
        { name: 'content-type', value: 'text/html; charset=utf-8' },
        { name: 'x-fixture', value: 'sh3-compat-dialog.html' },
      ]),
    );
    expect(await response.headerValue('content-TYPE')).toBe('text/html; charset=utf-8');
    expect(await response.headerValues('x-fixture')).toEqual(['sh3-compat-dialog.html']);
    expect(await response.headerValue('x-not-sent')).toBeNull();
    expect((await response.allHeaders())['cache-control']).toBe('no-store');
    const body = await response.body();
    expect(Buffer.isBuffer(body)).toBe(true);
    expect(await response.text()).toContain('<title>Stagehand compat: the top layer</title>');
    expect(new TextDecoder().decode(body)).toBe(await response.text());
    expect(response.frame()).toBe(page.mainFrame());
    expect(await response.serverAddr()).toEqual({ ipAddress: '127.0.0.1', port: Number(new URL(servers.a.origin).port) });
    expect(await response.securityDetails()).toBeNull();
    expect(response.fromServiceWorker()).toBe(false);
    expect(await response.finished()).toBeNull();
    const error = await response.json().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResponseParseError);
    expect(error).toBeInstanceOf(StagehandError);
    expect((error as Error).message).toMatch(/is not JSON.*read it with text\(\)/);

    const json = (await page.goto(servers.a.url('/sh3-compat.json')))!;
    expect(await json.json()).toEqual({ answer: 42, items: ['a', 'b'] });
    const reloaded = (await page.reload())!;
    expect(await reloaded.json()).toEqual({ answer: 42, items: ['a', 'b'] });
    // Chrome lets the bodies go when the page moves on, or closes: body() says so.
    await page.goto(servers.a.url('/sh3-compat-dialog.html'));
    const other = await stagehand.context.newPage();
    const closing = (await other.goto(servers.a.url('/sh3-compat.json')))!;
    await other.close();
    expect(await closing.finished()).toEqual(
      expect.objectContaining({ message: expect.stringMatching(/closed before finished\(\) was asked/) }),
    );
    for (const gone of [json, closing]) {
      const error = await gone.body().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ResponseBodyError);
      expect((error as Error).message).toMatch(/no longer has the body of .*sh3-compat\.json.*read it sooner/);
    }
  });

  it('is null for a data: URL, which fetches nothing', async () => {
    const page = stagehand.context.pages()[0]!;
    expect(await page.goto('data:text/html,<p data-testid="inline">inline</p>')).toBeNull();
    expect(await page.locator('p').textContent()).toBe('inline');
  });
});

describe('init()', () => {
  it('logs what it starts under the category "init", launching or attaching', async () => {
    const chrome = await startDebugChrome();
    const seen: Array<[string, StagehandLogLine[]]> = [];
    try {
      for (const [label, launch] of [
        ['launch', { headless: true, executablePath: CHROME, args: TEST_ARGS }],
        ['attach', { cdpUrl: chrome.wsUrl }],
      ] as const) {
        const lines: StagehandLogLine[] = [];
        const own = new Stagehand({
          env: 'LOCAL',
          verbose: 1,
          disablePino: true,
          logger: (line) => lines.push(line),
          localBrowserLaunchOptions: launch,
        });
        try {
          await own.init();
        } finally {
          await own.close();
        }
        seen.push([label, lines.filter((line) => line.category === 'init')]);
      }
    } finally {
      await chrome.kill();
    }
    expect(seen).toEqual([
      ['launch', [expect.objectContaining({ category: 'init', message: 'Launching local browser', level: 1 })]],
      ['attach', [expect.objectContaining({ category: 'init', message: 'Connecting to local browser', level: 1 })]],
    ]);
  });
});
