// A <select> of 10,000 options (issue 28): a missing option fails with a short message that names
// a few options, the count and the closest ones; act() shows the model a few options plus the one
// the instruction names, so it can pick "Option 7777" without the whole list in its prompt.

import { beforeEach, describe, expect, it } from 'vitest';
import { shortenOptionLists } from '../../src/act/options.js';
import { ActionFailedError, type ModelConfiguration, type Page, type Sdk } from '../../src/index.js';
import type { FixtureServers } from '../fixtures/server.js';
import { useAttachedBrowser, type AttachedBrowser } from '../support/attached.js';
import type { FakeModel, FakeRequest } from '../support/fake-model.js';

let servers: FixtureServers;
let fake: FakeModel;
let sdk: Sdk;
let page: Page;
let model: () => ModelConfiguration;
let read: AttachedBrowser['read'];
useAttachedBrowser('sk-select-test', (browser) => ({ servers, fake, sdk, page, model, read } = browser));
beforeEach(async () => {
  fake.reset();
  await page.goto(servers.a.url('select-long.html'));
});

/**
 * As a model would: the option the instruction names must be in the prompt (else there is nothing
 * to pick), and the answer is the list's line with selectOption and that option's text.
 */
function pickFromList(wanted: string) {
  return (request: FakeRequest) => {
    const list = /\[(\d+)\] combobox: Number/.exec(request.user);
    if (!list) throw new Error(`no "combobox: Number" line in the prompt`);
    if (!request.user.includes(`option: ${wanted}\n`)) throw new Error(`"${wanted}" is not in the prompt`);
    return { json: { elementId: list[1], method: 'selectOption', arguments: [wanted], description: `choose ${wanted}` } };
  };
}

describe('a <select> with 10,000 options', () => {
  it('a missing option fails with a short typed error naming a few options, the count and the closest; the session goes on', async () => {
    const error = await sdk.act({ selector: '#number', method: 'selectOption', arguments: ['Option 10001'] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ActionFailedError);
    const message = (error as Error).message;
    expect(message.length).toBeLessThan(1000);
    expect(message).toContain('"Option 1", "Option 2"');
    expect(message).toContain('10,000');
    expect(message).toMatch(/9,99\d more/);
    expect(message).toMatch(/closest: "Option 1000"/);
    expect(message).not.toContain('Option 5000');
    // Nothing changed, and the page still takes actions.
    expect(await read(`document.getElementById('changes').textContent`)).toBe('no change');
    await sdk.act({ selector: '#number', method: 'selectOption', arguments: ['Option 42'] });
    expect(await read(`document.getElementById('number').value`)).toBe('n42');
    await sdk.act({ selector: '#done', method: 'click' });
    expect(await read(`document.getElementById('done').textContent`)).toBe('done clicked');
  });

  it('act("choose Option 7777") shows the model a bounded prompt holding that option, and picks it', async () => {
    fake.script(pickFromList('Option 7777'));
    const result = await sdk.act('choose Option 7777', { model: model() });
    expect(result.success).toBe(true);
    expect(await read(`document.getElementById('number').selectedOptions[0].text`)).toBe('Option 7777');
    expect(await read(`document.getElementById('changes').textContent`)).toBe('changed to n7777');
    expect(fake.requests).toHaveLength(1);
    const prompt = fake.requests[0]!.user;
    // The whole list is some 250,000 characters; the prompt holds the first options, the wanted one and counts.
    expect(prompt.length).toBeLessThan(3000);
    expect(prompt).toContain('option: Option 1 [selected]');
    expect(prompt).not.toContain('option: Option 5000');
    expect(prompt).toMatch(/… 7,\d{3} more options/);
    // The page text of extract() still lists every option.
    expect((await sdk.extract()).pageText).toContain('option: Option 5000');
  });

  it('a missing option through the model fails twice with a short ActionFailedError; the page still works', async () => {
    fake.script((request) => {
      const list = /\[(\d+)\] combobox: Number/.exec(request.user)!;
      return { json: { elementId: list[1], method: 'selectOption', arguments: ['Option 12345'], description: 'choose Option 12345' } };
    });
    const error = await sdk.act('choose Option 12345', { model: model() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ActionFailedError);
    expect((error as Error).message.length).toBeLessThan(1500);
    expect((error as Error).message).toContain('10,000');
    expect(fake.requests).toHaveLength(2);
    fake.script(pickFromList('Option 9'));
    expect((await sdk.act('choose "Option 9"', { model: model() })).success).toBe(true);
    expect(await read(`document.getElementById('number').value`)).toBe('n9');
  });
});

describe('shortenOptionLists (the page text act() and observe() send)', () => {
  const list = (count: number, pad = '  ', frame = '') =>
    Array.from({ length: count }, (_, i) => `${pad}[${frame}${i + 10}] option: Option ${i + 1}${i === 60 ? ' [selected]' : ''}`).join('\n');
  const page = (options: string) => `[1] heading: Form\n [2] combobox: Number\n${options}\n [9999] button: Go`;

  it('leaves a list of up to 40 options, and a page without lists, as they are', () => {
    const text = page(list(40));
    expect(shortenOptionLists(text, 'choose Option 3')).toEqual({ text, cut: false });
  });

  it('keeps the first options, the selected one and the ones named as whole words, counting the rest', () => {
    const { text, cut } = shortenOptionLists(page(list(200)), 'Choose OPTION 77, not the other');
    expect(cut).toBe(true);
    const options = text
      .split('\n')
      .filter((line) => line.includes('option:'))
      .map((line) => line.trim().replace(/^\[\d+\] option: /, ''));
    // "Option 7" sits inside "option 77" but is not named by it: it is kept only as one of the first eight.
    expect(options).toEqual([
      'Option 1',
      'Option 2',
      'Option 3',
      'Option 4',
      'Option 5',
      'Option 6',
      'Option 7',
      'Option 8',
      'Option 61 [selected]',
      'Option 77',
    ]);
    expect(text).toContain(
      '  … 52 more options\n  [70] option: Option 61 [selected]\n  … 15 more options\n  [86] option: Option 77\n  … 123 more options\n [9999] button: Go',
    );
  });

  it('keeps options holding a quoted part of the instruction, at most ten per list, in frames too', () => {
    const { text } = shortenOptionLists(page(list(500, '   ', '2-')), 'pick "ion 12" from the list');
    const kept = text.split('\n').filter((line) => /option: Option 12\d?$/.test(line));
    // Option 12 and 120…129 hold "ion 12"; only the first ten of those are shown.
    expect(kept).toHaveLength(10);
    expect(kept[0]).toBe('   [2-21] option: Option 12');
    expect(kept[9]).toBe('   [2-137] option: Option 128');
    expect(text).toContain('   … ');
  });
});
