// What a measurement is: a few table rows, and one iteration that yields a sample for each row.
import type { BenchEnv, LibraryAdapter } from './adapter.js';

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
