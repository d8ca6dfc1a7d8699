import { describe, expect, it } from 'vitest';
import { useBrowser } from './helpers.js';
import { excerpt, findLines, mustFind } from './snapshot-text.js';

const fixture = useBrowser();

describe('closed shadow roots deep in a document', () => {
  for (const depth of [150, 400]) {
    it(`reads a closed root under plain DOM ${depth} levels deep`, async () => {
      await fixture.page.goto(fixture.servers.a.url(`/snap-odd-closed-deep.html?depth=${depth}`));
      const { pageText } = await fixture.sdk.extract({ page: fixture.page, timeout: 20_000 });
      expect(pageText).toContain('above the deep closed root');
      mustFind(pageText, undefined, `deep closed text ${depth}`);
      mustFind(pageText, 'button', 'deep closed button');
    });
  }

  it('finds an element in a closed root 400 levels deep by selector', async () => {
    // A new document: no capture has told the selector engine about its closed roots yet.
    await fixture.page.goto(fixture.servers.a.url('/snap-odd-closed-deep.html?depth=400'));
    expect(await fixture.page.locator('//button').textContent()).toBe('deep closed button');
  });

  it('reads every root of a chain of 1,000 nested closed roots, in order', async () => {
    await fixture.page.goto(fixture.servers.a.url('/snap-odd-closed-chain.html?count=1000'));
    const { pageText } = await fixture.sdk.extract({ page: fixture.page, timeout: 40_000 });
    const levels = findLines(pageText, undefined, /^chain level \d+$/).map((line) => Number(line.name!.slice(12)));
    expect(levels.length, excerpt(pageText)).toBe(1000);
    expect(levels).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
    mustFind(pageText, undefined, 'chain bottom');
  }, 60_000);
});

describe('word boundaries of inline text', () => {
  it('keeps text taken out of the inline flow apart from its neighbours, and true inline runs together', async () => {
    await fixture.page.goto(fixture.servers.a.url('/snap-odd-words.html'));
    const { pageText } = await fixture.sdk.extract({ page: fixture.page });
    // The visually hidden label is still read, as a word of its own.
    expect(pageText).toContain('Credit Kevin Frayer/Getty Images');
    expect(pageText).not.toMatch(/CreditKevin/);
    expect(pageText).toMatch(/Beijing\.\s*Credit/);
    expect(pageText).not.toMatch(/Beijing\.Credit/);
    for (const [glued, words] of [
      ['Pricewas12', /Price was 12 euros/],
      ['Photoby', /Photo by Anna/],
      ['Photo:Credit', /Photo: Credit Kevin/],
      ['OpenMenu', /Open Menu door|Open door[\s\S]*Menu|Menu[\s\S]*Open door/],
      ['LeftRight', /Left Right middle|Right Left middle/],
      ['OneTwo', /One Two Three/],
      ['AlphaBeta', /Alpha[\s\S]*Beta[\s\S]*Gamma/],
    ] as const) {
      expect(pageText, excerpt(pageText)).not.toContain(glued);
      expect(pageText, excerpt(pageText)).toMatch(words);
    }
    expect(pageText).not.toMatch(/BetaGamma/);
    mustFind(pageText, 'paragraph', 'ac');
    mustFind(pageText, 'paragraph', 'xy');
    mustFind(pageText, 'paragraph', 'unbelievable');
    mustFind(pageText, 'paragraph', 'See Paris, France, or Lyon.');
  });
});
