import { beforeAll, describe, expect, it } from 'vitest';
import { ElementNotFoundError, XPathResolutionError } from '../../src/index.js';
import { captureSnapshot } from '../../src/snapshot/index.js';
import { useBrowser } from '../helpers.js';
import { lines, mustFind } from '../support/snapshot-text.js';

const fixture = useBrowser();

/** Every distinct text of snap-scope.html and its frames, to check what a scope leaves out. */
const ALL_TEXTS = [
  'outside text top',
  'outside text bottom',
  'same scoped text',
  'same scoped button',
  'same other div text',
  'oop scoped text',
  'oop scoped link',
  'oop other div text',
  'open scoped text',
  'open scoped button',
  'open outside text',
  'closed scoped text',
  'closed scoped button',
  'closed outside text',
  'container own text',
  'inner frame text',
  'sibling frame text',
];

/** Asserts that `pageText` holds exactly the `expected` texts among ALL_TEXTS. */
function expectOnly(pageText: string, expected: string[]): void {
  for (const text of expected) expect(pageText, `"${text}" should be in:\n${pageText}`).toContain(text);
  for (const text of ALL_TEXTS.filter((each) => !expected.includes(each))) {
    expect(pageText, `"${text}" should not be in:\n${pageText}`).not.toContain(text);
  }
  // Still the line format, and not the whole page's RootWebArea.
  expect(lines(pageText).length).toBeGreaterThan(0);
  expect(pageText).not.toContain('Snapshot scope');
}

describe('extract({ selector })', () => {
  beforeAll(async () => {
    await fixture.page.goto(fixture.servers.a.url('/snap-scope.html'));
  });

  it('sees the whole page without a selector', async () => {
    const { pageText } = await fixture.sdk.extract();
    for (const text of ALL_TEXTS) expect(pageText, text).toContain(text);
  });

  it('scopes to a div inside a same-origin iframe by XPath', async () => {
    const { pageText } = await fixture.sdk.extract({ selector: '/html/body/iframe[1]/html/body/div[1]' });
    expectOnly(pageText, ['same scoped text', 'same scoped button']);
    mustFind(pageText, 'button', 'same scoped button');
  });

  it('scopes to a div inside an out-of-process iframe by XPath', async () => {
    const { pageText } = await fixture.sdk.extract({ selector: '/html/body/iframe[2]/html/body/div[1]' });
    expectOnly(pageText, ['oop scoped text', 'oop scoped link']);
    mustFind(pageText, 'link', 'oop scoped link');
  });

  it('scopes to an element in an open shadow root by CSS', async () => {
    const { pageText } = await fixture.sdk.extract({ selector: '#open-sec' });
    expectOnly(pageText, ['open scoped text', 'open scoped button']);
  });

  it('scopes to an element in a closed shadow root by CSS', async () => {
    const { pageText } = await fixture.sdk.extract({ selector: '#closed-sec' });
    expectOnly(pageText, ['closed scoped text', 'closed scoped button']);
    mustFind(pageText, 'button', 'closed scoped button');
  });

  it('includes an iframe inside the scope, and not sibling iframes', async () => {
    const { pageText } = await fixture.sdk.extract({ selector: '#container' });
    expectOnly(pageText, ['container own text', 'inner frame text']);
    mustFind(pageText, 'Iframe');
    const byXPath = await fixture.sdk.extract({ selector: '//div[@id="container"]' });
    expectOnly(byXPath.pageText, ['container own text', 'inner frame text']);
  });

  it('maps the ids of a scoped snapshot back to their elements', async () => {
    const snap = await captureSnapshot(fixture.page, { selector: '/html/body/iframe[2]/html/body/div[1]' });
    const link = mustFind(snap.text, 'link', 'oop scoped link');
    const xpath = await snap.xpathOf(link.id);
    expect(xpath).toMatch(/^\/html\/body\/iframe\[2\]\//);
    expect(await fixture.page.locator(xpath!).textContent()).toBe('oop scoped link');
    expect(snap.urlOf(link.id)).toBe(`${fixture.servers.b.origin}/somewhere`);

    const closed = await captureSnapshot(fixture.page, { selector: '#closed-sec' });
    const button = mustFind(closed.text, 'button', 'closed scoped button');
    expect(await fixture.page.locator((await closed.xpathOf(button.id))!).textContent()).toBe('closed scoped button');
  });

  it('rejects an XPath that matches nothing with XPathResolutionError', async () => {
    const outcome = await fixture.sdk.extract({ selector: '/html/body/div[@id="nope"]' }).catch((error: unknown) => error);
    expect(outcome).toBeInstanceOf(XPathResolutionError);
    // Also when the miss is inside an out-of-process iframe.
    const inner = await fixture.sdk.extract({ selector: '/html/body/iframe[2]/html/body/table' }).catch((error: unknown) => error);
    expect(inner).toBeInstanceOf(XPathResolutionError);
  });

  it('rejects CSS that matches nothing with ElementNotFoundError', async () => {
    const outcome = await fixture.sdk.extract({ selector: '#nope' }).catch((error: unknown) => error);
    expect(outcome).toBeInstanceOf(ElementNotFoundError);
    expect(outcome).not.toBeInstanceOf(XPathResolutionError);
  });

  it('still extracts the whole page after a failed selector', async () => {
    await fixture.sdk.extract({ selector: '#nope' }).catch(() => undefined);
    await fixture.sdk.extract({ selector: '//nothing[@here]' }).catch(() => undefined);
    const { pageText } = await fixture.sdk.extract();
    expect(pageText).toContain('outside text top');
    expect(pageText).toContain('oop scoped text');
    expect(pageText).toContain('closed scoped button');
  });
});

describe('extract({ page })', () => {
  it('extracts the page it is given', async () => {
    await fixture.page.goto(fixture.servers.a.url('/snap-scope.html'));
    const second = await fixture.sdk.context.newPage();
    try {
      await second.goto(fixture.servers.b.url('/snap-scope-second.html'));
      const { pageText } = await fixture.sdk.extract({ page: second });
      expect(pageText).toContain('second page text');
      expect(pageText).not.toContain('outside text top');
      expect(lines(pageText)[0]?.name).toBe('Second page');

      const first = await fixture.sdk.extract({ page: fixture.page });
      expect(first.pageText).toContain('outside text top');
      expect(first.pageText).not.toContain('second page text');

      const scoped = await fixture.sdk.extract({ page: second, selector: '#second-only' });
      expect(scoped.pageText).toContain('second page button');
      expect(scoped.pageText).not.toContain('second page text');
    } finally {
      await second.close();
    }
  });
});
