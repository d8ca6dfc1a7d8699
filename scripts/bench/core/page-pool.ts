// What the page measurements (extract, extract-llm, real-pages) share: one browser per library for
// all pages, and the loop that runs every page with the libraries alternating.
//
// Each library keeps its browser for all pages (Stagehand needs seconds per article page, and a
// launch per page would measure launches). Both browsers stay up and the libraries alternate page
// by page, so drift on the machine hits both alike.
import type { BenchEnv, LibraryAdapter, SessionOptions } from './adapter.js';
import { OFFLINE_ARG, type LaunchSpec } from './config.js';
import { UNSERVED_DEMO, type ExtractPage, type PageSet } from './page-sets.js';
import { errorText, unavailableOutcomes, type ComparisonContext, type Failed } from './measurement.js';
import { OURS_ID } from './peer-cache.js';
import { settle } from './settle.js';
import { TimedSession, withTimeout } from './timed-session.js';

/** Page used to warm up each new session (untimed), so the first measured page is not a cold one. */
export const WARMUP_PATH = '/basic.html';

export interface PagePoolSpec<S> {
  /** The measured call, as errors name it, e.g. "extract()". */
  readonly what: string;
  /**
   * Opens a page before the measured call (the warm-up page too) and returns how long that took,
   * in ms. Default: `goto` until `load`.
   */
  readonly open?: (lib: LibraryAdapter, s: TimedSession, url: string) => Promise<number>;
  /**
   * The measured call on the session's current page; returns its sample (with its own timing).
   * `openMs`: how long opening the page took.
   */
  readonly call: (lib: LibraryAdapter, s: TimedSession, openMs: number) => Promise<S>;
  /** Given to every new session, e.g. the model. */
  readonly options?: SessionOptions;
}

/** Where a library failed a page: no session to run it in, opening it, or the measured call. */
export type PageStep = 'session' | 'goto' | 'call';

/** Why a library failed a page; the message is what tables and logs show. */
export class PageFailure extends Error {
  override readonly name = 'PageFailure';
  constructor(
    message: string,
    readonly step: PageStep,
    /** What the step threw (for the per-page deadline: the deadline's own error). */
    readonly thrown: unknown,
    /** The per-page deadline ran out during `step` (the library's call had not returned). */
    readonly deadline: boolean,
    /** How long opening the page took, when it got that far. */
    readonly openMs?: number,
  ) {
    super(message);
  }
}

/** The current session of each library, made (and warmed up) when first needed. */
export class PagePool<S> {
  private readonly sessions = new Map<string, TimedSession>();
  /** Why a library has no session; it is not tried again (library -> why). */
  readonly givenUp = new Map<LibraryAdapter, string>();
  /** The same, as thrown on every page. */
  private readonly noSession = new Map<LibraryAdapter, PageFailure>();
  private readonly launch: LaunchSpec;

  constructor(
    private readonly env: BenchEnv,
    private readonly spec: PagePoolSpec<S>,
  ) {
    // Same flags for both libraries; remote resources of the corpus pages fail at once.
    this.launch = { ...env.launch, args: [...env.launch.args, OFFLINE_ARG] };
  }

  private async session(lib: LibraryAdapter): Promise<TimedSession> {
    const existing = this.sessions.get(lib.id);
    if (existing) return existing;
    const gaveUp = this.noSession.get(lib);
    if (gaveUp) throw gaveUp;
    const s = new TimedSession(lib, lib.newSession(this.launch, this.spec.options), this.env);
    this.sessions.set(lib.id, s);
    try {
      await s.init();
      const openMs = await this.open(lib, s, this.env.server.url(WARMUP_PATH));
      await this.spec.call(lib, s, openMs);
    } catch (err) {
      // A library that cannot even get through the warm-up page is not tried again on every page.
      const why = `no session (init + ${this.spec.what} on ${WARMUP_PATH} failed: ${errorText(err)})`;
      const failure = new PageFailure(why, 'session', err, false);
      this.givenUp.set(lib, why);
      this.noSession.set(lib, failure);
      await this.drop(lib);
      throw failure;
    }
    return s;
  }

  private open(lib: LibraryAdapter, s: TimedSession, url: string): Promise<number> {
    return this.spec.open ? this.spec.open(lib, s, url) : s.goto(url);
  }

  /** The library's current session, if it has one (e.g. to look at it after a failure). */
  current(lib: LibraryAdapter): TimedSession | undefined {
    return this.sessions.get(lib.id);
  }

  /**
   * Opens the page (untimed, unless `spec.call` uses its time) + the measured call, under the
   * per-page deadline. Failures are `PageFailure`s.
   */
  async measure(lib: LibraryAdapter, page: ExtractPage, deadlineMs: number): Promise<S> {
    const s = await this.session(lib);
    // Say which step failed: a page that never reaches `load` is not an extraction failure.
    let step: PageStep = 'goto';
    let openMs: number | undefined;
    try {
      return await withTimeout(
        `${lib.label} on ${page.label}`,
        deadlineMs,
        (async () => {
          openMs = await this.open(lib, s, page.url).catch((err: unknown) => {
            throw new PageFailure(`goto: ${errorText(err)}`, 'goto', err, false);
          });
          step = 'call';
          return await this.spec.call(lib, s, openMs).catch((err: unknown) => {
            throw new PageFailure(`${this.spec.what}: ${errorText(err)}`, 'call', err, false, openMs);
          });
        })(),
      );
    } catch (err) {
      if (err instanceof PageFailure) throw err;
      throw new PageFailure(errorText(err), step, err, true, openMs);
    }
  }

  /** Closes the library's session, if any; the next page gets a fresh one. */
  async drop(lib: LibraryAdapter): Promise<void> {
    const s = this.sessions.get(lib.id);
    this.sessions.delete(lib.id);
    await s?.dispose();
  }
}

export interface PageResultOf<O> {
  readonly page: ExtractPage;
  /** By library id. */
  readonly outcomes: ReadonlyMap<string, O | Failed>;
}

export interface PageLoop<S, O> {
  /** Measurement id, the prefix of the progress lines. */
  readonly id: string;
  readonly set: PageSet;
  readonly pool: PagePool<S>;
  /** A library's result on a page it got through, from its timed calls. */
  readonly outcome: (page: ExtractPage, timed: readonly S[]) => O;
  /** One library's result in the progress line. */
  readonly describe: (o: O | Failed) => string;
  /**
   * A library's result on a page it failed, from what `pool.measure` threw (a `PageFailure`);
   * called before its session is dropped. Default: `{ ok: false, error }` with the message.
   */
  readonly failed?: (lib: LibraryAdapter, err: unknown) => O | Failed;
}

/**
 * Runs every page of `loop.set`: on the table and demo page `opts.warmups` untimed calls then
 * `opts.extractIterations` timed ones, on each article `opts.corpusIterations` timed ones, the
 * libraries alternating call by call, each turn starting on a settled machine (core/settle.ts). A library
 * that fails a page is failed on that page only.
 * Closes the pool's sessions and the pages' servers at the end.
 */
export async function runPages<S, O>(ctx: ComparisonContext, loop: PageLoop<S, O>): Promise<PageResultOf<O>[]> {
  const { libs, unavailable, opts, log, env } = ctx;
  const { set, pool } = loop;
  const results: PageResultOf<O>[] = [];
  try {
    for (const [index, page] of set.pages.entries()) {
      const article = page.kind === 'article';
      const timed = article ? opts.corpusIterations : opts.extractIterations;
      const warmups = article ? 0 : opts.warmups;
      const outcomes = new Map<string, O | Failed>(unavailableOutcomes(unavailable));
      const samples = new Map<string, S[]>(libs.map((lib) => [lib.id, []]));
      // A peer's result on an article, or on one of the bench's own pages while it serves the same
      // thing, is reused while its key holds (core/peer-cache.ts); Tendril's never is.
      const settings = `timed ${timed}, warm-ups ${warmups}, page deadline ${opts.pageDeadlineMs} ms`;
      const keptId = article ? page.id : page.version ? `${page.id} ${page.version}` : '';
      const unit = article ? 'corpus article' : 'bench page';
      // The bench's own pages are timed more often than articles: other settings, so a file of their own.
      const keptIn = article ? loop.id : `${loop.id}-own-pages`;
      const kept = new Set<string>();
      for (const lib of keptId ? libs : []) {
        if (lib.id === OURS_ID || outcomes.has(lib.id)) continue;
        const reused = env.peers.lookup<O | Failed>(keptIn, lib.id, lib.label, settings, keptId, unit);
        if (reused === undefined) continue;
        outcomes.set(lib.id, reused);
        kept.add(lib.id);
      }
      for (let i = 0; i < warmups + timed; i++) {
        for (const lib of libs) {
          if (outcomes.has(lib.id)) continue; // failed on this page already
          try {
            await settle();
            const sample = await pool.measure(lib, page, opts.pageDeadlineMs);
            if (i >= warmups) samples.get(lib.id)!.push(sample);
          } catch (err) {
            outcomes.set(lib.id, loop.failed?.(lib, err) ?? { ok: false, error: errorText(err) });
            // The browser may be stuck mid-extract; the next page gets a fresh one.
            await pool.drop(lib);
          }
        }
      }
      for (const lib of libs) if (!outcomes.has(lib.id)) outcomes.set(lib.id, loop.outcome(page, samples.get(lib.id)!));
      for (const lib of keptId ? libs : []) {
        if (lib.id !== OURS_ID && !kept.has(lib.id)) env.peers.store(keptIn, lib.id, lib.label, settings, keptId, outcomes.get(lib.id));
      }
      results.push({ page, outcomes });
      log(
        `${loop.id} ${index + 1}/${set.pages.length} ${page.label}: ${libs.map((lib) => `${lib.label} ${loop.describe(outcomes.get(lib.id)!)}${kept.has(lib.id) ? ' (reused)' : ''}`).join(' | ')}`,
      );
    }
  } finally {
    for (const lib of libs) await pool.drop(lib);
    set.close();
  }

  if (set.demoError) {
    // The demo keeps its row, failed for every library, where it would have been.
    const error = set.demoError;
    const failed = new Map<string, Failed>([
      ...libs.map((lib): [string, Failed] => [lib.id, { ok: false, error }]),
      ...unavailableOutcomes(unavailable),
    ]);
    results.splice(set.demoIndex, 0, { page: UNSERVED_DEMO, outcomes: failed });
  }
  return results;
}
