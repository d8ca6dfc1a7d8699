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
  /** The libraries compared with ours, one column and one ratio each (Stagehand 3.7.3, 4.4.0). */
  readonly theirs: readonly Column[];
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
  const { ours, theirs } = input;
  const lines = [
    `| measurement | ${[ours, ...theirs].map((c) => `${c.label} median (ms)`).join(' | ')} | ${theirs.map(ratioHeading).join(' | ')} |`,
    `| --- | ${[ours, ...theirs].map(() => '---:').join(' | ')} | ${theirs.map(() => '---:').join(' | ')} |`,
  ];
  for (const row of input.rows) {
    const a = cell(row, ours.id);
    const bs = theirs.map((c) => cell(row, c.id));
    lines.push(`| ${row.label} | ${[a, ...bs].map((c) => c.text).join(' | ')} | ${bs.map((b) => formatRatio(a.value, b.value)).join(' | ')} |`);
  }
  return `${lines.join('\n')}\n\n${input.meta}\n`;
}

/** The heading of the ratio column against `col`: "ratio / 4.4.0" (ours divided by theirs). */
export function ratioHeading(col: Column): string {
  return `ratio / ${col.label.replace(/^Stagehand /, '')}`;
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

export const README_START = '<!-- bench:start -->';
export const README_END = '<!-- bench:end -->';
export const HEADLINE_START = '<!-- bench-headline:start -->';
export const HEADLINE_END = '<!-- bench-headline:end -->';

/** Replaces the text between `startMark` and `endMark` in a file; returns a warning instead when it cannot. */
export function updateReadme(
  readmePath: string,
  block: string,
  startMark = README_START,
  endMark = README_END,
): { ok: true } | { ok: false; warning: string } {
  if (!existsSync(readmePath)) return { ok: false, warning: `${readmePath} does not exist; not updated.` };
  const text = readFileSync(readmePath, 'utf8');
  const start = text.indexOf(startMark);
  const end = text.indexOf(endMark, start + startMark.length);
  if (start < 0 || end < 0) {
    return { ok: false, warning: `${readmePath} has no ${startMark} … ${endMark} block; not updated.` };
  }
  const next = `${text.slice(0, start + startMark.length)}\n${block.trimEnd()}\n${text.slice(end)}`;
  if (next !== text) writeFileSync(readmePath, next);
  return { ok: true };
}

/** Rows of the full tables that the README's headline repeats, by the start of their label. */
const HEADLINE_ROWS = [
  /^\d+ of \d+ real pages .*: total time/,
  /^\d+ of \d+ real pages .*: total bytes/,
  /^\d+ of \d+ real pages .*: recall/,
  /^10,000-row table: time/,
  /^pages read$/,
  /^`extract\(instruction, schema\)`: overhead/,
  /^prompt tokens per extract/,
  /^`act\(observeResult\)`/,
  /^bundle: /,
  /^cold start: /,
  /^`init\(\)`/,
];

/** Which headline column a full table's heading feeds (its columns differ from table to table). */
function headlineColumn(heading: string): number {
  if (heading.startsWith('Tendril')) return 0;
  if (heading.startsWith('Stagehand 3.7.3')) return 1;
  if (heading.startsWith('Stagehand 4.4.0')) return 2;
  if (heading === 'ratio' || heading === 'ratio / 3.7.3') return 3;
  if (heading === 'ratio / 4.4.0') return 4;
  if (heading.startsWith('target')) return 5;
  return -1;
}

/**
 * The README's short table: the headline rows of the full tables (label, each library, the ratios
 * against each Stagehand, target), each cell found by its table's column heading.
 */
export function renderHeadline(tables: string): string {
  const lines = tables.split('\n');
  const split = (line: string) => line.slice(1, -1).split(' | ').map((cell) => cell.trim());
  // The column headings in force for each table row: those of the nearest header above it.
  const headings: Array<string[] | null> = [];
  let current: string[] | null = null;
  lines.forEach((line, i) => {
    if (line.startsWith('| ') && lines[i + 1]?.startsWith('| ---')) current = split(line);
    else if (!line.startsWith('|')) current = null;
    headings.push(current);
  });
  const rows: string[] = [];
  for (const pattern of HEADLINE_ROWS) {
    const i = lines.findIndex((line, j) => line.startsWith('| ') && headings[j] && !lines[j + 1]?.startsWith('| ---') && pattern.test(split(line)[0] ?? ''));
    if (i < 0) continue;
    const cells = split(lines[i]!);
    const out = ['', '', '', '', '', ''];
    headings[i]!.forEach((heading, col) => {
      const at = headlineColumn(heading);
      if (at >= 0 && col > 0) out[at] = cells[col] ?? '';
    });
    // A row's label leans on its table's title; out of it, some need saying what they measure.
    const label =
      cells[0] === 'pages read'
        ? "real pages, each library's default `goto` then `extract()`: pages read"
        : /^(bundle|cold start)/.test(cells[0]!)
          ? `the serverless function's ${cells[0]}`
          : cells[0];
    rows.push(`| ${[label, ...out].join(' | ')} |`);
  }
  return [
    '| measurement | Tendril | Stagehand 3.7.3 | Stagehand 4.4.0 | ratio / 3.7.3 | ratio / 4.4.0 | target |',
    '| --- | ---: | ---: | ---: | ---: | ---: | --- |',
    ...rows,
  ].join('\n');
}
