// Each library's default goto(url), then extract(), on every real page; writes results/real-pages.md.
import { plural } from '../../core/format.js';
import type { Comparison } from '../../core/measurement.js';
import { withPerPageFile } from '../../core/readme.js';
import { REAL_PAGES_ID, runRealPages } from './measure.js';
import { renderRealPagesPerPage, renderRealPagesSummary, summarizeRealPages } from './report.js';

export const realPages: Comparison = {
  id: REAL_PAGES_ID,
  plan: (o) => `${REAL_PAGES_ID}: each library's default goto, then extract(), ${plural(o.corpusIterations, 'timed visit')} per real page`,
  run: async (ctx) => {
    const run = await runRealPages(ctx);
    return {
      notes: run.notes,
      // Stagehand failing a real page is part of the comparison; the target is Tendril's.
      failed: (r) => summarizeRealPages(run, r.ours, r.theirs).target === false,
      report: (r) =>
        withPerPageFile('real-pages.md', r.log, (link) => ({
          summary: renderRealPagesSummary(run, r, link),
          perPage: renderRealPagesPerPage(run, r),
        })),
    };
  },
};
