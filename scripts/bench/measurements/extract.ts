// extract() without arguments: the whole page's text. Per page, every library navigates (untimed,
// until `load`) and then extract() is timed; its pageText is kept for size and word recall.
//
// Unlike the lifecycle measurement, each library keeps one browser for all pages (Stagehand needs
// seconds per article page, and a launch per page would measure launches). Both browsers stay up
// and the libraries alternate page by page, so drift on the machine hits both alike.
import { TimedSession, withTimeout, type BenchEnv, type LibraryAdapter } from '../adapter.js';
import { CORPUS_DIR, OFFLINE_ARG, type BenchOptions } from '../config.js';
import {
  loadCorpus,
  missingDemoParts,
  startDemo,
  tablePage,
  type DemoServer,
  type ExtractPage,
} from '../extract-pages.js';
import { recall, wordCounts, type Recall } from '../recall.js';

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
  | { readonly ok: false; readonly error: string };

export interface PageResult {
  readonly page: ExtractPage;
  /** By library id. */
  readonly outcomes: ReadonlyMap<string, Outcome>;
}

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
  readonly notes: readonly string[];
}

const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err)).split('\n')[0]!;

/** Page used to warm up each new session (untimed), so the first measured page is not a cold one. */
const WARMUP_PATH = '/basic.html';

/**
 * Runs every extraction page for `libs`; libraries in `unavailable` (id -> why, e.g. could not be
 * loaded) are recorded as failed on every page rather than left out.
 */
export async function runExtract(
  libs: readonly LibraryAdapter[],
  unavailable: ReadonlyMap<string, string>,
  env: BenchEnv,
  opts: BenchOptions,
  log: (line: string) => void,
): Promise<ExtractRun> {
  const notes: string[] = [];
  // Same flags for both libraries; remote resources of the corpus pages fail at once.
  const launch = { ...env.launch, args: [...env.launch.args, OFFLINE_ARG] };

  const pages: ExtractPage[] = [tablePage(env.server)];
  let demo: DemoServer | null = null;
  let demoError: string | null = null;
  try {
    demo = await startDemo();
    pages.push(demo.page);
  } catch (err) {
    demoError = `could not serve the demo page: ${errorText(err)}`;
    log(`extract: ${demoError}`);
  }
  const corpus = loadCorpus(env.server, opts.corpusLimit);
  if (corpus) {
    pages.push(...corpus.pages);
    if (corpus.pages.length < corpus.total) log(`extract: first ${corpus.pages.length} of ${corpus.total} corpus pages (--corpus-limit)`);
  } else {
    const msg = `corpus folder ${CORPUS_DIR} is missing: real pages skipped`;
    log(`extract: ${msg}`);
    notes.push(msg);
  }

  const unavailableOutcomes = () => [...unavailable].map(([id, error]): [string, Outcome] => [id, { ok: false, error }]);
  const sessions = new Map<string, TimedSession>();
  // A library that cannot even extract the warm-up page is not tried again on every page.
  const givenUp = new Map<string, string>();

  const dropSession = async (lib: LibraryAdapter): Promise<void> => {
    const s = sessions.get(lib.id);
    sessions.delete(lib.id);
    await s?.dispose();
  };

  const sessionFor = async (lib: LibraryAdapter): Promise<TimedSession> => {
    const existing = sessions.get(lib.id);
    if (existing) return existing;
    const gaveUp = givenUp.get(lib.id);
    if (gaveUp) throw new Error(gaveUp);
    const s = new TimedSession(lib, lib.newSession(launch), env);
    sessions.set(lib.id, s);
    try {
      await s.init();
      await s.goto(env.server.url(WARMUP_PATH));
      await s.extract();
    } catch (err) {
      const why = `no session (init + extract() on ${WARMUP_PATH} failed: ${errorText(err)})`;
      givenUp.set(lib.id, why);
      await dropSession(lib);
      throw new Error(why);
    }
    return s;
  };

  /** goto (untimed) + extract (timed), under the per-page deadline. */
  const once = async (lib: LibraryAdapter, page: ExtractPage): Promise<{ ms: number; text: string }> => {
    const s = await sessionFor(lib);
    return withTimeout(
      `${lib.label} on ${page.label}`,
      opts.pageDeadlineMs,
      (async () => {
        // Say which step failed: a page that never reaches `load` is not an extraction failure.
        await s.goto(page.url).catch((err: unknown) => {
          throw new Error(`goto: ${errorText(err)}`);
        });
        return s.extract().catch((err: unknown) => {
          throw new Error(`extract(): ${errorText(err)}`);
        });
      })(),
    );
  };

  const results: PageResult[] = [];
  try {
    for (const [index, page] of pages.entries()) {
      const article = page.kind === 'article';
      const timed = article ? opts.corpusIterations : opts.extractIterations;
      const warmups = article ? 0 : opts.warmups;
      const truth = page.truth === undefined ? null : wordCounts(page.truth);
      const outcomes = new Map<string, Outcome>(unavailableOutcomes());
      const times = new Map<string, number[]>(libs.map((lib) => [lib.id, []]));
      const firstText = new Map<string, string>();
      for (let i = 0; i < warmups + timed; i++) {
        for (const lib of libs) {
          if (outcomes.has(lib.id)) continue; // failed on this page already
          try {
            const { ms, text } = await once(lib, page);
            if (i < warmups) continue;
            times.get(lib.id)!.push(ms);
            if (!firstText.has(lib.id)) firstText.set(lib.id, text);
          } catch (err) {
            outcomes.set(lib.id, { ok: false, error: errorText(err) });
            // The browser may be stuck mid-extract; the next page gets a fresh one.
            await dropSession(lib);
          }
        }
      }
      for (const lib of libs) {
        if (outcomes.has(lib.id)) continue;
        const text = firstText.get(lib.id) ?? '';
        outcomes.set(lib.id, {
          ok: true,
          times: times.get(lib.id)!,
          bytes: Buffer.byteLength(text, 'utf8'),
          recall: truth ? recall(truth, text) : null,
          missing: page.kind === 'demo' ? missingDemoParts(text) : null,
        });
      }
      results.push({ page, outcomes });
      log(`extract ${index + 1}/${pages.length} ${page.label}: ${libs.map((lib) => `${lib.label} ${describe(outcomes.get(lib.id)!)}`).join(' | ')}`);
    }
  } finally {
    for (const lib of libs) await dropSession(lib);
    demo?.close();
  }

  if (demoError) {
    const failed = new Map<string, Outcome>([...libs.map((lib) => [lib.id, { ok: false, error: demoError }] as const), ...unavailableOutcomes()]);
    results.splice(1, 0, { page: { id: 'demo', kind: 'demo', label: 'demo page', url: '' }, outcomes: failed });
  }

  for (const [id, why] of givenUp) notes.push(`${libs.find((l) => l.id === id)?.label ?? id}: ${why}`);

  return {
    pages: results,
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

function describe(o: Outcome): string {
  if (!o.ok) return `FAILED: ${o.error}`;
  const ms = o.times.map((t) => t.toFixed(0)).join('/');
  const r = o.recall && o.recall.total > 0 ? ` recall ${((100 * o.recall.matched) / o.recall.total).toFixed(1)}%` : '';
  const m = o.missing?.length ? ` missing ${o.missing.join(', ')}` : '';
  return `${ms} ms ${(o.bytes / 1000).toFixed(1)} kB${r}${m}`;
}
