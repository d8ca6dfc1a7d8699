// Issue 49's performance row: what tracing costs per action and weighs per action in Tendril and
// in playwright-core on the same pages and actions, and that tracing off costs extract() and act()
// nothing measurable. It drives both libraries itself; its table is a block of its own.
import type { Comparison } from '../../core/measurement.js';
import { TRACING_ID, runTracing } from './measure.js';
import { TRACING_END, TRACING_START, renderTracing, tracingFailed } from './report.js';

export const tracing: Comparison = {
  id: TRACING_ID,
  usesLibraries: false,
  plan: () =>
    `${TRACING_ID}: tracing off and on (screenshots, snapshots), Tendril and playwright-core, the same pages and actions; tracing off against the commit before the seam`,
  run: async (ctx) => {
    const run = await runTracing(ctx);
    return {
      notes: [],
      block: { start: TRACING_START, end: TRACING_END },
      failed: () => tracingFailed(run),
      report: (r) => renderTracing(run, r.envLine),
    };
  },
};
