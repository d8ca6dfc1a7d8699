// Markdown for the install footprint (stdout, and its own block in docs/benchmarks.md: it does not
// depend on the browser measurements, so a run of it alone may update it).
import { failedLine, formatBytes } from '../../core/format.js';
import type { FootprintOutcome } from './measure.js';

export const FOOTPRINT_START = '<!-- bench-footprint:start -->';
export const FOOTPRINT_END = '<!-- bench-footprint:end -->';

/** Issue 18's target: smaller than Stagehand 4.4.0, in bytes and in packages. */
const TARGET_AGAINST = 'Stagehand 4.4.0';

export function renderFootprint(outcomes: readonly FootprintOutcome[], envLine: string): string {
  const labels = outcomes.map((o) => (o.ok ? o.value.label : o.label));
  const cell = (o: FootprintOutcome, pick: (v: Extract<FootprintOutcome, { ok: true }>['value']) => string) =>
    o.ok ? pick(o.value) : 'failed';
  const ours = outcomes[0];
  const theirs = outcomes.find((o) => (o.ok ? o.value.label : o.label) === TARGET_AGAINST);
  const ratio = (pick: (v: Extract<FootprintOutcome, { ok: true }>['value']) => number) =>
    ours?.ok && theirs?.ok ? pick(ours.value) / pick(theirs.value) : Number.NaN;
  const verdict = (r: number) => (Number.isFinite(r) ? `< 1× of ${TARGET_AGAINST}: ${r < 1 ? 'pass' : 'FAIL'}` : '');
  const lines = [
    `**Install footprint**: \`npm install <package>\` into an empty project (${envLine}). Tendril as \`npm pack\` makes it from this checkout; bytes are the installed files' sizes, packages the lockfile's entries.`,
    '',
    `| | ${labels.join(' | ')} | ratio to ${TARGET_AGAINST} | target |`,
    `| --- | ${labels.map(() => '---:').join(' | ')} | ---: | --- |`,
  ];
  const bytesRatio = ratio((v) => v.bytes);
  const packagesRatio = ratio((v) => v.packages);
  lines.push(
    `| installed bytes | ${outcomes.map((o) => cell(o, (v) => formatBytes(v.bytes))).join(' | ')} | ${Number.isFinite(bytesRatio) ? `${bytesRatio.toFixed(3)}×` : 'n/a'} | ${verdict(bytesRatio)} |`,
  );
  lines.push(
    `| packages | ${outcomes.map((o) => cell(o, (v) => String(v.packages))).join(' | ')} | ${Number.isFinite(packagesRatio) ? `${packagesRatio.toFixed(3)}×` : 'n/a'} | ${verdict(packagesRatio)} |`,
  );
  lines.push(
    `| largest packages | ${outcomes.map((o) => cell(o, (v) => v.largest.map((p) => `${p.name} ${formatBytes(p.bytes)}`).join(', '))).join(' | ')} | | |`,
  );
  lines.push('');
  for (const o of outcomes) if (!o.ok) lines.push(failedLine(o.label, o.error), '');
  return lines.join('\n');
}
