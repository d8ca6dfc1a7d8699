// Markdown for the extract-llm measurement (stdout and the README block).
import {
  atMost,
  FAILED,
  metaLine,
  NOT_RUN,
  plural,
  ratio,
  ratioCells,
  ratioHeading,
  tableHead,
  tableRow,
  targetCell,
  type Cell,
  type Column,
} from '../../core/format.js';
import type { ReportContext } from '../../core/measurement.js';
import { SETTLE_NOTE } from '../../core/settle.js';
import { formatMs, median } from '../../core/stats.js';
import type { LlmCall, LlmOutcome, LlmPageResult, LlmRun } from './measure.js';

type Ok = Extract<LlmOutcome, { ok: true }>;
const ok = (o: LlmOutcome | undefined): Ok | null => (o && o.ok ? o : null);

/** One number per page: the median over that page's timed calls. */
const perPage = (o: Ok, f: (c: LlmCall) => number): number => median(o.calls.map(f));
const overhead = (c: LlmCall): number => c.ms - c.modelMs;
const count = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a');

export interface LlmSummary {
  /** Pages every library that worked at all got through; the rows are medians over these. */
  readonly comparable: readonly LlmPageResult[];
  readonly failed: ReadonlyMap<string, readonly LlmPageResult[]>;
}

export function summarizeLlm(run: LlmRun, ids: readonly string[]): LlmSummary {
  const active = ids.filter((id) => run.pages.some((p) => ok(p.outcomes.get(id))));
  return {
    comparable: run.pages.filter((p) => active.length > 0 && active.every((id) => ok(p.outcomes.get(id)))),
    failed: new Map(ids.map((id) => [id, run.pages.filter((p) => p.outcomes.has(id) && !ok(p.outcomes.get(id)))])),
  };
}

/** Per-page values of one library over the comparable pages. */
function values(s: LlmSummary, id: string, f: (c: LlmCall) => number): number[] {
  return s.comparable.flatMap((p) => {
    const o = ok(p.outcomes.get(id));
    return o ? [perPage(o, f)] : [];
  });
}

export function renderLlmSummary(run: LlmRun, input: ReportContext): string {
  const { ours, theirs } = input;
  const all = [ours, ...theirs];
  const s = summarizeLlm(
    run,
    all.map((col) => col.id),
  );
  const cell = (col: Column, f: (c: LlmCall) => number, show: (v: number[]) => string): Cell => {
    const v = values(s, col.id, f);
    if (!v.length) return s.failed.get(col.id)?.length ? FAILED : NOT_RUN;
    return { text: show(v), value: median(v) };
  };
  // Request counts differ by page only when a page is split into chunks; show the spread then.
  const spread = (v: number[]): string => {
    const [lo, hi] = [Math.min(...v), Math.max(...v)];
    return lo === hi ? count(median(v)) : `${count(median(v))} (${count(lo)}–${count(hi)})`;
  };
  // The issue's targets: at most half of Stagehand's overhead and of its prompt tokens.
  const rows: Array<[string, (c: LlmCall) => number, (v: number[]) => string, number | null]> = [
    ['`extract(instruction, schema)`: overhead beyond the model, median (ms)', overhead, (v) => formatMs(median(v)), 0.5],
    ['prompt tokens per extract (median over pages)', (c) => c.promptTokens, (v) => count(median(v)), 0.5],
    ['model requests per extract', (c) => c.requests, spread, null],
  ];
  const lines = tableHead(
    '`extract(instruction, schema)` with a fake model',
    [...all.map((col) => col.label), ...theirs.map(ratioHeading)],
    [`target (against ${theirs[0]!.label})`],
  );
  for (const [label, f, show, target] of rows) {
    const cells = all.map((col) => cell(col, f, show));
    const verdict = target === null ? '' : targetCell(`≤ ${target.toFixed(2)}×`, atMost(ratio(cells[0]!.value, cells[1]!.value), target));
    lines.push(tableRow([label, ...cells.map((c) => c.text), ...ratioCells(cells), verdict]));
  }
  lines.push('');
  const kinds = all
    .filter((col) => run.requestKinds.get(col.id)?.size)
    .map((col) => `${col.label}: ${[...run.requestKinds.get(col.id)!].map((k) => `\`${k}\``).join(', ')}`);
  if (kinds.length) lines.push(`Requests seen (endpoint: properties of the JSON schema sent): ${kinds.join('; ')}.`, '');
  for (const col of all) {
    const pages = s.failed.get(col.id) ?? [];
    if (!pages.length) continue;
    const shown = pages.slice(0, 5).map((p) => `${p.page.label} (${(p.outcomes.get(col.id) as { error: string }).error})`);
    lines.push(`${col.label} failed on ${plural(pages.length, 'page')}: ${shown.join(', ')}${pages.length > 5 ? ', …' : ''}.`, '');
  }
  lines.push(facts(run, input, s));
  return `${lines.join('\n')}\n`;
}

function facts(run: LlmRun, input: ReportContext, s: LlmSummary): string {
  const { ours, theirs } = input;
  const st = run.settings;
  const articles = run.pages.filter((p) => p.page.kind === 'article').length;
  const modelMs = (col: Column) => {
    const v = values(s, col.id, (c) => c.modelMs);
    return v.length ? `${formatMs(median(v))} ms ${col.label}` : null;
  };
  const waited = [ours, ...theirs].map(modelMs).filter(Boolean).join(', ');
  const parts = [
    input.envLine,
    `Tendril and Stagehand 3.7.3 constructed with \`model: { modelName: "${run.modelName}", apiKey, baseURL, fetch }\` pointing at one fake OpenAI server on loopback (\`test/support/fake-model.ts\`) that answers every request at once with a value valid for the JSON schema it was sent`,
    ...(theirs.some((col) => col.id === 'stagehand4')
      ? [
          'Stagehand 4.4.0 (no `baseURL` any more) with `model: { generate }`, a callback in its node 22 child process that the bench answers by sending the request to the same fake as a Responses request through the same `fetch`; its wall time and its model time (from calling back until the answer is back, the pipe included) are both taken in the child',
        ]
      : []),
    `overhead = wall time of one call minus the time its model requests took, timed by that \`fetch\` from sending to the whole reply${waited ? ` (median ${waited})` : ''}`,
    `prompt tokens = o200k_base tokens of the system and user text plus the JSON schema, summed over the call's requests`,
    `pages: the demo page (median of ${plural(st.demoIterations, 'call')} after ${st.warmups} untimed) and ${run.corpusTotal === null ? 'no real pages (corpus missing)' : `the first ${articles} of ${run.corpusTotal} real pages (${st.corpusIterations === 1 ? 'one call' : `median of ${st.corpusIterations} calls`} each)`}`,
    `rows: medians over the ${s.comparable.length} of ${run.pages.length} pages all got through · ratio = ${ours.label} / that Stagehand`,
    `each call after an untimed \`goto\` (until \`load\`); one browser per library, libraries alternating, ${SETTLE_NOTE}`,
    `a page slower than ${st.pageDeadlineMs / 1000} s counts as failed`,
    '`npm run bench -- --only extract-llm`',
  ];
  return metaLine(parts);
}
