// extract(instruction, schema) with a fake model: what each library costs around the model.
import { plural } from '../../core/format.js';
import type { Comparison } from '../../core/measurement.js';
import { EXTRACT_LLM_ID, runExtractLlm } from './measure.js';
import { renderLlmSummary } from './report.js';

export const extractLlm: Comparison = {
  id: EXTRACT_LLM_ID,
  plan: (o) =>
    `${EXTRACT_LLM_ID}: ${plural(o.extractIterations, 'timed call')} on the demo page, ${plural(o.corpusIterations, 'timed call')} per real page`,
  run: async (ctx) => {
    const run = await runExtractLlm(ctx);
    return {
      notes: run.notes,
      failed: () => run.pages.some((p) => [...p.outcomes.values()].some((o) => !o.ok)),
      report: (r) => renderLlmSummary(run, r),
    };
  },
};
