// Markdown for the act measurement (stdout and the README block).
import type { ActOutcome, ActRun } from './measure.js';
import { ratioHeading, type Column } from '../../core/report.js';
import { formatMs, formatRatio, median } from '../../core/stats.js';

export interface ActReportInput {
  readonly run: ActRun;
  readonly ours: Column;
  /** Stagehand 3.7.3 first (the target is against it), then 4.4.0. */
  readonly theirs: readonly Column[];
  /** "2026-11-22 · Chromium … · Node … · machine" */
  readonly envLine: string;
}

/** The target: act(observeResult) in at most half of Stagehand's time. */
const TARGET = 0.5;

const plural = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

function cell(o: ActOutcome | undefined): { text: string; value: number } {
  if (!o) return { text: '—', value: Number.NaN };
  if (!o.ok) return { text: 'failed', value: Number.NaN };
  const m = median(o.times);
  return { text: formatMs(m), value: m };
}

export function renderActSummary(input: ActReportInput): string {
  const { run, ours, theirs } = input;
  const a = cell(run.outcomes.get(ours.id));
  const bs = theirs.map((c) => cell(run.outcomes.get(c.id)));
  const ratio = a.value / (bs[0]?.value ?? Number.NaN);
  const verdict = Number.isFinite(ratio) ? `≤ ${TARGET.toFixed(2)}× ${theirs[0]!.label}: ${ratio <= TARGET ? 'pass' : 'FAIL'}` : '';
  const lines = [
    `| \`act(action)\` with an observe() result | ${[ours, ...theirs].map((c) => c.label).join(' | ')} | ${theirs.map(ratioHeading).join(' | ')} | target |`,
    `| --- | ${[ours, ...theirs].map(() => '---:').join(' | ')} | ${theirs.map(() => '---:').join(' | ')} | --- |`,
    `| \`act(observeResult)\`: a deterministic click, median (ms) | ${[a, ...bs].map((c) => c.text).join(' | ')} | ${bs.map((b) => formatRatio(a.value, b.value)).join(' | ')} | ${verdict} |`,
    '',
  ];
  for (const col of [ours, ...theirs]) {
    const o = run.outcomes.get(col.id);
    if (o && !o.ok) lines.push(`${col.label} failed: ${o.error.replace(/\.+$/, '')}.`, '');
  }
  const { iterations, warmups } = run.settings;
  const { selector, description, method } = run.action;
  const parts = [
    input.envLine,
    `median of ${plural(iterations, 'timed call')} per library after ${warmups} untimed, libraries alternating, one browser each on one local page (\`scripts/bench/pages${run.pagePath}\`, loaded once, untimed)`,
    `timed: \`act({ selector: "${selector}", description: "${description}", method: "${method}", arguments: [] })\` until it resolves`,
    "after each call, untimed, the page's counter is read with the library's own `page.evaluate` and must have gone up by exactly one",
    'all constructed with the fake model of `extract-llm` (Stagehand 4.4.0 through its generate callback); a request to it fails the library',
    `ratio = ${ours.label} / each Stagehand`,
    ...(theirs.some((c) => c.id === 'stagehand4') ? ['Stagehand 4.4.0 runs in a node 22 child process, which times the call itself (the pipe is not counted)'] : []),
    '`npm run bench -- --only act`',
  ];
  lines.push(`_${parts.join(' · ')}_`);
  return `${lines.join('\n')}\n`;
}
