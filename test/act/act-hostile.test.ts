// Clicks that something else would receive: a fixed cookie banner over the button, a layout that the
// hover itself shifts (Delete sliding under the pointer), a button still sliding into place. The
// pages record every click, read through an independent DevTools client.

import CDP from 'chrome-remote-interface';
import { beforeEach, describe, expect, it } from 'vitest';
import { type ModelConfiguration, type Page, type Sdk } from '../../src/index.js';
import type { FixtureServers } from '../fixtures/server.js';
import { useAttachedBrowser, type AttachedBrowser } from '../support/attached.js';
import type { FakeModel, FakeRequest } from '../support/fake-model.js';

let chrome: AttachedBrowser['chrome'];
let servers: FixtureServers;
let fake: FakeModel;
let sdk: Sdk;
let page: Page;
let model: () => ModelConfiguration;
let read: AttachedBrowser['read'];
useAttachedBrowser('sk-hostile-test', (browser) => ({ chrome, servers, fake, sdk, page, model, read } = browser));
beforeEach(() => fake.reset());

const clicks = () => read('window.clicks');

/** A user's click at an element's centre, sent through the independent client. */
async function userClick(id: string): Promise<void> {
  const { x, y } = (await read(
    `(() => { const r = document.getElementById('${id}').getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 }; })()`,
  )) as { x: number; y: number };
  const client = await CDP({ port: chrome.port, target: page.targetId() });
  try {
    for (const type of ['mousePressed', 'mouseReleased'] as const)
      await client.Input.dispatchMouseEvent({ type, x, y, button: 'left', clickCount: 1 });
  } finally {
    await client.close();
  }
}

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
    // The presses Delete would have taken were stopped before the page saw any of their events...
    expect(await read('window.events')).toEqual([]);
    // ...and nothing is left to stop the user's own click.
    await userClick('run-delete');
    expect(await clicks()).toEqual(['run-delete']);
    expect(await read('window.events')).toEqual([
      'pointerdown run-delete',
      'mousedown run-delete',
      'pointerup run-delete',
      'mouseup run-delete',
      'click run-delete',
    ]);
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

describe('a plain button', () => {
  it('is pressed as the pointer arrives, not an animation frame later: the checks cost the click no frame', async () => {
    await page.goto(servers.a.url('act-plain.html'));
    for (let click = 0; click < 7; click++) {
      // The pointer leaves the button, so each click brings it over the button again.
      await sdk.act({ selector: '#away', method: 'hover' });
      expect((await sdk.act({ selector: '#go', method: 'click' })).success).toBe(true);
    }
    expect(await clicks()).toHaveLength(7);
    const waits = ((await read('window.waits')) as number[]).sort((a, b) => a - b);
    expect(waits).toHaveLength(7);
    // Chrome delivers a lone move with the next frame; waiting for it before the press shows as a frame
    // between the two (every click, before). Sent together, the press follows the move within the
    // same frame; a busy machine may let one frame slip in now and then, so the median is asked.
    expect(waits[3]).toBe(0);
  });
});

describe('a card that the pointer brings over an iframe', () => {
  beforeEach(async () => {
    await page.goto(servers.a.url('act-hover-card.html'));
  });

  it('stops the press that the card would take, so the page sees none of it, and names the card', async () => {
    const state = `document.getElementById('own').contentDocument.getElementById('frame-state').textContent`;
    const result = await sdk.act({ selector: '#own >> #frame-button', method: 'click' });
    expect(result.success).toBe(false);
    expect(result.message).toMatch(/the click would land on <div id="own-card" class="card shown"> "Preview of the garden page" instead/);
    expect(await read('window.events')).toEqual([]);
    expect(await read(state)).toBe('frame idle');
  });
});

describe('a tab in the background', () => {
  it('is hovered and clicked without waiting for a frame it never draws', async () => {
    // A page of its own: one hovered before counts as visible from then on (focus emulation).
    const page = await sdk.context.newPage(servers.a.url('act.html'));
    const front = await sdk.context.newPage(servers.a.url('act.html'));
    try {
      expect(await page.evaluate(() => document.visibilityState)).toBe('hidden');
      expect((await sdk.act({ selector: '#hover-target', method: 'click' }, { page, timeout: 5000 })).success).toBe(true);
      expect((await sdk.act({ selector: '#hover-target', method: 'hover' }, { page, timeout: 5000 })).success).toBe(true);
      expect(await page.evaluate(() => document.getElementById('hover-target')!.dataset.state)).toBe('hovered');
    } finally {
      await front.close();
      await page.close();
    }
  });
});
