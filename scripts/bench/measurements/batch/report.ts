// The batch measurement's tables, one per page set: pages per second and CPU per page per contender
// (medians over interleaved rounds), issue 50's goals, and what Crawlee spent its time on.
import { median } from '../../core/stats.js';
import { metaLine, tableRow, verdict } from '../../core/format.js';
import { CONTENDERS, type BatchRun, type PageSetRun } from './measure.js';
import { CRAWLEE_VERSION, type RunResult } from './runners.js';

export const BATCH_START = '<!-- bench-batch:start -->';
export const BATCH_END = '<!-- bench-batch:end -->';
export const BATCH_HEADLINE_START = '<!-- bench-batch-headline:start -->';
export const BATCH_HEADLINE_END = '<!-- bench-batch-headline:end -->';

const runsOf = (run: BatchRun, set: string, id: string): RunResult[] => run.results.get(set)?.get(id) ?? [];

/** Median pages read per second of a contender (a page that failed is not counted), NaN when it never ran through. */
export function pagesPerSecond(run: BatchRun, set: string, id: string): number {
  const runs = runsOf(run, set, id);
  return runs.length ? median(runs.map((r) => (r.pages * 1000) / r.ms)) : Number.NaN;
}

/** Median CPU a page read of a contender's Chromium or Node (ms), NaN without a cgroup's count. */
export function cpuPerPage(run: BatchRun, set: string, id: string, of: 'chrome' | 'node'): number {
  const runs = runsOf(run, set, id).filter((r) => r.cpu && r.pages > 0);
  return runs.length ? median(runs.map((r) => r.cpu![of] / r.pages)) : Number.NaN;
}

const fixed = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : '—');
const judged = (n: number, pass: (n: number) => boolean) => (Number.isFinite(n) ? pass(n) : null);

const WORKERS = [1, 2] as const;

export interface BatchGoals {
  /** Per worker count (1, 2), the default isolation: pages per second over the playwright-core loop's. */
  readonly vsPlaywright: readonly number[];
  /** The same over Crawlee tuned's. */
  readonly vsCrawleeTuned: readonly number[];
  /** Per worker count, `--isolation recycle`, over Crawlee tuned's. */
  readonly recycleVsCrawleeTuned: readonly number[];
  /** Batch's (1 worker, default) Chromium CPU a page over the Sdk loop's launched as before the omnibox switch. */
  readonly chromeCpuVsBefore: number;
  /** Batch (1 worker) time per page over the plain Sdk loop's, minus 1. */
  readonly queueCost: number;
}

export function batchGoals(run: BatchRun, set: string): BatchGoals {
  const pps = (id: string) => pagesPerSecond(run, set, id);
  const fresh = WORKERS.map((k) => pps(`batch-${k}`));
  const recycle = WORKERS.map((k) => pps(`batch-${k}-recycle`));
  return {
    vsPlaywright: fresh.map((each) => each / pps('playwright')),
    vsCrawleeTuned: fresh.map((each) => each / pps('crawlee-tuned')),
    recycleVsCrawleeTuned: recycle.map((each) => each / pps('crawlee-tuned')),
    chromeCpuVsBefore: cpuPerPage(run, set, 'batch-1', 'chrome') / cpuPerPage(run, set, 'sdk-before', 'chrome'),
    queueCost: pps('sdk') / pps('batch-1') - 1,
  };
}

export function batchFailed(run: BatchRun): boolean {
  return run.sets.some((set) => WORKERS.some((k) => !Number.isFinite(pagesPerSecond(run, set.id, `batch-${k}`))));
}

/** "12–31" over every run's load average at its start and end (this run's: kept rounds have their own). */
function loadRange(run: BatchRun): string {
  const loads = [...run.results.values()]
    .flatMap((bySet) => [...bySet].filter(([id]) => !run.reused.has(id)).flatMap(([, results]) => results))
    .flatMap((r) => r.load ?? []);
  return loads.length ? `${Math.min(...loads).toFixed(0)}–${Math.max(...loads).toFixed(0)}` : '—';
}

const ratios = (values: readonly number[]) => WORKERS.map((k, i) => `${k} worker${k > 1 ? 's' : ''} ${fixed(values[i]!)}×`).join(', ');
const best = (values: readonly number[]) => Math.max(...values.filter(Number.isFinite));

function renderSet(run: BatchRun, set: PageSetRun): string[] {
  const lines = [
    `#### ${set.label}`,
    '',
    '| contender | browsers | pages in flight | median time | pages/s (median) | Chromium CPU a page (ms) | Node CPU a page (ms) | runs (failed pages) |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
  ];
  for (const c of CONTENDERS) {
    // Not chosen this run (BENCH_BATCH_CONTENDERS): no row, rather than one that says failed.
    if (!run.results.get(set.id)?.has(c.id)) continue;
    const results = runsOf(run, set.id, c.id);
    const ms = results.map((r) => r.ms);
    const failures = results.map((r) => r.failed).join(', ');
    const errors = run.errors.get(set.id)!.get(c.id)!.length;
    const perBrowser = c.browsers > 1 ? ` (${run.inFlight / c.browsers} each)` : '';
    lines.push(
      tableRow([
        run.reused.has(c.id) ? `${c.label} (kept, see below)` : c.label,
        String(c.browsers),
        `${run.inFlight}${perBrowser}`,
        ms.length ? `${(median(ms) / 1000).toFixed(1)} s` : 'failed',
        fixed(pagesPerSecond(run, set.id, c.id)),
        fixed(cpuPerPage(run, set.id, c.id, 'chrome'), 0),
        fixed(cpuPerPage(run, set.id, c.id, 'node'), 0),
        `${results.length}${errors ? ` + ${errors} errors` : ''} (${failures || '—'})`,
      ]),
    );
  }
  const goals = batchGoals(run, set.id);
  lines.push(
    '',
    verdict(
      `default isolation ≥ 1.25× the playwright-core loop: ${ratios(goals.vsPlaywright)}`,
      judged(best(goals.vsPlaywright), (n) => n >= 1.25),
    ),
    '',
    verdict(
      `default isolation ≥ 1.1× Crawlee tuned: ${ratios(goals.vsCrawleeTuned)}`,
      judged(best(goals.vsCrawleeTuned), (n) => n >= 1.1),
    ),
    '',
    verdict(
      `\`--isolation recycle\` ≥ 1.3× Crawlee tuned: ${ratios(goals.recycleVsCrawleeTuned)}`,
      judged(best(goals.recycleVsCrawleeTuned), (n) => n >= 1.3),
    ),
    '',
    verdict(
      `Chromium CPU a page, batch (1 worker, default) ≤ 0.65× a fresh context as launched before 2026-12-02: ${fixed(goals.chromeCpuVsBefore)}×`,
      judged(goals.chromeCpuVsBefore, (n) => n <= 0.65),
    ),
    '',
    verdict(
      `the queue's cost per page, batch (1 worker) against the plain Sdk loop, ≤ 10%: ${fixed(goals.queueCost * 100, 0)}%`,
      judged(goals.queueCost, (n) => n <= 0.1),
    ),
  );
  for (const mode of ['crawlee-defaults', 'crawlee-tuned']) {
    const details = runsOf(run, set.id, mode)
      .map((r) => r.detail)
      .filter((d) => d !== undefined);
    if (!details.length) continue;
    const launch = details.map((d) => d.launchMs).filter((n): n is number => n !== null);
    const first = details.map((d) => d.firstMs).filter((n): n is number => n !== null);
    const handler = details.flatMap((d) => d.handlerMs);
    lines.push(
      '',
      `${mode}: from the crawler's creation to its browser up ${fixed(median(launch) / 1000, 1)} s (not counted), first page read ${fixed(median(first) / 1000, 1)} s after that (median); its request handler (innerText) took ${fixed(median(handler), 0)} ms a page (median).`,
    );
  }
  for (const [id, errors] of run.errors.get(set.id) ?? []) for (const error of errors) lines.push('', `${id} failed: ${error}`);
  return lines;
}

export function renderBatch(run: BatchRun, envLine: string): string {
  const lines = [
    `### Batch: pages per second, ${run.pages} real pages, ${run.inFlight} pages in flight for every contender`,
    '',
    metaLine([
      envLine,
      `1-minute load average ${loadRange(run)} during the runs`,
      `medians of ${run.rounds} interleaved rounds`,
      `Crawlee ${CRAWLEE_VERSION}`,
      'CPU from a cgroup per contender (its Node processes) and per browser (Chromium, renderers that exit included)',
    ]),
  ];
  for (const set of run.sets) lines.push('', ...renderSet(run, set));
  for (const note of run.keptNotes) lines.push('', note);
  return lines.join('\n');
}

/** The README's rows: per page set, one worker in both isolations against the peers, pages/s and Chromium CPU a page. */
export function renderBatchHeadline(run: BatchRun, envLine: string): string {
  const shown = ['batch-1', 'batch-1-recycle', 'playwright', 'crawlee-tuned'];
  const lines = [
    '| pages | Tendril (a fresh context per job) | Tendril, `recycle` | playwright-core loop | Crawlee tuned (one shared context) |',
    '| --- | ---: | ---: | ---: | ---: |',
  ];
  for (const set of run.sets) {
    const cells = shown.map((id) => `${fixed(pagesPerSecond(run, set.id, id))}/s, ${fixed(cpuPerPage(run, set.id, id, 'chrome'), 0)} ms`);
    lines.push(tableRow([`${run.pages}, ${set.label}`, ...cells]));
  }
  const goals = run.sets.map((set) => batchGoals(run, set.id));
  const both = (pick: (g: BatchGoals) => number) => goals.map((g) => `${fixed(pick(g))}×`).join(' and ');
  const date = envLine.slice(0, envLine.indexOf(' '));
  return [
    ...lines,
    '',
    `_${date}, ${run.rounds} rounds, ${run.inFlight} pages in flight for each. Against Crawlee tuned: ${both((g) => g.vsCrawleeTuned[0]!)} (goal 1.1×), \`recycle\` ${both((g) => g.recycleVsCrawleeTuned[0]!)} (goal 1.3×)._`,
  ].join('\n');
}
