// Stagehand's extras of lane a, on real Chromium through a Stagehand (whose pages and context have
// them; an Sdk's have not): page.snapshot() across same-origin and out-of-process iframes and open
// and closed shadow roots, context.clipboard (the active page, `{ page }`, an out-of-process iframe's
// field, an isolated context), page.enableCursorOverlay() across a navigation. Stagehand's init() after close() is in
// sh3-reinit.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  InvalidOptionError,
  PageClosedError,
  PageNotFoundError,
  Sdk,
  SdkEvalError,
  StagehandEvalError,
  StagehandInvalidArgumentError,
  StagehandSnapshotError,
  type BrowserClipboard,
  type Frame,
  type Page,
  type SnapshotResult,
  type StagehandPage,
} from '../../src/index.js';
import { sdkOptions, useBrowser } from '../helpers.js';

const fixture = useBrowser({}, { stagehand: true });

/** The id and the rest of the line whose text is `role: name`, as the tree shows them. */
function lineOf(tree: string, role: string, name: string): string {
  const match = new RegExp(`^ *\\[((?:\\d+-)?\\d+)\\] ${role}: ${name}$`, 'm').exec(tree);
  if (!match) throw new Error(`no line "${role}: ${name}" in\n${tree}`);
  return match[1]!;
}

function idsOf(tree: string): string[] {
  return tree.split('\n').map((line) => /^ *\[((?:\d+-)?\d+)\]/.exec(line)![1]!);
}

function frameOf(page: Page, fragment: string): Frame {
  const found = page.frames().find((frame) => frame.url().includes(fragment));
  if (!found) throw new Error(`no frame with ${fragment}`);
  return found;
}

describe('page.snapshot()', () => {
  it('gives the page text with the XPath of every line and the URL of every link, keyed by the ids the text shows', async () => {
    const { page, servers } = fixture;
    await page.goto(servers.a.url('/snap-maps.html'));
    const { formattedTree, xpathMap, urlMap }: SnapshotResult = await page.snapshot();
    // The same text as extract() reads.
    expect(formattedTree).toBe((await fixture.sdk.extract()).pageText);
    expect(Object.keys(xpathMap).sort()).toEqual(idsOf(formattedTree).sort());

    const oop = lineOf(formattedTree, 'button', 'oop mapped button');
    const closed = lineOf(formattedTree, 'button', 'closed mapped button');
    const nested = lineOf(formattedTree, 'paragraph', 'nested mapped text');
    const shadowLink = lineOf(formattedTree, 'link', 'open shadow link');
    expect(oop).toMatch(/^[1-9]\d*-\d+$/);
    expect(closed).toMatch(/^\d+$/);
    expect(nested).toMatch(/^[1-9]\d*-\d+$/);
    for (const [id, text] of [
      [oop, 'oop mapped button'],
      [closed, 'closed mapped button'],
      [nested, 'nested mapped text'],
      [shadowLink, 'open shadow link'],
    ] as const) {
      expect(xpathMap[id], id).toMatch(/^\/html/);
      expect(await page.locator(xpathMap[id]!).textContent()).toBe(text);
    }
    expect(await page.locator(xpathMap[oop]!).evaluate((el) => el.ownerDocument.location.origin)).toBe(servers.b.origin);
    expect(await page.locator(xpathMap[closed]!).evaluate((el) => el.getRootNode() instanceof ShadowRoot)).toBe(true);

    expect(urlMap).toEqual({
      [shadowLink]: `${servers.a.origin}/shadow-target`,
      [lineOf(formattedTree, 'link', 'relative link')]: `${servers.b.origin}/base/rel/page.html`,
      [lineOf(formattedTree, 'link', 'absolute link')]: `${servers.b.origin}/absolute/page.html?q=1`,
      [lineOf(formattedTree, 'link', 'rooted link')]: `${servers.b.origin}/rooted/page.html?q=1#top`,
      [lineOf(formattedTree, 'link', 'dotted link')]: `${servers.b.origin}/dotted/page.html`,
      [lineOf(formattedTree, 'link', 'encoded link')]: `${servers.b.origin}/rooted/caf%C3%A9%20menu.html`,
    });

    // Its ids are the page's latest read: act({ elementId }) takes them.
    const frame = frameOf(page, '/snap-maps-oop.html');
    await frame.evaluate(() => document.querySelector('button')!.addEventListener('click', () => (document.title = 'clicked')));
    await fixture.sdk.act({ elementId: oop, method: 'click', description: 'the oop button' });
    expect(await frame.evaluate(() => document.title)).toBe('clicked');
  });

  it('with includeIframes: false, keeps only the top document, each iframe a line of its own', async () => {
    const { page, servers } = fixture;
    await page.goto(servers.a.url('/snap-maps.html'));
    const whole = await page.snapshot({ includeIframes: true });
    const { formattedTree, xpathMap, urlMap } = await page.snapshot({ includeIframes: false });
    expect(formattedTree).not.toMatch(/\[[1-9]\d*-\d+\]/);
    expect(formattedTree).not.toContain('oop mapped button');
    expect(formattedTree).not.toContain('nested mapped text');
    expect(formattedTree.match(/\] Iframe$/gm)).toHaveLength(3);
    // The top document's lines, shadow roots included, as in the whole read.
    expect(formattedTree).toBe(
      whole.formattedTree
        .split('\n')
        .filter((line) => !/^ *\[[1-9]\d*-/.test(line))
        .join('\n'),
    );
    const closed = lineOf(formattedTree, 'button', 'closed mapped button');
    expect(await page.locator(xpathMap[closed]!).textContent()).toBe('closed mapped button');
    expect(Object.keys(xpathMap).sort()).toEqual(idsOf(formattedTree).sort());
    expect(urlMap).toEqual({ [lineOf(formattedTree, 'link', 'open shadow link')]: `${servers.a.origin}/shadow-target` });
  });

  it('refuses bad options with a typed error, and a closed page with StagehandSnapshotError', async () => {
    const { page, servers, sdk } = fixture;
    await page.goto(servers.a.url('/sh3-page.html'));
    const bad = [
      () => page.snapshot('all' as never),
      () => page.snapshot({ includeIframes: 'no' as never }),
      () => page.snapshot({ iframes: false } as never),
    ];
    for (const call of bad) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidOptionError);
      expect(error).toBeInstanceOf(StagehandInvalidArgumentError);
      expect((error as Error).message).toMatch(/includeIframes/);
    }
    // The page is still there to read.
    expect((await page.snapshot(undefined)).formattedTree).toContain('button: Top button');

    const other = await sdk.context.newPage(servers.a.url('/sh3-frame.html'));
    await other.close();
    const error = await other.snapshot().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StagehandSnapshotError);
    expect((error as Error).cause).toBeInstanceOf(PageClosedError);
    sdk.context.setActivePage(page);
  });
});

describe('context.clipboard', () => {
  const textarea = async (page: Page, value = '') => {
    await page.evaluate((text) => {
      document.querySelector('#clip')?.remove();
      const area = document.createElement('textarea');
      area.id = 'clip';
      area.value = text;
      document.body.append(area);
      area.focus();
      area.setSelectionRange(0, text.length);
    }, value);
  };
  const valueOf = (page: Page) => page.evaluate(() => (document.querySelector('#clip') as HTMLTextAreaElement).value);

  it('writes and reads text, pastes it into the focused field, copies and cuts the selection', async () => {
    const { page, servers } = fixture;
    const clipboard: BrowserClipboard = fixture.sdk.context.clipboard;
    await page.goto(servers.a.url('/sh3-page.html'));
    await textarea(page);
    await clipboard.writeText('hello clipboard');
    expect(await clipboard.readText()).toBe('hello clipboard');
    await clipboard.paste();
    expect(await valueOf(page)).toBe('hello clipboard');

    await textarea(page, 'copy me');
    await clipboard.copy();
    expect(await clipboard.readText()).toBe('copy me');
    expect(await valueOf(page)).toBe('copy me');

    await textarea(page, 'cut me');
    await clipboard.cut();
    expect(await clipboard.readText()).toBe('cut me');
    expect(await valueOf(page)).toBe('');

    await clipboard.clear();
    expect(await clipboard.readText()).toBe('');
    await clipboard.writeText('with the shortcut named');
    await clipboard.paste({ shortcut: 'Control+V' });
    expect(await valueOf(page)).toBe('with the shortcut named');
  });

  it("reads what the page wrote on a user's click", async () => {
    const { page, servers } = fixture;
    await page.goto(servers.a.url('/sh3-page.html'));
    await page.evaluate(() =>
      document.querySelector('#top')!.addEventListener('click', () => void navigator.clipboard.writeText('written by the page')),
    );
    await fixture.sdk.context.clipboard.writeText('before');
    await page.locator('#top').click();
    await expect.poll(() => fixture.sdk.context.clipboard.readText()).toBe('written by the page');
  });

  it('pastes into and copies from a field of an out-of-process iframe that has focus', async () => {
    const { page, servers } = fixture;
    const { clipboard } = fixture.sdk.context;
    await page.goto(servers.a.url('/sh3-page.html'));
    const oop = frameOf(page, 'in=oop');
    expect(oop.isOutOfProcess()).toBe(true);
    await oop.evaluate(() => {
      document.body.insertAdjacentHTML('beforeend', '<input id="inside" style="position:absolute;top:80px">');
      (document.querySelector('#inside') as HTMLInputElement).focus();
    });
    await clipboard.writeText('into the frame');
    await clipboard.paste();
    expect(await oop.evaluate(() => (document.querySelector('#inside') as HTMLInputElement).value)).toBe('into the frame');
    await oop.evaluate(() => {
      const input = document.querySelector('#inside') as HTMLInputElement;
      input.value = 'out of the frame';
      input.select();
    });
    await clipboard.copy();
    expect(await clipboard.readText()).toBe('out of the frame');
  });

  it('acts in the active page by default, and in `page` when given', async () => {
    const { page, servers, sdk } = fixture;
    const { clipboard } = sdk.context;
    await page.goto(servers.a.url('/sh3-page.html'));
    await textarea(page);
    const second = await sdk.context.newPage(servers.b.url('/sh3-page.html'));
    try {
      // newPage(url) resolves once the tab is there, as Stagehand's does, not once its page has loaded.
      await second.waitForLoadState('load');
      await textarea(second);
      sdk.context.setActivePage(second);
      await clipboard.writeText('active page text');
      await clipboard.paste();
      expect(await valueOf(second)).toBe('active page text');
      expect(await valueOf(page)).toBe('');

      await clipboard.writeText('explicit page text', { page });
      await textarea(second);
      await clipboard.paste({ page });
      expect(await valueOf(page)).toBe('explicit page text');
      expect(await valueOf(second)).toBe('');
      // As in Stagehand, the page acted in becomes the active one.
      expect(sdk.context.activePage()).toBe(page);
    } finally {
      await second.close();
    }
  });

  it('works in an isolated context, whose permissions are its own', async () => {
    const { servers, sdk } = fixture;
    const isolated = await sdk.newContext();
    try {
      const page = await isolated.newPage(servers.a.url('/sh3-page.html'));
      await page.waitForLoadState('load');
      await isolated.clipboard.writeText('isolated text');
      expect(await isolated.clipboard.readText({ page })).toBe('isolated text');
    } finally {
      await isolated.close();
    }
  });

  it('refuses bad arguments with typed errors and stays usable', async () => {
    const { page, servers, sdk } = fixture;
    const { clipboard } = sdk.context;
    await page.goto(servers.a.url('/sh3-page.html'));
    const refusal = async (call: () => Promise<unknown>, pattern: RegExp) => {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidOptionError);
      expect(error).toBeInstanceOf(StagehandInvalidArgumentError);
      expect((error as Error).message).toMatch(pattern);
    };
    await refusal(() => clipboard.writeText(42 as never), /`text` must be a string/);
    await refusal(() => clipboard.paste({ shortcut: 'Ctrl+V' as never }), /"ControlOrMeta\+V", "Meta\+V", "Control\+V"/);
    await refusal(() => clipboard.readText({ page: {} as never }), /`page` must be a page of this context/);
    await refusal(() => clipboard.copy({ shortcut: 'Control+V' } as never), /unknown option `shortcut`/);
    await refusal(() => clipboard.clear('page' as never), /options must be an object/);

    const closed = await sdk.context.newPage(servers.a.url('/sh3-frame.html'));
    await closed.close();
    expect(await clipboard.readText({ page: closed }).catch((e: unknown) => e)).toBeInstanceOf(PageClosedError);

    // A page that is no secure context has no clipboard: Chrome's refusal, named.
    const blank = await sdk.context.newPage('about:blank');
    const refused = await clipboard.readText({ page: blank }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SdkEvalError);
    expect(refused).toBeInstanceOf(StagehandEvalError);
    expect((refused as Error).message).toMatch(/secure pages .*page\.goto/);
    await blank.close();

    sdk.context.setActivePage(page);
    await clipboard.writeText('still works');
    expect(await clipboard.readText()).toBe('still works');
  });

  it('needs an open page', async () => {
    const { servers, sdk } = fixture;
    const isolated = await sdk.newContext();
    try {
      expect(await isolated.clipboard.readText().catch((e: unknown) => e)).toBeInstanceOf(PageNotFoundError);
      await (await isolated.newPage(servers.a.url('/sh3-frame.html'))).waitForLoadState('load');
      await isolated.clipboard.writeText('now there is one');
      expect(await isolated.clipboard.readText()).toBe('now there is one');
    } finally {
      await isolated.close();
    }
  });
});

describe('page.enableCursorOverlay()', () => {
  // A method of the Stagehand entry's pages (StagehandPage), not of the Sdk's.
  let sdk: Sdk;
  let page: StagehandPage;
  beforeAll(async () => {
    sdk = new Sdk(sdkOptions());
    await sdk.init();
    page = fixture.page;
  });
  afterAll(async () => {
    await sdk?.close();
  });

  const arrow = (page: Page) =>
    page.evaluate(() => {
      const element = document.getElementById('__tendrilCursor');
      return (
        element && {
          transform: element.style.transform,
          shown: element.getBoundingClientRect().width > 0,
          hidden: element.getAttribute('aria-hidden'),
        }
      );
    });

  it('draws an arrow that follows the pointer input, in each new document too, and leaves the page text as it was', async () => {
    const { servers } = fixture;
    await page.goto(servers.a.url('/sh3-page.html'));
    const text = (await page.snapshot()).formattedTree;
    expect(await arrow(page)).toBeNull();
    await page.enableCursorOverlay();
    await page.enableCursorOverlay();
    expect(await page.evaluate(() => document.querySelectorAll('[id="__tendrilCursor"]').length)).toBe(1);
    expect(await arrow(page)).toEqual({ transform: 'translate(0px, 0px)', shown: true, hidden: 'true' });

    await page.click(70, 30);
    await expect.poll(async () => (await arrow(page))?.transform).toBe('translate(70px, 30px)');
    // It takes no clicks: the button under it got this one.
    expect(await page.evaluate(() => (window as unknown as { log: string[] }).log)).toContain('click top 0 1');
    expect((await page.snapshot()).formattedTree).toBe(text);

    await page.goto(servers.b.url('/sh3-page.html'));
    await expect.poll(async () => (await arrow(page))?.shown).toBe(true);
    // A locator's click into an out-of-process iframe moves it to where the click landed.
    await page.locator('#oop >> #inner').click();
    await expect.poll(async () => (await arrow(page))?.transform).toBe('translate(90px, 260px)');
    await page.hover(200, 300);
    await expect.poll(async () => (await arrow(page))?.transform).toBe('translate(200px, 300px)');
    await page.tap(150, 120);
    await expect.poll(async () => (await arrow(page))?.transform).toBe('translate(150px, 120px)');
    await page.scroll(400, 250, 0, 100);
    await expect.poll(async () => (await arrow(page))?.transform).toBe('translate(400px, 250px)');
    // The iframes draw none of their own.
    expect(await frameOf(page, 'in=same').evaluate(() => document.getElementById('__tendrilCursor'))).toBeNull();
  });

  it('refuses a closed page', async () => {
    const { servers } = fixture;
    const other = await fixture.sdk.context.newPage(servers.a.url('/sh3-frame.html'));
    await other.close();
    expect(await other.enableCursorOverlay().catch((e: unknown) => e)).toBeInstanceOf(PageClosedError);
    fixture.sdk.context.setActivePage(page);
  });

  it("is no method of an Sdk's pages, nor are the other extras: Tendril's own classes keep their surface", () => {
    const plain = sdk.context.pages()[0]!;
    expect('enableCursorOverlay' in plain).toBe(false);
    expect('snapshot' in plain).toBe(false);
    expect('clipboard' in sdk.context).toBe(false);
  });
});
