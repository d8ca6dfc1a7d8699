import CDP from 'chrome-remote-interface';
import { describe, expect, it } from 'vitest';
import { Sdk, type Page } from '../../src/index.js';
import { captureSnapshot } from '../../src/snapshot/index.js';
import { sdkOptions, startDebugChrome, useBrowser } from '../helpers.js';
import {
  ancestorsOf,
  descendantsOf,
  excerpt,
  findLine,
  findLines,
  grammarProblems,
  hasState,
  lineWithText,
  lines,
  mustFind,
  mustFindText,
  occurrences,
  parentOf,
  stateValue,
  type Line,
} from '../support/snapshot-text.js';

const fixture = useBrowser();

/**
 * One fixture page per theme: loaded and extracted once, on first use; every test of the theme
 * awaits the same text (a failure to extract fails each of them with the same error).
 */
function themeText(pathname: string, prepare?: (page: Page) => Promise<void>): () => Promise<string> {
  let result: Promise<string> | undefined;
  return () =>
    (result ??= (async () => {
      await fixture.page.goto(fixture.servers.a.url(pathname));
      await prepare?.(fixture.page);
      return (await fixture.sdk.extract()).pageText;
    })());
}

/** The Iframe lines above a line, nearest first. */
function iframesAbove(all: Line[], line: Line): Line[] {
  return ancestorsOf(all, line).filter((ancestor) => ancestor.role === 'Iframe');
}

/** The line named exactly `name`, checked to sit under `depth` Iframe lines. */
function textInFrame(pageText: string, name: string, depth: number): Line {
  const all = lines(pageText);
  const line = mustFind(pageText, undefined, name);
  const iframes = iframesAbove(all, line);
  expect(iframes.length, `Iframe lines above "${name}" in:\n${excerpt(pageText)}`).toBe(depth);
  return line;
}

describe('frames', () => {
  const text = themeText('/snap-frames.html', async (page) => {
    // The page adds an iframe 100 ms after load; wait for that iframe's own load event.
    await page.evaluate(
      () =>
        new Promise<boolean>((resolve) => {
          if ((window as unknown as { lateLoaded: boolean }).lateLoaded) resolve(true);
          else addEventListener('late-loaded', () => resolve(true), { once: true });
        }),
    );
  });

  it('starts with the main frame RootWebArea named by the title; main-frame text is frame 0', async () => {
    const pageText = await text();
    const first = lines(pageText)[0]!;
    expect(first.role).toBe('RootWebArea');
    expect(first.name).toBe('Snapshot frames');
    expect(first.indent).toBe(0);
    expect(first.frame).toBe(0);
    expect(textInFrame(pageText, 'main frame text', 0).frame).toBe(0);
  });

  it('includes a same-origin iframe, indented under an Iframe line, with its own frame ordinal', async () => {
    const pageText = await text();
    const line = textInFrame(pageText, 'same origin frame text', 1);
    expect(line.frame).not.toBe(0);
  });

  it('includes nested iframes three levels deep, each level under the one above', async () => {
    const pageText = await text();
    const all = lines(pageText);
    const one = textInFrame(pageText, 'nest level one text', 1);
    const two = textInFrame(pageText, 'nest level two text', 2);
    const three = textInFrame(pageText, 'nest level three text', 3);
    // The Iframe lines above level three are the one holding level three, then those above level two.
    expect(iframesAbove(all, three).slice(1)).toEqual(iframesAbove(all, two));
    expect(iframesAbove(all, two).slice(1)).toEqual(iframesAbove(all, one));
    expect(new Set([0, one.frame, two.frame, three.frame]).size).toBe(4);
  });

  it('includes a srcdoc iframe', async () => {
    const pageText = await text();
    expect(textInFrame(pageText, 'srcdoc frame text', 1).frame).not.toBe(0);
  });

  it('includes an iframe that script added after load', async () => {
    const pageText = await text();
    const late = textInFrame(pageText, 'late frame text', 1);
    expect(late.frame).not.toBe(0);
    expect(late.frame).not.toBe(mustFind(pageText, undefined, 'same origin frame text').frame);
  });

  it('includes a cross-origin OOPIF, and OOPIFs inside it down to depth 3', async () => {
    const pageText = await text();
    const all = lines(pageText);
    const one = textInFrame(pageText, 'oop level one text', 1);
    const two = textInFrame(pageText, 'oop level two text', 2);
    const three = textInFrame(pageText, 'oop level three text', 3);
    expect(iframesAbove(all, three).slice(1)).toEqual(iframesAbove(all, two));
    expect(iframesAbove(all, two).slice(1)).toEqual(iframesAbove(all, one));
    expect(new Set([0, one.frame, two.frame, three.frame]).size).toBe(4);
    // A closed shadow root inside the depth-2 OOPIF belongs to that frame.
    expect(mustFind(pageText, 'button', 'closed root in oopif').frame).toBe(two.frame);
  });

  it('gives every frame its own ordinal', async () => {
    const pageText = await text();
    const names = [
      'main frame text',
      'same origin frame text',
      'nest level one text',
      'nest level two text',
      'nest level three text',
      'srcdoc frame text',
      'late frame text',
      'oop level one text',
      'oop level two text',
      'oop level three text',
    ];
    const frames = names.map((name) => mustFind(pageText, undefined, name).frame);
    expect(new Set(frames).size, `frame ordinals ${frames.join(', ')}`).toBe(names.length);
  });
});

describe('shadow roots', () => {
  const text = themeText('/snap-shadow.html');

  it('includes an open shadow root', async () => {
    const pageText = await text();
    expect(mustFind(pageText, undefined, 'light dom text').frame).toBe(0);
    expect(mustFind(pageText, undefined, 'open shadow text').frame).toBe(0);
  });

  it('includes nested open shadow roots, in order', async () => {
    const pageText = await text();
    const outer = mustFind(pageText, undefined, 'outer shadow text');
    const inner = mustFind(pageText, undefined, 'inner shadow text');
    const innermost = mustFind(pageText, undefined, 'innermost shadow text');
    expect(outer.index).toBeLessThan(inner.index);
    expect(inner.index).toBeLessThan(innermost.index);
  });

  it('includes a closed shadow root: its text and its button', async () => {
    const pageText = await text();
    expect(await fixture.page.evaluate(() => document.getElementById('closed-host')!.shadowRoot)).toBeNull();
    expect(mustFind(pageText, undefined, 'closed shadow text').frame).toBe(0);
    mustFind(pageText, 'button', 'closed shadow button');
  });

  it('includes closed roots declared in the markup, one inside another too, and acts in them by selector', async () => {
    // The parser attaches these: no script runs, so only the roots themselves tell Tendril.
    await fixture.page.goto(fixture.servers.a.url('/snap-dsd.html'));
    const pageText = (await fixture.sdk.extract({ page: fixture.page })).pageText;
    const order = [
      'Light text before the hosts.',
      'closed declarative paragraph',
      'closed card heading',
      'slotted light text',
      'closed card footer',
      'open declarative paragraph',
      'nested closed paragraph',
      'Light text after the hosts.',
    ].map((name) => mustFind(pageText, undefined, name).index);
    expect(order, pageText).toEqual([...order].sort((a, b) => a - b));
    expect(occurrences(pageText, 'slotted light text'), pageText).toBe(1);
    mustFind(pageText, 'button', 'closed declarative button');
    expect(await fixture.page.evaluate(() => document.getElementById('nested')!.shadowRoot)).toBeNull();
    expect(await fixture.page.locator('//button').textContent()).toBe('closed declarative button');
  });

  it('shows slotted light-DOM content exactly once, where the slot is', async () => {
    const pageText = await text();
    expect(occurrences(pageText, 'slotted light text'), pageText).toBe(1);
    const slotted = mustFindText(pageText, 'slotted light text');
    expect(slotted.index).toBeGreaterThan(mustFind(pageText, undefined, 'before the slot').index);
    expect(slotted.index).toBeLessThan(mustFind(pageText, undefined, 'after the slot').index);
  });

  it('follows named slots in shadow-tree order, and leaves out light children no slot takes', async () => {
    const pageText = await text();
    const order = ['named head', 'first slot content', 'named middle', 'second slot content'].map(
      (name) => mustFind(pageText, undefined, name).index,
    );
    expect(order, pageText).toEqual([...order].sort((a, b) => a - b));
    expect(occurrences(pageText, 'first slot content')).toBe(1);
    expect(occurrences(pageText, 'second slot content')).toBe(1);
    expect(pageText).not.toContain('unassigned light text');
  });

  it('shows a slot fallback when nothing is assigned to it', async () => {
    const pageText = await text();
    expect(occurrences(pageText, 'fallback slot text'), pageText).toBe(1);
  });

  it('includes a closed shadow root created before we attached to the browser', async () => {
    const debug = await startDebugChrome();
    try {
      const url = fixture.servers.a.url('/snap-shadow-preloaded.html');
      // Load the page with an independent client first, then attach Tendril to that Chrome.
      const target = await CDP.New({ port: debug.port });
      const client = await CDP({ port: debug.port, target: target.id });
      let token: string;
      try {
        await client.Page.enable();
        const loaded = client.Page.loadEventFired();
        await client.Page.navigate({ url });
        await loaded;
        const { result } = await client.Runtime.evaluate({ expression: 'window.loadToken', returnByValue: true });
        token = result.value as string;
      } finally {
        await client.close();
      }
      expect(token).toMatch(/^[a-z0-9]+$/);

      const sdk = new Sdk(sdkOptions({ localBrowserLaunchOptions: { cdpUrl: debug.wsUrl } }));
      try {
        await sdk.init();
        const page = sdk.context.pages().find((each) => each.url() === url);
        expect(
          page,
          `pages: ${sdk.context
            .pages()
            .map((each) => each.url())
            .join(', ')}`,
        ).toBeDefined();
        // Still the document loaded before we attached (not reloaded by attaching).
        expect(await page!.evaluate(() => (window as unknown as { loadToken: string }).loadToken)).toBe(token);
        const { pageText } = await sdk.extract({ page: page! });
        expect(pageText).toContain('preloaded light text');
        expect(pageText).toContain('preloaded closed text');
        mustFind(pageText, 'button', 'preloaded closed button');
      } finally {
        await sdk.close();
      }
    } finally {
      await debug.kill();
    }
  });
});

describe('form state', () => {
  const text = themeText('/snap-form.html', async (page) => {
    await page.evaluate(() => {
      const input = (id: string) => document.getElementById(id) as HTMLInputElement;
      input('later').value = 'typed later';
      (document.getElementById('fruit') as HTMLSelectElement).selectedIndex = 1;
      input('sub').checked = true;
      input('mix').indeterminate = true;
      (document.getElementById('notes') as HTMLTextAreaElement).value = 'notes typed by script';
      input('pin').value = 'script-secret-pw';
    });
  });

  it('shows the current value of a text input set by script, not an attribute', async () => {
    const pageText = await text();
    expect(await fixture.page.locator('#later').getAttribute('value')).toBeNull();
    const field = mustFind(pageText, 'textbox', 'Later field');
    expect(stateValue(field, 'value'), field.raw).toBe('typed later');
  });

  it('shows placeholders', async () => {
    const pageText = await text();
    const query = mustFind(pageText, 'textbox', 'Query');
    expect(stateValue(query, 'placeholder'), query.raw).toBe('Search here');
    // A field with only a placeholder: the placeholder shows on its line, as name or as state.
    const only = findLines(pageText, 'textbox').find((line) => line.raw.includes('Search products'));
    expect(only, pageText).toBeDefined();
  });

  it('marks the option a script selected', async () => {
    const pageText = await text();
    const all = lines(pageText);
    const banana = mustFind(pageText, 'option', 'Banana');
    expect(hasState(banana, 'selected'), banana.raw).toBe(true);
    expect(hasState(mustFind(pageText, 'option', 'Apple'), 'selected')).toBe(false);
    expect(hasState(mustFind(pageText, 'option', 'Cherry'), 'selected')).toBe(false);
    expect(
      ancestorsOf(all, banana).some((line) => line.role === 'combobox' || line.role === 'listbox'),
      pageText,
    ).toBe(true);
  });

  it('marks checkboxes checked by script, and only those', async () => {
    const pageText = await text();
    const checked = mustFind(pageText, 'checkbox', 'Subscribe');
    expect(hasState(checked, 'checked'), checked.raw).toBe(true);
    const unchecked = mustFind(pageText, 'checkbox', 'Unchecked box');
    expect(hasState(unchecked, 'checked'), unchecked.raw).toBe(false);
    expect(hasState(unchecked, 'mixed'), unchecked.raw).toBe(false);
    const mixed = mustFind(pageText, 'checkbox', 'Partial box');
    expect(hasState(mixed, 'mixed'), mixed.raw).toBe(true);
    expect(hasState(mixed, 'checked'), mixed.raw).toBe(false);
  });

  it('shows text typed into a textarea by script', async () => {
    const pageText = await text();
    const notes = mustFind(pageText, 'textbox', 'Notes');
    expect(stateValue(notes, 'value'), notes.raw).toBe('notes typed by script');
  });

  it('never shows a password', async () => {
    const pageText = await text();
    expect(pageText).not.toContain('attr-secret-pw');
    expect(pageText).not.toContain('script-secret-pw');
    for (const name of ['Password', 'PIN']) {
      const field = mustFind(pageText, 'textbox', name);
      expect(stateValue(field, 'value'), field.raw).toBeUndefined();
      expect(
        field.states.some((state) => state.startsWith('value')),
        field.raw,
      ).toBe(false);
    }
  });

  it('marks disabled buttons, and only those', async () => {
    const pageText = await text();
    const disabled = mustFind(pageText, 'button', 'Cannot press');
    expect(hasState(disabled, 'disabled'), disabled.raw).toBe(true);
    const enabled = mustFind(pageText, 'button', 'Can press');
    expect(hasState(enabled, 'disabled'), enabled.raw).toBe(false);
  });

  it('gives headings their level', async () => {
    const pageText = await text();
    const heading = mustFind(pageText, 'heading', 'Section three');
    expect(hasState(heading, 'level=3'), heading.raw).toBe(true);
  });
});

describe('where words meet', () => {
  const text = themeText('/snap-join.html');

  it('keeps the space between a link and the words after it when other markup comes between', async () => {
    mustFind(await text(), 'paragraph', 'Read the Terms (updated 2018) and Acme Inc. Then go.');
  });

  it('runs inline boxes on, and starts anew at block ones, even empty', async () => {
    const pageText = await text();
    mustFind(pageText, 'paragraph', 'Hyphenated and boxed words and nestedruns.');
    for (const run of ['first run', 'second run', 'third runfourth']) mustFindText(pageText, run);
  });
});

describe('accessible names', () => {
  const text = themeText('/snap-names.html');

  it('names an icon-only button by aria-label', async () => {
    mustFind(await text(), 'button', 'Close dialog');
  });

  it('names an image by alt', async () => {
    mustFind(await text(), 'image', 'Company logo');
  });

  it('names a link without text by title', async () => {
    mustFind(await text(), 'link', 'Your profile');
  });

  it('names an input by <label for>', async () => {
    mustFind(await text(), 'textbox', 'Email address');
  });

  it('names a checkbox by the label that wraps it', async () => {
    mustFind(await text(), 'checkbox', 'Remember me');
  });

  it('names an input by aria-labelledby', async () => {
    mustFind(await text(), 'textbox', 'Billing name');
  });
});

describe('hidden content', () => {
  const text = themeText('/snap-hidden.html');
  /** Hidden text must be absent from a text that is otherwise there. */
  async function visibleText(): Promise<string> {
    const pageText = await text();
    expect(pageText).toContain('plain visible text');
    return pageText;
  }

  it('leaves out display:none', async () => {
    expect(await visibleText()).not.toContain('gone via display none');
  });

  it('leaves out visibility:hidden', async () => {
    expect(await visibleText()).not.toContain('gone via visibility hidden');
  });

  it('leaves out aria-hidden="true"', async () => {
    expect(await visibleText()).not.toContain('gone via aria hidden');
  });

  it('leaves out the hidden attribute', async () => {
    expect(await visibleText()).not.toContain('gone via hidden attribute');
  });

  it('leaves out the body of closed <details>, keeps its summary, and shows open ones', async () => {
    const pageText = await visibleText();
    expect(pageText).not.toContain('closed details body');
    expect(pageText).toContain('Closed summary line');
    expect(pageText).toContain('Open summary line');
    expect(pageText).toContain('open details body');
  });

  it('keeps a visibility:visible child of a visibility:hidden parent', async () => {
    const pageText = await visibleText();
    expect(pageText).toContain('visible child of invisible parent');
    expect(pageText).not.toContain('gone with invisible parent');
  });

  // Last of this theme: it loads a page of its own.
  it('leaves out the content of hidden iframes, in-process and out-of-process', async () => {
    await fixture.page.goto(fixture.servers.a.url('/snap-hidden-frames.html'));
    // Every one of those frames did load.
    expect(fixture.page.frames()).toHaveLength(7);
    const { pageText } = await fixture.sdk.extract();
    expect(pageText).toContain('hidden frames page text');
    expect(textInFrame(pageText, 'frame shown content', 1).frame).not.toBe(0);
    for (const hidden of ['a', 'b', 'c', 'd', 'e']) expect(pageText).not.toContain(`frame ${hidden} content`);
  });
});

describe('compact text', () => {
  const text = themeText('/snap-compact.html');

  it('has no StaticText line without a name', async () => {
    const pageText = await text();
    const empty = findLines(pageText, 'StaticText').filter((line) => (line.name ?? '').trim() === '');
    expect(empty.map((line) => line.raw)).toEqual([]);
    expect(pageText).toContain('closing paragraph');
  });

  it('has no list markers', async () => {
    const pageText = await text();
    expect(pageText).not.toContain('•');
    expect(findLines(pageText, 'ListMarker')).toEqual([]);
    expect(findLines(pageText, undefined, /^\s*\d+\.\s*$/)).toEqual([]);
    const step = mustFindText(pageText, 'Numbered step one');
    expect(step.name).not.toMatch(/^\s*1\./);
    expect(pageText).toContain('First bullet item');
  });

  it('does not repeat a link text below the link', async () => {
    const pageText = await text();
    const all = lines(pageText);
    const link = mustFind(pageText, 'link', 'Home');
    expect(
      descendantsOf(all, link)
        .filter((line) => line.raw.includes('Home'))
        .map((line) => line.raw),
    ).toEqual([]);
    expect(occurrences(pageText, 'Home')).toBe(1);
  });

  it('merges adjacent inline text into one line', async () => {
    const pageText = await text();
    expect(findLines(pageText, undefined, /Hello bold world/), pageText).toHaveLength(1);
    expect(findLine(pageText, undefined, 'bold')).toBeUndefined();
    expect(findLine(pageText, undefined, 'world')).toBeUndefined();
    expect(occurrences(pageText, 'bold')).toBe(1);
    // A blank inline element is the space between two words; an empty one joins them.
    expect(mustFind(pageText, 'paragraph', 'two wordsjoined')).toBeDefined();
  });

  it('keeps running text with links as one line, the links below it', async () => {
    const pageText = await text();
    const all = lines(pageText);
    const prose = mustFind(pageText, 'paragraph', 'Read the setup guide before you start, then relax.');
    const kids = all.filter((line) => parentOf(all, line)?.id === prose.id);
    expect(kids.map((line) => `${line.role}: ${line.name}`)).toEqual(['link: setup guide', 'link: start']);
    expect(findLines(pageText, 'StaticText', /Read the|then relax/)).toEqual([]);
  });

  it('writes a table row as one line of its cells, keeping the links in it', async () => {
    await fixture.page.goto(fixture.servers.a.url('/snap-compact.html'));
    const snap = await captureSnapshot(fixture.page);
    const all = lines(snap.text);
    expect(mustFind(snap.text, 'row', 'Plant | Price | Page')).toBeDefined();
    const row = mustFind(snap.text, 'row', 'Tomato | $3.50 | details');
    const kids = all.filter((line) => parentOf(all, line)?.id === row.id);
    expect(kids.map((line) => `${line.role}: ${line.name}`)).toEqual(['link: details']);
    expect(snap.urlOf(kids[0]!.id)).toBe(`${fixture.servers.a.origin}/tomato`);
    expect(findLines(snap.text, 'cell')).toEqual([]);
  });

  it('puts the items of a menu list straight into its landmark', async () => {
    const pageText = await text();
    const all = lines(pageText);
    const nav = mustFind(pageText, 'navigation', 'Main menu');
    const kids = all.filter((line) => parentOf(all, line)?.id === nav.id);
    expect(kids.map((line) => `${line.role}: ${line.name}`)).toEqual(['link: Alpha', 'link: Beta']);
  });

  it('adds no lines for generic wrappers', async () => {
    const pageText = await text();
    const all = lines(pageText);
    const deep = mustFindText(pageText, 'deep paragraph');
    const parent = parentOf(all, deep)!;
    expect(parent.role, pageText).toBe('region');
    expect(parent.name).toBe('Deep region');
    expect(deep.indent - parent.indent).toBe(1);
    expect(findLines(pageText, 'generic').map((line) => line.raw)).toEqual([]);
  });
});

describe('node maps', () => {
  let result: ReturnType<typeof captureSnapshot> | undefined;
  const snapshot = () =>
    (result ??= (async () => {
      await fixture.page.goto(fixture.servers.a.url('/snap-maps.html'));
      return captureSnapshot(fixture.page, {});
    })());

  /** xpathOf for the line; checks the XPath is absolute and that our locator finds the element. */
  async function located(line: Line, expectedText: string) {
    const snap = await snapshot();
    const xpath = await snap.xpathOf(line.id);
    expect(xpath, `xpathOf(${line.id}) for ${line.raw}`).toBeDefined();
    expect(xpath).toMatch(/^\/html/);
    expect(xpath).not.toContain('//');
    const locator = fixture.page.locator(xpath!);
    expect(await locator.textContent(), `text at ${xpath}`).toContain(expectedText);
    return { xpath: xpath!, locator };
  }

  it('maps a button in an out-of-process iframe to an XPath our locator resolves', async () => {
    const snap = await snapshot();
    const { xpath, locator } = await located(mustFind(snap.text, 'button', 'oop mapped button'), 'oop mapped button');
    expect(xpath).toContain('iframe');
    expect(await locator.evaluate((el) => el.tagName)).toBe('BUTTON');
    expect((await locator.frame()).isOutOfProcess()).toBe(true);
  });

  it('maps a button in a closed shadow root', async () => {
    const snap = await snapshot();
    const { locator } = await located(mustFind(snap.text, 'button', 'closed mapped button'), 'closed mapped button');
    expect(await locator.evaluate((el) => el.tagName)).toBe('BUTTON');
    expect(await locator.evaluate((el) => el.getRootNode() instanceof ShadowRoot)).toBe(true);
  });

  it('maps text in a nested same-origin iframe', async () => {
    const snap = await snapshot();
    const { xpath, locator } = await located(mustFindText(snap.text, 'nested mapped text'), 'nested mapped text');
    expect(xpath.match(/iframe/g)).toHaveLength(2);
    expect((await locator.frame()).url()).toContain('/snap-maps-inner.html');
  });

  it('maps a link in an open shadow root', async () => {
    const snap = await snapshot();
    const { locator } = await located(mustFind(snap.text, 'link', 'open shadow link'), 'open shadow link');
    expect(await locator.getAttribute('href')).toBe('/shadow-target');
  });

  it('maps every line to an XPath that resolves to its element', async () => {
    const snap = await snapshot();
    const all = lines(snap.text);
    expect(all.length).toBeGreaterThan(10);
    for (const line of all) {
      const xpath = await snap.xpathOf(line.id);
      expect(xpath, `xpathOf(${line.id}) for ${line.raw}`).toMatch(/^\/html/);
      const found = await fixture.page
        .locator(xpath!)
        .evaluate((el) => [el.textContent ?? '', el.getAttribute('aria-label') ?? ''] as const);
      if (line.name && line.role !== 'RootWebArea') {
        expect(found.join(' '), `element at ${xpath} for ${line.raw}`).toContain(line.name);
      }
    }
    expect(await snap.xpathOf('999-999')).toBeUndefined();
  });

  it('resolves link URLs against the frame base URL', async () => {
    const snap = await snapshot();
    const relative = mustFind(snap.text, 'link', 'relative link');
    expect(snap.urlOf(relative.id)).toBe(`${fixture.servers.b.origin}/base/rel/page.html`);
    const absolute = mustFind(snap.text, 'link', 'absolute link');
    expect(snap.urlOf(absolute.id)).toBe(`${fixture.servers.b.origin}/absolute/page.html?q=1`);
    // Paths from the root: against the base's origin, dot segments removed, what needs it encoded.
    expect(snap.urlOf(mustFind(snap.text, 'link', 'rooted link').id)).toBe(`${fixture.servers.b.origin}/rooted/page.html?q=1#top`);
    expect(snap.urlOf(mustFind(snap.text, 'link', 'dotted link').id)).toBe(`${fixture.servers.b.origin}/dotted/page.html`);
    expect(snap.urlOf(mustFind(snap.text, 'link', 'encoded link').id)).toBe(`${fixture.servers.b.origin}/rooted/caf%C3%A9%20menu.html`);
    const shadowLink = mustFind(snap.text, 'link', 'open shadow link');
    expect(snap.urlOf(shadowLink.id)).toBe(`${fixture.servers.a.origin}/shadow-target`);
  });

  it('has no URL for nodes that are not links', async () => {
    const snap = await snapshot();
    expect(snap.urlOf(mustFind(snap.text, 'button', 'oop mapped button').id)).toBeUndefined();
    expect(snap.urlOf(mustFindText(snap.text, 'maps plain paragraph').id)).toBeUndefined();
  });

  it('gives the same text as sdk.extract()', async () => {
    const snap = await snapshot();
    const { pageText } = await fixture.sdk.extract();
    const withoutIds = (value: string) => value.replace(/\[(?:\d+-)?\d+\] /g, '[] ');
    expect(withoutIds(pageText)).toBe(withoutIds(snap.text));
    expect(lineWithText(pageText, 'relative link')).toBeDefined();
  });
});

describe('line grammar', () => {
  // Each page is loaded and extracted anew: this suite stands on its own.
  it.each([
    '/snap-frames.html',
    '/snap-shadow.html',
    '/snap-form.html',
    '/snap-names.html',
    '/snap-hidden.html',
    '/snap-compact.html',
    '/snap-maps.html',
  ])('every line of %s follows the grammar', async (pathname) => {
    await fixture.page.goto(fixture.servers.a.url(pathname));
    const { pageText } = await fixture.sdk.extract();
    expect(grammarProblems(pageText), pageText).toEqual([]);
  });
});
