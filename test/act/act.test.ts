// act() and observe() against real Chromium, with the fake model server choosing the elements and
// an independent DevTools client (chrome-remote-interface) reading what the actions did.

import { beforeEach, describe, expect, it } from 'vitest';
import { ActionFailedError, TimeoutError, type ModelConfiguration, type Page, type Sdk } from '../../src/index.js';
import type { FixtureServers } from '../fixtures/server.js';
import { useAttachedBrowser, type AttachedBrowser } from '../support/attached.js';
import type { FakeModel, FakeRequest } from '../support/fake-model.js';

let servers: FixtureServers;
let fake: FakeModel;
let sdk: Sdk;
let page: Page;
let model: () => ModelConfiguration;
let read: AttachedBrowser['read'];
useAttachedBrowser('sk-act-test', (browser) => ({ servers, fake, sdk, page, model, read } = browser));
beforeEach(async () => {
  fake.reset();
  await page.goto(servers.a.url('act.html'));
});

/** The id of the line `role: name` in the prompt, as a model reading it would pick; `last` for the later of two. */
function idOf(request: FakeRequest, role: string, name: string, last = false): string {
  const matches = [...request.user.matchAll(new RegExp(`\\[((?:\\d+-)?\\d+)\\] ${role}: ${name}`, 'g'))];
  const match = last ? matches.at(-1) : matches[0];
  if (!match) throw new Error(`no ${role} "${name}" in the prompt:\n${request.user}`);
  return match[1]!;
}

const choose =
  (role: string, name: string, method: string, args: string[] = [], last = false) =>
  (request: FakeRequest) => ({
    json: { elementId: idOf(request, role, name, last), method, arguments: args, description: `${method} ${name}` },
  });

describe('act(instruction)', () => {
  it('clicks a button in the top page with a real mouse click', async () => {
    fake.script(choose('button', 'Top button', 'click'));
    const result = await sdk.act('click the top button', { model: model() });
    expect(result.success).toBe(true);
    expect(result.actions[0]!.selector).toMatch(/^xpath=\/html\/body\//);
    expect(await read(`document.getElementById('top-state').textContent`)).toBe('top clicked 1');
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]!.user).toContain('click the top button');
  });

  it("writes the top document's ids without a frame, and still reads a model's answer that adds the 0-", async () => {
    fake.script((request) => {
      const id = idOf(request, 'button', 'Top button');
      expect(id).toMatch(/^\d+$/);
      return { json: { elementId: `[0-${id}]`, method: 'click', arguments: [], description: 'click Top button' } };
    });
    expect((await sdk.act('click the top button', { model: model() })).success).toBe(true);
    expect(await read(`document.getElementById('top-state').textContent`)).toBe('top clicked 1');
  });

  it('clicks inside a cross-origin (out-of-process) iframe, at the right coordinates', async () => {
    fake.script(choose('button', 'Frame button', 'click', [], true));
    expect((await sdk.act('click the button in the partner frame', { model: model() })).success).toBe(true);
    expect(await read(`document.getElementById('frame-state').textContent`, 'localhost')).toBe('frame clicked 1');
    // The same-origin frame's twin button was not clicked.
    expect(await read(`document.getElementById('same').contentDocument.getElementById('frame-state').textContent`)).toBe('frame idle');
  });

  it('clicks a button inside a closed shadow root', async () => {
    fake.script(choose('button', 'Shadow button', 'click'));
    expect((await sdk.act('click the shadow button', { model: model() })).success).toBe(true);
    expect(await read(`document.getElementById('closed-host').dataset.state`)).toBe('shadow clicked');
  });

  it('scrolls a far element into view before clicking it', async () => {
    fake.script(choose('button', 'Far button', 'click'));
    await sdk.act('click the far button', { model: model() });
    expect(await read(`document.getElementById('far').textContent`)).toBe('far clicked');
    expect(await read('window.scrollY')).toBeGreaterThan(500);
  });

  it('fills a field (replacing its value, firing input and change) and types into another', async () => {
    fake.script(choose('textbox', 'Name', 'fill', ['Ada Lovelace']));
    await sdk.act('set the name to Ada Lovelace', { model: model() });
    expect(await read(`document.getElementById('name').value`)).toBe('Ada Lovelace');
    expect(await read(`document.getElementById('events').textContent`)).toMatch(/input .*change/);
    fake.script(choose('textbox', 'Note', 'type', ['hi there']));
    await sdk.act('type a note', { model: model() });
    expect(await read(`document.getElementById('note').value`)).toBe('hi there');
  });

  it('presses Enter in a field, which submits its form', async () => {
    fake.script(choose('textbox', 'Name', 'press', ['Enter']));
    await sdk.act('submit the form', { model: model() });
    expect(await read(`document.getElementById('form-state').textContent`)).toBe('submitted old value');
  });

  it('selects an option by its text', async () => {
    fake.script(choose('combobox', 'Size', 'selectOption', ['Large']));
    await sdk.act('choose the large size', { model: model() });
    expect(await read(`document.getElementById('size').value`)).toBe('l');
  });

  it('scrolls the page to a percentage and by a screen', async () => {
    fake.script((request) => ({
      json: {
        elementId: idOf(request, 'RootWebArea', 'Act page'),
        method: 'scrollTo',
        arguments: ['100%'],
        description: 'scroll to the bottom',
      },
    }));
    await sdk.act('scroll to the bottom', { model: model() });
    const bottom = (await read('document.scrollingElement.scrollHeight - innerHeight')) as number;
    expect(await read('Math.round(scrollY)')).toBe(Math.round(bottom));
    fake.script((request) => ({
      json: { elementId: idOf(request, 'RootWebArea', 'Act page'), method: 'prevChunk', arguments: [], description: 'scroll up' },
    }));
    await sdk.act('scroll up a screen', { model: model() });
    expect(await read('Math.round(scrollY)')).toBe(Math.round(bottom) - ((await read('innerHeight')) as number));
  });

  it('waits for the requests and DOM changes the previous action started before reading the page', async () => {
    await page.goto(servers.a.url('act-load.html'));
    fake.script(choose('button', 'Load results', 'click'));
    await sdk.act('load the results', { model: model() });
    // The next act reads the page only once the 800 ms request has finished and the results are in.
    fake.script(choose('button', 'Result item', 'click'));
    expect((await sdk.act('open the first result', { model: model() })).success).toBe(true);
    expect(await read(`document.querySelector('#results button').textContent`)).toBe('result opened');
  });

  it('fills %placeholders% from variables without sending their values to the model', async () => {
    fake.script(choose('textbox', 'Note', 'fill', ['%secret%']));
    const result = await sdk.act('put %secret% in the note', { model: model(), variables: { secret: 'hunter2-value' } });
    expect(await read(`document.getElementById('note').value`)).toBe('hunter2-value');
    expect(JSON.stringify(fake.requests.map((request) => request.body))).not.toContain('hunter2-value');
    expect(result.actions[0]!.arguments).toEqual(['%secret%']);
  });

  it('reads the page again once when the element was replaced after the snapshot, and then succeeds', async () => {
    fake.script(async (request) => {
      if (request.index === 0) {
        // Between our snapshot and the click, the page moves the button somewhere else.
        await read(`(() => { const old = document.getElementById('top'); const box = document.createElement('section');
          box.innerHTML = '<div><button id="top2" onclick="document.getElementById(\\'top-state\\').textContent = \\'moved clicked\\'">Top button</button></div>';
          old.replaceWith(box); })()`);
      }
      return choose('button', 'Top button', 'click')(request);
    });
    const before = sdk.metrics.act;
    const result = await sdk.act('click the top button', { model: model() });
    expect(result.success).toBe(true);
    expect(result.message).toContain('after reading the page again');
    // One act(), two model requests.
    expect(sdk.metrics.act.operations - before.operations).toBe(1);
    expect(sdk.metrics.act.modelCalls - before.modelCalls).toBe(2);
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[1]!.user).toMatch(/An earlier attempt to click .*Top button.* failed/);
    expect(await read(`document.getElementById('top-state').textContent`)).toBe('moved clicked');
  });

  it('fails with ActionFailedError naming the element and the reason when the second try fails too', async () => {
    fake.script(choose('button', 'Disabled button', 'click'));
    const error = await sdk.act('click the disabled button', { model: model() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ActionFailedError);
    expect((error as Error).message).toMatch(/Disabled button.*disabled/);
    expect(fake.requests).toHaveLength(2);
  });

  it('answers success: false when no element fits, and aborts a model that does not answer in time', async () => {
    fake.script([{ json: { elementId: null, method: 'click', arguments: [], description: 'nothing fits' } }]);
    const none = await sdk.act('click the purple unicorn', { model: model() });
    expect(none).toMatchObject({ success: false, actions: [] });
    fake.reset();
    fake.script(() => ({ hang: true }));
    const started = Date.now();
    const outcome = sdk.act('click the top button', { model: model(), timeout: 3000 }).catch((e: unknown) => e);
    // The request did reach the model before the deadline, so there is a request to abort.
    await fake.nextRequest();
    expect(await outcome).toBeInstanceOf(TimeoutError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2950);
    expect(Date.now() - started).toBeLessThan(4500);
    expect((await fake.nextAbort()).aborted).toBe(true);
  });
});

describe('observe() and act(action)', () => {
  it('returns XPath actions our locator resolves, and act(action) replays one with no model request', async () => {
    fake.script((request) => ({
      json: {
        elements: [
          { elementId: idOf(request, 'button', 'Shadow button'), description: 'the shadow button', method: 'click', arguments: [] },
          {
            elementId: idOf(request, 'button', 'Frame button', true),
            description: 'the partner frame button',
            method: 'click',
            arguments: [],
          },
          { elementId: '9-999', description: 'a made-up element', method: 'click', arguments: [] },
        ],
      },
    }));
    const actions = await sdk.observe('the buttons', { model: model() });
    expect(actions.map((action) => action.description)).toEqual(['the shadow button', 'the partner frame button']);
    for (const action of actions) {
      expect(action.selector).toMatch(/^xpath=\/html/);
      expect(await page.locator(action.selector).textContent()).toMatch(/Shadow button|Frame button/);
    }
    const requests = fake.requests.length;
    for (const action of actions) expect((await sdk.act(action)).success).toBe(true);
    expect(fake.requests.length).toBe(requests);
    expect(await read(`document.getElementById('closed-host').dataset.state`)).toBe('shadow clicked');
    expect(await read(`document.getElementById('frame-state').textContent`, 'localhost')).toBe('frame clicked 1');
  });

  it('act(action) hovers and double-clicks with real mouse events', async () => {
    await sdk.act({ selector: '#hover-target', method: 'hover' });
    expect(await read(`document.getElementById('hover-target').dataset.state`)).toBe('hovered');
    await sdk.act({ selector: '#hover-target', method: 'doubleClick' });
    expect(await read(`document.getElementById('hover-target').dataset.dbl`)).toBe('double clicked');
    expect(fake.requests).toHaveLength(0);
  });

  it('act(action) without a model fails with ActionFailedError when the element is gone', async () => {
    const error = await sdk
      .act({ selector: 'xpath=/html/body/nav[7]/button', description: 'a gone button', method: 'click' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ActionFailedError);
    expect((error as Error).message).toMatch(/a gone button.*No element matches/);
  });
});
