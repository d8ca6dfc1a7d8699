// Markdown for the function measurement (stdout and the README block).
import path from 'node:path';
// @ts-expect-error: a plain ES module shared with esbuild.config.mjs, without types
import { EXTENSION_SIZE_TARGET } from '../../../extension-bundle.mjs';
import { REPO_ROOT } from '../../core/config.js';
import {
  atMost,
  FAILED,
  failedLine,
  formatBytes,
  medianCell,
  metaLine,
  NOT_RUN,
  plural,
  ratio,
  tableHead,
  tableRow,
  targetCell,
  type Cell,
  type Column,
} from '../../core/format.js';
import type { ReportContext } from '../../core/measurement.js';
import { formatRatio } from '../../core/stats.js';
import { STAGEHAND_FUNCTION } from './bundles.js';
import { CHILD, EXPECTED_DATA, type ColdStart } from './cold-start.js';
import { FUNCTION_ID, type FunctionOutcome, type FunctionRun } from './measure.js';

/** The issue's targets, as ratios Tendril / Stagehand. */
const TARGETS = { bytes: 0.2, coldStart: 0.5 };
/** The budget of `tendril/extension`, in bytes (not a ratio: Stagehand has no such entry). */
const EXTENSION_TARGET_BYTES: number = EXTENSION_SIZE_TARGET;
/** Why Stagehand 4.4.0's column says n/a. */
const NOT_WRITTEN_ON_4 =
  'not measured yet: the function has not been written on Stagehand 4.4.0 (its `browserbase.launch` would have to reach the local hosted server, and its cold start needs node 22)';

function bytesCell(o: FunctionOutcome | undefined): Cell {
  // The size stands even when the cold start failed: the bundle was built.
  if (!o) return NOT_RUN;
  if (o.bytes === null) return FAILED;
  return { text: `${formatBytes(o.bytes)} (${o.bytes.toLocaleString('en-US')} B)`, value: o.bytes };
}

const msCell = (o: FunctionOutcome | undefined, pick: (c: ColdStart) => number): Cell => medianCell(o, (v) => v.coldStarts.map(pick));

/** Tendril against Stagehand 3.7.3; Stagehand 4.4.0 has a column that says why it is not measured. */
export function renderFunctionSummary(run: FunctionRun, input: ReportContext): string {
  const { ours } = input;
  const theirs = input.theirs[0]!;
  const col4 = input.theirs.find((col) => col.id === 'stagehand4');
  const notRun = col4 && { col: col4, why: NOT_WRITTEN_ON_4 };
  const [a, b] = [run.outcomes.get(ours.id), run.outcomes.get(theirs.id)];
  const lines = tableHead(
    'the reference function (`examples/serverless`), bundled by esbuild',
    [ours.label, theirs.label, ...(notRun ? [notRun.col.label] : []), 'ratio'],
    ['target'],
  );
  const none = notRun ? 'n/a | ' : '';
  const row = (label: string, x: Cell, y: Cell, target?: number) =>
    lines.push(
      tableRow([
        label,
        x.text,
        y.text,
        ...(notRun ? ['n/a'] : []),
        formatRatio(x.value, y.value, 3),
        target === undefined ? '' : targetCell(`≤ ${target.toFixed(2)}×`, atMost(ratio(x.value, y.value), target)),
      ]),
    );
  row('bundle: one minified ES module for Node', bytesCell(a), bytesCell(b), TARGETS.bytes);
  row(
    'cold start: `import()` + first request, median (ms)',
    msCell(a, (c) => c.totalMs),
    msCell(b, (c) => c.totalMs),
    TARGETS.coldStart,
  );
  row(
    '… of which `import()`, median (ms)',
    msCell(a, (c) => c.importMs),
    msCell(b, (c) => c.importMs),
  );
  if (run.extensionBytes !== undefined) {
    const bytes = run.extensionBytes;
    const cell = bytes === null ? 'failed' : `${formatBytes(bytes)} (${bytes.toLocaleString('en-US')} B)`;
    const target = `< ${formatBytes(EXTENSION_TARGET_BYTES)}${bytes === null ? '' : `: ${bytes < EXTENSION_TARGET_BYTES ? 'pass' : 'FAIL'}`}`;
    lines.push(
      `| \`tendril/extension\` (for Chrome extensions): one minified ES module, the AI SDK left out | ${cell} | — | ${none}| ${target} |`,
    );
  }
  lines.push('');
  if (notRun) lines.push(`${notRun.col.label}: n/a, ${notRun.why}.`, '');
  for (const col of [ours, theirs]) {
    const o = run.outcomes.get(col.id);
    if (o && !o.ok) lines.push(failedLine(col.label, o.error), '');
  }
  lines.push(
    `Bundle: esbuild, \`platform: "node"\`, \`target: "node18"\`, \`format: "esm"\`, minified, the \`createRequire\` banner of \`scripts/function-bundle.ts\`; ` +
      `${ours.label}: \`examples/serverless/api/run.ts\` bundled by \`scripts/function-bundle.ts\` (Tendril from source and zod inlined; the AI SDK, \`ai\` and \`@ai-sdk/*\`, left out: with \`env: "HOSTED"\` the models run on the service, and Tendril loads the AI SDK only on a model call of its own, which this function never makes; the bundle runs from a folder without \`node_modules\`, so nothing left out is loaded); ` +
      `${theirs.label}: the same function on Stagehand (\`${path.relative(REPO_ROOT, STAGEHAND_FUNCTION)}\`), its imports resolved from the bench's scratch install, every dependency inlined (it loads its AI SDK at start-up and runs \`act\` and \`extract\` itself). ` +
      `Cold start: a fresh \`node\` process per run (\`${path.relative(REPO_ROOT, CHILD)}\`) takes t0, \`await import()\`s the bundle (from a temporary folder with no \`node_modules\` above it) and calls \`POST(new Request(…))\` once; timed until the answer's body is read. ` +
      `That request opens a session on the local hosted server (\`src/hosted/server\`, which launches Chromium, \`blockAds: true\`), \`goto\`s \`scripts/bench/pages${run.pagePath}\`, ` +
      `\`act(instruction)\` (the fake model picks the vote button), \`extract(instruction, z.string())\` (the fake answers with the vote counter it finds in the page text it was sent) and \`close()\`s; ` +
      `every run must answer 200 \`{"ok":true,"data":"${EXPECTED_DATA}"}\` and send the model the act instruction, which is new every run, so the server's cache never answers.`,
    '',
  );
  const proxied = run.proxied.length ? ` (${run.proxied.map((c) => `\`${c}\``).join(', ')})` : '';
  const left = b?.ok ? ` (${b.sessionsLeft} of ${plural(b.runs, 'run')})` : '';
  lines.push(
    `${theirs.label} runs with \`env: "BROWSERBASE"\` and \`disableAPI: true\`, so \`act\` and \`extract\` run in the function's process rather than on Browserbase's Stagehand API server; ` +
      `its Browserbase client is pointed by \`BROWSERBASE_BASE_URL\` at a loopback proxy in the bench that renames \`X-BB-API-Key\` to \`x-hosted-api-key\` and forwards everything else, the response included, unchanged${proxied}. ` +
      `${ours.label}'s function calls the server directly, and its \`act\` and \`extract\` run on the server (\`env: "HOSTED"\`). ` +
      `${theirs.label}'s \`close()\` only drops its CDP connection (Browserbase ends such a session itself; this server keeps it), so the bench releases that session after the process has exited, untimed${left}; ` +
      `${ours.label}'s \`close()\` releases its session within the timed run.`,
    '',
  );
  const { iterations, warmups } = run.settings;
  lines.push(
    metaLine([
      input.envLine,
      `median of ${plural(iterations, 'cold start')} per library after ${warmups} untimed, libraries alternating, each in a fresh process`,
      `model: \`${run.modelName}\` on the fake OpenAI server of \`extract-llm\`, answering at once${modelRequests(run, ours, theirs)}`,
      `ratio = ${ours.label} / ${theirs.label}`,
      `\`npm run bench -- --only ${FUNCTION_ID}\``,
    ]),
  );
  return `${lines.join('\n')}\n`;
}

function modelRequests(run: FunctionRun, ours: Column, theirs: Column): string {
  const per = [ours, theirs].flatMap((col) => {
    const o = run.outcomes.get(col.id);
    if (!o?.ok || !o.coldStarts.length) return [];
    const counts = [...new Set(o.coldStarts.map((c) => c.modelRequests))].sort((x, y) => x - y);
    return [`${col.label} ${counts.join(' or ')}`];
  });
  return per.length ? ` (model requests per run: ${per.join(', ')})` : '';
}
