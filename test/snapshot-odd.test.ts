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

  it('reads every root of a chain of 1,000 nested closed roots, in order', async () => {
    await fixture.page.goto(fixture.servers.a.url('/snap-odd-closed-chain.html?count=1000'));
    const { pageText } = await fixture.sdk.extract({ page: fixture.page, timeout: 40_000 });
    const levels = findLines(pageText, undefined, /^chain level \d+$/).map((line) => Number(line.name!.slice(12)));
    expect(levels.length, excerpt(pageText)).toBe(1000);
    expect(levels).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
    mustFind(pageText, undefined, 'chain bottom');
  }, 60_000);
});
