// The house rules that scripts/structure.ts checks: no import circle in src/ (type-only imports
// included), no file past 400 lines, page code that imports nothing from outside src/injected/,
// and the env read in one place.

import { describe, expect, it } from 'vitest';
import { structureProblems } from '../scripts/structure.js';

describe('the structure of src/', () => {
  it('has no import circle, no file over 400 lines, self-contained page code and one env chooser', () => {
    expect(structureProblems()).toEqual([]);
  });
});
