// act(action) with an observe() result: one deterministic click, no model.
import { plural } from '../../core/format.js';
import type { Comparison } from '../../core/measurement.js';
import { ACT_ID, runAct } from './measure.js';
import { renderActSummary } from './report.js';

export const act: Comparison = {
  id: ACT_ID,
  plan: (o) => `${ACT_ID}: ${plural(o.actIterations, 'timed call')} and ${plural(o.warmups, 'warm-up')} per library`,
  run: async (ctx) => {
    const run = await runAct(ctx);
    return {
      notes: [],
      failed: () => [...run.outcomes.values()].some((o) => !o.ok),
      report: (r) => renderActSummary(run, r),
    };
  },
};
