// Markdown for the extraction measurement: the summary (stdout and README) and the per-page file.
import { STAGEHAND4_DEADLINE_MS } from '../../core/config.js';
import {
  formatBytes,
  medianCell,
  metaLine,
  outcomeCell,
  plural,
  ratio,
  ratioCells,
  ratioHeading,
  tableHead,
  tableRow,
  verdict,
  type Cell,
  type Column,
} from '../../core/format.js';
import type { ReportContext } from '../../core/measurement.js';
import { DEMO_PARTS, host } from '../../core/page-sets.js';
import { SETTLE_NOTE } from '../../core/settle.js';
import { formatRatio } from '../../core/stats.js';
import { IDLE_PROBE, type ExtractRun, type Outcome, type PageResult } from './measure.js';
import { recallValue } from './recall.js';
import { RECALL_SLACK, ratioTarget, summarizeCorpus, TARGETS, TARGETS4, type Below, type CorpusSummary } from './summary.js';

/** Three decimals: a ratio of 0.503 must not read as meeting a 0.50 target. */
const ratio3 = (ours: number, theirs: number): string => formatRatio(ours, theirs, 3);
const pct = (r: number): string => (Number.isFinite(r) ? `${(100 * r).toFixed(1)}%` : 'n/a');
const pp = (d: number): string => (Number.isFinite(d) ? `${d >= 0 ? '+' : '−'}${Math.abs(100 * d).toFixed(1)} pp` : 'n/a');

const timeCell = (o: Outcome | undefined): Cell => medianCell(o, (v) => v.times);
const bytesCell = (o: Outcome | undefined): Cell => outcomeCell(o, (v) => ({ text: formatBytes(v.bytes), value: v.bytes }));
const recallCell = (o: Outcome | undefined): Cell =>
  outcomeCell(o, (v) => {
    const r = recallValue(v.recall);
    return { text: pct(r), value: r };
  });
const texts = (cells: readonly Cell[]): string[] => cells.map((c) => c.text);
/** Ours minus each other library's, in percentage points. */
const recallDiffs = (cells: readonly Cell[]): string[] => cells.slice(1).map((c) => pp(cells[0]!.value - c.value));

function pageId(p: PageResult): string {
  return p.page.kind === 'article' ? `\`${p.page.id}\`` : p.page.label;
}

function belowLine(b: Below): string {
  const detail = Number.isNaN(b.ours)
    ? `failed; Stagehand ${pct(b.theirs)}`
    : `${pct(b.ours)} vs ${pct(b.theirs)}, ${pp(b.ours - b.theirs)}`;
  return `${pageId(b.page)} (${detail})`;
}

/** One summary row: its label, ours then each other library's cell, a ratio against each, the target. */
type RowFn = (label: string, cells: readonly string[], ratios?: readonly string[], target?: string, target4?: string) => void;

/** `perPageLink`: the per-page file, relative to where the summary is shown. */
export function renderExtractSummary(run: ExtractRun, input: ReportContext, perPageLink: string): string {
  const { ours, theirs } = input;
  const primary = theirs[0]!;
  const table = run.pages.find((p) => p.page.kind === 'table');
  const demo = run.pages.find((p) => p.page.kind === 'demo');
  const c = summarizeCorpus(run, { ours: ours.id, theirs: theirs.map((col) => col.id) });
  const rows: string[][] = [];
  // Issue 18's targets against Stagehand 4.4.0, in a column of their own when it ran.
  const four = theirs.findIndex((col) => col.id === 'stagehand4');
  const row: RowFn = (label, cells, ratios = [], target = '', target4 = '') =>
    rows.push([label, ...cells, ...theirs.map((_, i) => ratios[i] ?? ''), target, ...(four >= 0 ? [target4] : [])]);
  const all = [ours, ...theirs];
  const on = (p: PageResult) => all.map((col) => p.outcomes.get(col.id));

  if (table) {
    const label = table.page.label;
    const t = on(table).map(timeCell);
    const b = on(table).map(bytesCell);
    row(`${label}: time (median ms)`, texts(t), ratioCells(t, 3), ratioTarget(ratio(t[0]!.value, t[1]!.value), TARGETS.tableTime));
    row(`${label}: bytes`, texts(b), ratioCells(b, 3), ratioTarget(ratio(b[0]!.value, b[1]!.value), TARGETS.bytes));
    row(`${label}: recall of its words`, texts(on(table).map(recallCell)), recallDiffs(on(table).map(recallCell)));
    // The second pass (IdleOutcome): the evaluate that waits for Chrome, then extract().
    const idle = all.map((col) => run.idleTable.get(col.id));
    const wait = idle.map((x) => medianCell(x, (v) => v.waitMs));
    const after = idle.map((x) => medianCell(x, (v) => v.times));
    row(`${label}: Chrome still at work after \`load\`: \`evaluate("${IDLE_PROBE}")\` sent as \`goto\` resolves (median ms)`, texts(wait));
    // Issue 18's table target against 4.4.0 is judged here, after Chrome's own post-load layout,
    // which every library's first command waits for alike (decided in issue 37).
    const after4 = four >= 0 ? after[four + 1]!.value : Number.NaN;
    row(
      `${label}: \`extract()\` sent once that \`evaluate\` is back (median ms)`,
      texts(after),
      ratioCells(after, 3),
      '',
      ratioTarget(ratio(after[0]!.value, after4), TARGETS4.tableTime, STAGEHAND4_LABEL),
    );
  }
  if (demo) {
    const t = on(demo).map(timeCell);
    const b = on(demo).map(bytesCell);
    const parts = on(demo).map((x) =>
      outcomeCell(x, (v) => ({ text: `${DEMO_PARTS.length - (v.missing?.length ?? 0)}/${DEMO_PARTS.length}`, value: Number.NaN })),
    );
    row('demo page: time (median ms)', texts(t), ratioCells(t, 3));
    row('demo page: bytes', texts(b), ratioCells(b, 3));
    row('demo page: parts whose text is there (page, open + closed shadow root, 2 iframes)', texts(parts));
  }
  if (c.count > 0) corpusRows(c, run, input, row);

  const targets = [`target (against ${primary.label})`, ...(four >= 0 ? [`target (against ${theirs[four]!.label})`] : [])];
  const lines = [
    ...tableHead('`extract()` page text', [...all.map((col) => col.label), ...theirs.map(ratioHeading)], targets),
    ...rows.map(tableRow),
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
    lines.push(
      `${label} failed on ${pages.length} real page(s): ${pages.slice(0, 10).map(pageId).join(', ')}${pages.length > 10 ? ', …' : ''}.`,
      '',
    );
  }
  if (table) lines.push(IDLE_NOTE, '');
  if (theirs.some((col) => col.id === 'stagehand4')) lines.push(STAGEHAND4_NOTE, '');
  lines.push(facts(run, input, c), '', `Per page: [${perPageLink}](${perPageLink})`);
  return `${lines.join('\n')}\n`;
}

const STAGEHAND4_LABEL = 'Stagehand 4.4.0';

/** Under the table: what the two rows after the table's recall measure, and why they are there. */
const IDLE_NOTE =
  `The table's last two rows come from a second pass over it, in fresh browsers, the libraries alternating as above: after each untimed \`goto\`, ` +
  `each library's own \`evaluate("${IDLE_PROBE}")\`, timed, then its \`extract()\`, timed. ` +
  'Chrome answers no command until it has finished the work it does after firing `load` (on this page: laying out the 10,000 rows, then its first rendering update), ' +
  "so that evaluate measures what the first command of every library waits for, and the extract() after it what is left: the library's own work. " +
  'The time row and its targets above include that wait.';

/** What stands for `extract()` in Stagehand 4.4.0, which has no page-text extract() any more. */
export const STAGEHAND4_NOTE =
  'Stagehand 4.4.0 has no page-text `extract()`; its column is `page.snapshot({ includeIframes: true }).formattedTree`, ' +
  'the accessibility outline its `extract(instruction)` sends the model as `DOM:`, timed inside its node 22 child process, ' +
  `with its \`timeout\` raised from its own 20 s to the bench's ${STAGEHAND4_DEADLINE_MS / 1000} s limit for a page.`;

function corpusRows(c: CorpusSummary, run: ExtractRun, input: ReportContext, row: RowFn): void {
  const { ours, theirs } = input;
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
  const against = <T>(values: readonly number[], f: (a: number, x: number) => T): T[] => values.slice(1).map((x) => f(values[0]!, x));
  const iters = run.settings.corpusIterations;
  // The column of Stagehand 4.4.0 among all (ours first), for issue 18's targets.
  const at4 = theirs.findIndex((col) => col.id === 'stagehand4') + 1;
  // Labelled: the README's headline shows one target column for rows of both kinds.
  const vs4 = (values: readonly number[], max: number) =>
    at4 > 0 ? ratioTarget(ratio(values[0]!, values[at4]!), max, STAGEHAND4_LABEL) : '';
  row(
    `${label}: total time (s, ${iters === 1 ? 'one timed call' : `median of ${iters}`} per page)`,
    t.map(secs),
    against(t, ratio3),
    ratioTarget(ratio(t[0]!, t[1]!), TARGETS.corpusTime),
    vs4(t, TARGETS4.corpusTime),
  );
  row(
    `${label}: median per-page time ratio`,
    all.map(() => ''),
    theirs.map((col) => {
      const m = c.medianTimeRatio.get(col.id) ?? Number.NaN;
      return Number.isFinite(m) ? `${m.toFixed(3)}×` : 'n/a';
    }),
  );
  row(
    `${label}: total bytes`,
    b.map(formatBytes),
    against(b, ratio3),
    ratioTarget(ratio(b[0]!, b[1]!), TARGETS.bytes),
    vs4(b, TARGETS4.bytes),
  );
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

function facts(run: ExtractRun, input: ReportContext, c: CorpusSummary): string {
  const s = run.settings;
  const parts = [
    input.envLine,
    `table and demo page: median of ${plural(s.extractIterations, 'timed `extract()` call')} after ${s.warmups} untimed`,
    `each call after an untimed \`goto\` (until \`load\`); one browser per library for all pages, libraries alternating, ${SETTLE_NOTE}`,
    `Chromium for every page started with \`--host-resolver-rules=MAP * ~NOTFOUND, …\` so remote resources fail at once`,
    `bytes = UTF-8 size of \`pageText\`; recall = share of ground-truth words (lowercase letter/digit runs, with multiplicity) found in it, each line read without its node id and role (\`[0-12] link: \`)`,
    `a page slower than ${s.pageDeadlineMs / 1000} s counts as failed`,
  ];
  if (run.corpusTotal === null) parts.push('**corpus missing: real pages not run**');
  else if (c.count < run.corpusTotal) parts.push(`**only ${c.count} of ${run.corpusTotal} real pages (\`--corpus-limit\`)**`);
  parts.push('`npm run bench -- --only extract`');
  return metaLine(parts);
}

/** The per-page file: every page, one row each, plus the pages to look at first. */
export function renderPerPage(run: ExtractRun, input: ReportContext): string {
  const { ours, theirs } = input;
  const primary = theirs[0]!;
  const all = [ours, ...theirs];
  const c = summarizeCorpus(run, { ours: ours.id, theirs: theirs.map((col) => col.id) });
  const lines = [
    `# \`extract()\` per page: ${ours.label} vs ${theirs.map((col) => col.label).join(' and ')}`,
    '',
    'Written by `npm run bench` (the extraction measurement); the summary is in docs/benchmarks.md.',
    '',
    facts(run, input, c),
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
  const heads = [
    '#',
    'page',
    'source',
    ...L('ms'),
    ...R('time ratio'),
    ...L('bytes'),
    ...R('bytes ratio'),
    ...L('recall'),
    ...R('recall difference'),
  ];
  lines.push(
    '',
    '## All pages',
    '',
    `| ${heads.join(' | ')} |`,
    `| ---: | --- | --- | ${heads
      .slice(3)
      .map(() => '---:')
      .join(' | ')} |`,
  );
  run.pages.forEach((p, i) => {
    const os = all.map((col) => p.outcomes.get(col.id));
    const [t, b, r] = [os.map(timeCell), os.map(bytesCell), os.map(recallCell)];
    // The demo page has no ground truth.
    const hasTruth = p.page.truth !== undefined;
    const cells = [
      String(i + 1),
      pageId(p),
      host(p),
      ...texts(t),
      ...ratioCells(t, 3),
      ...texts(b),
      ...ratioCells(b, 3),
      ...(hasTruth ? [...texts(r), ...recallDiffs(r)] : [...all, ...theirs].map(() => '—')),
    ];
    lines.push(tableRow(cells));
  });
  return `${lines.join('\n')}\n`;
}
