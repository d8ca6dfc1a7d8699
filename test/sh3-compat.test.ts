// What Stagehand 3.7.0's own offline integration specs rely on beyond the methods themselves,
// found by running them against Tendril with only the import swapped: the text a model reads is
// well-formed Unicode, as Stagehand makes it before its model calls; a screenshot's mask covers
// elements in the top layer (a modal dialog, a popover) too.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Stagehand } from '../src/index.js';
import { startFixtureServers, type FixtureServers } from './fixtures/server.js';
import { CHROME, TEST_ARGS } from './helpers.js';
import { startFakeModel, type FakeModel } from './support/fake-model.js';
import { readPng } from './support/png.js';

let servers: FixtureServers;
let fake: FakeModel;
let stagehand: Stagehand;

beforeAll(async () => {
  [servers, fake] = await Promise.all([startFixtureServers(), startFakeModel()]);
  stagehand = new Stagehand({
    env: 'LOCAL',
    verbose: 0,
    disablePino: true,
    model: { modelName: 'openai/gpt-4.1-mini', apiKey: 'sk-sh3-test', baseURL: fake.url },
    localBrowserLaunchOptions: { headless: true, executablePath: CHROME, args: TEST_ARGS },
  });
  await stagehand.init();
});
afterAll(async () => {
  await stagehand?.close();
  await Promise.all([servers?.close(), fake?.close()]);
});
beforeEach(() => fake.reset());

describe('the text a model reads', () => {
  it('has each half of a cut surrogate pair as U+FFFD, in the page, shadow roots and an out-of-process frame', async () => {
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
  const points: Array<[number, number]> = [[100, 65], [100, 105], [550, 60], [70, 340]];
  const masks = ['#in-dialog', '#in-shadow', '#in-popover', '#framed >> #in-frame-dialog'];

  it('covers elements of a modal dialog (scrolled, and in its shadow roots), a popover and a frame\'s dialog, and leaves nothing behind', async () => {
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
