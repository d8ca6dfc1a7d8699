// The batch measurement's table: pages per second per contender (medians over interleaved rounds),
// the issue's goals, and what Crawlee spent its time on.
import { median } from '../../core/stats.js';
import { metaLine, tableRow, verdict } from '../../core/format.js';
import { CONTENDERS, type BatchRun } from './measure.js';
import { CRAWLEE_VERSION } from './runners.js';

export const BATCH_START = '<!-- bench-batch:start -->';
export const BATCH_END = '<!-- bench-batch:end -->';

/** Median pages read per second of a contender (a page that failed is not counted), NaN when it never ran through. */
export function pagesPerSecond(run: BatchRun, id: string): number {
  const runs = run.results.get(id) ?? [];
  return runs.length ? median(runs.map((r) => (r.pages * 1000) / r.ms)) : Number.NaN;
}

const fixed = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : '—');

export interface BatchGoals {
  readonly vsPlaywright: number;
  readonly vsCrawleeTuned: number;
  /** Batch (1 worker) time per page over the plain Sdk loop's, minus 1. */
  readonly queueCost: number;
}

export function batchGoals(run: BatchRun): BatchGoals {
  const best = Math.max(...[1, 2, 3].map((k) => pagesPerSecond(run, `batch-${k}`)).filter(Number.isFinite));
  return {
    vsPlaywright: best / pagesPerSecond(run, 'playwright'),
    vsCrawleeTuned: best / pagesPerSecond(run, 'crawlee-tuned'),
    queueCost: pagesPerSecond(run, 'sdk') / pagesPerSecond(run, 'batch-1') - 1,
  };
}

export function batchFailed(run: BatchRun): boolean {
  return [1, 2, 3].some((k) => !Number.isFinite(pagesPerSecond(run, `batch-${k}`)));
}

export function renderBatch(run: BatchRun, envLine: string): string {
  const lines = [
    `### Batch: pages per second, ${run.pages} real pages, ${run.concurrency} at a time per browser`,
    '',
    metaLine([envLine, `medians of ${run.rounds} interleaved rounds`, `Crawlee ${CRAWLEE_VERSION}`]),
    '',
    '| contender | browsers | pages at once | median time | pages/s (median) | runs (failed pages) |',
    '| --- | ---: | ---: | ---: | ---: | --- |',
  ];
  for (const c of CONTENDERS) {
    const results = run.results.get(c.id) ?? [];
    const ms = results.map((r) => r.ms);
    const failures = results.map((r) => r.failed).join(', ');
    const errors = run.errors.get(c.id)!.length;
    lines.push(
      tableRow([
        c.label,
        String(c.browsers),
        String(c.browsers * run.concurrency),
        ms.length ? `${(median(ms) / 1000).toFixed(1)} s` : 'failed',
        fixed(pagesPerSecond(run, c.id)),
        `${results.length}${errors ? ` + ${errors} errors` : ''} (${failures || '—'})`,
      ]),
    );
  }
  const goals = batchGoals(run);
  lines.push(
    '',
    verdict(`Tendril batch (best of 1–3 workers) ≥ 2× the playwright-core loop: ${fixed(goals.vsPlaywright)}×`, goals.vsPlaywright >= 2),
    '',
    verdict(`Tendril batch (best of 1–3 workers) ≥ 2× Crawlee tuned: ${fixed(goals.vsCrawleeTuned)}×`, goals.vsCrawleeTuned >= 2),
    '',
    verdict(
      `the queue's cost per page, batch (1 worker) against the plain Sdk loop, ≤ 10%: ${fixed(goals.queueCost * 100, 0)}%`,
      goals.queueCost <= 0.1,
    ),
  );
  for (const mode of ['crawlee-defaults', 'crawlee-tuned']) {
    const details = (run.results.get(mode) ?? []).map((r) => r.detail).filter((d) => d !== undefined);
    if (!details.length) continue;
    const first = details.map((d) => d.firstMs).filter((n): n is number => n !== null);
    const handler = details.flatMap((d) => d.handlerMs);
    lines.push(
      '',
      `${mode}: first page read ${fixed(median(first) / 1000, 1)} s after the crawler was created (median); its request handler (innerText) took ${fixed(median(handler), 0)} ms a page (median).`,
    );
  }
  for (const [id, errors] of run.errors) for (const error of errors) lines.push('', `${id} failed: ${error}`);
  return lines.join('\n');
}
