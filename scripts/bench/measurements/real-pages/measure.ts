// goto(url) with each library's own default, then extract(), on every real page of the corpus: how
// many pages each library reads, why it fails the others, and how long its goto and extract take.
//
// Unlike the extract measurement (goto until `load`), nothing is asked of goto: this is what a
// caller who writes `page.goto(url)` gets. The pages are served and the browsers started the same
// way (core/page-pool.ts: one browser per library, remote resources failing at once, libraries
// alternating page by page, a page past the per-page deadline failed and its browser replaced).
import type { DialogSeen, LibraryAdapter } from '../../core/adapter.js';
import { openPages } from '../../core/page-sets.js';
import { errorText, type ComparisonContext, type Failed } from '../../core/measurement.js';
import { PageFailure, PagePool, runPages, type PageResultOf } from '../../core/page-pool.js';
import { median } from '../../core/stats.js';
import { BenchTimeoutError, type TimedSession } from '../../core/timed-session.js';

export const REAL_PAGES_ID = 'real-pages';

/** One goto + extract() on one page. */
interface Visit {
  readonly gotoMs: number;
  readonly extractMs: number;
  readonly bytes: number;
  /** Dialogs the page opened from the start of its goto to the end of extract(). */
  readonly dialogs: readonly DialogSeen[];
}

export type RealRead = {
  readonly ok: true;
  /** Medians over the page's timed visits (one unless BENCH_CORPUS_ITERATIONS says more). */
  readonly gotoMs: number;
  readonly extractMs: number;
  /** UTF-8 size of the first timed pageText. */
  readonly bytes: number;
  readonly dialogs: readonly DialogSeen[];
};

export interface RealFailed extends Failed {
  /** The failure's class, e.g. "navigation timeout", "extract() threw SdkDomProcessError". */
  readonly cause: string;
  /** How long goto took when it was extract() that failed. */
  readonly gotoMs?: number;
  /** Dialogs the page opened before the failure; an open one is the cause. */
  readonly dialogs: readonly DialogSeen[];
}

/** A library that could not be loaded at all gets a plain `Failed` (no cause). */
export type RealOutcome = RealRead | RealFailed | Failed;

export type RealPageResult = PageResultOf<RealOutcome>;

export interface RealPagesRun {
  readonly pages: readonly RealPageResult[];
  /** Articles in the corpus folder (before --corpus-limit); null when the folder is absent. */
  readonly corpusTotal: number | null;
  readonly settings: {
    readonly corpusIterations: number;
    readonly pageDeadlineMs: number;
    readonly opTimeoutMs: number;
  };
  readonly notes: readonly string[];
}

/** extract() resolved with no text at all: the page was not read. */
export class EmptyPageTextError extends Error {
  override readonly name = 'EmptyPageTextError';
}

export async function runRealPages(ctx: ComparisonContext): Promise<RealPagesRun> {
  const { env, opts, log } = ctx;
  const notes: string[] = [];
  const set = await openPages(env.server, { id: REAL_PAGES_ID, table: false, demo: false, corpusLimit: opts.corpusLimit }, log);
  const { corpus } = set;
  if (corpus && corpus.pages.length < corpus.total)
    log(`${REAL_PAGES_ID}: first ${corpus.pages.length} of ${corpus.total} corpus pages (--corpus-limit)`);
  if (set.corpusMissing) notes.push(`${REAL_PAGES_ID}: ${set.corpusMissing}`);

  // Per library: how many dialogs its session had seen when the current page's goto started.
  const marks = new Map<string, number>();
  const dialogsSince = (lib: LibraryAdapter, s: TimedSession | undefined): DialogSeen[] =>
    // Copies: Stagehand's entries change when a dialog closes.
    (s?.raw.dialogs?.() ?? []).slice(marks.get(lib.id) ?? 0).map((d) => ({ ...d }));

  const pool = new PagePool<Visit>(env, {
    what: 'extract()',
    open: (lib, s, url) => {
      marks.set(lib.id, s.raw.dialogs?.().length ?? 0);
      return s.gotoDefault(url);
    },
    call: async (lib, s, gotoMs) => {
      const { ms, text } = await s.extract();
      if (!text.trim()) throw new EmptyPageTextError(`resolved after ${ms.toFixed(0)} ms with an empty pageText`);
      return { gotoMs, extractMs: ms, bytes: Buffer.byteLength(text, 'utf8'), dialogs: dialogsSince(lib, s) };
    },
    options: { watchDialogs: true },
  });
  const pages = await runPages<Visit, RealOutcome>(ctx, {
    id: REAL_PAGES_ID,
    set,
    pool,
    outcome: (_page, visits): RealRead => ({
      ok: true,
      gotoMs: median(visits.map((v) => v.gotoMs)),
      extractMs: median(visits.map((v) => v.extractMs)),
      bytes: visits[0]?.bytes ?? 0,
      dialogs: visits.flatMap((v) => v.dialogs),
    }),
    failed: (lib, err): RealFailed => {
      // Read before runPages drops the session: a dialog still open now is what held the page.
      const dialogs = dialogsSince(lib, pool.current(lib));
      const gotoMs = err instanceof PageFailure ? err.openMs : undefined;
      return { ok: false, error: errorText(err), cause: classify(err, dialogs), dialogs, ...(gotoMs === undefined ? {} : { gotoMs }) };
    },
    describe,
  });
  for (const [lib, why] of pool.givenUp) notes.push(`${lib.label} (${REAL_PAGES_ID}): ${why}`);

  return {
    pages,
    corpusTotal: corpus ? corpus.total : null,
    settings: { corpusIterations: opts.corpusIterations, pageDeadlineMs: opts.pageDeadlineMs, opTimeoutMs: opts.opTimeoutMs },
    notes,
  };
}

/** The class of an error as its library names it, e.g. "TimeoutError". */
export function className(err: unknown): string {
  if (!(err instanceof Error)) return typeof err;
  return err.name && err.name !== 'Error' ? err.name : err.constructor.name;
}

/** Both libraries have a TimeoutError; some of their timeouts are plain Errors that say so. */
function isTimeout(err: unknown): boolean {
  if (/timeout/i.test(className(err))) return true;
  return err instanceof Error && /\btimed? ?out\b|\btimeout\b/i.test(err.message);
}

/**
 * Why a library failed a page, in a few classes: a JavaScript dialog still open when it failed
 * (whatever the step then reported), the bench's per-page deadline (the library never returned)
 * or its per-operation one, the library's own timeout in goto or in extract(), an extract() with no
 * text, or what else goto or extract() threw, by class; and no session at all (init or the warm-up
 * page failed).
 */
export function classify(err: unknown, dialogs: readonly DialogSeen[]): string {
  if (!(err instanceof PageFailure)) return `error: ${className(err)}`;
  if (err.step === 'session') return 'no session (init or warm-up page failed)';
  const step = err.step === 'goto' ? 'goto' : 'extract()';
  if (dialogs.some((d) => d.open)) return 'JavaScript dialog';
  if (err.deadline) return `page deadline in ${step}`;
  if (err.thrown instanceof BenchTimeoutError) return `operation deadline in ${step}`;
  if (err.thrown instanceof EmptyPageTextError) return 'empty page text';
  if (isTimeout(err.thrown)) return err.step === 'goto' ? 'navigation timeout' : 'extract timeout';
  return `${step} threw ${className(err.thrown)}`;
}

function describe(o: RealOutcome): string {
  if (!o.ok) return 'cause' in o ? `FAILED (${o.cause}): ${o.error}` : `FAILED: ${o.error}`;
  const d = o.dialogs.length ? `, ${o.dialogs.length} dialog(s)` : '';
  return `goto ${o.gotoMs.toFixed(0)} ms, extract ${o.extractMs.toFixed(0)} ms, ${(o.bytes / 1000).toFixed(1)} kB${d}`;
}
