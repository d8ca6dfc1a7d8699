// The timing measurements (lifecycle): a fresh client per iteration, a few rows of one sample each,
// the libraries alternating (A B A B …), and the table of their medians.
import type { BenchEnv, LibraryAdapter } from './adapter.js';
import { FAILED, msCell, NOT_RUN, ratioCells, ratioHeading, tableHead, tableRow, type Cell, type Column } from './format.js';
import { errorText, type ComparisonContext } from './measurement.js';
import { formatMs } from './stats.js';

export interface Row {
  /** Key into the samples `run` returns. */
  readonly key: string;
  /** Markdown for the "measurement" column. */
  readonly label: string;
}

/** A few table rows, and one iteration that yields a sample for each row. */
export interface Measurement {
  readonly id: string;
  readonly rows: readonly Row[];
  /** One iteration for one library: milliseconds for each row key. */
  run(lib: LibraryAdapter, env: BenchEnv): Promise<Record<string, number>>;
}

export interface RowResult {
  readonly label: string;
  /** Samples in ms, by library id. */
  readonly samples: ReadonlyMap<string, readonly number[]>;
  /** Failure message, by library id, when a library could not complete this row. */
  readonly failures: ReadonlyMap<string, string>;
}

/**
 * Runs each measurement: `opts.warmups` untimed iterations, then `opts.iterations` timed ones, the
 * libraries alternating; a library that fails an iteration is failed on that measurement's rows.
 */
export async function runTimings(measurements: readonly Measurement[], ctx: ComparisonContext): Promise<RowResult[]> {
  const { libs, env, opts, log } = ctx;
  const results: RowResult[] = [];
  for (const m of measurements) {
    const samples = new Map(m.rows.map((r) => [r.key, new Map<string, number[]>()]));
    const rowFailures = new Map<string, string>(ctx.unavailable);
    const attempt = async (lib: LibraryAdapter, phase: string): Promise<Record<string, number> | null> => {
      if (rowFailures.has(lib.id)) return null;
      try {
        return await m.run(lib, env);
      } catch (err) {
        rowFailures.set(lib.id, errorText(err));
        log(`${m.id} ${phase} ${lib.label}: FAILED: ${errorText(err)}`);
        return null;
      }
    };
    for (let w = 0; w < opts.warmups; w++) {
      for (const lib of libs) {
        const r = await attempt(lib, `warm-up ${w + 1}`);
        if (r) log(`${m.id} warm-up ${w + 1} ${lib.label}: ${describe(r)}`);
      }
    }
    for (let i = 0; i < opts.iterations; i++) {
      for (const lib of libs) {
        const r = await attempt(lib, `${i + 1}/${opts.iterations}`);
        if (!r) continue;
        for (const row of m.rows) {
          const v = r[row.key];
          if (typeof v !== 'number') throw new Error(`measurement ${m.id} returned no sample for ${row.key}`);
          if (!Number.isFinite(v)) continue; // e.g. no exit time when Chrome had to be killed
          const byLib = samples.get(row.key)!;
          const list = byLib.get(lib.id);
          if (list) list.push(v);
          else byLib.set(lib.id, [v]);
        }
        log(`${m.id} ${i + 1}/${opts.iterations} ${lib.label}: ${describe(r)}`);
      }
    }
    for (const row of m.rows) {
      results.push({ label: row.label, samples: samples.get(row.key)!, failures: rowFailures });
    }
    for (const [id, why] of rowFailures) {
      if (!ctx.unavailable.has(id)) env.notes.push(`${libs.find((lib) => lib.id === id)?.label ?? id} failed in ${m.id}: ${why}`);
    }
  }
  return results;
}

function describe(r: Record<string, number>): string {
  return Object.entries(r)
    .map(([k, v]) => `${k} ${formatMs(v)} ms`)
    .join(', ');
}

export interface TableInput {
  readonly ours: Column;
  /** The libraries compared with ours, one column and one ratio each (Stagehand 3.7.3, 4.4.0). */
  readonly theirs: readonly Column[];
  readonly rows: readonly RowResult[];
  readonly meta: string;
}

function cell(row: RowResult, id: string): Cell {
  if (row.failures.has(id)) return FAILED;
  const samples = row.samples.get(id);
  return samples?.length ? msCell(samples) : NOT_RUN;
}

export function renderTable(input: TableInput): string {
  const { ours, theirs } = input;
  const lines = tableHead('measurement', [...[ours, ...theirs].map((c) => `${c.label} median (ms)`), ...theirs.map(ratioHeading)]);
  for (const row of input.rows) {
    const cells = [ours, ...theirs].map((c) => cell(row, c.id));
    lines.push(tableRow([row.label, ...cells.map((c) => c.text), ...ratioCells(cells)]));
  }
  return `${lines.join('\n')}\n\n${input.meta}\n`;
}

/** Spread of every sample set, for --verbose. */
export function renderDetails(input: TableInput): string {
  const out: string[] = [];
  for (const row of input.rows) {
    for (const col of [input.ours, ...input.theirs]) {
      const s = row.samples.get(col.id);
      if (s && s.length) out.push(`${row.label} — ${col.label}: ${s.map(formatMs).join(', ')}`);
      const f = row.failures.get(col.id);
      if (f) out.push(`${row.label} — ${col.label}: failed: ${f}`);
    }
  }
  return out.join('\n');
}
