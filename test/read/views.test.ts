// The page text views (extract({ view })) against real Chromium: viewport, interactive, delta; and
// applyDelta on its own, on texts shaped like page text.

import { describe, expect, it } from 'vitest';
import { applyDelta, InvalidOptionError, type Page } from '../../src/index.js';
import { diffPageText } from '../../src/snapshot/delta.js';
import { formatId, idKey, shownId } from '../../src/snapshot/ids.js';
import { useBrowser } from '../helpers.js';

const fixture = useBrowser();

async function open(pathname: string, page: Page = fixture.page): Promise<Page> {
  await page.goto(fixture.servers.a.url(pathname));
  return page;
}

const text = async (view?: 'viewport' | 'interactive' | 'delta', page?: Page) => (await fixture.sdk.extract({ view, page })).pageText;

/** Every line of `part` is a line of `whole`, verbatim (ids and indentation) and in the same order. */
function expectLinesOf(part: string, whole: string): void {
  const lines = whole.split('\n');
  let at = 0;
  for (const line of part.split('\n')) {
    const found = lines.indexOf(line, at);
    expect(found, `"${line}" is not a line of the full text (after line ${at})`).toBeGreaterThanOrEqual(0);
    at = found + 1;
  }
}

describe('viewport view', () => {
  it('keeps what shows, iframes (out-of-process) included, with the full text lines and ids, and leaves out what does not', async () => {
    await open('/views-viewport.html');
    const full = await text();
    const view = await text('viewport');
    for (const words of [
      'Top words in view',
      'near frame top words',
      'Box hidden words',
      'Middle words',
      'Far below words',
      'far frame top words',
    ]) {
      expect(full).toContain(words);
    }
    expect(view).toContain('Top heading');
    expect(view).toContain('Top words in view');
    // The near iframe is from the other origin (out of process), at the top of the page.
    expect(view).toContain('near frame top words');
    expect(view).toContain('Box visible words');
    // In view of the page, but scrolled away inside its box, or below its iframe's window.
    expect(view).not.toContain('Box hidden words');
    expect(view).not.toContain('near frame bottom words');
    // Below the fold, the far iframe's content too (which does show in that iframe's own window).
    expect(view).not.toContain('Middle words');
    expect(view).not.toContain('Far below words');
    expect(view).not.toContain('far frame top words');
    expectLinesOf(view, full);
  });

  it('follows the scroll position', async () => {
    await open('/views-viewport.html');
    await fixture.page.evaluate(() => document.getElementById('middle')!.scrollIntoView({ block: 'center' }));
    const view = await text('viewport');
    expect(view).toContain('Middle words');
    expect(view).not.toContain('Top words in view');
    expect(view).not.toContain('near frame top words');
    expect(view).not.toContain('Far below words');
    expectLinesOf(view, await text());
  });

  it('includes all of an open modal dialog, the part scrolled inside it too', async () => {
    await open('/views-viewport.html');
    await fixture.page.evaluate(() => (document.getElementById('modal') as HTMLDialogElement).showModal());
    const view = await text('viewport');
    expect(view).toMatch(/dialog: Confirm order/);
    expect(view).toContain('Dialog first words');
    expect(view).toContain('Dialog last words');
    expect(view).toMatch(/button: Confirm$/m);
    expect(view).not.toContain('Far below words');
    expectLinesOf(view, await text());
  });

  it('includes all of a fixed overlay dialog', async () => {
    await open('/views-viewport.html');
    await fixture.page.evaluate(() => {
      document.getElementById('overlay')!.style.display = 'block';
    });
    const view = await text('viewport');
    expect(view).toContain('Overlay first words');
    // 1200 px down inside a 200 px box: shown only because the dialog counts whole.
    expect(view).toContain('Overlay last words');
    expect(view).not.toContain('Middle words');
  });
});

describe('interactive view', () => {
  it('keeps what can be acted on, each with its row, list item or legend, and drops prose', async () => {
    await open('/views-interactive.html');
    const full = await text();
    const view = await text('interactive');
    expect(full).toContain('plain prose');
    expect(view).not.toContain('plain prose');
    expect(view).not.toContain('Not clickable text');
    expect(view).not.toMatch(/heading: Team members$/m);

    const edits = view.split('\n').filter((line) => /\] button: Edit /.test(line));
    const people = ['Alice Archer', 'Bob Baker', 'Carol Cooper', 'Dan Dyer'];
    expect(edits).toHaveLength(people.length);
    people.forEach((person, i) => expect(edits[i]).toContain(`(row: ${person} | `));
    // The ids are the full text's: the same id names the same Edit button there, under that row.
    const fullLines = full.split('\n');
    edits.forEach((edit, i) => {
      const id = /^ *(\[(?:\d+-)?\d+\])/.exec(edit)![1];
      const at = fullLines.findIndex((line) => line.trimStart().startsWith(`${id} `));
      expect(fullLines[at]!.trim()).toBe(edit.slice(0, edit.indexOf(' (row:')).trim());
      expect(fullLines[at - 1]).toContain(`row: ${people[i]} |`);
    });

    expect(view).toMatch(/link: Remove \(listitem: Open invoices\)/);
    expect(view).toMatch(/link: Remove \(listitem: Late shipments\)/);
    expect(view).toMatch(/textbox: City \(group: Shipping address\)/);
    expect(view).toMatch(/textbox: City \(group: Billing address\)/);
    // No role, but a click handler or an editable region.
    expect(view).toContain('Open the menu');
    expect(view).toContain('Editable note');
    // An out-of-process frame's controls sit under its Iframe line, with the frame's own ids.
    expect(view).toMatch(/^ \[\d+\] Iframe: Payment\n {2}\[1-\d+\] button: Pay now \(heading: Payment\)$/m);
    expect(view).not.toContain('Card ending');
  });
});

describe('delta view', () => {
  it('after one act(), holds only the line that changed, and applying it to the previous text gives the new one', async () => {
    const page = await open('/views-delta.html', await fixture.sdk.context.newPage());
    const first = await text('delta', page);
    expect(first.split('\n', 1)[0]).toMatch(/^# page text \(no previous text/);
    const previous = first.slice(first.indexOf('\n') + 1);
    expect(previous).toBe(await text(undefined, page));

    await fixture.sdk.act(
      { selector: 'xpath=/html/body/button[1]', description: 'Mark shipped button', method: 'click', arguments: [] },
      { page },
    );
    const delta = await text('delta', page);
    const current = await text(undefined, page);
    expect(current).toContain('Status: shipped');
    const changes = delta.split('\n').filter((line) => /^[-~+=] /.test(line));
    expect(changes).toEqual([expect.stringMatching(/^~ +\[\d+\] paragraph: Status: shipped$/)]);
    expect(applyDelta(previous, delta)).toBe(current);
    expect(delta.length).toBeLessThan(current.length / 5);
    await page.close();
  });

  it('states an added line, with an id of its own, and nothing of the lines after it, which keep theirs', async () => {
    const page = await open('/views-delta.html', await fixture.sdk.context.newPage());
    const previous = await text(undefined, page);
    await fixture.sdk.act({ selector: 'xpath=/html/body/button[2]', method: 'click' }, { page });
    const delta = await text('delta', page);
    const current = await text(undefined, page);
    expect(delta.split('\n').slice(1)).toEqual([
      expect.stringMatching(/^@ after \[\d+\]$/),
      expect.stringMatching(/^\+ +\[\d+\] paragraph: Note: customer called$/),
    ]);
    // An id no line had before: the lines below the note are the same lines, ids and all.
    const added = /\+ +\[(\d+)\]/.exec(delta)![1]!;
    expect(previous).not.toMatch(new RegExp(`^ *\\[${added}\\] `, 'm'));
    expect(current.replace(/\n.*Note: customer called/, '')).toBe(previous);
    expect(applyDelta(previous, delta)).toBe(current);
    expect(delta.length).toBeLessThan(current.length / 5);
    await page.close();
  });

  it('rejects an unknown view, and a view with an instruction; the session goes on', async () => {
    await open('/views-delta.html');
    const bad = fixture.sdk.extract({ view: 'visible' as never });
    await expect(bad).rejects.toThrow(InvalidOptionError);
    await expect(bad).rejects.toThrow(/"full", "viewport", "interactive", "delta"/);
    await expect(fixture.sdk.extract('list the items', { view: 'interactive' })).rejects.toThrow(InvalidOptionError);
    expect(await text()).toContain('Status: pending');
  });
});

describe('applyDelta', () => {
  interface Entry {
    frame: number;
    depth: number;
    body: string;
    node?: number;
  }
  /**
   * Page-text-like lines, ids as the capture gives them: an entry keeps the id it was given; one
   * without gets the next of its frame (in order, on a first read).
   */
  function render(entries: Entry[], next = new Map<number, number>()): string {
    return entries
      .map((entry) => {
        if (entry.node === undefined) {
          entry.node = next.get(entry.frame) ?? 0;
          next.set(entry.frame, entry.node + 1);
        }
        return `${' '.repeat(entry.depth)}${entry.frame ? `[${entry.frame}-${entry.node}]` : `[${entry.node}]`} ${entry.body}`;
      })
      .join('\n');
  }

  it('gives back the new text after random edits', () => {
    let seed = 17;
    let deltas = 0;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 200; round++) {
      const entries: Entry[] = Array.from({ length: 50 + Math.floor(random() * 150) }, (_, i) => ({
        frame: random() < 0.2 ? 1 : 0,
        depth: Math.floor(random() * 4),
        body: `StaticText: line ${i} ${Math.floor(random() * 5)}`,
      }));
      const next = new Map<number, number>();
      const previous = render(entries, next);
      const edits = 1 + Math.floor(random() * 6);
      for (let e = 0; e < edits; e++) {
        const at = Math.floor(random() * entries.length);
        const kind = random();
        if (kind < 0.33) entries.splice(at, 1);
        else if (kind < 0.66) entries.splice(at, 0, { frame: 0, depth: 1, body: `button: new ${round}-${e}` });
        else entries[at] = { ...entries[at]!, body: `StaticText: changed ${round}-${e}` };
      }
      const current = render(entries, next);
      // The encoder is internal (the Sdk hands its deltas out through view: "delta"): tried here on
      // many texts without a browser.
      const delta = diffPageText(previous, current);
      expect(applyDelta(previous, delta)).toBe(current);
      if (delta.startsWith('# delta')) deltas++;
    }
    // A few edits in a text of 50 to 200 lines: a delta, not the text again, nearly always.
    expect(deltas).toBeGreaterThan(180);
  });

  it('writes ids as the text does, and reads them back however they come', () => {
    expect([formatId(0, 12), formatId(3, 4)]).toEqual(['[12]', '[3-4]']);
    for (const written of ['12', '[12]', '0-12', '[0-12]', ' 0-12 ']) {
      expect(idKey(written)).toBe('0-12');
      expect(shownId(written)).toBe('12');
    }
    expect([idKey('[3-4]'), shownId('3-4')]).toEqual(['3-4', '3-4']);
    // Not ids: left as they are (trimmed), never mistaken for one.
    for (const text of ['0-abc', 'https://example.org/1', '1-2-3', '']) expect([idKey(` ${text}`), shownId(text)]).toEqual([text, text]);
  });

  it('says when there is nothing to compare, and refuses a delta taken against another text', () => {
    expect(applyDelta('', '# page text (no previous text of this page to compare with)\n[0] RootWebArea: A')).toBe('[0] RootWebArea: A');
    const before = render([
      { frame: 0, depth: 0, body: 'RootWebArea: A' },
      ...Array.from({ length: 30 }, (_, i) => ({ frame: 0, depth: 1, body: `link: item ${i}` })),
    ]);
    const after = before.replace('link: item 20', 'link: item twenty');
    const delta = diffPageText(before, after);
    expect(delta.split('\n').filter((line) => /^[-~+=] /.test(line))).toEqual(['~  [21] link: item twenty']);
    expect(() => applyDelta('[5-5] RootWebArea: other', delta)).toThrow(/another text/);
    expect(() => applyDelta(before, 'not a delta')).toThrow(/not a page text delta/);
  });
});
