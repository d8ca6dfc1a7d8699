// Clicks that something else would receive: a fixed cookie banner over the button, a layout that the
// hover itself shifts (Delete sliding under the pointer), a button still sliding into place. The
// pages record every click, read through an independent DevTools client.

import CDP from 'chrome-remote-interface';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Sdk, type Page } from '../src/index.js';
import { startFixtureServers, type FixtureServers } from './fixtures/server.js';
import { sdkOptions, startDebugChrome, type DebugChrome } from './helpers.js';
import { startFakeModel, type FakeModel, type FakeRequest } from './support/fake-model.js';

let chrome: DebugChrome;
let servers: FixtureServers;
let fake: FakeModel;
let sdk: Sdk;
let page: Page;
const model = () => ({ modelName: 'openai/gpt-4.1-mini', apiKey: 'sk-hostile-test', baseURL: fake.url });

beforeAll(async () => {
  [chrome, servers, fake] = await Promise.all([startDebugChrome(), startFixtureServers(), startFakeModel()]);
  sdk = new Sdk(sdkOptions({ localBrowserLaunchOptions: { cdpUrl: chrome.wsUrl } }));
  await sdk.init();
  page = await sdk.context.newPage();
});
afterAll(async () => {
  await sdk?.close();
  await Promise.all([chrome?.kill(), servers?.close(), fake?.close()]);
});
beforeEach(() => fake.reset());

/** Evaluates in a target through a second, independent client: the page, or an OOPIF by URL. */
async function read(expression: string, frameUrlPart?: string): Promise<unknown> {
  const targets = (await CDP.List({ port: chrome.port })) as Array<{ id: string; type: string; url: string }>;
  const target = frameUrlPart
    ? targets.find((each) => each.type === 'iframe' && each.url.includes(frameUrlPart))
    : targets.find((each) => each.id === page.targetId());
  if (!target) throw new Error(`no target for ${frameUrlPart ?? page.targetId()}`);
  const client = await CDP({ port: chrome.port, target: target.id });
  try {
    const { result, exceptionDetails } = await client.Runtime.evaluate({ expression, returnByValue: true });
    if (exceptionDetails) throw new Error(exceptionDetails.exception?.description ?? exceptionDetails.text);
    return result.value;
  } finally {
    await client.close();
  }
}

const clicks = () => read('window.clicks');

const choose = (name: string) => (request: FakeRequest) => {
  const match = new RegExp(`\\[((?:\\d+-)?\\d+)\\] button: ${name}`).exec(request.user);
  if (!match) throw new Error(`no button "${name}" in the prompt:\n${request.user}`);
  return { json: { elementId: match[1], method: 'click', arguments: [], description: `click ${name}` } };
};

const BANNER = /<div id="cookie-banner" class="banner consent"> "We use cookies to make this site work\. Accept"/;

describe('a fixed cookie banner over the button', () => {
  beforeEach(async () => {
    await page.goto(servers.a.url('act-covered.html'));
  });

  it('act(action) reports the click as not done, naming the banner, and clicks nothing; once the banner is dismissed it clicks', async () => {
    const action = { selector: '#save', description: 'the Save button', method: 'click', arguments: [] };
    const started = Date.now();
    const result = await sdk.act(action);
    expect(result.success).toBe(false);
    expect(result.message).toMatch(/^Did not click on #save: the click would land on /);
    expect(result.message).toMatch(BANNER);
    expect(result.message).toMatch(/dismiss or close it first/);
    // Given a bounded while to move away, then given up: not the replay's 30 s.
    expect(Date.now() - started).toBeLessThan(5000);
    expect(result.actions).toEqual([action]);
    expect(await clicks()).toEqual([]);
    expect(fake.requests).toHaveLength(0);

    expect((await sdk.act({ selector: '#accept' })).success).toBe(true);
    expect(await read(`document.getElementById('cookie-banner')`)).toBeNull();
    expect((await sdk.act(result.actions[0]!)).success).toBe(true);
    expect(await clicks()).toEqual(['accept', 'save']);
  });

  it('act(instruction) answers success: false naming the banner, without asking the model again or clicking the banner', async () => {
    fake.script(choose('Save'));
    const result = await sdk.act('click Save', { model: model() });
    expect(result.success).toBe(false);
    expect(result.message).toMatch(/^Did not click on \[\d+\] button: Save: the click would land on /);
    expect(result.message).toMatch(BANNER);
    expect(result.actions[0]!.selector).toMatch(/^xpath=\/html\/body\/button/);
    // The element was the right one: no second look, which could have picked the banner's button.
    expect(fake.requests).toHaveLength(1);
    expect(await clicks()).toEqual([]);

    await read(`document.getElementById('accept').click()`);
    expect((await sdk.act(result.actions[0]!)).success).toBe(true);
    expect(await clicks()).toEqual(['accept', 'save']);
  });

  it('sees the banner over a button in a closed shadow root, and then clicks it through its slotted label', async () => {
    const action = { selector: 'xpath=//*[@id="closed-host"]//button', method: 'click' };
    const result = await sdk.act(action);
    expect(result.success).toBe(false);
    expect(result.message).toMatch(BANNER);
    expect(await clicks()).toEqual([]);
    await read(`document.getElementById('cookie-banner').remove()`);
    expect((await sdk.act(action)).success).toBe(true);
    expect(await clicks()).toEqual(['shadow-label', 'shadow-save']);
  });

  it('sees the banner of the top page over a button in an out-of-process iframe, then clicks it once it is gone', async () => {
    const action = { selector: 'xpath=/html/body/iframe/html/body/button', method: 'click' };
    const result = await sdk.act(action);
    expect(result.success).toBe(false);
    expect(result.message).toMatch(BANNER);
    expect(await read(`document.getElementById('frame-state').textContent`, 'localhost')).toBe('frame idle');
    await read(`document.getElementById('cookie-banner').remove()`);
    expect((await sdk.act(action)).success).toBe(true);
    expect(await read(`document.getElementById('frame-state').textContent`, 'localhost')).toBe('frame clicked 1');
  });

  it('sees the banner over a button in a same-origin (in-process) iframe, then clicks it once it is gone', async () => {
    const action = { selector: '#own >> #frame-button', method: 'click' };
    const state = `document.getElementById('own').contentDocument.getElementById('frame-state').textContent`;
    const result = await sdk.act(action);
    expect(result.success).toBe(false);
    expect(result.message).toMatch(BANNER);
    expect(await read(state)).toBe('frame idle');
    await read(`document.getElementById('cookie-banner').remove()`);
    expect((await sdk.act(action)).success).toBe(true);
    expect(await read(state)).toBe('frame clicked 1');
  });

  it('clicks through a layer that lets the pointer pass (pointer-events: none)', async () => {
    expect((await sdk.act({ selector: '#under-glass' })).success).toBe(true);
    expect(await clicks()).toEqual(['under-glass']);
  });

  it('clicks a checkbox hidden under the box of its own label, as a styled switch has it', async () => {
    expect((await sdk.act({ selector: '#agree' })).success).toBe(true);
    expect(await read(`document.getElementById('agree').checked`)).toBe(true);
  });

  it('waits for a button that is still sliding into place, and clicks it where it stops', async () => {
    // 300 px in 600 ms: pressed at once, it would be pressed on the way.
    await read(`document.getElementById('slide').classList.add('away')`);
    expect((await sdk.act({ selector: '#slide' })).success).toBe(true);
    expect(await clicks()).toEqual(['slide', 'slide at 320']);
  });
});

describe('a layout that the hover shifts', () => {
  beforeEach(async () => {
    await page.goto(servers.a.url('act-shift.html'));
  });

  it('does not click the Delete button that slid under the pointer: it clicks Save where the hover moved it', async () => {
    expect((await sdk.act({ selector: '#save' })).success).toBe(true);
    expect(await clicks()).toEqual(['save']);
  });

  it('gives up on a Save button that runs from the pointer, naming the Delete button that would be clicked', async () => {
    const result = await sdk.act({ selector: '#run-save', method: 'click' });
    expect(result.success).toBe(false);
    expect(result.message).toMatch(/the click would land on <button id="run-delete"> "Delete draft" instead/);
    expect(await clicks()).toEqual([]);
  });

  it('act(instruction) on the runaway button answers success: false naming Delete', async () => {
    fake.script(choose('Save draft'));
    const result = await sdk.act('save the draft', { model: model() });
    expect(result).toMatchObject({ success: false });
    expect(result.message).toMatch(/<button id="run-delete"> "Delete draft"/);
    expect(fake.requests).toHaveLength(1);
    expect(await clicks()).toEqual([]);
  });
});
