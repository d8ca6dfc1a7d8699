// extract() without arguments on the table, the demo page and the real pages; writes results/extract-pages.md.
import { plural } from '../../core/format.js';
import type { Comparison } from '../../core/measurement.js';
import { withPerPageFile } from '../../core/readme.js';
import { runExtract } from './measure.js';
import { renderExtractSummary, renderPerPage } from './report.js';

export const extract: Comparison = {
  id: 'extract',
  plan: (o) =>
    `extract: ${plural(o.extractIterations, 'timed call')} on the table and demo page, ${plural(o.corpusIterations, 'timed call')} per real page`,
  run: async (ctx) => {
    const run = await runExtract(ctx);
    return {
      notes: run.notes,
      failed: () => run.pages.some((p) => [...p.outcomes.values()].some((o) => !o.ok)),
      report: (r) =>
        withPerPageFile('extract-pages.md', r.log, (link) => ({
          summary: renderExtractSummary(run, r, link),
          perPage: renderPerPage(run, r),
        })),
    };
  },
};
