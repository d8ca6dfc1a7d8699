// Markdown table rendering and the README block update.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { formatMs, formatRatio, median } from './stats.js';

export interface RowResult {
  readonly label: string;
  /** Samples in ms, by library id. */
  readonly samples: ReadonlyMap<string, readonly number[]>;
  /** Failure message, by library id, when a library could not complete this row. */
  readonly failures: ReadonlyMap<string, string>;
}

export interface Column {
  readonly id: string;
  readonly label: string;
}

export interface TableInput {
  readonly ours: Column;
  readonly theirs: Column;
  readonly rows: readonly RowResult[];
  readonly meta: string;
}

function cell(row: RowResult, id: string): { text: string; value: number } {
  const failure = row.failures.get(id);
  if (failure !== undefined) return { text: 'failed', value: Number.NaN };
  const samples = row.samples.get(id);
  if (!samples || samples.length === 0) return { text: '—', value: Number.NaN };
  const m = median(samples);
  return { text: formatMs(m), value: m };
}

export function renderTable(input: TableInput): string {
  const lines = [
    `| measurement | ${input.ours.label} median (ms) | ${input.theirs.label} median (ms) | ratio |`,
    '| --- | ---: | ---: | ---: |',
  ];
  for (const row of input.rows) {
    const a = cell(row, input.ours.id);
    const b = cell(row, input.theirs.id);
    lines.push(`| ${row.label} | ${a.text} | ${b.text} | ${formatRatio(a.value, b.value)} |`);
  }
  return `${lines.join('\n')}\n\n${input.meta}\n`;
}

/** Spread of every sample set, for --verbose. */
export function renderDetails(input: TableInput): string {
  const out: string[] = [];
  for (const row of input.rows) {
    for (const col of [input.ours, input.theirs]) {
      const s = row.samples.get(col.id);
      if (s && s.length) out.push(`${row.label} — ${col.label}: ${s.map(formatMs).join(', ')}`);
      const f = row.failures.get(col.id);
      if (f) out.push(`${row.label} — ${col.label}: failed: ${f}`);
    }
  }
  return out.join('\n');
}

export const README_START = '<!-- bench:start -->';
export const README_END = '<!-- bench:end -->';

/** Replaces the text between the bench markers; returns a warning instead when it cannot. */
export function updateReadme(readmePath: string, block: string): { ok: true } | { ok: false; warning: string } {
  if (!existsSync(readmePath)) return { ok: false, warning: `${readmePath} does not exist; README not updated.` };
  const text = readFileSync(readmePath, 'utf8');
  const start = text.indexOf(README_START);
  const end = text.indexOf(README_END, start + README_START.length);
  if (start < 0 || end < 0) {
    return { ok: false, warning: `${readmePath} has no ${README_START} … ${README_END} block; README not updated.` };
  }
  const next = `${text.slice(0, start + README_START.length)}\n${block.trimEnd()}\n${text.slice(end)}`;
  if (next !== text) writeFileSync(readmePath, next);
  return { ok: true };
}
