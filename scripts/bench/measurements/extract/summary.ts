// The numbers the extraction tables show, and the targets Tendril is held to.
import { atMost, medianCell, verdict } from '../../core/format.js';
import { median } from '../../core/stats.js';
import type { ExtractRun, Outcome, PageResult } from './measure.js';
import { recallValue, type Recall } from './recall.js';

export interface Pair {
  readonly ours: string;
  /** Stagehand 3.7.3 first (targets, recall comparison and the median ratio are against it), then 4.4.0. */
  readonly theirs: readonly string[];
}

/** Tendril's recall may trail Stagehand's by at most this much on any page. */
export const RECALL_SLACK = 0.01;

export const TARGETS = {
  tableTime: 0.1,
  corpusTime: 0.33,
  bytes: 0.5,
} as const;

/** Issue 18's targets against Stagehand 4.4.0: 10× its speed on real pages, 15× on the table. */
export const TARGETS4 = {
  tableTime: 1 / 15,
  corpusTime: 0.1,
  bytes: 0.45,
} as const;

type Ok = Extract<Outcome, { ok: true }>;

export function ok(o: Outcome | undefined): Ok | null {
  return o && o.ok ? o : null;
}

export function medianMs(o: Outcome | undefined): number {
  return medianCell(o, (v) => v.times).value;
}

export function pageRecall(o: Outcome | undefined): number {
  return recallValue(ok(o)?.recall);
}

export interface Below {
  readonly page: PageResult;
  /** Recall in [0, 1]; NaN when Tendril failed on the page. */
  readonly ours: number;
  readonly theirs: number;
}

export interface CorpusSummary {
  /** Article pages run. */
  readonly count: number;
  /** Pages every library that worked at all got through; totals and ratios are over these. */
  readonly comparable: readonly PageResult[];
  readonly failed: ReadonlyMap<string, readonly PageResult[]>;
  readonly timeMs: ReadonlyMap<string, number>;
  readonly bytes: ReadonlyMap<string, number>;
  readonly recall: ReadonlyMap<string, Recall>;
  /** Median over the comparable pages of Tendril's time / each other library's, by library id. */
  readonly medianTimeRatio: ReadonlyMap<string, number>;
  /** Pages where Tendril's recall is more than RECALL_SLACK below the first other library's (or Tendril failed). */
  readonly below: readonly Below[];
}

export function summarizeCorpus(run: ExtractRun, ids: Pair): CorpusSummary {
  const articles = run.pages.filter((p) => p.page.kind === 'article');
  const libIds = [ids.ours, ...ids.theirs];
  const primary = ids.theirs[0]!;
  const failed = new Map(libIds.map((id) => [id, articles.filter((p) => !ok(p.outcomes.get(id)) && p.outcomes.has(id))]));
  // A library that failed everywhere (or did not run) would otherwise leave no page to compare.
  const active = libIds.filter((id) => articles.some((p) => ok(p.outcomes.get(id))));
  const comparable = articles.filter((p) => active.every((id) => ok(p.outcomes.get(id))));
  const timeMs = new Map<string, number>();
  const bytes = new Map<string, number>();
  const recall = new Map<string, Recall>();
  for (const id of active) {
    let t = 0;
    let b = 0;
    let matched = 0;
    let total = 0;
    for (const p of comparable) {
      const o = ok(p.outcomes.get(id))!;
      t += median(o.times);
      b += o.bytes;
      matched += o.recall?.matched ?? 0;
      total += o.recall?.total ?? 0;
    }
    timeMs.set(id, t);
    bytes.set(id, b);
    recall.set(id, { matched, total });
  }
  const medianTimeRatio = new Map<string, number>();
  for (const id of ids.theirs) {
    const ratios = comparable.map((p) => medianMs(p.outcomes.get(ids.ours)) / medianMs(p.outcomes.get(id)));
    medianTimeRatio.set(id, ratios.length ? median(ratios) : Number.NaN);
  }
  const below: Below[] = [];
  for (const p of articles) {
    const theirs = pageRecall(p.outcomes.get(primary));
    // Nothing to compare against, or Tendril was not run.
    if (!Number.isFinite(theirs) || !p.outcomes.has(ids.ours)) continue;
    const ours = pageRecall(p.outcomes.get(ids.ours));
    if (!Number.isFinite(ours) || ours < theirs - RECALL_SLACK) below.push({ page: p, ours, theirs });
  }
  // Worst first; failures (NaN) before everything.
  below.sort((a, b) => (Number.isNaN(a.ours) ? -Infinity : a.ours - a.theirs) - (Number.isNaN(b.ours) ? -Infinity : b.ours - b.theirs));
  return {
    count: articles.length,
    comparable,
    failed,
    timeMs,
    bytes,
    recall,
    medianTimeRatio,
    below,
  };
}

/** "≤ 0.10×: pass" / "≤ 0.10×: **FAIL**" / "≤ 0.10×: n/a" for a ratio target. */
export function ratioTarget(ratio: number, max: number, of = ''): string {
  // 1/15 shows as "≤ 1/15×", not as a rounded 0.07 that a 0.068 would seem to meet.
  const goal = Number.isInteger(1 / max) && max < 0.1 ? `1/${1 / max}` : max.toFixed(2);
  return verdict(`≤ ${goal}×${of ? ` ${of}` : ''}`, atMost(ratio, max));
}
