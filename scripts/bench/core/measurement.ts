// What a measurement is: a few table rows, and one iteration that yields a sample for each row.
import type { BenchEnv, LibraryAdapter } from './adapter.js';
import type { BenchOptions } from './config.js';

export interface Row {
  /** Key into the samples `run` returns. */
  readonly key: string;
  /** Markdown for the "measurement" column. */
  readonly label: string;
}

export interface Measurement {
  readonly id: string;
  readonly rows: readonly Row[];
  /** One iteration for one library: milliseconds for each row key. */
  run(lib: LibraryAdapter, env: BenchEnv): Promise<Record<string, number>>;
}

/**
 * What run.ts hands the measurements with their own loops (extract, extract-llm, act), which keep
 * one browser per library and alternate the libraries themselves.
 */
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
