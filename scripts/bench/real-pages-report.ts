// Markdown for the real-pages measurement: the summary (stdout and README) and the per-page file.
import { formatBytes, host } from './extract-report.js';
import { verdict } from './extract-summary.js';
import type { Failed } from './measurement.js';
import type { RealFailed, RealOutcome, RealPageResult, RealPagesRun, RealRead } from './measurements/real-pages.js';
import type { Column } from './report.js';
import { formatMs, formatRatio, median } from './stats.js';

export interface RealPagesReportInput {
  readonly run: RealPagesRun;
  readonly ours: Column;
  readonly theirs: Column;
  /** "2026-11-22 · Chromium … · Node … · machine" */
  readonly envLine: string;
  /** Link to the per-page file, relative to where the summary is shown. */
  readonly perPageLink: string;
}

const read = (o: RealOutcome | undefined): RealRead | null => (o && o.ok ? o : null);
const failure = (o: RealOutcome | undefined): RealFailed | Failed | null => (o && !o.ok ? o : null);
/** A library that could not even be loaded has no classified cause. */
const causeOf = (o: RealFailed | Failed): string => ('cause' in o ? o.cause : 'library not available');
const plural = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;
const secs = (ms: number): string => (Number.isFinite(ms) ? (ms / 1000).toFixed(1) : 'n/a');
const pageId = (p: RealPageResult): string => `\`${p.page.id}\``;

export interface RealPagesSummary {
  /** Pages run. */
  readonly count: number;
  /** Libraries with a result on the pages (not left out with --only), by id: pages read. */
  readonly read: ReadonlyMap<string, number>;
  /** By library id: its failed pages by cause, most frequent cause first. */
  readonly causes: ReadonlyMap<string, ReadonlyMap<string, readonly RealPageResult[]>>;
  /** Pages every library that read any page read; the times are over these. */
  readonly comparable: readonly RealPageResult[];
  /** Every page read by Tendril; null when Tendril was not run or no page was. */
  readonly target: boolean | null;
}

export function summarizeRealPages(run: RealPagesRun, ours: Column, theirs: Column): RealPagesSummary {
  const pages = run.pages;
  const ids = [ours.id, theirs.id].filter((id) => pages.some((p) => p.outcomes.has(id)));
  const readCount = new Map(ids.map((id) => [id, pages.filter((p) => read(p.outcomes.get(id))).length]));
  const causes = new Map<string, Map<string, RealPageResult[]>>();
  for (const id of ids) {
    const byCause = new Map<string, RealPageResult[]>();
    for (const p of pages) {
      const f = failure(p.outcomes.get(id));
      if (!f) continue;
      const cause = causeOf(f);
      byCause.set(cause, [...(byCause.get(cause) ?? []), p]);
    }
    causes.set(id, new Map([...byCause].sort((a, b) => b[1].length - a[1].length)));
  }
  const active = ids.filter((id) => readCount.get(id)! > 0);
  const comparable = active.length ? pages.filter((p) => active.every((id) => read(p.outcomes.get(id)))) : [];
  const target = readCount.has(ours.id) && pages.length > 0 ? readCount.get(ours.id) === pages.length : null;
  return { count: pages.length, read: readCount, causes, comparable, target };
}

/** Per-page values of one library over the comparable pages. */
function times(s: RealPagesSummary, id: string, f: (o: RealRead) => number): number[] {
  return s.comparable.map((p) => f(read(p.outcomes.get(id))!));
}

export function renderRealPagesSummary(input: RealPagesReportInput): string {
  const { run, ours, theirs } = input;
  const s = summarizeRealPages(run, ours, theirs);
  const cols = [ours, theirs];
  const ran = (col: Column) => s.read.has(col.id);
  const rows: string[][] = [];
  const row = (label: string, a: string, b: string, r = '', target = '') => rows.push([label, a, b, r, target]);

  const [ra, rb] = cols.map((col) => (ran(col) ? `${s.read.get(col.id)} / ${s.count}` : '—')) as [string, string];
  row('pages read', ra, rb, '', verdict(`every page read by ${ours.label}`, s.target));
  // One row per cause either library failed with; a library without that failure shows 0.
  const allCauses = new Map<string, number>();
  for (const byCause of s.causes.values()) for (const [cause, pages] of byCause) allCauses.set(cause, (allCauses.get(cause) ?? 0) + pages.length);
  const failedCell = (col: Column, cause: string | null) => {
    if (!ran(col)) return '—';
    const byCause = s.causes.get(col.id)!;
    return String(cause === null ? [...byCause.values()].reduce((n, pages) => n + pages.length, 0) : (byCause.get(cause)?.length ?? 0));
  };
  if (allCauses.size === 0) row('pages failed', failedCell(ours, null), failedCell(theirs, null));
  for (const [cause] of [...allCauses].sort((a, b) => b[1] - a[1])) row(`failed: ${cause}`, failedCell(ours, cause), failedCell(theirs, cause));

  const n = s.comparable.length;
  if (n > 0) {
    const bothRan = cols.every(ran);
    const label = n === s.count ? `${s.count} pages` : `${n} of ${s.count} pages (those ${bothRan ? 'both' : 'it'} read)`;
    const stat = (col: Column, f: (o: RealRead) => number, of: (v: number[]) => number) => (ran(col) ? of(times(s, col.id, f)) : Number.NaN);
    const sum = (v: number[]) => v.reduce((t, x) => t + x, 0);
    const goto = (o: RealRead) => o.gotoMs;
    const extract = (o: RealRead) => o.extractMs;
    for (const [what, f] of [['`goto(url)`', goto], ['`extract()`', extract]] as const) {
      const [ta, tb] = [stat(ours, f, sum), stat(theirs, f, sum)];
      const [ma, mb] = [stat(ours, f, median), stat(theirs, f, median)];
      row(`${label}: ${what} total (s)`, ran(ours) ? secs(ta) : '—', ran(theirs) ? secs(tb) : '—', formatRatio(ta, tb));
      row(`${label}: ${what} median per page (ms)`, ran(ours) ? formatMs(ma) : '—', ran(theirs) ? formatMs(mb) : '—', formatRatio(ma, mb));
    }
  }

  const lines = [
    `| \`goto(url)\` with each library's default, then \`extract()\`, on the real pages | ${ours.label} | ${theirs.label} | ratio | target |`,
    '| --- | ---: | ---: | ---: | --- |',
    ...rows.map((r) => `| ${r.join(' | ')} |`),
    '',
  ];
  for (const col of cols) {
    const failed = [...(s.causes.get(col.id)?.values() ?? [])].flat();
    if (!failed.length) continue;
    const shown = failed.slice(0, 10).map((p) => `${pageId(p)} (${causeOf(failure(p.outcomes.get(col.id))!)})`);
    lines.push(`${col.label} failed on ${plural(failed.length, 'real page')}: ${shown.join(', ')}${failed.length > 10 ? ', …' : ''}.`, '');
  }
  const withDialogs = cols
    .filter(ran)
    .map((col) => [col, run.pages.filter((p) => dialogsOf(p.outcomes.get(col.id)).length > 0).length] as const)
    .filter(([, count]) => count > 0);
  if (withDialogs.length) {
    const counts = withDialogs.map(([col, count]) => `${col.label} ${count}`).join(', ');
    lines.push(`Pages that opened a JavaScript dialog: ${counts} (listed in the per-page file).`, '');
  }
  lines.push(metaLine(input, s), '', `Per page: [${input.perPageLink}](${input.perPageLink})`);
  return `${lines.join('\n')}\n`;
}

function dialogsOf(o: RealOutcome | undefined) {
  return o && 'dialogs' in o ? o.dialogs : [];
}

function metaLine(input: RealPagesReportInput, s: RealPagesSummary): string {
  const { run, ours, theirs } = input;
  const st = run.settings;
  const parts = [
    input.envLine,
    "per page, each library's own `page.goto(url)` with no options (its default wait and timeout), then `extract()` without arguments, both timed",
    st.corpusIterations === 1 ? 'once per page' : `median of ${st.corpusIterations} per page`,
    'one browser per library for all pages (warmed up on `basic.html`), libraries alternating page by page',
    'Chromium for every page started with `--host-resolver-rules=MAP * ~NOTFOUND, …` so remote resources fail at once',
    `a page not done within ${st.pageDeadlineMs / 1000} s counts as failed (its browser is replaced); an \`extract()\` with no text too`,
    `times over the pages both read · ratio = ${ours.label} / ${theirs.label}`,
  ];
  if (run.corpusTotal === null) parts.push('**corpus missing: real pages not run**');
  else if (s.count < run.corpusTotal) parts.push(`**only ${s.count} of ${run.corpusTotal} real pages (\`--corpus-limit\`)**`);
  parts.push('`npm run bench -- --only real-pages`');
  return `_${parts.join(' · ')}_`;
}

const dialogText = (d: { type: string; message: string; open: boolean }) =>
  `${d.type} ${JSON.stringify(d.message)}${d.open ? ' (still open)' : ''}`;

/** The per-page file: the failures with their causes, the dialogs, then every page. */
export function renderRealPagesPerPage(input: RealPagesReportInput): string {
  const { run, ours, theirs } = input;
  const s = summarizeRealPages(run, ours, theirs);
  const cols = [ours, theirs];
  const lines = [
    `# \`goto(url)\` (each library's default) + \`extract()\` per real page: ${ours.label} vs ${theirs.label}`,
    '',
    'Written by `npm run bench` (the real-pages measurement); the summary is in the README.',
    '',
    metaLine(input, s),
    '',
  ];

  const failures = run.pages.flatMap((p) =>
    cols.flatMap((col) => {
      const f = failure(p.outcomes.get(col.id));
      if (!f) return [];
      const goto = 'gotoMs' in f && f.gotoMs !== undefined ? ` (goto took ${formatMs(f.gotoMs)} ms)` : '';
      const dialogs = 'dialogs' in f && f.dialogs.length ? ` Dialogs: ${f.dialogs.map(dialogText).join('; ')}.` : '';
      const error = dialogs ? f.error.replace(/\.*$/, '.') : f.error;
      return [`- ${pageId(p)} (${host(p)}), ${col.label}: **${causeOf(f)}**${goto}: ${error}${dialogs}`];
    }),
  );
  lines.push(`## Failures (${failures.length})`, '', ...(failures.length ? failures : ['None.']));

  const dialogLines = run.pages.flatMap((p) =>
    cols.flatMap((col) => {
      const dialogs = dialogsOf(p.outcomes.get(col.id));
      return dialogs.length ? [`- ${pageId(p)}, ${col.label}: ${dialogs.map(dialogText).join('; ')}`] : [];
    }),
  );
  lines.push(
    '',
    `## JavaScript dialogs (${dialogLines.length})`,
    '',
    `${ours.label} answers every dialog itself and says so in its log; ${theirs.label} answers none, so one it leaves open holds the page.`,
    '',
    ...(dialogLines.length ? dialogLines : ['None.']),
  );

  const L = (what: string) => `${ours.label} ${what} | ${theirs.label} ${what}`;
  lines.push(
    '',
    '## All pages',
    '',
    `| # | page | source | ${L('result')} | ${L('goto ms')} | goto ratio | ${L('extract ms')} | extract ratio | ${L('bytes')} |`,
    '| ---: | --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  const result = (o: RealOutcome | undefined) => (!o ? '—' : o.ok ? 'read' : `failed: ${causeOf(o)}`);
  const gotoOf = (o: RealOutcome | undefined) => (o && 'gotoMs' in o && o.gotoMs !== undefined ? o.gotoMs : Number.NaN);
  const extractOf = (o: RealOutcome | undefined) => read(o)?.extractMs ?? Number.NaN;
  const ms = (v: number, o: RealOutcome | undefined) => (Number.isFinite(v) ? formatMs(v) : o ? '' : '—');
  run.pages.forEach((p, i) => {
    const [a, b] = [p.outcomes.get(ours.id), p.outcomes.get(theirs.id)];
    const bytes = (o: RealOutcome | undefined) => {
      const r = read(o);
      return r ? formatBytes(r.bytes) : o ? '' : '—';
    };
    lines.push(
      `| ${i + 1} | ${pageId(p)} | ${host(p)} | ${result(a)} | ${result(b)} | ` +
        `${ms(gotoOf(a), a)} | ${ms(gotoOf(b), b)} | ${formatRatio(gotoOf(a), gotoOf(b))} | ` +
        `${ms(extractOf(a), a)} | ${ms(extractOf(b), b)} | ${formatRatio(extractOf(a), extractOf(b))} | ${bytes(a)} | ${bytes(b)} |`,
    );
  });
  return `${lines.join('\n')}\n`;
}
