// act({ elementId }): an id read in the page text stands for its element, with no model: in the top
// document, a same-origin iframe, an out-of-process iframe and a closed shadow root. An id the
// latest read does not have, or no longer has, is ElementIdNotFoundError, and the page still works.

import { describe, expect, it } from 'vitest';
import { ElementIdNotFoundError, ElementNotFoundError, InvalidOptionError } from '../src/index.js';
import { useBrowser } from './helpers.js';

const browser = useBrowser();

/** The id of the first line of the page text that has `role: name`, as the text writes it. */
function idOf(pageText: string, line: RegExp): string {
  const found = pageText.split('\n').find((each) => line.test(each));
  const id = found && /\[((?:\d+-)?\d+)\]/.exec(found)?.[1];
  if (!id) throw new Error(`no line like ${line} in:\n${pageText}`);
  return id;
}

describe('act({ elementId })', () => {
  it('clicks what the id named, in the top document, both kinds of iframe and a closed shadow root', async () => {
    const { page, sdk } = browser;
    await page.goto(browser.servers.a.url('/act.html'));
    const { pageText } = await sdk.extract();
    const top = idOf(pageText, /button: Top button/);
    expect(top).toMatch(/^\d+$/);
    const frames = pageText.split('\n').filter((line) => /button: Frame button/.test(line)).map((line) => /\[(\d+-\d+)\]/.exec(line)![1]!);
    expect(frames).toHaveLength(2);
    const shadow = idOf(pageText, /button: Shadow button/);

    expect((await sdk.act({ elementId: top })).success).toBe(true);
    expect(await page.evaluate(() => document.getElementById('top-state')!.textContent)).toBe('top clicked 1');
    // Ids stay good until the page is read again: all of these come from the one read.
    const done = await sdk.act({ elementId: `[${frames[0]}]`, method: 'click' });
    expect(done.actions[0]!.selector).toMatch(/^xpath=\/html\/body\/iframe\[1\]/);
    await sdk.act({ elementId: frames[1]! });
    await sdk.act({ elementId: shadow });
    const states = await Promise.all(page.frames().slice(1).map((frame) => frame.evaluate(() => document.getElementById('frame-state')!.textContent)));
    expect(states).toEqual(['frame clicked 1', 'frame clicked 1']);
    expect(await page.evaluate(() => document.getElementById('closed-host')!.dataset.state)).toBe('shadow clicked');

    // fill with arguments, on the id of the input.
    const name = idOf(pageText, /textbox: Name/);
    await sdk.act({ elementId: name, method: 'fill', arguments: ['Ada'] });
    expect(await page.evaluate(() => (document.getElementById('name') as HTMLInputElement).value)).toBe('Ada');
  });

  it('refuses an id the latest read does not have, one from before the page changed, and one that is no id', async () => {
    const { page, sdk } = browser;
    await page.goto(browser.servers.a.url('/act.html'));
    const { pageText } = await sdk.extract();
    const top = idOf(pageText, /button: Top button/);
    const unknown = await sdk.act({ elementId: '99999' }).catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(ElementIdNotFoundError);
    expect(unknown).toBeInstanceOf(ElementNotFoundError);
    expect((unknown as Error).message).toMatch(/\[99999\].*Read the page again/);

    // A new document: the old read's ids are gone with it.
    await page.goto(browser.servers.a.url('/act.html'));
    const stale = await sdk.act({ elementId: top }).catch((error: unknown) => error);
    expect(stale).toBeInstanceOf(ElementIdNotFoundError);
    const bad = await sdk.act({ elementId: 'the top button' }).catch((error: unknown) => error);
    expect(bad).toBeInstanceOf(InvalidOptionError);

    // Read again: the same button has an id again, and the page works.
    const again = idOf((await sdk.extract()).pageText, /button: Top button/);
    expect((await sdk.act({ elementId: again })).success).toBe(true);
    expect(await page.evaluate(() => document.getElementById('top-state')!.textContent)).toBe('top clicked 1');
  });

  it('takes ids of the interactive view too', async () => {
    const { page, sdk } = browser;
    await page.goto(browser.servers.a.url('/act.html'));
    const { pageText } = await sdk.extract({ view: 'interactive' });
    await sdk.act({ elementId: idOf(pageText, /button: Top button/) });
    expect(await page.evaluate(() => document.getElementById('top-state')!.textContent)).toBe('top clicked 1');
  });
});
