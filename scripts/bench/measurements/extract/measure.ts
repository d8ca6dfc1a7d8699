// extract() without arguments: the whole page's text. Per page, every library navigates (untimed,
// until `load`) and then extract() is timed; its pageText is kept for size and word recall.
//
// Unlike the lifecycle measurement, each library keeps one browser for all pages and the libraries
// alternate page by page (core/page-pool.ts).
import { missingDemoParts, openPages, tableOnly } from '../../core/page-sets.js';
import type { ComparisonContext, Failed } from '../../core/measurement.js';
import { recall, wordCounts, type Recall } from './recall.js';
import { PagePool, runPages, type PageResultOf } from '../../core/page-pool.js';

export type Outcome =
  | {
      readonly ok: true;
      /** Timed extract() calls, ms. */
      readonly times: readonly number[];
      /** UTF-8 size of the first timed pageText. */
      readonly bytes: number;
      readonly recall: Recall | null;
      /** Demo page only: parts whose text is absent. */
      readonly missing: readonly string[] | null;
    }
  | Failed;

export type PageResult = PageResultOf<Outcome>;

/**
 * The table once more, each timed extract() sent only after a trivial `evaluate` right after `goto`
 * has come back: how long Chrome is still busy finishing the page after `load` (layout, the first
 * rendering update), which any library's first command waits for, and the extract() without it.
 */
export type IdleOutcome =
  | {
      readonly ok: true;
      /** The evaluate right after `goto`, ms. */
      readonly waitMs: readonly number[];
      /** The extract() after it, ms. */
      readonly times: readonly number[];
    }
  | Failed;

export interface ExtractRun {
  readonly pages: readonly PageResult[];
  /** Articles in the corpus folder (before --corpus-limit); null when the folder is absent. */
  readonly corpusTotal: number | null;
  readonly settings: {
    readonly extractIterations: number;
    readonly corpusIterations: number;
    readonly warmups: number;
    readonly pageDeadlineMs: number;
    readonly corpusLimit: number | null;
  };
  /** By library id (see IdleOutcome). */
  readonly idleTable: ReadonlyMap<string, IdleOutcome>;
  readonly notes: readonly string[];
}

/** The expression of the evaluate that waits for Chrome to finish the page: nothing to compute. */
export const IDLE_PROBE = '1';

/** Runs every extraction page for `ctx.libs`. */
export async function runExtract(ctx: ComparisonContext): Promise<ExtractRun> {
  const { env, opts, log } = ctx;
  const notes: string[] = [];
  const set = await openPages(env.server, { id: 'extract', table: true, demo: true, corpusLimit: opts.corpusLimit }, log);
  const { corpus } = set;
  if (corpus && corpus.pages.length < corpus.total)
    log(`extract: first ${corpus.pages.length} of ${corpus.total} corpus pages (--corpus-limit)`);
  if (set.corpusMissing) notes.push(set.corpusMissing);

  const pool = new PagePool(env, { what: 'extract()', call: (_lib, s) => s.extract() });
  const pages = await runPages(ctx, {
    id: 'extract',
    set,
    pool,
    outcome: (page, timed): Exclude<Outcome, Failed> => {
      // The first timed call's pageText stands for the page.
      const text = timed[0]?.text ?? '';
      const truth = page.truth === undefined ? null : wordCounts(page.truth);
      return {
        ok: true,
        times: timed.map((c) => c.ms),
        bytes: Buffer.byteLength(text, 'utf8'),
        recall: truth ? recall(truth, text) : null,
        missing: page.kind === 'demo' ? missingDemoParts(text) : null,
      };
    },
    describe,
  });
  for (const [lib, why] of pool.givenUp) notes.push(`${lib.label}: ${why}`);
  const idleTable = await runIdleTable(ctx, notes);

  return {
    pages,
    idleTable,
    corpusTotal: corpus ? corpus.total : null,
    settings: {
      extractIterations: opts.extractIterations,
      corpusIterations: opts.corpusIterations,
      warmups: opts.warmups,
      pageDeadlineMs: opts.pageDeadlineMs,
      corpusLimit: opts.corpusLimit,
    },
    notes,
  };
}

/** The table with each timed extract() after the idle probe (see IdleOutcome), libraries alternating as above. */
async function runIdleTable(ctx: ComparisonContext, notes: string[]): Promise<ReadonlyMap<string, IdleOutcome>> {
  type Sample = { waitMs: number; ms: number };
  const pool = new PagePool<Sample>(ctx.env, {
    what: 'evaluate() + extract()',
    call: async (_lib, s) => {
      const waitMs = await s.evaluate(IDLE_PROBE);
      const { ms } = await s.extract();
      return { waitMs, ms };
    },
  });
  const [result] = await runPages<Sample, IdleOutcome>(ctx, {
    id: 'extract-idle',
    set: tableOnly(ctx.env.server),
    pool,
    outcome: (_page, timed) => ({ ok: true, waitMs: timed.map((t) => t.waitMs), times: timed.map((t) => t.ms) }),
    describe: (o) =>
      o.ok
        ? `evaluate ${o.waitMs.map((t) => t.toFixed(0)).join('/')} ms, then extract ${o.times.map((t) => t.toFixed(0)).join('/')} ms`
        : `FAILED: ${o.error}`,
  });
  for (const [lib, why] of pool.givenUp) notes.push(`${lib.label} (table after the idle probe): ${why}`);
  return result?.outcomes ?? new Map();
}

function describe(o: Outcome): string {
  if (!o.ok) return `FAILED: ${o.error}`;
  const ms = o.times.map((t) => t.toFixed(0)).join('/');
  const r = o.recall && o.recall.total > 0 ? ` recall ${((100 * o.recall.matched) / o.recall.total).toFixed(1)}%` : '';
  const m = o.missing?.length ? ` missing ${o.missing.join(', ')}` : '';
  return `${ms} ms ${(o.bytes / 1000).toFixed(1)} kB${r}${m}`;
}
