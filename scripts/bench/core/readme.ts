// What the bench writes besides stdout: its blocks in docs/benchmarks.md and README.md (what stands
// between their markers, and the README's headline, taken from the full tables), and the per-page
// files under results/.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT, RESULTS_DIR } from './config.js';

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
  /^10,000-row table: `extract\(\)` sent once/,
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
  const split = (line: string) =>
    line
      .slice(1, -1)
      .split(' | ')
      .map((cell) => cell.trim());
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
    const i = lines.findIndex(
      (line, j) => line.startsWith('| ') && headings[j] && !lines[j + 1]?.startsWith('| ---') && pattern.test(split(line)[0] ?? ''),
    );
    if (i < 0) continue;
    const cells = split(lines[i]!);
    const out = ['', '', '', '', '', ''];
    headings[i]!.forEach((heading, col) => {
      const at = headlineColumn(heading);
      // Two target columns (against 3.7.3 and 4.4.0) feed one: a row has a target in one of them.
      if (at >= 0 && col > 0 && cells[col]) out[at] = cells[col];
    });
    // A row's label leans on its table's title; out of it, some need saying what they measure.
    const label =
      cells[0] === 'pages read'
        ? "real pages, each library's default `goto` then `extract()`: pages read"
        : /^(bundle|cold start)/.test(cells[0]!)
          ? `the serverless function's ${cells[0]}`
          : cells[0]!.replace(
              /`extract\(\)` sent once that `evaluate` is back/,
              "`extract()` after Chrome's post-load layout (an `evaluate` waits it out first)",
            );
    rows.push(`| ${[label, ...out].join(' | ')} |`);
  }
  return [
    '| measurement | Tendril | Stagehand 3.7.3 | Stagehand 4.4.0 | ratio / 3.7.3 | ratio / 4.4.0 | target |',
    '| --- | ---: | ---: | ---: | ---: | ---: | --- |',
    ...rows,
  ].join('\n');
}

/**
 * A summary that links a per-page file under results/ (committed as the latest results): writes
 * the file and returns the summary. The link is the file's path from the repository root, as
 * docs/benchmarks.md links it; stdout readers get the same path.
 */
export function withPerPageFile(
  name: string,
  log: (line: string) => void,
  render: (link: string) => { summary: string; perPage: string },
): string {
  const file = path.join(RESULTS_DIR, name);
  const link = path.relative(REPO_ROOT, file);
  const { summary, perPage } = render(link);
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(file, perPage);
  log(`wrote ${link}`);
  return summary;
}
