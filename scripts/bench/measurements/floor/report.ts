// The floor's table: totals over the pages read, Tendril against innerText, and the goals of issue 37.
import { formatBytes, metaLine, plural, tableRow, targetCell } from '../../core/format.js';
import type { ReportContext } from '../../core/measurement.js';
import { formatMs, formatRatio } from '../../core/stats.js';
import type { Recall } from '../extract/recall.js';
import type { FloorRun, Reads } from './measure.js';

/** Issue 37's acceptance: Tendril's first and second reads each at most this times innerText's, in total. */
export const FLOOR_GOAL = 2.0;

const pct = (r: { matched: number; total: number }) => (r.total ? `${((100 * r.matched) / r.total).toFixed(1)}%` : '—');

function pooled(rs: ReadonlyArray<Recall | null>): { matched: number; total: number } {
  let matched = 0;
  let total = 0;
  for (const r of rs) {
    if (!r) continue;
    matched += r.matched;
    total += r.total;
  }
  return { matched, total };
}

export function renderFloor(run: FloorRun, r: ReportContext): string {
  const ok = run.pages.flatMap((p) => (p.ok ? [p] : []));
  const failed = run.pages.flatMap((p) => (p.ok ? [] : [p]));
  const total = (who: 'tendril' | 'innerText' | 'bare', pick: (x: Reads) => number) => ok.reduce((n, p) => n + pick(p[who]), 0);
  const row = (label: string, pick: (x: Reads) => number, show: (n: number) => string, goal?: number) => {
    const t = total('tendril', pick);
    const i = total('innerText', pick);
    const b = total('bare', pick);
    const ratio = t / i;
    return tableRow([
      label,
      show(t),
      show(i),
      formatRatio(t, i),
      goal === undefined ? '' : targetCell(`≤ ${goal.toFixed(1)}×`, Number.isFinite(ratio) ? ratio <= goal : null),
      show(b),
      formatRatio(b, i),
    ]);
  };
  const ms = (n: number) => formatMs(n);
  const rt = pooled(ok.map((p) => p.tendril.recall));
  const ri = pooled(ok.map((p) => p.innerText.recall));
  const worst = [...ok]
    .sort((a, b) => b.tendril.first / b.innerText.first - a.tendril.first / a.innerText.first)
    .slice(0, 5)
    .map((p) => `${p.page.id.slice(0, 12)} ${formatMs(p.tendril.first)} / ${formatMs(p.innerText.first)} ms`);
  const lines = [
    `**Floor**: Tendril's \`extract()\` against Chrome's own \`document.body.innerText\` (one \`Runtime.evaluate\` on the same CDP session), ` +
      `${plural(ok.length, 'corpus article')} of ${run.corpusTotal}, each loaded anew for each reader; and the bound below any reader that walks the DOM in page script: ` +
      "a bare walk that only visits every node, checks each element with `checkVisibility()` and returns the text nodes' data",
    '',
    '| | Tendril | innerText | ratio | goal | bare walk | bare walk / innerText |',
    '| --- | ---: | ---: | ---: | --- | ---: | ---: |',
    row('first read after load, total ms', (x) => x.first, ms, FLOOR_GOAL),
    row('second read, total ms', (x) => x.second, ms, FLOOR_GOAL),
    row('page text, total bytes', (x) => x.bytes, formatBytes),
    tableRow(['pooled word recall', pct(rt), pct(ri), '', '', '', '']),
    '',
    metaLine([
      r.envLine,
      "reads timed in this process, round trips included (their ratio moves with the machine's load; `scripts/bench/read-cpu.ts` counts the renderer's CPU instead)",
      'which reader loads a page first rotates page by page',
      "bare walk: one `Runtime.evaluate` in the page's world, as innerText's, light DOM only, no roles, names, ids or whitespace handling",
      `largest first-read ratios: ${worst.join('; ') || '—'}`,
      `\`npm run bench -- --only ${'floor'}\``,
    ]),
  ];
  for (const f of failed) lines.push('', `${f.page.label} failed: ${f.error}`);
  return lines.join('\n');
}
