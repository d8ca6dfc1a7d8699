// act({ elementId }): an id read in the page text stands for its element, with no model: in the top
// document, a same-origin iframe, an out-of-process iframe and a closed shadow root. An id the
// latest read does not have, or no longer has, is ElementIdNotFoundError, and the page still works.

import { describe, expect, it } from 'vitest';
import { ElementIdNotFoundError, ElementNotFoundError, InvalidOptionError } from '../../src/index.js';
import { useBrowser } from '../helpers.js';

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
    const frames = pageText
      .split('\n')
      .filter((line) => /button: Frame button/.test(line))
      .map((line) => /\[(\d+-\d+)\]/.exec(line)![1]!);
    expect(frames).toHaveLength(2);
    const shadow = idOf(pageText, /button: Shadow button/);

    expect((await sdk.act({ elementId: top })).success).toBe(true);
    expect(await page.evaluate(() => document.getElementById('top-state')!.textContent)).toBe('top clicked 1');
    // Ids stay good until the page is read again: all of these come from the one read.
    const done = await sdk.act({ elementId: `[${frames[0]}]`, method: 'click' });
    // The action names the element by its id: replayed, it is that element again.
    expect(done.actions[0]!.selector).toBe(`ref=${frames[0]}`);
    await sdk.act({ elementId: frames[1]! });
    await sdk.act({ elementId: shadow });
    const states = await Promise.all(
      page
        .frames()
        .slice(1)
        .map((frame) => frame.evaluate(() => document.getElementById('frame-state')!.textContent)),
    );
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

describe('ids stay with their elements', () => {
  /** Every id of a page text, as written. */
  const idsIn = (pageText: string) => [...pageText.matchAll(/^ *\[((?:\d+-)?\d+)\]/gm)].map((match) => match[1]!);
  const state = () => browser.page.evaluate(() => document.getElementById('state')!.textContent);

  it('an id kept across a change that adds lines above it acts on its own element: top document, out-of-process iframe, closed shadow root', async () => {
    const { page, sdk } = browser;
    await page.goto(browser.servers.a.url('/ids.html'));
    const before = (await sdk.extract()).pageText;
    const top = idOf(before, /button: Target$/);
    const inFrame = idOf(before, /button: Frame target$/);
    const inShadow = idOf(before, /button: Shadow target$/);
    const frame = page.frames().find((each) => each.url().endsWith('/ids-frame.html'))!;
    expect(frame.isOutOfProcess()).toBe(true);
    // The first read of a document numbers its lines in order, as one walk would (its closed
    // shadow root, found after a first walk, included).
    for (const prefix of ['', '1-']) {
      const ids = idsIn(before).filter((id) => (prefix ? id.startsWith(prefix) : !id.includes('-')));
      expect(ids).toEqual(ids.map((_, i) => `${prefix}${i}`));
    }

    // The page adds a line above each target, and is read again: the agent still holds the old ids.
    await page.evaluate(() => (window as unknown as { insertAbove(): void }).insertAbove());
    await frame.evaluate(() => (window as unknown as { insertAbove(): void }).insertAbove());
    const after = (await sdk.extract()).pageText;
    expect(after).toContain('button: Inserted 1');

    await sdk.act({ elementId: top });
    expect(await state()).toBe('pressed Target');
    await sdk.act({ elementId: inFrame });
    expect(await frame.evaluate(() => document.getElementById('state')!.textContent)).toBe('frame pressed Frame target');
    await sdk.act({ elementId: inShadow });
    expect(await state()).toBe('pressed Shadow target');

    // The new read gave the targets the ids they had, and the added lines ids no read had given.
    expect([idOf(after, /button: Target$/), idOf(after, /button: Frame target$/), idOf(after, /button: Shadow target$/)]).toEqual([
      top,
      inFrame,
      inShadow,
    ]);
    const old = new Set(idsIn(before));
    for (const added of [/button: Inserted 1$/, /button: Frame inserted 1$/, /button: Shadow inserted 1$/])
      expect(old.has(idOf(after, added))).toBe(false);
    // Without a read in between, too.
    await page.evaluate(() => (window as unknown as { insertAbove(): void }).insertAbove());
    await sdk.act({ elementId: top });
    expect(await state()).toBe('pressed Target');
    // As a locator, the id is that element too.
    expect(await page.locator(`ref=${top}`).textContent()).toBe('Target');
    expect(await page.locator(`ref=[${inFrame}]`).textContent()).toBe('Frame target');
    // The views and a scoped read give the same ids.
    expect(idOf((await sdk.extract({ view: 'interactive' })).pageText, /button: Target( \(|$)/)).toBe(top);
    expect(idOf((await sdk.extract({ selector: '#list' })).pageText, /button: Target$/)).toBe(top);
    expect(idOf((await sdk.extract({ view: 'viewport' })).pageText, /button: Target$/)).toBe(top);
  });

  it('a frame keeps its number while other frames come and go, and an id of a frame gone names nothing', async () => {
    const { page, sdk } = browser;
    await page.goto(browser.servers.a.url('/ids.html'));
    const inFrame = idOf((await sdk.extract()).pageText, /button: Frame target$/);
    expect(inFrame).toMatch(/^1-/);
    await page.evaluate((src) => {
      const frame = document.createElement('iframe');
      frame.id = 'added';
      frame.src = src;
      document.getElementById('oop')!.before(frame);
      return new Promise((resolve) => (frame.onload = resolve));
    }, browser.servers.b.url('/act-frame.html'));
    const added = idOf((await sdk.extract()).pageText, /button: Frame button$/);
    expect(added).toMatch(/^2-/);
    // The first frame goes: the other keeps its number, and the ids of the one gone name nothing.
    await page.evaluate(() => document.getElementById('oop')!.remove());
    const after = (await sdk.extract()).pageText;
    expect(after).not.toContain('Frame target');
    expect(idOf(after, /button: Frame button$/)).toBe(added);
    await sdk.act({ elementId: added });
    const frame = page.frames().find((each) => each.url().endsWith('/act-frame.html'))!;
    expect(await frame.evaluate(() => document.getElementById('frame-state')!.textContent)).toBe('frame clicked 1');
    expect(await sdk.act({ elementId: inFrame }).catch((error: unknown) => error)).toBeInstanceOf(ElementIdNotFoundError);
    expect(await page.locator(`ref=${inFrame}`).count()).toBe(0);
  });

  it('an id whose element is gone is ElementIdNotFoundError: removed, its document replaced, its frame navigated', async () => {
    const { page, sdk } = browser;
    await page.goto(browser.servers.a.url('/ids.html'));
    const pageText = (await sdk.extract()).pageText;
    const doomed = idOf(pageText, /button: Doomed$/);
    const top = idOf(pageText, /button: Target$/);
    const inFrame = idOf(pageText, /button: Frame target$/);

    await page.evaluate(() => (window as unknown as { removeDoomed(): void }).removeDoomed());
    const removed = await sdk.act({ elementId: doomed }).catch((error: unknown) => error);
    expect(removed).toBeInstanceOf(ElementIdNotFoundError);
    expect((removed as Error).message).toMatch(new RegExp(`^\\[${doomed}\\] .*gone.*Read the page again`));
    // The same after a read: its id is given to no other element.
    const reread = (await sdk.extract()).pageText;
    expect(idsIn(reread)).not.toContain(doomed);
    expect(await sdk.act({ elementId: doomed }).catch((error: unknown) => error)).toBeInstanceOf(ElementIdNotFoundError);
    expect(await state()).toBe('none yet');
    expect(await page.locator(`ref=${doomed}`).count()).toBe(0);

    // The frame shows another document: its old ids name nothing there.
    const frame = page.frames().find((each) => each.url().endsWith('/ids-frame.html'))!;
    await frame.evaluate((url) => void (location.href = url), browser.servers.b.url('/act-frame.html'));
    await expect.poll(() => frame.url()).toMatch(/act-frame\.html$/);
    expect(await sdk.act({ elementId: inFrame }).catch((error: unknown) => error)).toBeInstanceOf(ElementIdNotFoundError);

    // A new top document: none of the old ids is there, until the page is read again.
    await page.goto(browser.servers.a.url('/ids.html'));
    const navigated = await sdk.act({ elementId: top }).catch((error: unknown) => error);
    expect(navigated).toBeInstanceOf(ElementIdNotFoundError);
    expect(await state()).toBe('none yet');
    expect((await sdk.act({ elementId: idOf((await sdk.extract()).pageText, /button: Target$/) })).success).toBe(true);
    expect(await state()).toBe('pressed Target');
  });
});
