// Markdown for the extraction measurement: the summary (stdout and README) and the per-page file.
import {
  TARGETS4,
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
} from './summary.js';
import { STAGEHAND4_DEADLINE_MS } from '../../core/config.js';
import { DEMO_PARTS, type ExtractPage } from '../../core/page-sets.js';
import { IDLE_PROBE, type ExtractRun, type IdleOutcome, type Outcome, type PageResult } from './measure.js';
import { ratioHeading, type Column } from '../../core/report.js';
import { recallValue } from './recall.js';
import { SETTLE_NOTE } from '../../core/settle.js';
import { formatMs, median } from '../../core/stats.js';

export interface ExtractReportInput {
  readonly run: ExtractRun;
  readonly ours: Column;
  /** Stagehand 3.7.3 first (the targets are against it), then 4.4.0. */
  readonly theirs: readonly Column[];
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

/** One summary row: its label, ours then each other library's cell, a ratio against each, the target. */
type RowFn = (label: string, cells: readonly string[], ratios?: readonly string[], target?: string, target4?: string) => void;

export function renderExtractSummary(input: ExtractReportInput): string {
  const { run, ours, theirs } = input;
  const primary = theirs[0]!;
  const o = (p: PageResult | undefined, col: Column) => p?.outcomes.get(col.id);
  const table = run.pages.find((p) => p.page.kind === 'table');
  const demo = run.pages.find((p) => p.page.kind === 'demo');
  const c = summarizeCorpus(run, { ours: ours.id, theirs: theirs.map((col) => col.id) });
  const rows: string[][] = [];
  // Issue 18's targets against Stagehand 4.4.0, in a column of their own when it ran.
  const four = theirs.findIndex((col) => col.id === 'stagehand4');
  const row: RowFn = (label, cells, ratios = [], target = '', target4 = '') =>
    rows.push([label, ...cells, ...theirs.map((_, i) => ratios[i] ?? ''), target, ...(four >= 0 ? [target4] : [])]);
  const all = [ours, ...theirs];

  if (table) {
    const label = table.page.label;
    const a = o(table, ours);
    const bs = theirs.map((col) => o(table, col));
    const timeRatios = bs.map((b) => formatRatio(medianMs(a), medianMs(b)));
    const bytesRatios = bs.map((b) => formatRatio(bytesOf(a), bytesOf(b)));
    const b4 = four >= 0 ? bs[four] : undefined;
    row(`${label}: time (median ms)`, [a, ...bs].map(msCell), timeRatios, ratioTarget(ratio(medianMs(a), medianMs(bs[0])), TARGETS.tableTime), ratioTarget(ratio(medianMs(a), medianMs(b4)), TARGETS4.tableTime, STAGEHAND4_LABEL));
    row(`${label}: bytes`, [a, ...bs].map(bytesCell), bytesRatios, ratioTarget(ratio(bytesOf(a), bytesOf(bs[0])), TARGETS.bytes));
    row(`${label}: recall of its words`, [a, ...bs].map(recallCell), bs.map((b) => pp(pageRecall(a) - pageRecall(b))));
    const idle = (col: Column) => run.idleTable.get(col.id);
    const idleMs = (x: IdleOutcome | undefined, pick: (v: Extract<IdleOutcome, { ok: true }>) => readonly number[]) =>
      x?.ok ? median(pick(x)) : Number.NaN;
    const idleCell = (x: IdleOutcome | undefined, pick: (v: Extract<IdleOutcome, { ok: true }>) => readonly number[]) =>
      !x ? '—' : x.ok ? formatMs(idleMs(x, pick)) : 'failed';
    const wait = (v: Extract<IdleOutcome, { ok: true }>) => v.waitMs;
    const after = (v: Extract<IdleOutcome, { ok: true }>) => v.times;
    row(`${label}: Chrome still at work after \`load\`: \`evaluate("${IDLE_PROBE}")\` sent as \`goto\` resolves (median ms)`, all.map((col) => idleCell(idle(col), wait)));
    row(
      `${label}: \`extract()\` sent once that \`evaluate\` is back (median ms)`,
      all.map((col) => idleCell(idle(col), after)),
      theirs.map((col) => formatRatio(idleMs(idle(ours), after), idleMs(idle(col), after))),
    );
  }
  if (demo) {
    const a = o(demo, ours);
    const bs = theirs.map((col) => o(demo, col));
    const parts = (x: Outcome | undefined) => cell(x, (v) => `${DEMO_PARTS.length - (v.missing?.length ?? 0)}/${DEMO_PARTS.length}`);
    row('demo page: time (median ms)', [a, ...bs].map(msCell), bs.map((b) => formatRatio(medianMs(a), medianMs(b))));
    row('demo page: bytes', [a, ...bs].map(bytesCell), bs.map((b) => formatRatio(bytesOf(a), bytesOf(b))));
    row('demo page: parts whose text is there (page, open + closed shadow root, 2 iframes)', [a, ...bs].map(parts));
  }
  if (c.count > 0) corpusRows(c, input, row);

  const lines = [
    `| \`extract()\` page text | ${all.map((col) => col.label).join(' | ')} | ${theirs.map(ratioHeading).join(' | ')} | target (against ${primary.label}) |${four >= 0 ? ` target (against ${theirs[four]!.label}) |` : ''}`,
    `| --- | ${all.map(() => '---:').join(' | ')} | ${theirs.map(() => '---:').join(' | ')} | --- |${four >= 0 ? ' --- |' : ''}`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
    '',
  ];
  if (c.below.length) {
    const shown = c.below.slice(0, 10);
    const more = c.below.length - shown.length;
    lines.push(
      `Real pages where ${ours.label}'s recall is more than ${100 * RECALL_SLACK} pp below ${primary.label}'s, worst first: ` +
        `${shown.map(belowLine).join(', ')}${more > 0 ? `, and ${more} more` : ''}.`,
      '',
    );
  }
  for (const [id, pages] of c.failed) {
    if (!pages.length) continue;
    const label = all.find((col) => col.id === id)?.label ?? id;
    lines.push(`${label} failed on ${pages.length} real page(s): ${pages.slice(0, 10).map(pageId).join(', ')}${pages.length > 10 ? ', …' : ''}.`, '');
  }
  if (table) lines.push(IDLE_NOTE, '');
  if (theirs.some((col) => col.id === 'stagehand4')) lines.push(STAGEHAND4_NOTE, '');
  lines.push(metaLine(input, c), '', `Per page: [${input.perPageLink}](${input.perPageLink})`);
  return `${lines.join('\n')}\n`;
}

const STAGEHAND4_LABEL = 'Stagehand 4.4.0';

/** Under the table: what the two rows after the table's recall measure, and why they are there. */
const IDLE_NOTE =
  `The table's last two rows come from a second pass over it, in fresh browsers, the libraries alternating as above: after each untimed \`goto\`, ` +
  `each library's own \`evaluate("${IDLE_PROBE}")\`, timed, then its \`extract()\`, timed. ` +
  'Chrome answers no command until it has finished the work it does after firing `load` (on this page: laying out the 10,000 rows, then its first rendering update), ' +
  'so that evaluate measures what the first command of every library waits for, and the extract() after it what is left: the library\'s own work. ' +
  'The time row and its targets above include that wait.';

/** What stands for `extract()` in Stagehand 4.4.0, which has no page-text extract() any more. */
export const STAGEHAND4_NOTE =
  'Stagehand 4.4.0 has no page-text `extract()`; its column is `page.snapshot({ includeIframes: true }).formattedTree`, ' +
  'the accessibility outline its `extract(instruction)` sends the model as `DOM:`, timed inside its node 22 child process, ' +
  `with its \`timeout\` raised from its own 20 s to the bench's ${STAGEHAND4_DEADLINE_MS / 1000} s limit for a page.`;

function corpusRows(c: CorpusSummary, input: ExtractReportInput, row: RowFn): void {
  const { ours, theirs, run } = input;
  const primary = theirs[0]!;
  const all = [ours, ...theirs];
  const n = c.comparable.length;
  // Totals and ratios only cover the pages every library got through; say so when that is not all.
  const label = n === c.count ? `${c.count} real pages` : `${n} of ${c.count} real pages (those all got through)`;
  const of = (m: ReadonlyMap<string, number>, col: Column) => m.get(col.id) ?? Number.NaN;
  const secs = (ms: number) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(1)}` : 'n/a');
  const t = all.map((col) => of(c.timeMs, col));
  const b = all.map((col) => of(c.bytes, col));
  const r = all.map((col) => recallValue(c.recall.get(col.id)));
  const against = <T,>(values: readonly number[], f: (a: number, x: number) => T): T[] => values.slice(1).map((x) => f(values[0]!, x));
  const iters = run.settings.corpusIterations;
  // The column of Stagehand 4.4.0 among all (ours first), for issue 18's targets.
  const at4 = theirs.findIndex((col) => col.id === 'stagehand4') + 1;
  // Labelled: the README's headline shows one target column for rows of both kinds.
  const vs4 = (values: readonly number[], max: number) => (at4 > 0 ? ratioTarget(ratio(values[0]!, values[at4]!), max, STAGEHAND4_LABEL) : '');
  row(`${label}: total time (s, ${iters === 1 ? 'one timed call' : `median of ${iters}`} per page)`, t.map(secs), against(t, formatRatio), ratioTarget(ratio(t[0]!, t[1]!), TARGETS.corpusTime), vs4(t, TARGETS4.corpusTime));
  row(
    `${label}: median per-page time ratio`,
    all.map(() => ''),
    theirs.map((col) => {
      const m = c.medianTimeRatio.get(col.id) ?? Number.NaN;
      return Number.isFinite(m) ? `${m.toFixed(3)}×` : 'n/a';
    }),
  );
  row(`${label}: total bytes`, b.map(formatBytes), against(b, formatRatio), ratioTarget(ratio(b[0]!, b[1]!), TARGETS.bytes), vs4(b, TARGETS4.bytes));
  const recallPass = Number.isFinite(r[0]!) && Number.isFinite(r[1]!) ? r[0]! >= r[1]! : null;
  const recallPass4 = at4 > 0 && Number.isFinite(r[0]!) && Number.isFinite(r[at4]!) ? r[0]! >= r[at4]! : null;
  row(
    `${label}: recall of \`articleBody\` words (pooled)`,
    r.map(pct),
    against(r, (a, x) => pp(a - x)),
    verdict(`≥ ${primary.label}`, recallPass),
    at4 > 0 ? verdict(`≥ ${theirs[at4 - 1]!.label}`, recallPass4) : '',
  );
  // Only when both libraries ran (Tendril failing everywhere still counts: every page is below).
  const compared = run.pages.some((p) => p.page.kind === 'article' && p.outcomes.has(ours.id) && p.outcomes.has(primary.id));
  row(
    `${c.count} real pages: pages where recall is > ${100 * RECALL_SLACK} pp below ${primary.label}'s (or failed)`,
    [compared ? String(c.below.length) : '—', ...theirs.map(() => '')],
    [],
    verdict('none', compared ? c.below.length === 0 : null),
  );
}

function metaLine(input: ExtractReportInput, c: CorpusSummary): string {
  const s = input.run.settings;
  const parts = [
    input.envLine,
    `table and demo page: median of ${plural(s.extractIterations, 'timed `extract()` call')} after ${s.warmups} untimed`,
    `each call after an untimed \`goto\` (until \`load\`); one browser per library for all pages, libraries alternating, ${SETTLE_NOTE}`,
    `Chromium for every page started with \`--host-resolver-rules=MAP * ~NOTFOUND, …\` so remote resources fail at once`,
    `bytes = UTF-8 size of \`pageText\`; recall = share of ground-truth words (lowercase letter/digit runs, with multiplicity) found in it, each line read without its node id and role (\`[0-12] link: \`)`,
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
  const primary = theirs[0]!;
  const all = [ours, ...theirs];
  const c = summarizeCorpus(run, { ours: ours.id, theirs: theirs.map((col) => col.id) });
  const lines = [
    `# \`extract()\` per page: ${ours.label} vs ${theirs.map((col) => col.label).join(' and ')}`,
    '',
    'Written by `npm run bench` (the extraction measurement); the summary is in docs/benchmarks.md.',
    '',
    metaLine(input, c),
    '',
    ...(theirs.some((col) => col.id === 'stagehand4') ? [STAGEHAND4_NOTE, ''] : []),
    `## Real pages where ${ours.label}'s recall is more than ${100 * RECALL_SLACK} pp below ${primary.label}'s (${c.below.length})`,
    '',
  ];
  if (c.below.length) {
    lines.push(`| page | source | ${ours.label} recall | ${primary.label} recall | difference |`, '| --- | --- | ---: | ---: | ---: |');
    for (const b of c.below) {
      const diff = Number.isNaN(b.ours) ? 'failed' : pp(b.ours - b.theirs);
      lines.push(`| ${pageId(b.page)} | ${host(b.page)} | ${Number.isNaN(b.ours) ? 'failed' : pct(b.ours)} | ${pct(b.theirs)} | ${diff} |`);
    }
  } else lines.push('None.');

  const failures = run.pages.flatMap((p) =>
    all.flatMap((col) => {
      const o = p.outcomes.get(col.id);
      return o && !o.ok ? [`- ${pageId(p)}, ${col.label}: ${o.error}`] : [];
    }),
  );
  lines.push('', `## Failures (${failures.length})`, '', ...(failures.length ? failures : ['None.']));

  const L = (what: string) => all.map((col) => `${col.label} ${what}`);
  const R = (what: string) => theirs.map((col) => `${what} ${ratioHeading(col).replace(/^ratio /, '')}`);
  const heads = ['#', 'page', 'source', ...L('ms'), ...R('time ratio'), ...L('bytes'), ...R('bytes ratio'), ...L('recall'), ...R('recall difference')];
  lines.push('', '## All pages', '', `| ${heads.join(' | ')} |`, `| ---: | --- | --- | ${heads.slice(3).map(() => '---:').join(' | ')} |`);
  run.pages.forEach((p, i) => {
    const a = p.outcomes.get(ours.id);
    const bs = theirs.map((col) => p.outcomes.get(col.id));
    const hasTruth = p.page.truth !== undefined;
    const rec = (x: Outcome | undefined) => (hasTruth ? recallCell(x) : '—');
    const cells = [
      String(i + 1),
      pageId(p),
      host(p),
      ...[a, ...bs].map(msCell),
      ...bs.map((b) => formatRatio(medianMs(a), medianMs(b))),
      ...[a, ...bs].map(bytesCell),
      ...bs.map((b) => formatRatio(bytesOf(a), bytesOf(b))),
      ...[a, ...bs].map(rec),
      ...bs.map((b) => (hasTruth ? pp(pageRecall(a) - pageRecall(b)) : '—')),
    ];
    lines.push(`| ${cells.join(' | ')} |`);
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
