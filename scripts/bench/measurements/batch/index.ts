// Tendril's batch queue (1, 2, 3 real worker processes on a real Redis) against what users would
// write instead, on the same real pages: pages per second. It runs none of the bench's libraries;
// its table is a block of its own in docs/benchmarks.md.
import type { Comparison } from '../../core/measurement.js';
import { BATCH_ID, runBatch } from './measure.js';
import {
  BATCH_END,
  BATCH_HEADLINE_END,
  BATCH_HEADLINE_START,
  BATCH_START,
  batchFailed,
  renderBatch,
  renderBatchHeadline,
} from './report.js';

export const batch: Comparison = {
  id: BATCH_ID,
  usesLibraries: false,
  plan: () =>
    `${BATCH_ID}: pages per second on real pages: Tendril batch (1, 2, 3 workers), a loop over one Sdk, a playwright-core loop, Crawlee (defaults, tuned)`,
  run: async (ctx) => {
    const run = await runBatch(ctx);
    return {
      notes: run.notes,
      block: { start: BATCH_START, end: BATCH_END },
      headline: { start: BATCH_HEADLINE_START, end: BATCH_HEADLINE_END, text: (r) => renderBatchHeadline(run, r.envLine) },
      failed: () => batchFailed(run),
      report: (r) => renderBatch(run, r.envLine),
    };
  },
};
