// page.screenshot() with Stagehand's options (type, quality, fullPage, clip, scale, mask,
// omitBackground, style, animations, caret, path, timeout) beside Tendril's (selector, timeoutMs),
// bad combinations refused; frame.screenshot() of the main frame, a same-origin iframe and an
// out-of-process one.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { InvalidOptionError, TimeoutError, type Frame, type Page } from '../../src/index.js';
import { useBrowser } from '../helpers.js';
import { jpegSize, readPng } from '../support/png.js';

const fixture = useBrowser();
const folder = mkdtempSync(path.join(os.tmpdir(), 'tendril-test-shots-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const RED = [204, 0, 0];
const BLUE = [0, 0, 204];
const GREEN = [0, 160, 0];
const PURPLE = [128, 0, 128];
const MAGENTA = [255, 0, 255];
const WHITE = [255, 255, 255];

function frameOf(page: Page, fragment: string): Frame {
  const found = page.frames().find((frame) => frame.url().includes(fragment));
  if (!found) throw new Error(`no frame with ${fragment}`);
  return found;
}

const viewport = (page: Page) => page.evaluate<[number, number]>('[innerWidth, innerHeight]');

beforeEach(async () => {
  await fixture.page.goto(fixture.servers.a.url('/sh3-shot.html'));
});

describe('page.screenshot() formats and areas', () => {
  it('takes a PNG of the viewport by default, and a JPEG of the quality asked', async () => {
    const { page } = fixture;
    const png = await page.screenshot();
    expect(Buffer.from(png.subarray(0, 8)).toString('hex')).toBe('89504e470d0a1a0a');
    const picture = readPng(png);
    expect([picture.width, picture.height]).toEqual(await viewport(page));
    expect(picture.pixel(50, 25)).toEqual(RED);

    const fine = await page.screenshot({ type: 'jpeg', quality: 95 });
    const coarse = await page.screenshot({ type: 'jpeg', quality: 5 });
    expect(Buffer.from(fine.subarray(0, 3)).toString('hex')).toBe('ffd8ff');
    expect(jpegSize(fine)).toEqual({ width: picture.width, height: picture.height });
    expect(coarse.length).toBeLessThan(fine.length);
  });

  it('takes the full page, a clip (beyond the viewport too), and one pixel per CSS pixel with scale "css"', async () => {
    const { page, sdk, servers } = fixture;
    const [width] = await viewport(page);
    const full = readPng(await page.screenshot({ fullPage: true }));
    expect([full.width, full.height]).toEqual([width, 2000]);
    expect(full.pixel(10, 1975)).toEqual(PURPLE);
    // The viewport did not move for it.
    expect(await page.evaluate('scrollY')).toBe(0);

    const clip = readPng(await page.screenshot({ clip: { x: 0, y: 0, width: 100, height: 50 } }));
    expect([clip.width, clip.height]).toEqual([100, 50]);
    expect([clip.pixel(0, 0), clip.pixel(99, 49)]).toEqual([RED, RED]);
    const below = readPng(await page.screenshot({ clip: { x: 0, y: 1960, width: 40, height: 20 } }));
    expect([below.width, below.height, ...below.pixel(20, 10)]).toEqual([40, 20, ...PURPLE]);

    const dense = await sdk.context.newPage();
    try {
      await dense.goto(servers.a.url('/sh3-shot.html'));
      await dense.setViewportSize(400, 300, { deviceScaleFactor: 2 });
      expect(await viewport(dense)).toEqual([400, 300]);
      const device = readPng(await dense.screenshot());
      expect([device.width, device.height]).toEqual([800, 600]);
      const css = readPng(await dense.screenshot({ scale: 'css' }));
      expect([css.width, css.height]).toEqual([400, 300]);
      expect(css.pixel(50, 25)).toEqual(RED);
    } finally {
      await dense.close();
    }
  });

  it('refuses bad options and combinations with InvalidOptionError, and works after', async () => {
    const { page } = fixture;
    const refused: Array<[object, RegExp]> = [
      // The first words of Stagehand's three messages, which code may match, are in Tendril's too.
      [{ quality: 50 }, /quality option is only valid for JPEG/],
      [{ type: 'jpeg', quality: 101 }, /whole number from 0 to 100/],
      [{ type: 'gif' }, /unsupported image type "gif": `type` must be "png" or "jpeg"/],
      [{ fullPage: true, clip: { x: 0, y: 0, width: 5, height: 5 } }, /clip and fullPage cannot be used together/],
      [{ selector: '#red', fullPage: true }, /`selector` captures one element/],
      [{ clip: { x: 0, y: 0, width: 0, height: 5 } }, /positive width and height/],
      [{ clip: { x: 'a', y: 0, width: 5, height: 5 } }, /`clip.x` must be a finite number/],
      [{ type: 'jpeg', omitBackground: true }, /`omitBackground` needs a PNG/],
      [{ mask: '#red' }, /`mask` must be an array/],
      [{ scale: 2 }, /`scale` must be "css" or "device"/],
      [{ animations: 'off' }, /`animations`/],
      [{ caret: 'show' }, /`caret`/],
      [{ fullpage: true }, /`fullpage` is not an option/],
      [{ timeout: -1 }, /positive number of milliseconds/],
    ];
    for (const [options, message] of refused) {
      const error = await page.screenshot(options as never).catch((caught: unknown) => caught);
      expect(error, JSON.stringify(options)).toBeInstanceOf(InvalidOptionError);
      expect((error as Error).message).toMatch(message);
    }
    expect(readPng(await page.screenshot({ selector: '#red' })).width).toBe(100);
  });

  it('gives up on time with TimeoutError, leaving the page as it was', async () => {
    const { page } = fixture;
    await expect(page.screenshot({ fullPage: true, style: 'body { outline: 1px solid red; }', timeout: 1 })).rejects.toBeInstanceOf(
      TimeoutError,
    );
    await expect.poll(() => page.evaluate('document.adoptedStyleSheets.length'), { timeout: 5000 }).toBe(0);
    expect(readPng(await page.screenshot()).pixel(50, 25)).toEqual(RED);
  });
});

describe('page.screenshot() effects', () => {
  it('covers masked elements, in an out-of-process iframe and shadow roots too, and takes the boxes away after', async () => {
    const { page } = fixture;
    const masks = [page.locator('#red'), '#oop >> #inner', page.locator('#not-there'), page.locator('#open-box'), '#closed-box'];
    const masked = readPng(await page.screenshot({ mask: masks }));
    expect(masked.pixel(50, 25)).toEqual(MAGENTA);
    expect([masked.pixel(270, 25), masked.pixel(370, 25)]).toEqual([MAGENTA, MAGENTA]);
    // The frame's button: 20 px into the frame, which is 100 px down.
    expect(masked.pixel(80, 140)).toEqual(MAGENTA);
    expect(masked.pixel(150, 25)).toEqual(RED);
    const green = readPng(await page.screenshot({ mask: [page.locator('#red')], maskColor: 'rgb(0, 255, 0)' }));
    expect(green.pixel(50, 25)).toEqual([0, 255, 0]);
    expect(await page.evaluate('document.querySelectorAll("[data-tendril-mask]").length')).toBe(0);
    expect(await frameOf(page, 'in=oop').evaluate('document.querySelectorAll("[data-tendril-mask]").length')).toBe(0);
    const plain = readPng(await page.screenshot());
    expect([plain.pixel(50, 25), plain.pixel(270, 25), plain.pixel(370, 25)]).toEqual([RED, RED, RED]);
  });

  it('leaves the background transparent with omitBackground, and applies `style` for the picture only', async () => {
    const { page } = fixture;
    const clear = readPng(await page.screenshot({ omitBackground: true }));
    expect(clear.alpha(500, 400)).toBe(0);
    expect(clear.alpha(50, 25)).toBe(255);
    expect(readPng(await page.screenshot()).alpha(500, 400)).toBe(255);

    const styled = readPng(await page.screenshot({ style: 'body { background: rgb(0, 128, 0) !important; }' }));
    expect(styled.pixel(500, 400)).toEqual([0, 128, 0]);
    expect(readPng(await page.screenshot()).pixel(500, 400)).toEqual(WHITE);
  });

  it('stops animations with animations "disabled", and hides the caret unless told', async () => {
    const { page } = fixture;
    expect(readPng(await page.screenshot()).pixel(150, 25)).toEqual(RED);
    expect(readPng(await page.screenshot({ animations: 'allow' })).pixel(150, 25)).toEqual(RED);
    expect(readPng(await page.screenshot({ animations: 'disabled' })).pixel(150, 25)).toEqual(BLUE);
    // A click focuses the field, and the page (Chrome draws no caret in a page without focus).
    await page.click(20, 320);
    const caretPixels = async (options: { caret?: 'hide' | 'initial' }) => {
      const shot = readPng(await page.screenshot({ ...options, clip: { x: 0, y: 300, width: 60, height: 60 } }));
      let red = 0;
      for (let y = 0; y < shot.height; y++) for (let x = 0; x < shot.width; x++) if (shot.pixel(x, y).join() === '255,0,0') red++;
      return red;
    };
    expect(await caretPixels({ caret: 'initial' })).toBeGreaterThan(10);
    expect(await caretPixels({ caret: 'hide' })).toBe(0);
    expect(await caretPixels({})).toBe(0);
    // Nothing stays behind in the page: its sheets are as they were, focus too.
    expect(await page.evaluate('[document.adoptedStyleSheets.length, document.activeElement.id]')).toEqual([0, 'field']);
  });

  it('writes the file at `path`, a JPEG when the name says so', async () => {
    const { page } = fixture;
    const png = await page.screenshot({ path: path.join(folder, 'shot.png') });
    expect(Buffer.compare(readFileSync(path.join(folder, 'shot.png')), Buffer.from(png))).toBe(0);
    await page.screenshot({ path: path.join(folder, 'shot.jpg'), quality: 40 });
    expect(jpegSize(readFileSync(path.join(folder, 'shot.jpg')))).toEqual({ width: readPng(png).width, height: readPng(png).height });
  });
});

describe('frame.screenshot()', () => {
  it('takes the main frame as the page, and an iframe as the page shows it, out-of-process ones too', async () => {
    const { page } = fixture;
    const main = readPng(await page.mainFrame().screenshot());
    expect([main.width, main.height]).toEqual(await viewport(page));
    const half = readPng(await page.mainFrame().screenshot({ scale: 0.5, clip: { x: 0, y: 0, width: 100, height: 50 } }));
    expect([half.width, half.height]).toEqual([50, 25]);

    for (const which of ['in=same', 'in=oop']) {
      const frame = frameOf(page, which);
      const shot = readPng(await frame.screenshot());
      expect([shot.width, shot.height], which).toEqual([300, 120]);
      expect(shot.pixel(5, 5), which).toEqual(GREEN);
      const part = await frame.screenshot({ clip: { x: 0, y: 0, width: 15, height: 10 }, type: 'jpeg', quality: 80 });
      expect(jpegSize(part), which).toEqual({ width: 15, height: 10 });
    }
    await expect(frameOf(page, 'in=oop').screenshot({ fullPage: true })).rejects.toThrow(/`fullPage` is for the main frame/);
    await expect(page.mainFrame().screenshot({ quality: 10 })).rejects.toBeInstanceOf(InvalidOptionError);
    await expect(page.mainFrame().screenshot({ scale: 0 })).rejects.toBeInstanceOf(InvalidOptionError);
  });
});
