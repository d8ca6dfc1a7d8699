// The house rules that scripts/structure.ts checks: no import circle in src/ (type-only imports
// included), no file past 400 lines, page code that imports nothing from outside src/injected/,
// and the env read in one place.

import { describe, expect, it } from 'vitest';
import { patchesIn, structureProblems } from '../../scripts/structure.js';

describe('the structure of src/', () => {
  it('has no import circle, no file over 400 lines, self-contained page code and one env chooser', () => {
    expect(structureProblems()).toEqual([]);
  });

  it('finds a class patched from outside it, in each form, and leaves subclasses and comments alone', () => {
    const sample = [
      'Page.prototype.snapshot = function () {};',
      "Page.prototype['snapshot'] = snap;",
      "Object.defineProperty(Context.prototype, 'clipboard', { get() {} });",
      'const proto = NavigationResponse.prototype;',
      "declare module '../driver/page.js' {",
      '// Page.prototype.x = 1 (a comment)',
      'if (Page.prototype.snapshot === undefined) {}',
      'class StagehandPage extends Page { get mainSession() { return this.session; } }',
      "Object.defineProperty(type, 'prototype', { value: base.prototype, writable: false });",
    ].join('\n');
    expect(patchesIn(sample)).toEqual([
      { line: 1, what: 'prototype' },
      { line: 2, what: 'prototype' },
      { line: 3, what: 'prototype' },
      { line: 4, what: 'prototype' },
      { line: 5, what: 'augmentation' },
    ]);
  });
});
