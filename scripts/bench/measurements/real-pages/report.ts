// Markdown for the real-pages measurement: the summary (stdout and README) and the per-page file.
import { STAGEHAND4_DEADLINE_MS } from '../../core/config.js';
import {
  formatBytes,
  metaLine,
  NOT_RUN,
  plural,
  ratioCells,
  ratioHeading,
  tableHead,
  tableRow,
  verdict,
  type Cell,
  type Column,
} from '../../core/format.js';
import type { Failed, ReportContext } from '../../core/measurement.js';
import { host } from '../../core/page-sets.js';
import { SETTLE_NOTE } from '../../core/settle.js';
import { formatMs, formatRatio, median } from '../../core/stats.js';
import type { RealFailed, RealOutcome, RealPageResult, RealPagesRun, RealRead } from './measure.js';

const read = (o: RealOutcome | undefined): RealRead | null => (o && o.ok ? o : null);
const failure = (o: RealOutcome | undefined): RealFailed | Failed | null => (o && !o.ok ? o : null);
/** A library that could not even be loaded has no classified cause. */
const causeOf = (o: RealFailed | Failed): string => ('cause' in o ? o.cause : 'library not available');
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

export function summarizeRealPages(run: RealPagesRun, ours: Column, theirs: readonly Column[]): RealPagesSummary {
  const pages = run.pages;
  const ids = [ours, ...theirs].map((col) => col.id).filter((id) => pages.some((p) => p.outcomes.has(id)));
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

/** `perPageLink`: the per-page file, relative to where the summary is shown. */
export function renderRealPagesSummary(run: RealPagesRun, input: ReportContext, perPageLink: string): string {
  const { ours, theirs } = input;
  const s = summarizeRealPages(run, ours, theirs);
  const cols = [ours, ...theirs];
  const ran = (col: Column) => s.read.has(col.id);
  const rows: string[][] = [];
  // label, a cell per library, a ratio per other library, the target.
  const row = (label: string, cells: readonly string[], ratios: readonly string[] = [], target = '') =>
    rows.push([label, ...cells, ...theirs.map((_, i) => ratios[i] ?? ''), target]);

  row(
    'pages read',
    cols.map((col) => (ran(col) ? `${s.read.get(col.id)} / ${s.count}` : '—')),
    [],
    verdict(`every page read by ${ours.label}`, s.target),
  );
  // One row per cause any library failed with; a library without that failure shows 0.
  const allCauses = new Map<string, number>();
  for (const byCause of s.causes.values())
    for (const [cause, pages] of byCause) allCauses.set(cause, (allCauses.get(cause) ?? 0) + pages.length);
  const failedCell = (col: Column, cause: string | null) => {
    if (!ran(col)) return '—';
    const byCause = s.causes.get(col.id)!;
    return String(cause === null ? [...byCause.values()].reduce((n, pages) => n + pages.length, 0) : (byCause.get(cause)?.length ?? 0));
  };
  if (allCauses.size === 0)
    row(
      'pages failed',
      cols.map((col) => failedCell(col, null)),
    );
  for (const [cause] of [...allCauses].sort((a, b) => b[1] - a[1]))
    row(
      `failed: ${cause}`,
      cols.map((col) => failedCell(col, cause)),
    );

  const n = s.comparable.length;
  if (n > 0) {
    const label =
      n === s.count ? `${s.count} pages` : `${n} of ${s.count} pages (those ${cols.filter(ran).length > 1 ? 'all' : 'it'} read)`;
    // Over the comparable pages, `of` the per-page values `f` takes, shown by `show`.
    const stat = (f: (o: RealRead) => number, of: (v: number[]) => number, show: (v: number) => string) =>
      cols.map((col): Cell => {
        if (!ran(col)) return NOT_RUN;
        const v = of(times(s, col.id, f));
        return { text: show(v), value: v };
      });
    const sum = (v: number[]) => v.reduce((t, x) => t + x, 0);
    const goto = (o: RealRead) => o.gotoMs;
    const extract = (o: RealRead) => o.extractMs;
    for (const [what, f] of [
      ['`goto(url)`', goto],
      ['`extract()`', extract],
    ] as const) {
      const totals = stat(f, sum, secs);
      const medians = stat(f, median, formatMs);
      row(
        `${label}: ${what} total (s)`,
        totals.map((c) => c.text),
        ratioCells(totals),
      );
      row(
        `${label}: ${what} median per page (ms)`,
        medians.map((c) => c.text),
        ratioCells(medians),
      );
    }
  }

  const lines = [
    ...tableHead(
      "`goto(url)` with each library's default, then `extract()`, on the real pages",
      [...cols.map((col) => col.label), ...theirs.map(ratioHeading)],
      ['target'],
    ),
    ...rows.map(tableRow),
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
  lines.push(facts(run, input, s), '', `Per page: [${perPageLink}](${perPageLink})`);
  return `${lines.join('\n')}\n`;
}

function dialogsOf(o: RealOutcome | undefined) {
  return o && 'dialogs' in o ? o.dialogs : [];
}

function facts(run: RealPagesRun, input: ReportContext, s: RealPagesSummary): string {
  const { ours, theirs } = input;
  const st = run.settings;
  const parts = [
    input.envLine,
    "per page, each library's own `page.goto(url)` with no options (its default wait and timeout), then `extract()` without arguments, both timed",
    st.corpusIterations === 1 ? 'once per page' : `median of ${st.corpusIterations} per page`,
    `one browser per library for all pages (warmed up on \`basic.html\`), libraries alternating page by page, ${SETTLE_NOTE}`,
    'Chromium for every page started with `--host-resolver-rules=MAP * ~NOTFOUND, …` so remote resources fail at once',
    `a page not done within ${st.pageDeadlineMs / 1000} s counts as failed (its browser is replaced); an \`extract()\` with no text too`,
    `times over the pages all read · ratio = ${ours.label} / that Stagehand`,
    ...(theirs.some((col) => col.id === 'stagehand4')
      ? [
          `Stagehand 4.4.0: its own \`page.goto(url)\`, then \`page.snapshot({ includeIframes: true, timeout: ${STAGEHAND4_DEADLINE_MS} }).formattedTree\` for \`extract()\` (it has no page-text \`extract()\`), both timed in its node 22 child process; its dialogs are not watched`,
        ]
      : []),
  ];
  if (run.corpusTotal === null) parts.push('**corpus missing: real pages not run**');
  else if (s.count < run.corpusTotal) parts.push(`**only ${s.count} of ${run.corpusTotal} real pages (\`--corpus-limit\`)**`);
  parts.push('`npm run bench -- --only real-pages`');
  return metaLine(parts);
}

const dialogText = (d: { type: string; message: string; open: boolean }) =>
  `${d.type} ${JSON.stringify(d.message)}${d.open ? ' (still open)' : ''}`;

/** The per-page file: the failures with their causes, the dialogs, then every page. */
export function renderRealPagesPerPage(run: RealPagesRun, input: ReportContext): string {
  const { ours, theirs } = input;
  const s = summarizeRealPages(run, ours, theirs);
  const cols = [ours, ...theirs];
  const lines = [
    `# \`goto(url)\` (each library's default) + \`extract()\` per real page: ${ours.label} vs ${theirs.map((col) => col.label).join(' and ')}`,
    '',
    'Written by `npm run bench` (the real-pages measurement); the summary is in docs/benchmarks.md.',
    '',
    facts(run, input, s),
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
    `${ours.label} answers every dialog itself and says so in its log; ${theirs[0]!.label} answers none, so one it leaves open holds the page.` +
      (theirs.some((col) => col.id === 'stagehand4') ? " Stagehand 4.4.0's dialogs are not watched." : ''),
    '',
    ...(dialogLines.length ? dialogLines : ['None.']),
  );

  const L = (what: string) => cols.map((col) => `${col.label} ${what}`);
  const R = (what: string) => theirs.map((col) => `${what} ${ratioHeading(col).replace(/^ratio /, '')}`);
  const heads = [
    '#',
    'page',
    'source',
    ...L('result'),
    ...L('goto ms'),
    ...R('goto ratio'),
    ...L('extract ms'),
    ...R('extract ratio'),
    ...L('bytes'),
  ];
  const aligns = heads.map((h, i) => (i === 0 ? '---:' : i < 3 || h.endsWith(' result') ? '---' : '---:'));
  lines.push('', '## All pages', '', `| ${heads.join(' | ')} |`, `| ${aligns.join(' | ')} |`);
  const result = (o: RealOutcome | undefined) => (!o ? '—' : o.ok ? 'read' : `failed: ${causeOf(o)}`);
  const gotoOf = (o: RealOutcome | undefined) => (o && 'gotoMs' in o && o.gotoMs !== undefined ? o.gotoMs : Number.NaN);
  const extractOf = (o: RealOutcome | undefined) => read(o)?.extractMs ?? Number.NaN;
  const ms = (v: number, o: RealOutcome | undefined) => (Number.isFinite(v) ? formatMs(v) : o ? '' : '—');
  const bytes = (o: RealOutcome | undefined) => {
    const r = read(o);
    return r ? formatBytes(r.bytes) : o ? '' : '—';
  };
  run.pages.forEach((p, i) => {
    const os = cols.map((col) => p.outcomes.get(col.id));
    const [a, ...bs] = os;
    const cells = [
      String(i + 1),
      pageId(p),
      host(p),
      ...os.map(result),
      ...os.map((o) => ms(gotoOf(o), o)),
      ...bs.map((b) => formatRatio(gotoOf(a), gotoOf(b))),
      ...os.map((o) => ms(extractOf(o), o)),
      ...bs.map((b) => formatRatio(extractOf(a), extractOf(b))),
      ...os.map(bytes),
    ];
    lines.push(tableRow(cells));
  });
  return `${lines.join('\n')}\n`;
}
