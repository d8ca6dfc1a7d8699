// page.screenshot() and page.goBack(), which the MCP server's screenshot and back tools use.

import { describe, expect, it } from 'vitest';
import { ElementNotFoundError, SelectorSyntaxError } from '../../src/index.js';
import { useBrowser } from '../helpers.js';
import { readPng } from '../support/png.js';

const fixture = useBrowser();

describe('page.screenshot()', () => {
  it('captures the viewport, and an element scrolled into view, through an out-of-process iframe too', async () => {
    const { page, servers } = fixture;
    await page.goto(servers.a.url('capture.html'));
    const whole = readPng(await page.screenshot());
    expect([whole.width, whole.height]).toEqual(await page.evaluate('[innerWidth, innerHeight]'));

    // #box is 1500 px down: it has to be scrolled to, and the capture must show it, red.
    const box = readPng(await page.screenshot({ selector: '#box' }));
    expect([box.width, box.height]).toEqual([200, 100]);
    expect(box.pixel(100, 50)).toEqual([204, 0, 0]);
    expect(box.pixel(2, 2)).toEqual([204, 0, 0]);

    // #inner is in a frame of the other origin: its box is offset by where the iframe is.
    const inner = readPng(await page.screenshot({ selector: '#oop >> #inner' }));
    expect([inner.width, inner.height]).toEqual([120, 60]);
    expect(inner.pixel(60, 30)).toEqual([0, 0, 204]);
    expect(inner.pixel(1, 1)).toEqual([0, 0, 204]);
  });

  it("fails with the selector's own error for a bad or missing element, and works after", async () => {
    const { page, servers } = fixture;
    await page.goto(servers.a.url('capture.html'));
    await expect(page.screenshot({ selector: '//div[' })).rejects.toBeInstanceOf(SelectorSyntaxError);
    await expect(page.screenshot({ selector: '#nothing-here' })).rejects.toBeInstanceOf(ElementNotFoundError);
    expect(readPng(await page.screenshot({ selector: 'h1' })).height).toBeGreaterThan(10);
  });
});

describe('page.goBack()', () => {
  it('goes back a document, and within a document, and resolves null doing nothing when there is nothing before', async () => {
    const { sdk, servers } = fixture;
    const page = await sdk.context.newPage();
    try {
      expect(await page.goBack()).toBeNull();
      expect(page.url()).toBe('about:blank');

      await page.goto(servers.a.url('frames.html'));
      await page.goto(servers.b.url('oop.html'));
      // The document's response, or null when the back-forward cache gave the page back.
      const back = await page.goBack();
      if (back) expect(back.url()).toBe(servers.a.url('frames.html'));
      expect(page.url()).toBe(servers.a.url('frames.html'));
      // The document it went back to is read whole, its out-of-process iframe included (a page
      // restored from the back-forward cache brings its frames back with it).
      const { pageText } = await sdk.extract({ page });
      expect(pageText).toMatch(/heading: Top/);
      expect(pageText).toMatch(/cross-origin child/);
      expect(pageText).toMatch(/closed in oopif/);

      await page.goto(servers.a.url('leaf.html'));
      expect(await page.locator('#leaf').textContent()).toBe('leaf text');

      // An entry of the same document (goto's of a fragment returns before Chrome reports it).
      await page.evaluate(() => history.pushState(null, '', '#further'));
      expect(page.url()).toBe(servers.a.url('leaf.html#further'));
      // Nothing is fetched within a document.
      expect(await page.goBack()).toBeNull();
      expect(page.url()).toBe(servers.a.url('leaf.html'));
    } finally {
      await page.close();
    }
  });
});
