// Markdown for the hosted-cache measurement (stdout and the README block).
import { HOSTED_CACHE_ID, type HostedCacheRun } from './measure.js';
import { formatMs, median } from '../../core/stats.js';

export interface HostedCacheReportInput {
  readonly run: HostedCacheRun;
  /** "2026-11-22 · Chromium … · Node … · machine" */
  readonly envLine: string;
}

const plural = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** HIT / MISS; a HIT costs a small fraction of a MISS, so two decimals would often read 0.01×. */
function ratio(hit: number, miss: number): string {
  if (!Number.isFinite(hit) || !Number.isFinite(miss) || miss <= 0) return 'n/a';
  const r = hit / miss;
  return `${r < 0.1 ? r.toFixed(3) : r.toFixed(2)}×`;
}

export function renderHostedCacheSummary(input: HostedCacheReportInput): string {
  const { run } = input;
  const o = run.outcome;
  const lines = [
    '| `extract(instruction, schema)` in env "HOSTED", server cache (Tendril only) | MISS, median (ms) | HIT, median (ms) | HIT / MISS |',
    '| --- | ---: | ---: | ---: |',
  ];
  const rows: Array<[string, (p: { page: string }) => boolean]> = run.pages.map((page) => [`\`${page.replace(/^\//, '')}\``, (p) => p.page === page]);
  if (run.pages.length > 1) rows.push(['all pages', () => true]);
  for (const [label, keep] of rows) {
    if (!o.ok) {
      lines.push(`| ${label} | failed | failed | n/a |`);
      continue;
    }
    const pairs = o.pairs.filter(keep);
    const [miss, hit] = [median(pairs.map((p) => p.miss)), median(pairs.map((p) => p.hit))];
    lines.push(`| ${label} | ${formatMs(miss)} | ${formatMs(hit)} | ${ratio(hit, miss)} |`);
  }
  lines.push('');
  lines.push(
    `MISS: a call the server has not seen (its instruction is new), so it snapshots the page, asks the model and stores the answer; HIT: the same call again on the unchanged page, answered from the server's cache without asking the model. The fake model takes a fixed ${formatMs(run.modelLatencyMs)} ms per reply, about a real one's time for a short structured answer.`,
    '',
  );
  lines.push(
    '**Tendril only**: neither Stagehand 3.7.3 nor 4.4.0 has a hosted server one can run oneself (4.4.0\'s `apiUrl` is Browserbase\'s regional service), so unlike every other table here this one is no ratio against Stagehand (n/a for both); the ratio is HIT / MISS.',
    '',
  );
  if (!o.ok) lines.push(`Tendril failed: ${o.error.replace(/\.+$/, '')}.`, '');
  lines.push(metaLine(input));
  return `${lines.join('\n')}\n`;
}

function metaLine(input: HostedCacheReportInput): string {
  const { run } = input;
  const { iterations, warmups } = run.settings;
  const requests = run.outcome.ok ? [...new Set(run.outcome.pairs.map((p) => p.missRequests))].sort((a, b) => a - b) : [];
  const parts = [
    input.envLine,
    `the hosted server (\`src/hosted/server\`) in the bench's process on loopback, launching the same headless Chromium; one client session (\`env: "HOSTED"\`) for the whole run`,
    `per page and iteration: \`goto\` (untimed, until \`load\`), then a MISS (\`extract(instruction, schema)\` of \`extract-llm\` with " (bench request N)" appended, N new every time) and a HIT (the same call again), each timed as the client's wall time`,
    `checked on every call: \`cacheStatus\` is MISS, then HIT; the MISS's instruction reached the model${requests.length ? ` (model requests per MISS: ${requests.join(' or ')})` : ''}, the HIT sent it no request, and both answered the same`,
    `model: \`${run.modelName}\` on the fake OpenAI server of \`extract-llm\`, every reply held back ${formatMs(run.modelLatencyMs)} ms`,
    `median of ${plural(iterations, 'iteration')} per page after ${plural(warmups, 'untimed warm-up')}`,
    `\`npm run bench -- --only ${HOSTED_CACHE_ID}\``,
  ];
  return `_${parts.join(' · ')}_`;
}
