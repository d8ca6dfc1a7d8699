import { describe, expect, it } from 'vitest';
import { clean, squash } from '../../src/injected/reader/text.js';

// The reference: every run of whitespace or control characters becomes one space.
const reference = (text: string) => text.replace(/[\s\u0000-\u001f\u007f\u00a0\u200b]+/g, ' ');

describe('squash', () => {
  it('turns every whitespace or control character into a space, and a run of them into one', () => {
    // squash leaves text alone when a quick test finds nothing to change: that test must know every
    // character the reference replaces.
    for (let code = 0; code < 0x10000; code++) {
      const char = String.fromCharCode(code);
      const text = `a${char}b`;
      if (squash(text) !== reference(text)) expect.fail(`U+${code.toString(16).padStart(4, '0')}: ${JSON.stringify(squash(text))}`);
    }
    for (const text of ['a b', 'a  b', ' a ', '  ', 'a \n b', 'a\u00a0\u00a0b', 'a\u2003 b', '\u0001x', 'plain']) {
      expect(squash(text)).toBe(reference(text));
    }
    expect(clean('  a \t b\u200b ')).toBe('a b');
  });
});
