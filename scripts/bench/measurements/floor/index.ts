// The floor: Tendril's page text against Chrome's own innerText on the corpus (Tendril only).
import type { Comparison } from '../../core/measurement.js';
import { FLOOR_ID, runFloor } from './measure.js';
import { renderFloor } from './report.js';

export const floor: Comparison = {
  id: FLOOR_ID,
  usesLibraries: false,
  plan: (o) =>
    `${FLOOR_ID}: Tendril extract() against document.body.innerText and a bare walk (the bound of any DOM-walking reader) on ${o.corpusLimit ?? 'all'} corpus articles, each loaded anew per reader (who reads first rotates), two reads per load`,
  run: async (ctx) => {
    const run = await runFloor(ctx);
    return (
      run && {
        notes: run.notes,
        // The goals are reported, not enforced: the run measures how far off they are.
        failed: () => run.pages.some((p) => !p.ok),
        report: (r) => renderFloor(run, r),
      }
    );
  },
};
