// The hosted server's extract cache, HIT against MISS (Tendril only).
import { plural } from '../../core/format.js';
import type { Comparison } from '../../core/measurement.js';
import { HOSTED_CACHE_ID, MODEL_LATENCY_MS, runHostedCache } from './measure.js';
import { renderHostedCacheSummary } from './report.js';

export const hostedCache: Comparison = {
  id: HOSTED_CACHE_ID,
  plan: (o) =>
    `${HOSTED_CACHE_ID}: Tendril only, ${plural(o.iterations, 'timed MISS/HIT pair')} and ${plural(o.warmups, 'warm-up')} per page, model replies after ${MODEL_LATENCY_MS} ms`,
  run: async (ctx) => {
    const run = await runHostedCache(ctx);
    return (
      run && {
        notes: run.notes,
        failed: () => !run.outcome.ok,
        report: (r) => renderHostedCacheSummary(run, r),
      }
    );
  },
};
