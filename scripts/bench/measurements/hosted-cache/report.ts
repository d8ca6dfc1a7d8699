// Markdown for the hosted-cache measurement (stdout and the README block).
import { failedLine, metaLine, plural, tableHead, tableRow } from '../../core/format.js';
import type { ReportContext } from '../../core/measurement.js';
import { formatMs, formatRatio, median } from '../../core/stats.js';
import { HOSTED_CACHE_ID, type HostedCacheRun } from './measure.js';

/** HIT / MISS; a HIT costs a small fraction of a MISS, so two decimals would often read 0.01×. */
const ratio = (hit: number, miss: number): string => formatRatio(hit, miss, hit / miss < 0.1 ? 3 : 2);

export function renderHostedCacheSummary(run: HostedCacheRun, input: ReportContext): string {
  const o = run.outcome;
  const lines = tableHead('`extract(instruction, schema)` in env "HOSTED", server cache (Tendril only)', [
    'MISS, median (ms)',
    'HIT, median (ms)',
    'HIT / MISS',
  ]);
  const rows: Array<[string, (p: { page: string }) => boolean]> = run.pages.map((page) => [
    `\`${page.replace(/^\//, '')}\``,
    (p) => p.page === page,
  ]);
  if (run.pages.length > 1) rows.push(['all pages', () => true]);
  for (const [label, keep] of rows) {
    if (!o.ok) {
      lines.push(tableRow([label, 'failed', 'failed', 'n/a']));
      continue;
    }
    const pairs = o.pairs.filter(keep);
    const [miss, hit] = [median(pairs.map((p) => p.miss)), median(pairs.map((p) => p.hit))];
    lines.push(tableRow([label, formatMs(miss), formatMs(hit), ratio(hit, miss)]));
  }
  lines.push('');
  lines.push(
    `MISS: a call the server has not seen (its instruction is new), so it snapshots the page, asks the model and stores the answer; HIT: the same call again on the unchanged page, answered from the server's cache without asking the model. The fake model takes a fixed ${formatMs(run.modelLatencyMs)} ms per reply, about a real one's time for a short structured answer.`,
    '',
  );
  lines.push(
    "**Tendril only**: neither Stagehand 3.7.3 nor 4.4.0 has a hosted server one can run oneself (4.4.0's `apiUrl` is Browserbase's regional service), so unlike every other table here this one is no ratio against Stagehand (n/a for both); the ratio is HIT / MISS.",
    '',
  );
  if (!o.ok) lines.push(failedLine('Tendril', o.error), '');
  lines.push(facts(run, input));
  return `${lines.join('\n')}\n`;
}

function facts(run: HostedCacheRun, input: ReportContext): string {
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
  return metaLine(parts);
}
