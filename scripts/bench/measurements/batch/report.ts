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

const WORKERS = [1, 2, 3] as const;

export interface BatchGoals {
  /** Per worker count (1, 2, 3): batch's pages per second over the playwright-core loop's, same pages in flight. */
  readonly vsPlaywright: readonly number[];
  /** The same over Crawlee tuned's. */
  readonly vsCrawleeTuned: readonly number[];
  /** Batch (1 worker) time per page over the plain Sdk loop's, minus 1. */
  readonly queueCost: number;
}

export function batchGoals(run: BatchRun): BatchGoals {
  const batch = WORKERS.map((k) => pagesPerSecond(run, `batch-${k}`));
  return {
    vsPlaywright: batch.map((pps) => pps / pagesPerSecond(run, 'playwright')),
    vsCrawleeTuned: batch.map((pps) => pps / pagesPerSecond(run, 'crawlee-tuned')),
    queueCost: pagesPerSecond(run, 'sdk') / pagesPerSecond(run, 'batch-1') - 1,
  };
}

export function batchFailed(run: BatchRun): boolean {
  return WORKERS.some((k) => !Number.isFinite(pagesPerSecond(run, `batch-${k}`)));
}

/** "12–31" over every run's load average at its start and end (this run's: kept rounds have their own). */
function loadRange(run: BatchRun): string {
  const loads = [...run.results]
    .filter(([id]) => !run.reused.has(id))
    .flatMap(([, results]) => results)
    .flatMap((r) => r.load ?? []);
  return loads.length ? `${Math.min(...loads).toFixed(0)}–${Math.max(...loads).toFixed(0)}` : '—';
}

const ratios = (values: readonly number[]) => WORKERS.map((k, i) => `${k} worker${k > 1 ? 's' : ''} ${fixed(values[i]!)}×`).join(', ');
const best = (values: readonly number[]) => Math.max(...values.filter(Number.isFinite));

export function renderBatch(run: BatchRun, envLine: string): string {
  const lines = [
    `### Batch: pages per second, ${run.pages} real pages, ${run.inFlight} pages in flight for every contender`,
    '',
    metaLine([
      envLine,
      `1-minute load average ${loadRange(run)} during the runs`,
      `medians of ${run.rounds} interleaved rounds`,
      `Crawlee ${CRAWLEE_VERSION}`,
    ]),
    '',
    '| contender | browsers | pages in flight | median time | pages/s (median) | runs (failed pages) |',
    '| --- | ---: | ---: | ---: | ---: | --- |',
  ];
  for (const c of CONTENDERS) {
    // Not chosen this run (BENCH_BATCH_CONTENDERS): no row, rather than one that says failed.
    if (!run.results.has(c.id)) continue;
    const results = run.results.get(c.id) ?? [];
    const ms = results.map((r) => r.ms);
    const failures = results.map((r) => r.failed).join(', ');
    const errors = run.errors.get(c.id)!.length;
    const perBrowser = c.browsers > 1 ? ` (${run.inFlight / c.browsers} each)` : '';
    lines.push(
      tableRow([
        run.reused.has(c.id) ? `${c.label} (kept, see below)` : c.label,
        String(c.browsers),
        `${run.inFlight}${perBrowser}`,
        ms.length ? `${(median(ms) / 1000).toFixed(1)} s` : 'failed',
        fixed(pagesPerSecond(run, c.id)),
        `${results.length}${errors ? ` + ${errors} errors` : ''} (${failures || '—'})`,
      ]),
    );
  }
  const goals = batchGoals(run);
  lines.push(
    '',
    verdict(
      `Tendril batch ≥ 2× the playwright-core loop at the same ${run.inFlight} pages in flight: ${ratios(goals.vsPlaywright)}`,
      Number.isFinite(best(goals.vsPlaywright)) ? best(goals.vsPlaywright) >= 2 : null,
    ),
    '',
    verdict(
      `Tendril batch ≥ 2× Crawlee tuned at the same ${run.inFlight} pages in flight: ${ratios(goals.vsCrawleeTuned)}`,
      Number.isFinite(best(goals.vsCrawleeTuned)) ? best(goals.vsCrawleeTuned) >= 2 : null,
    ),
    '',
    verdict(
      `the queue's cost per page, batch (1 worker) against the plain Sdk loop, ≤ 10%: ${fixed(goals.queueCost * 100, 0)}%`,
      Number.isFinite(goals.queueCost) ? goals.queueCost <= 0.1 : null,
    ),
  );
  for (const mode of ['crawlee-defaults', 'crawlee-tuned']) {
    const details = (run.results.get(mode) ?? []).map((r) => r.detail).filter((d) => d !== undefined);
    if (!details.length) continue;
    const launch = details.map((d) => d.launchMs).filter((n): n is number => n !== null);
    const first = details.map((d) => d.firstMs).filter((n): n is number => n !== null);
    const handler = details.flatMap((d) => d.handlerMs);
    lines.push(
      '',
      `${mode}: from the crawler's creation to its browser up ${fixed(median(launch) / 1000, 1)} s (not counted), first page read ${fixed(median(first) / 1000, 1)} s after that (median); its request handler (innerText) took ${fixed(median(handler), 0)} ms a page (median).`,
    );
  }
  for (const [id, errors] of run.errors) for (const error of errors) lines.push('', `${id} failed: ${error}`);
  for (const note of run.keptNotes) lines.push('', note);
  return lines.join('\n');
}
