import { beforeAll, describe, expect, it } from 'vitest';
import { ElementNotFoundError, SelectorSyntaxError, XPathResolutionError } from '../../src/index.js';
import { useBrowser } from '../helpers.js';

const fixture = useBrowser();

describe('selectors across frames', () => {
  beforeAll(async () => {
    await fixture.page.goto(fixture.servers.a.url('/frames.html'));
  });

  it('follows an XPath past an iframe into its document', async () => {
    expect(await fixture.page.locator('/html/body/iframe[1]/html/body/p').textContent()).toBe('same-origin child');
    // Two hops, both in-process.
    expect(await fixture.page.locator('/html/body/iframe[1]/html/body/iframe/html/body/p').textContent()).toBe('leaf text');
    expect(await fixture.page.locator('xpath=/html/body/iframe[2]/html/body/p').textContent()).toBe('from srcdoc');
  });

  it('hops into out-of-process iframes, at any depth', async () => {
    const oop = fixture.page.locator('/html/body/iframe[3]/html/body/p');
    expect(await oop.textContent()).toBe('cross-origin child');
    expect((await oop.frame()).isOutOfProcess()).toBe(true);
    const deeper = fixture.page.locator('//iframe[@id="oop"]//iframe[@id="back"]/html/body/p[@id="leaf"]');
    expect(await deeper.textContent()).toBe('leaf text');
    expect((await deeper.frame()).url()).toContain('leaf.html?in=oop');
  });

  it('hops with CSS through >>', async () => {
    expect(await fixture.page.locator('#oop >> #o').textContent()).toBe('cross-origin child');
    expect(await fixture.page.locator('iframe#oop >> iframe#back >> button.go').textContent()).toBe('Leaf button');
    // A closed shadow root inside an OOPIF.
    expect(await fixture.page.locator('#oop >> #inside').textContent()).toBe('closed in oopif');
  });

  it('finds an iframe added by script', async () => {
    expect(await fixture.page.locator('#added >> #leaf').getAttribute('id')).toBe('leaf');
  });
});

describe('selectors into shadow roots', () => {
  beforeAll(async () => {
    await fixture.page.goto(fixture.servers.a.url('/shadow.html'));
  });

  it('enters open and nested open shadow roots with // and CSS', async () => {
    expect(await fixture.page.locator('/html/body/div[1]//button').textContent()).toBe('open button');
    expect(await fixture.page.locator('//div[@id="open-host"]//a').getAttribute('href')).toBe('/x');
    expect(await fixture.page.locator('#nested-link').textContent()).toBe('nested link');
  });

  it('enters closed shadow roots, which page script cannot see', async () => {
    expect(await fixture.page.evaluate(() => document.getElementById('closed-host')!.shadowRoot)).toBeNull();
    expect(await fixture.page.locator('/html/body/div[2]//button').textContent()).toBe('closed button');
    expect(await fixture.page.locator('#closed-btn').textContent()).toBe('closed button');
    // The Stagehand observe() form: host path, then // into the shadow tree.
    expect(await fixture.page.locator('/html/body/div[@id="closed-host"]//button[@id="closed-btn"]').getAttribute('id')).toBe('closed-btn');
  });

  it('continues from a closed shadow root into an out-of-process iframe', async () => {
    const inner = fixture.page.locator('/html/body/div[2]//iframe/html/body/p');
    expect(await inner.textContent()).toBe('leaf text');
    expect((await inner.frame()).url()).toContain('leaf.html?in=closed');
  });

  it('finds slotted light-DOM content', async () => {
    expect(await fixture.page.locator('//div[@id="slot-host"]/span').textContent()).toBe('slotted text');
    expect(await fixture.page.locator('#slot-host >> span#slotted').textContent()).toBe('slotted text');
  });

  it('runs locator.evaluate on the element', async () => {
    const tag = await fixture.page.locator('#closed-btn').evaluate((el, suffix: string) => el.tagName + suffix, '!');
    expect(tag).toBe('BUTTON!');
  });
});

describe('selector errors', () => {
  beforeAll(async () => {
    await fixture.page.goto(fixture.servers.a.url('/frames.html'));
  });

  it('raises XPathResolutionError for an XPath that matches nothing', async () => {
    const error = await fixture.page
      .locator('/html/body/section/p')
      .textContent()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(XPathResolutionError);
    expect((error as XPathResolutionError).selector).toBe('/html/body/section/p');
    // Also when the miss is inside an out-of-process iframe, and the message says where.
    const inner = await fixture.page
      .locator('/html/body/iframe[3]/html/body/table')
      .textContent()
      .catch((e: unknown) => e);
    expect(inner).toBeInstanceOf(XPathResolutionError);
    expect((inner as Error).message).toContain('oop.html');
  });

  it('raises ElementNotFoundError for CSS that matches nothing', async () => {
    const error = await fixture.page
      .locator('#nope')
      .textContent()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ElementNotFoundError);
    expect(error).not.toBeInstanceOf(XPathResolutionError);
  });

  it('reports syntax errors as such', async () => {
    await expect(fixture.page.locator('//div[').textContent()).rejects.toBeInstanceOf(SelectorSyntaxError);
    await expect(fixture.page.locator('div[[').textContent()).rejects.toBeInstanceOf(SelectorSyntaxError);
    await expect(fixture.page.locator('#oop >> a[[').textContent()).rejects.toThrow(/not valid/);
  });

  it('leaves the page usable after errors', async () => {
    await fixture.page
      .locator('#nope')
      .textContent()
      .catch(() => undefined);
    expect(await fixture.page.locator('#oop >> #o').textContent()).toBe('cross-origin child');
  });
});
