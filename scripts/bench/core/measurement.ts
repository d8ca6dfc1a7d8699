// What run.ts hands a measurement, and what a measurement with a report of its own hands back.
import type { BenchEnv, LibraryAdapter } from './adapter.js';
import type { Column } from './format.js';
import type { BenchOptions } from './options.js';

/** The libraries under test and everything around them. */
export interface ComparisonContext {
  readonly libs: readonly LibraryAdapter[];
  /**
   * Libraries that are not in `libs` (id -> why, e.g. could not be loaded): recorded as failed
   * everywhere rather than left out.
   */
  readonly unavailable: ReadonlyMap<string, string>;
  readonly env: BenchEnv;
  readonly opts: BenchOptions;
  readonly log: (line: string) => void;
}

/**
 * A measurement with its own loop and its own table (extract, real-pages, extract-llm, act,
 * hosted-cache, function, mcp): it keeps its browsers, alternates the libraries itself, and reports.
 */
export interface Comparison {
  /** Its `--only` id. */
  readonly id: string;
  /** False when it runs none of the bench's libraries (they are then not loaded for it alone). */
  readonly usesLibraries?: false;
  /** What it will do with these options, said before anything runs. */
  plan(opts: BenchOptions): string;
  /** Null when it has nothing to run with the libraries selected. */
  run(ctx: ComparisonContext): Promise<Finished | null>;
}

/** A comparison that ran. */
export interface Finished {
  /** Its markdown for stdout and the bench block (and its per-page file, written here if it has one). */
  report(r: ReportContext): string;
  /** For under the tables. */
  readonly notes: readonly string[];
  /**
   * Markers of a block of docs/benchmarks.md of its own, where its report goes instead of the bench
   * block; `--update-readme` rewrites it after any run of it, partial or not (its table says what it covered).
   */
  readonly block?: { readonly start: string; readonly end: string };
  /**
   * Markers of a block of the root README of its own (a few headline rows, apart from the bench's
   * headline, which is built from the full run's tables), and its text; rewritten with `block`.
   */
  readonly headline?: { readonly start: string; readonly end: string; text(r: ReportContext): string };
  /** Whether it fails the run (exit code 1). */
  failed(r: ReportContext): boolean;
}

/** What every report is told besides its results. */
export interface ReportContext {
  readonly ours: Column;
  /** Stagehand 3.7.3 first (the targets are against it), then 4.4.0. */
  readonly theirs: readonly Column[];
  /** "2026-11-22 · Chromium … · Node … · machine" */
  readonly envLine: string;
  readonly log: (line: string) => void;
}

/** A library's result where it failed: the first line of why. */
export interface Failed {
  readonly ok: false;
  readonly error: string;
}

/** `unavailable` as failed outcomes, to seed a map of outcomes by library id. */
export function unavailableOutcomes(unavailable: ReadonlyMap<string, string>): Array<[string, Failed]> {
  return [...unavailable].map(([id, error]) => [id, { ok: false, error }]);
}

/** The first line of an error's message: what the tables and logs show. */
export const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err)).split('\n')[0]!;
