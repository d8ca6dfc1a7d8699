// The tracing measurement's tables: what recording costs per action and weighs per action, for
// Tendril and for playwright-core on the same pages and actions, with issue 49's goals; and the
// cost of the instrumentation seam with tracing off, against the commit before it.
import { createRequire } from 'node:module';
import { formatBytes, metaLine, tableRow, verdict } from '../../core/format.js';
import { formatMs, median } from '../../core/stats.js';
import { LIBRARIES, type LibraryId, type TracingRun, type Visit } from './measure.js';
import { PRE_SEAM_COMMIT, type SeamSamples } from './seam.js';
import { ACTIONS, type ActionName } from './sessions.js';

export const TRACING_START = '<!-- bench-tracing:start -->';
export const TRACING_END = '<!-- bench-tracing:end -->';

const PER_VISIT = ACTIONS.length;

/** The median over (page, round) pairs of on − off, for what `pick` takes from a visit. */
function pairedCost(run: TracingRun, lib: LibraryId, pick: (v: Visit) => number): number {
  const { off, on } = run.visits.get(lib)!;
  const diffs = on.flatMap((v) => {
    const twin = off.find((o) => o.page === v.page && o.round === v.round);
    return twin ? [pick(v) - pick(twin)] : [];
  });
  return median(diffs);
}

export interface TracingNumbers {
  /** Per library: medians per action (ms, bytes). */
  readonly byLib: ReadonlyMap<
    LibraryId,
    {
      readonly offPerAction: number;
      readonly perAction: Readonly<Record<ActionName, number>>;
      readonly costPerAction: number;
      readonly cpuCostPerAction: number;
      readonly startStopPerAction: number;
      readonly totalPerAction: number;
      readonly bytesPerAction: number;
      readonly bytesPerVisit: number;
      readonly visits: number;
    }
  >;
}

export function tracingNumbers(run: TracingRun): TracingNumbers {
  const byLib = new Map(
    LIBRARIES.map(({ id }) => {
      const { off, on } = run.visits.get(id)!;
      const sum = (v: Visit) => ACTIONS.reduce((t, a) => t + v.ms[a], 0);
      const perAction = Object.fromEntries(ACTIONS.map((a) => [a, pairedCost(run, id, (v) => v.ms[a])])) as Record<ActionName, number>;
      const costPerAction = pairedCost(run, id, sum) / PER_VISIT;
      const startStopPerAction = median(on.map((v) => (v.startMs ?? 0) + (v.stopMs ?? 0))) / PER_VISIT;
      const bytes = on.map((v) => v.bytes ?? Number.NaN);
      return [
        id,
        {
          offPerAction: median(off.map(sum)) / PER_VISIT,
          perAction,
          costPerAction,
          cpuCostPerAction: pairedCost(run, id, (v) => v.cpuMs + (v.stopCpuMs ?? 0)) / PER_VISIT,
          startStopPerAction,
          totalPerAction: costPerAction + startStopPerAction,
          bytesPerAction: median(bytes) / PER_VISIT,
          bytesPerVisit: median(bytes),
          visits: on.length,
        },
      ] as const;
    }),
  );
  return { byLib };
}

const ms = (n: number) => (Number.isFinite(n) ? `${formatMs(n)} ms` : '—');
const ratioText = (a: number, b: number) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(2)}×` : '—');

/** Per round: this checkout's median over the old tree's; the pooled ratio; its spread over rounds. */
function seamRatios(current: readonly SeamSamples[], pre: readonly SeamSamples[], key: keyof SeamSamples) {
  const pooled = median(current.flatMap((s) => s[key])) / median(pre.flatMap((s) => s[key]));
  const perRound = current.map((s, i) => median(s[key]) / median(pre[i]![key]));
  return {
    pooled,
    min: Math.min(...perRound),
    max: Math.max(...perRound),
    cur: median(current.flatMap((s) => s[key])),
    pre: median(pre.flatMap((s) => s[key])),
  };
}

function renderSeam(run: TracingRun): string[] {
  if ('error' in run.seam) return ['', `The seam comparison failed: ${run.seam.error}.`];
  const { current, preSeam, calls, rounds } = run.seam;
  const lines = [
    '',
    `#### Tracing off: this checkout against ${PRE_SEAM_COMMIT}, the commit before the instrumentation seam`,
    '',
    metaLine([
      `${rounds} rounds, each a child process per tree (which goes first alternates), ${calls} timed calls of each after 3 untimed, on the act page`,
      "CPU: the child's own (the seam runs in Node)",
    ]),
    '',
    '| call | this checkout (median) | before the seam (median) | ratio | ratio per round (min–max) |',
    '| --- | ---: | ---: | ---: | ---: |',
  ];
  const rows: Array<[string, keyof SeamSamples]> = [
    ['`extract()`, wall time', 'extract'],
    ['`extract()`, CPU time', 'extractCpu'],
    ['`act(observeResult)`, wall time', 'act'],
    ['`act(observeResult)`, CPU time', 'actCpu'],
  ];
  const verdicts: boolean[] = [];
  for (const [label, key] of rows) {
    const r = seamRatios(current, preSeam, key);
    // "Measurable" means above the noise: the pooled ratio over 1 with every round's ratio over 1 too.
    verdicts.push(!(r.pooled > 1 && r.min > 1));
    lines.push(tableRow([label, ms(r.cur), ms(r.pre), `${r.pooled.toFixed(3)}×`, `${r.min.toFixed(3)}–${r.max.toFixed(3)}×`]));
  }
  lines.push(
    '',
    verdict(
      "with tracing off, no measurable cost on `extract()` and `act()` (no row whose pooled ratio and every round's ratio are all above 1)",
      verdicts.every(Boolean),
    ),
  );
  return lines;
}

export function renderTracing(run: TracingRun, envLine: string): string {
  const numbers = tracingNumbers(run);
  const t = numbers.byLib.get('tendril')!;
  const p = numbers.byLib.get('playwright')!;
  type Figure = 'costPerAction' | 'startStopPerAction' | 'totalPerAction' | 'cpuCostPerAction' | 'bytesPerVisit' | 'bytesPerAction';
  /** A row of one figure for both libraries, and Tendril's over playwright-core's. */
  const compared = (label: string, figure: Figure, format: (n: number) => string) =>
    tableRow([label, format(t[figure]), format(p[figure]), ratioText(t[figure], p[figure])]);
  const lines = [
    `### Tracing: the cost and the file per action, Tendril against playwright-core ${playwrightCoreVersion()}`,
    '',
    metaLine([
      envLine,
      `1-minute load average ${run.load[0].toFixed(1)} at the start, ${run.load[1].toFixed(1)} at the end`,
      `${run.pages.length} pages × ${run.rounds} rounds, the four modes interleaved and rotated`,
    ]),
    '',
    `Pages: ${run.pages.map((page) => page.label).join(', ')}. Each visit takes ${PER_VISIT} actions: \`goto\` (until \`load\`), a click on one element found once for both (the first visible button or \`#\` link), a page read (Tendril \`extract()\`, playwright-core \`page.evaluate(() => document.body.innerText)\`), a viewport screenshot. "On" is \`context.tracing.start({ screenshots: true, snapshots: true })\` before the visit and \`stop({ path })\` after it, on the same browser and context as "off". A cost is the median over (page, round) of on − off; CPU time is this process's (both libraries run in it) and its Chrome processes', from /proc.`,
    '',
    '| per action | Tendril | playwright-core | ratio |',
    '| --- | ---: | ---: | ---: |',
    tableRow(['tracing off: time per action', ms(t.offPerAction), ms(p.offPerAction), ratioText(t.offPerAction, p.offPerAction)]),
    ...ACTIONS.map((a) => tableRow([`tracing's cost on \`${a}\``, ms(t.perAction[a]), ms(p.perAction[a]), ''])),
    compared("tracing's cost per action, wall time", 'costPerAction', ms),
    compared('`start()` + `stop({ path })` per action', 'startStopPerAction', ms),
    compared("tracing's cost per action, with start and stop", 'totalPerAction', ms),
    compared("tracing's cost per action, CPU time (with stop)", 'cpuCostPerAction', ms),
    compared('trace file per visit (median)', 'bytesPerVisit', formatBytes),
    compared('trace file per action', 'bytesPerAction', (n) => formatBytes(Math.round(n))),
    '',
    verdict(
      `Tendril's cost per action (with start and stop) ≤ playwright-core's: ${ratioText(t.totalPerAction, p.totalPerAction)} (CPU time: ${ratioText(t.cpuCostPerAction, p.cpuCostPerAction)})`,
      Number.isFinite(t.totalPerAction) && Number.isFinite(p.totalPerAction) ? t.totalPerAction <= p.totalPerAction : null,
    ),
    '',
    verdict(
      `Tendril's trace file per action ≤ playwright-core's: ${ratioText(t.bytesPerAction, p.bytesPerAction)}`,
      Number.isFinite(t.bytesPerAction) && Number.isFinite(p.bytesPerAction) ? t.bytesPerAction <= p.bytesPerAction : null,
    ),
    ...renderSeam(run),
  ];
  for (const error of run.errors) lines.push('', `failed: ${error}`);
  return lines.join('\n');
}

function playwrightCoreVersion(): string {
  return (createRequire(import.meta.url)('playwright-core/package.json') as { version: string }).version;
}

export function tracingFailed(run: TracingRun): boolean {
  const t = run.visits.get('tendril')!;
  return t.on.length === 0 || t.off.length === 0;
}
