// Stagehand 3's Locator surface (locator.d.ts), in every place a locator must reach: the top
// document, a same-origin iframe, an out-of-process iframe, an open and a closed shadow root. Each
// place is reached by another entry (page.locator, frameLocator, deepLocator, frame.locator), so
// the entries are tested too. The widgets write what they receive into their log (sh3-widgets.js).

import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ElementNotActionableError, ElementNotFoundError, InvalidOptionError, type Frame, type Locator } from '../../src/index.js';
import { useBrowser } from '../helpers.js';
import { readPng } from '../support/png.js';

const fixture = useBrowser();

interface Place {
  name: string;
  p: string;
  /** A locator for a CSS selector inside the place. */
  loc(selector: string): Locator;
  /** The frame whose document holds the place. */
  frame(): Frame;
}

const frameOf = (query: string) => () => fixture.page.frames().find((each) => each.url().includes(query))!;
const places: Place[] = [
  { name: 'the top document', p: 'top', loc: (s) => fixture.page.locator(s), frame: () => fixture.page.mainFrame() },
  { name: 'a same-origin iframe', p: 'same', loc: (s) => fixture.page.frameLocator('#same').locator(s), frame: frameOf('p=same') },
  { name: 'an out-of-process iframe', p: 'oop', loc: (s) => fixture.page.deepLocator(`iframe#oop >> ${s}`), frame: frameOf('p=oop') },
  { name: 'an open shadow root', p: 'open', loc: (s) => fixture.page.mainFrame().locator(s), frame: () => fixture.page.mainFrame() },
  { name: 'a closed shadow root', p: 'closed', loc: (s) => fixture.page.locator(s), frame: () => fixture.page.mainFrame() },
];

const load = () => fixture.page.goto(fixture.servers.a.url('/sh3-locators.html'));

describe.each(places)('Locator in $name', (place) => {
  const el = (id: string) => place.loc(`#${place.p}-${id}`);
  // A fresh page for each place: nothing one place did (a scroll, where the pointer is) reaches the next.
  beforeAll(load);
  // The pointer's arrival ("enter") is asked about in the hover test only.
  const log = async (withEnter = false) => (await el('log').textContent()).replace(withEnter ? /^$/ : /enter;/g, '');

  beforeEach(async () => {
    await el('log').evaluate((node) => void (node.textContent = ''));
  });

  it('clicks with real input: once, twice, with the right and the middle button', async () => {
    expect(place.p === 'oop' ? (await el('btn').frame()).isOutOfProcess() : true).toBe(true);
    await el('btn').click();
    await el('btn').click({ clickCount: 2 });
    await el('btn').click({ button: 'right' });
    await el('btn').click({ button: 'middle' });
    expect(await log()).toBe('click:0:1:true;click:0:1:true;click:0:2:true;dblclick;contextmenu:2;auxclick:2;auxclick:1;');
  });

  it('refuses to click a disabled button, saying which and why', async () => {
    const error = await el('off')
      .click()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ElementNotActionableError);
    expect((error as Error).message).toBe(`Cannot click "#${place.p}-off": it is disabled.`);
  });

  it('hovers, taps, and sends a bare click event', async () => {
    await el('para').hover();
    await el('log').evaluate((node) => void (node.textContent = ''));
    await el('btn').hover();
    expect(await log(true)).toBe('enter;');
    await el('btn').tap();
    expect(await log()).toContain('touchstart;');
    await el('log').evaluate((node) => void (node.textContent = ''));
    await el('btn').sendClickEvent();
    expect(await log()).toBe('click:0:1:false;');
  });

  it('fills fields, types with a delay, and reads their values', async () => {
    await el('text').fill('hello');
    expect(await el('text').inputValue()).toBe('hello');
    await el('area').fill('two\nlines');
    expect(await el('area').inputValue()).toBe('two\nlines');
    await el('edit').fill('edited');
    expect(await el('edit').inputValue()).toBe('edited');
    await el('num').fill('42');
    expect(await el('num').inputValue()).toBe('42');
    await el('text').fill('');
    const started = Date.now();
    await el('text').type('abc', { delay: 60 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(120);
    await el('text').type('de');
    expect(await el('text').inputValue()).toBe('abcde');
    expect(await log()).toContain('input:text;');
    const error = await el('para')
      .fill('x')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ElementNotActionableError);
    expect((error as Error).message).toMatch(/^Cannot fill ".*-para": it is a <p>, not a text field\.$/);
  });

  it('selects options by value or label, one or several, and says when there is none', async () => {
    expect(await el('sel').selectOption('b')).toEqual(['b']);
    expect(await el('sel').inputValue()).toBe('b');
    expect(await el('sel').selectOption(' Cherry ')).toEqual(['c']);
    expect(await el('multi').selectOption(['x', 'Zed'])).toEqual(['x', 'z']);
    expect(await log()).toBe('sel:b;sel:c;multi:x,z;');
    await expect(el('sel').selectOption('Durian')).rejects.toThrow(/no option "Durian" among its 3 \("Apple", "Banana", "Cherry"\)/);
    await expect(el('sel').selectOption(['a', 'b'])).rejects.toThrow(/takes one option, not 2/);
    await expect(el('text').selectOption('a')).rejects.toBeInstanceOf(ElementNotActionableError);
    expect(await el('sel').inputValue()).toBe('c');
  });

  it('reads visibility, checked state and text', async () => {
    expect(await el('btn').isVisible()).toBe(true);
    expect(await el('hidden').isVisible()).toBe(false);
    expect(await el('invisible').isVisible()).toBe(false);
    expect(await el('check').isChecked()).toBe(true);
    expect(await el('aria').isChecked()).toBe(true);
    expect(await el('uncheck').isChecked()).toBe(false);
    await el('uncheck').sendClickEvent();
    expect(await el('uncheck').isChecked()).toBe(true);
    expect(await el('para').innerText()).toBe('Hello bold world');
    expect(await el('para').innerHtml()).toBe('Hello <b>bold</b>   world');
    expect(await el('para').textContent()).toBe('Hello bold   world');
    expect(await el('hidden').innerText()).toBe('hidden text');
  });

  it('counts matches and picks one with nth and first, lazily', async () => {
    const items = place.loc(`.${place.p}-item`);
    expect(await items.count()).toBe(3);
    expect(await items.nth(1).textContent()).toBe('two');
    expect(await items.nth(2).innerText()).toBe('three');
    expect(await items.first().textContent()).toBe('one');
    expect(await items.textContent()).toBe('one');
    const beyond = items.nth(3);
    await expect(beyond.textContent()).rejects.toThrow(ElementNotFoundError);
    await expect(beyond.textContent()).rejects.toThrow(/match nth\(3\)/);
    expect(await place.loc(`.${place.p}-none`).count()).toBe(0);
    // What a screenshot mask takes: every match, or the one nth() names.
    const all = await items.resolveAll();
    expect(
      await Promise.all(
        all.map((each) => each.world.session.send('DOM.describeNode', { objectId: each.objectId }).then(({ node }) => node.localName)),
      ),
    ).toEqual(['li', 'li', 'li']);
    for (const each of all) void each.world.session.sendQuiet('Runtime.releaseObject', { objectId: each.objectId });
    expect(await items.nth(2).resolveAll()).toHaveLength(1);
  });

  it('scrolls an element to a percentage', async () => {
    const top = () => el('scroller').evaluate((node) => node.scrollTop);
    await el('scroller').scrollTo(50);
    expect(await top()).toBeCloseTo(270, 0);
    await el('scroller').scrollTo('100%');
    expect(await top()).toBe(540);
    await el('scroller').scrollTo(0);
    expect(await top()).toBe(0);
  });

  it('gives a centroid in the top page, where a raw click lands on the element', async () => {
    const { x, y } = await el('btn').centroid();
    expect(Number.isInteger(x) && Number.isInteger(y)).toBe(true);
    for (const type of ['mousePressed', 'mouseReleased'] as const) {
      await fixture.page.session.send('Input.dispatchMouseEvent', { type, x, y, button: 'left', clickCount: 1 });
    }
    expect(await log()).toBe('click:0:1:true;');
  });

  it("gives the element's backend node id, which the DevTools protocol resolves to it", async () => {
    const id = await el('btn').backendNodeId();
    expect(await el('btn').backendNodeId()).toBe(id);
    expect(await el('text').backendNodeId()).not.toBe(id);
    const { session } = await el('btn').frame();
    const { object } = await session.send('DOM.resolveNode', { backendNodeId: id });
    const { result } = await session.send('Runtime.callFunctionOn', {
      objectId: object.objectId!,
      functionDeclaration: 'function () { return this.id; }',
      returnByValue: true,
    });
    expect(result.value).toBe(`${place.p}-btn`);
  });

  it('sets files by path and in memory, and clears them', async () => {
    const folder = mkdtempSync(path.join(os.tmpdir(), 'tendril-upload-'));
    const file = path.join(folder, 'upload-me.txt');
    writeFileSync(file, 'hello file');
    await el('file').setInputFiles(file);
    expect(await log()).toBe('file:upload-me.txt/10/text/plain;');
    await el('file').setInputFiles([
      { name: 'a.json', mimeType: 'application/json', buffer: Buffer.from('{"a":1}') },
      { name: 'b.bin', buffer: new Uint8Array([1, 2, 3]) },
    ]);
    expect(await log()).toContain('file:a.json/7/application/json,b.bin/3/application/octet-stream;');
    expect(await el('file').evaluate((node) => (node as HTMLInputElement).files![0]!.text())).toBe('{"a":1}');
    await el('file').setInputFiles([]);
    expect(await el('file').evaluate((node) => (node as HTMLInputElement).files!.length)).toBe(0);
    await expect(el('file').setInputFiles(path.join(folder, 'missing.txt'))).rejects.toThrow(InvalidOptionError);
    await expect(el('file').setInputFiles(path.join(folder, 'missing.txt'))).rejects.toThrow(/there is no file at .*missing\.txt/);
    await expect(el('text').setInputFiles(file)).rejects.toThrow(
      /Cannot set the files of ".*-text": it is an <input type="text">, not an <input type="file">/,
    );
    await expect(el('single').setInputFiles([file, file])).rejects.toThrow(/takes one file/);
  });

  it('highlights the element with the Overlay domain, in the colours asked, and takes the highlight away', async () => {
    const { x, y } = await el('btn').centroid();
    // Inside the button, clear of its label.
    const colour = async () => readPng(await fixture.page.screenshot()).pixel(x - 60, y);
    const before = await colour();
    await el('btn').highlight({ durationMs: 0, contentColor: { r: 0, g: 0, b: 255, a: 1 } });
    expect(await colour()).toEqual([0, 0, 255]);
    await el('btn').highlight({ durationMs: 1 });
    expect(await colour()).toEqual(before);
  });

  it("gives the element's box in the top page from frame.getLocationForSelector", async () => {
    const inFrame = await el('btn').evaluate((node) => {
      const rect = node.getBoundingClientRect();
      return { x: rect.x, y: rect.y, width: rect.width, height: rect.height };
    });
    const offset =
      place.p === 'same' || place.p === 'oop'
        ? await fixture.page.locator(`#${place.p}`).evaluate((node) => {
            const rect = node.getBoundingClientRect();
            return { x: rect.x + node.clientLeft, y: rect.y + node.clientTop };
          })
        : { x: 0, y: 0 };
    const box = await place.frame().getLocationForSelector(`#${place.p}-btn`);
    expect(box.width).toBeCloseTo(140, 1);
    expect(box.height).toBeCloseTo(36, 1);
    expect(box.x).toBeCloseTo(inFrame.x + offset.x, 1);
    expect(box.y).toBeCloseTo(inFrame.y + offset.y, 1);
  });
});

describe('bad arguments', () => {
  beforeAll(load);
  it('are InvalidOptionErrors, and leave the page usable', async () => {
    const btn = fixture.page.locator('#top-btn');
    const bad: Array<() => unknown> = [
      () => btn.nth(-1),
      () => btn.nth(Number.NaN),
      () => btn.click({ button: 'side' as never }),
      () => btn.click({ clickCount: 0 }),
      () => btn.type('x', { delay: -5 }),
      () => btn.fill(5 as never),
      () => btn.scrollTo('half'),
      () => btn.selectOption(5 as never),
      () => btn.highlight({ durationMs: -1 }),
      () => fixture.page.locator(undefined as never),
      () => fixture.page.frameLocator(''),
      () => fixture.page.deepLocator('#oop >>  >> p'),
    ];
    for (const call of bad) {
      const error = await Promise.resolve()
        .then(call)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidOptionError);
    }
    await expect(fixture.page.locator('#top-file').setInputFiles(123 as never)).rejects.toThrow(InvalidOptionError);
    await expect(fixture.page.locator('#top-file').setInputFiles([{ name: 'x' }] as never)).rejects.toThrow(InvalidOptionError);
    expect(await fixture.page.locator('#top-btn').count()).toBe(1);
  });
});

describe('text= selectors', () => {
  beforeAll(load);
  it('find the innermost elements whose text holds the words, ignoring case, in frames and shadow roots', async () => {
    expect(await fixture.page.locator('text=Press top').count()).toBe(1);
    expect(await fixture.page.locator('text=press TOP').evaluate((node) => node.id)).toBe('top-btn');
    expect(await fixture.page.locator('text="hello bold world"').count()).toBe(3);
    expect(await fixture.page.locator('text=Press closed').evaluate((node) => node.id)).toBe('closed-btn');
    expect(
      await fixture.page
        .frameLocator('#oop')
        .locator('text=Press oop')
        .evaluate((node) => node.id),
    ).toBe('oop-btn');
    expect(await fixture.page.locator('text=hidden text').count()).toBe(3);
    expect(await fixture.page.locator('text=no such words').count()).toBe(0);
  });
});
