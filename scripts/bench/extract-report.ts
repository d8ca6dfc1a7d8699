// Markdown for the extraction measurement: the summary (stdout and README) and the per-page file.
import {
  medianMs,
  ok,
  pageRecall,
  ratio,
  ratioTarget,
  RECALL_SLACK,
  summarizeCorpus,
  TARGETS,
  verdict,
  type Below,
  type CorpusSummary,
} from './extract-summary.js';
import { DEMO_PARTS, type ExtractPage } from './extract-pages.js';
import type { ExtractRun, Outcome, PageResult } from './measurements/extract.js';
import type { Column } from './report.js';
import { recallValue } from './recall.js';
import { formatMs } from './stats.js';

export interface ExtractReportInput {
  readonly run: ExtractRun;
  readonly ours: Column;
  readonly theirs: Column;
  /** "2026-11-22 · Chromium … · Node … · machine" */
  readonly envLine: string;
  /** Link to the per-page file, relative to where the summary is shown. */
  readonly perPageLink: string;
}

/** Decimal units, as pageText sizes are compared, not allocated. */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n)) return 'n/a';
  if (n < 1000) return `${n} B`;
  if (n < 1_000_000) return `${(n / 1000).toFixed(1)} kB`;
  return `${(n / 1_000_000).toFixed(2)} MB`;
}

/** Three decimals: a ratio of 0.503 must not read as meeting a 0.50 target. */
const formatRatio = (ours: number, theirs: number): string => {
  const r = ratio(ours, theirs);
  return Number.isFinite(r) ? `${r.toFixed(3)}×` : 'n/a';
};
const plural = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;
const pct = (r: number): string => (Number.isFinite(r) ? `${(100 * r).toFixed(1)}%` : 'n/a');
const pp = (d: number): string => (Number.isFinite(d) ? `${d >= 0 ? '+' : '−'}${Math.abs(100 * d).toFixed(1)} pp` : 'n/a');

/** A cell for one library on one page: "failed", "—" (not run) or `show` of its outcome. */
function cell(o: Outcome | undefined, show: (o: Extract<Outcome, { ok: true }>) => string): string {
  if (!o) return '—';
  return o.ok ? show(o) : 'failed';
}

const msCell = (o: Outcome | undefined) => cell(o, (v) => formatMs(medianMs(v)));
const bytesCell = (o: Outcome | undefined) => cell(o, (v) => formatBytes(v.bytes));
const recallCell = (o: Outcome | undefined) => cell(o, (v) => pct(recallValue(v.recall)));
const bytesOf = (o: Outcome | undefined) => ok(o)?.bytes ?? Number.NaN;

function pageId(p: PageResult): string {
  return p.page.kind === 'article' ? `\`${p.page.id}\`` : p.page.label;
}

function belowLine(b: Below): string {
  const detail = Number.isNaN(b.ours) ? `failed; Stagehand ${pct(b.theirs)}` : `${pct(b.ours)} vs ${pct(b.theirs)}, ${pp(b.ours - b.theirs)}`;
  return `${pageId(b.page)} (${detail})`;
}

export function renderExtractSummary(input: ExtractReportInput): string {
  const { run, ours, theirs } = input;
  const o = (p: PageResult | undefined, col: Column) => p?.outcomes.get(col.id);
  const table = run.pages.find((p) => p.page.kind === 'table');
  const demo = run.pages.find((p) => p.page.kind === 'demo');
  const c = summarizeCorpus(run, { ours: ours.id, theirs: theirs.id });
  const rows: string[][] = [];
  const row = (label: string, a: string, b: string, r = '', target = '') => rows.push([label, a, b, r, target]);

  if (table) {
    const label = table.page.label;
    const [a, b] = [o(table, ours), o(table, theirs)];
    const tr = ratio(medianMs(a), medianMs(b));
    const br = ratio(bytesOf(a), bytesOf(b));
    row(`${label}: time (median ms)`, msCell(a), msCell(b), formatRatio(medianMs(a), medianMs(b)), ratioTarget(tr, TARGETS.tableTime));
    row(`${label}: bytes`, bytesCell(a), bytesCell(b), formatRatio(bytesOf(a), bytesOf(b)), ratioTarget(br, TARGETS.bytes));
    row(`${label}: recall of its words`, recallCell(a), recallCell(b), pp(pageRecall(a) - pageRecall(b)));
  }
  if (demo) {
    const [a, b] = [o(demo, ours), o(demo, theirs)];
    const parts = (x: Outcome | undefined) => cell(x, (v) => `${DEMO_PARTS.length - (v.missing?.length ?? 0)}/${DEMO_PARTS.length}`);
    row('demo page: time (median ms)', msCell(a), msCell(b), formatRatio(medianMs(a), medianMs(b)));
    row('demo page: bytes', bytesCell(a), bytesCell(b), formatRatio(bytesOf(a), bytesOf(b)));
    row('demo page: parts whose text is there (page, open + closed shadow root, 2 iframes)', parts(a), parts(b));
  }
  if (c.count > 0) corpusRows(c, input, row);

  const lines = [
    `| \`extract()\` page text | ${ours.label} | ${theirs.label} | ratio | target |`,
    '| --- | ---: | ---: | ---: | --- |',
    ...rows.map((r) => `| ${r.join(' | ')} |`),
    '',
  ];
  if (c.below.length) {
    const shown = c.below.slice(0, 10);
    const more = c.below.length - shown.length;
    lines.push(
      `Real pages where ${ours.label}'s recall is more than ${100 * RECALL_SLACK} pp below ${theirs.label}'s, worst first: ` +
        `${shown.map(belowLine).join(', ')}${more > 0 ? `, and ${more} more` : ''}.`,
      '',
    );
  }
  for (const [id, pages] of c.failed) {
    if (!pages.length) continue;
    const label = id === ours.id ? ours.label : theirs.label;
    lines.push(`${label} failed on ${pages.length} real page(s): ${pages.slice(0, 10).map(pageId).join(', ')}${pages.length > 10 ? ', …' : ''}.`, '');
  }
  lines.push(metaLine(input, c), '', `Per page: [${input.perPageLink}](${input.perPageLink})`);
  return `${lines.join('\n')}\n`;
}

function corpusRows(c: CorpusSummary, input: ExtractReportInput, row: (...cells: string[]) => void): void {
  const { ours, theirs, run } = input;
  const n = c.comparable.length;
  // Totals and ratios only cover the pages both libraries got through; say so when that is not all.
  const label = n === c.count ? `${c.count} real pages` : `${n} of ${c.count} real pages (those both got through)`;
  const of = (m: ReadonlyMap<string, number>, col: Column) => m.get(col.id) ?? Number.NaN;
  const secs = (ms: number) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(1)}` : 'n/a');
  const [ta, tb] = [of(c.timeMs, ours), of(c.timeMs, theirs)];
  const [ba, bb] = [of(c.bytes, ours), of(c.bytes, theirs)];
  const ra = recallValue(c.recall.get(ours.id));
  const rb = recallValue(c.recall.get(theirs.id));
  const iters = run.settings.corpusIterations;
  row(`${label}: total time (s, ${iters === 1 ? 'one timed call' : `median of ${iters}`} per page)`, secs(ta), secs(tb), formatRatio(ta, tb), ratioTarget(ratio(ta, tb), TARGETS.corpusTime));
  row(`${label}: median per-page time ratio`, '', '', Number.isFinite(c.medianTimeRatio) ? `${c.medianTimeRatio.toFixed(3)}×` : 'n/a');
  row(`${label}: total bytes`, formatBytes(ba), formatBytes(bb), formatRatio(ba, bb), ratioTarget(ratio(ba, bb), TARGETS.bytes));
  const recallPass = Number.isFinite(ra) && Number.isFinite(rb) ? ra >= rb : null;
  row(`${label}: recall of \`articleBody\` words (pooled)`, pct(ra), pct(rb), pp(ra - rb), verdict(`≥ ${theirs.label}`, recallPass));
  // Only when both libraries ran (Tendril failing everywhere still counts: every page is below).
  const compared = run.pages.some((p) => p.page.kind === 'article' && p.outcomes.has(ours.id) && p.outcomes.has(theirs.id));
  row(
    `${c.count} real pages: pages where recall is > ${100 * RECALL_SLACK} pp below ${theirs.label}'s (or failed)`,
    compared ? String(c.below.length) : '—',
    '',
    '',
    verdict('none', compared ? c.below.length === 0 : null),
  );
}

function metaLine(input: ExtractReportInput, c: CorpusSummary): string {
  const s = input.run.settings;
  const parts = [
    input.envLine,
    `table and demo page: median of ${plural(s.extractIterations, 'timed `extract()` call')} after ${s.warmups} untimed`,
    `each call after an untimed \`goto\` (until \`load\`); one browser per library for all pages, libraries alternating`,
    `Chromium for every page started with \`--host-resolver-rules=MAP * ~NOTFOUND, …\` so remote resources fail at once`,
    `bytes = UTF-8 size of \`pageText\`; recall = share of ground-truth words (lowercase letter/digit runs, with multiplicity) found in it`,
    `a page slower than ${s.pageDeadlineMs / 1000} s counts as failed`,
  ];
  if (input.run.corpusTotal === null) parts.push('**corpus missing: real pages not run**');
  else if (c.count < input.run.corpusTotal) parts.push(`**only ${c.count} of ${input.run.corpusTotal} real pages (\`--corpus-limit\`)**`);
  parts.push('`npm run bench -- --only extract`');
  return `_${parts.join(' · ')}_`;
}

/** The per-page file: every page, one row each, plus the pages to look at first. */
export function renderPerPage(input: ExtractReportInput): string {
  const { run, ours, theirs } = input;
  const c = summarizeCorpus(run, { ours: ours.id, theirs: theirs.id });
  const lines = [
    `# \`extract()\` per page: ${ours.label} vs ${theirs.label}`,
    '',
    'Written by `npm run bench` (the extraction measurement); the summary is in the README.',
    '',
    metaLine(input, c),
    '',
    `## Real pages where ${ours.label}'s recall is more than ${100 * RECALL_SLACK} pp below ${theirs.label}'s (${c.below.length})`,
    '',
  ];
  if (c.below.length) {
    lines.push(`| page | source | ${ours.label} recall | ${theirs.label} recall | difference |`, '| --- | --- | ---: | ---: | ---: |');
    for (const b of c.below) {
      const diff = Number.isNaN(b.ours) ? 'failed' : pp(b.ours - b.theirs);
      lines.push(`| ${pageId(b.page)} | ${host(b.page)} | ${Number.isNaN(b.ours) ? 'failed' : pct(b.ours)} | ${pct(b.theirs)} | ${diff} |`);
    }
  } else lines.push('None.');

  const failures = run.pages.flatMap((p) =>
    [ours, theirs].flatMap((col) => {
      const o = p.outcomes.get(col.id);
      return o && !o.ok ? [`- ${pageId(p)}, ${col.label}: ${o.error}`] : [];
    }),
  );
  lines.push('', `## Failures (${failures.length})`, '', ...(failures.length ? failures : ['None.']));

  const L = (s: string) => `${ours.label} ${s} | ${theirs.label} ${s}`;
  lines.push(
    '',
    '## All pages',
    '',
    `| # | page | source | ${L('ms')} | time ratio | ${L('bytes')} | bytes ratio | ${L('recall')} | recall difference |`,
    '| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  run.pages.forEach((p, i) => {
    const [a, b] = [p.outcomes.get(ours.id), p.outcomes.get(theirs.id)];
    const hasTruth = p.page.truth !== undefined;
    const rec = (x: Outcome | undefined) => (hasTruth ? recallCell(x) : '—');
    lines.push(
      `| ${i + 1} | ${pageId(p)} | ${host(p)} | ${msCell(a)} | ${msCell(b)} | ${formatRatio(medianMs(a), medianMs(b))} | ` +
        `${bytesCell(a)} | ${bytesCell(b)} | ${formatRatio(bytesOf(a), bytesOf(b))} | ${rec(a)} | ${rec(b)} | ` +
        `${hasTruth ? pp(pageRecall(a) - pageRecall(b)) : '—'} |`,
    );
  });
  return `${lines.join('\n')}\n`;
}

/** Where a page comes from: an article's original host, or "generated / local". */
export function host({ page }: { readonly page: ExtractPage }): string {
  if (!page.source) return page.kind === 'article' ? '' : 'generated / local';
  try {
    return new URL(page.source).host;
  } catch {
    return '';
  }
}
