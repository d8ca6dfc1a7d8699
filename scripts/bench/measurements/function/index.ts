// The reference serverless function against the same function on Stagehand 3.7.3: bundle size, cold start.
import { plural } from '../../core/format.js';
import type { Comparison } from '../../core/measurement.js';
import { FUNCTION_ID, runFunction } from './measure.js';
import { renderFunctionSummary } from './report.js';

export const serverlessFunction: Comparison = {
  id: FUNCTION_ID,
  plan: (o) =>
    `${FUNCTION_ID}: ${plural(o.iterations, 'timed cold start')} and ${plural(o.warmups, 'warm-up')} per library, each in a fresh process`,
  run: async (ctx) => {
    const run = await runFunction(ctx);
    return (
      run && {
        notes: run.notes,
        failed: () => [...run.outcomes.values()].some((o) => !o.ok),
        report: (r) => renderFunctionSummary(run, r),
      }
    );
  },
};
