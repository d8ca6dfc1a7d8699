// `npm run bench`: Tendril vs Stagehand 3.7.3, medians side by side, from one run.
//
//   npm run bench                      # 7 iterations per library, table on stdout
//   npm run bench -- --update-readme   # also rewrite the bench block in README.md
//   BENCH_ITERATIONS=3 npm run bench -- --only=stagehand --verbose
//   npm run bench -- --only extract --corpus-limit 10   # page-text extraction only, 10 articles
//   npm run bench -- --only real-pages                  # default goto + extract() on every real page
//   npm run bench -- --only extract-llm                 # extract(instruction, schema), fake model
//   npm run bench -- --only act                         # act(observeResult): a click, no model
//   npm run bench -- --only hosted-cache                # env "HOSTED": server cache HIT vs MISS
//   npm run bench -- --only function                    # the serverless function: bundle size, cold start
//   npm run bench -- --only footprint --update-readme   # npm install of Tendril (packed) and both Stagehands
//
// Progress goes to stderr, the markdown table to stdout.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { BenchEnv, LibraryAdapter } from './core/adapter.js';
import {
  CORPUS_DIR,
  PAGES_DIR,
  BENCH_DOC_PATH,
  README_PATH,
  REPO_ROOT,
  RESULTS_DIR,
  chromiumVersion,
  launchSpec,
  machineLine,
  parseOptions,
} from './core/config.js';
import { renderActSummary } from './measurements/act/report.js';
import { renderFunctionSummary } from './measurements/function/report.js';
import { renderHostedCacheSummary } from './measurements/hosted-cache/report.js';
import { renderExtractSummary, renderPerPage } from './measurements/extract/report.js';
import { renderLlmSummary } from './measurements/extract-llm/report.js';
import { renderRealPagesPerPage, renderRealPagesSummary, summarizeRealPages } from './measurements/real-pages/report.js';
import { TABLE_PATH, tableHtml } from './core/page-sets.js';
import { ACT_ID, runAct, type ActRun } from './measurements/act/measure.js';
import { runExtract, type ExtractRun } from './measurements/extract/measure.js';
import { EXTRACT_LLM_ID, runExtractLlm, type LlmRun } from './measurements/extract-llm/measure.js';
import { FUNCTION_ID, runFunction, type FunctionRun } from './measurements/function/measure.js';
import { FOOTPRINT_ID, runFootprint } from './measurements/footprint/measure.js';
import { FOOTPRINT_END, FOOTPRINT_START, renderFootprint } from './measurements/footprint/report.js';
import { HOSTED_CACHE_ID, MODEL_LATENCY_MS, runHostedCache, type HostedCacheRun } from './measurements/hosted-cache/measure.js';
import { MEASUREMENTS } from './measurements/index.js';
import { REAL_PAGES_ID, runRealPages, type RealPagesRun } from './measurements/real-pages/measure.js';
import { errorText, type ComparisonContext } from './core/measurement.js';
import { STAGEHAND4_VERSION } from './libraries/stagehand4.js';
import { ChromeReaper } from './core/procs.js';
import { HEADLINE_END, HEADLINE_START, renderDetails, renderHeadline, renderTable, updateReadme, type Column, type RowResult } from './core/report.js';
import { startServer, type Mount } from './core/server.js';
import { formatMs } from './core/stats.js';

const log = (line: string): void => {
  process.stderr.write(`[bench] ${line}\n`);
};

const EXTRACT_ID = 'extract';
const PER_PAGE_FILE = path.join(RESULTS_DIR, 'extract-pages.md');
const REAL_PAGES_FILE = path.join(RESULTS_DIR, 'real-pages.md');

const OURS: Column = { id: 'tendril', label: 'Tendril' };
const THEIRS: Column = { id: 'stagehand', label: 'Stagehand 3.7.3' };
/** Stagehand 4.4.0, run in a node 22 child process (stagehand4.ts). */
const THEIRS4: Column = { id: 'stagehand4', label: 'Stagehand 4.4.0' };

async function loadLibrary(id: string): Promise<LibraryAdapter> {
  if (id === OURS.id) return (await import('./libraries/tendril.js')).loadTendril();
  if (id === THEIRS.id) return (await import('./libraries/stagehand.js')).loadStagehand(log);
  if (id === THEIRS4.id) return (await import('./libraries/stagehand4.js')).loadStagehand4(log);
  throw new Error(`unknown library ${id}`);
}

async function main(): Promise<number> {
  const opts = parseOptions(process.argv.slice(2), process.env);
  const known = [...MEASUREMENTS.map((m) => m.id), EXTRACT_ID, REAL_PAGES_ID, EXTRACT_LLM_ID, ACT_ID, HOSTED_CACHE_ID, FUNCTION_ID, FOOTPRINT_ID];
  const unknown = opts.measurements?.filter((id) => !known.includes(id)) ?? [];
  if (unknown.length) throw new Error(`unknown --only value(s) ${unknown.join(', ')} (libraries: tendril, stagehand, stagehand4; measurements: ${known.join(', ')})`);
  const selected = (id: string) => !opts.measurements || opts.measurements.includes(id);
  const timing = MEASUREMENTS.filter((m) => selected(m.id));
  const launch = launchSpec();
  if (!existsSync(launch.executablePath)) throw new Error(`Chromium not found at ${launch.executablePath} (set CHROME_PATH)`);

  // No Chrome may outlive the bench, whatever happens.
  const reaper = new ChromeReaper();
  process.on('exit', () => reaper.killAll());
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    process.once(signal, () => {
      log(`${signal}: killing Chrome processes started by the bench`);
      reaper.killAll();
      process.exit(code);
    });
  }

  const chromium = chromiumVersion(launch.executablePath);
  log(`${chromium} at ${launch.executablePath}; Node ${process.version}`);
  if (timing.length) {
    log(`${timing.map((m) => m.id).join(', ')}: ${plural(opts.iterations, 'iteration')} and ${plural(opts.warmups, 'warm-up')} per library`);
  }
  if (selected(EXTRACT_ID)) {
    log(`extract: ${plural(opts.extractIterations, 'timed call')} on the table and demo page, ${plural(opts.corpusIterations, 'timed call')} per real page`);
  }
  if (selected(REAL_PAGES_ID)) {
    log(`${REAL_PAGES_ID}: each library's default goto, then extract(), ${plural(opts.corpusIterations, 'timed visit')} per real page`);
  }
  if (selected(EXTRACT_LLM_ID)) {
    log(`${EXTRACT_LLM_ID}: ${plural(opts.extractIterations, 'timed call')} on the demo page, ${plural(opts.corpusIterations, 'timed call')} per real page`);
  }
  if (selected(ACT_ID)) log(`${ACT_ID}: ${plural(opts.actIterations, 'timed call')} and ${plural(opts.warmups, 'warm-up')} per library`);
  if (selected(HOSTED_CACHE_ID)) {
    log(`${HOSTED_CACHE_ID}: Tendril only, ${plural(opts.iterations, 'timed MISS/HIT pair')} and ${plural(opts.warmups, 'warm-up')} per page, model replies after ${MODEL_LATENCY_MS} ms`);
  }
  if (selected(FUNCTION_ID)) log(`${FUNCTION_ID}: ${plural(opts.iterations, 'timed cold start')} and ${plural(opts.warmups, 'warm-up')} per library, each in a fresh process`);

  // Libraries run in this order within every iteration (A B A B ...).
  const failures = new Map<string, string>(); // library id -> why it stopped
  const libs: LibraryAdapter[] = [];
  for (const col of [OURS, THEIRS, THEIRS4]) {
    if (opts.only && !opts.only.includes(col.id)) continue;
    try {
      libs.push(await loadLibrary(col.id));
    } catch (err) {
      failures.set(col.id, `could not load: ${errorText(err)}`);
      log(`${col.label}: could not load: ${errorText(err)}`);
    }
  }

  const mounts: Mount[] = [{ prefix: '/', dir: PAGES_DIR }];
  if (existsSync(CORPUS_DIR)) mounts.push({ prefix: '/corpus/', dir: CORPUS_DIR });
  const server = await startServer(mounts, new Map([[TABLE_PATH, tableHtml]]));
  const env: BenchEnv = { server, launch, reaper, opTimeoutMs: opts.opTimeoutMs, notes: [] };

  const results: RowResult[] = [];
  let extract: ExtractRun | null = null;
  let realPages: RealPagesRun | null = null;
  let llm: LlmRun | null = null;
  let act: ActRun | null = null;
  let hosted: HostedCacheRun | null = null;
  let fn: FunctionRun | null = null;
  try {
    for (const m of timing) {
      const samples = new Map(m.rows.map((r) => [r.key, new Map<string, number[]>()]));
      const rowFailures = new Map<string, string>(failures);
      const attempt = async (lib: LibraryAdapter, phase: string): Promise<Record<string, number> | null> => {
        if (rowFailures.has(lib.id)) return null;
        try {
          return await m.run(lib, env);
        } catch (err) {
          rowFailures.set(lib.id, errorText(err));
          log(`${m.id} ${phase} ${lib.label}: FAILED: ${errorText(err)}`);
          return null;
        }
      };
      for (let w = 0; w < opts.warmups; w++) {
        for (const lib of libs) {
          const r = await attempt(lib, `warm-up ${w + 1}`);
          if (r) log(`${m.id} warm-up ${w + 1} ${lib.label}: ${describe(r)}`);
        }
      }
      for (let i = 0; i < opts.iterations; i++) {
        for (const lib of libs) {
          const r = await attempt(lib, `${i + 1}/${opts.iterations}`);
          if (!r) continue;
          for (const row of m.rows) {
            const v = r[row.key];
            if (typeof v !== 'number') throw new Error(`measurement ${m.id} returned no sample for ${row.key}`);
            if (!Number.isFinite(v)) continue; // e.g. no exit time when Chrome had to be killed
            const byLib = samples.get(row.key)!;
            const list = byLib.get(lib.id);
            if (list) list.push(v);
            else byLib.set(lib.id, [v]);
          }
          log(`${m.id} ${i + 1}/${opts.iterations} ${lib.label}: ${describe(r)}`);
        }
      }
      for (const row of m.rows) {
        results.push({ label: row.label, samples: samples.get(row.key)!, failures: rowFailures });
      }
      for (const [id, why] of rowFailures) if (!failures.has(id)) env.notes.push(`${labelOf(id)} failed in ${m.id}: ${why}`);
    }
    const ctx: ComparisonContext = { libs, unavailable: failures, env, opts, log };
    if (selected(EXTRACT_ID)) extract = await runExtract(ctx);
    if (selected(REAL_PAGES_ID)) realPages = await runRealPages(ctx);
    if (selected(EXTRACT_LLM_ID)) llm = await runExtractLlm(ctx);
    if (selected(ACT_ID)) act = await runAct(ctx);
    if (selected(HOSTED_CACHE_ID)) hosted = await runHostedCache(ctx);
    if (selected(FUNCTION_ID)) fn = await runFunction(ctx);
  } finally {
    await server.close();
    const killed = reaper.killAll();
    if (killed) log(`killed ${killed} leftover Chrome process(es)`);
  }

  const date = new Date().toISOString().slice(0, 10);
  const envLine = `${date} · ${chromium} · Node ${process.version} · ${machineLine()}`;
  // No browser: npm installs into empty folders. Its own block of docs/benchmarks.md, so a run of
  // it alone updates it.
  const footprint = selected(FOOTPRINT_ID) ? runFootprint(log) : null;
  const footprintBlock = footprint && renderFootprint(footprint, `${date} · Node ${process.version} · npm ${npmVersion()}`);
  const meta =
    `_${envLine} · ` +
    `median of ${plural(opts.iterations, 'iteration')} per library after ${plural(opts.warmups, 'untimed warm-up')} each, libraries alternating · ` +
    `all launch the same headless Chromium; \`goto\` waits for \`load\` in all · ratio = Tendril / that Stagehand (below 1: Tendril faster) · ` +
    `Stagehand ${STAGEHAND4_VERSION} runs in a node 22 child process that times each operation itself (the pipe is not counted) · ` +
    `\`npm run bench\`_`;
  const input = { ours: OURS, theirs: [THEIRS, THEIRS4], rows: results, meta };
  const blocks: string[] = [];
  if (results.length) blocks.push(renderTable(input));
  if (extract) {
    const report = { run: extract, ours: OURS, theirs: [THEIRS, THEIRS4], envLine };
    // The README links it from the repository root; stdout readers get the same path.
    const link = path.relative(REPO_ROOT, PER_PAGE_FILE);
    blocks.push(renderExtractSummary({ ...report, perPageLink: link }));
    mkdirSync(RESULTS_DIR, { recursive: true });
    writeFileSync(PER_PAGE_FILE, renderPerPage({ ...report, perPageLink: link }));
    log(`wrote ${link}`);
    env.notes.push(...extract.notes);
  }
  if (realPages) {
    const link = path.relative(REPO_ROOT, REAL_PAGES_FILE);
    const report = { run: realPages, ours: OURS, theirs: [THEIRS, THEIRS4], envLine, perPageLink: link };
    blocks.push(renderRealPagesSummary(report));
    mkdirSync(RESULTS_DIR, { recursive: true });
    writeFileSync(REAL_PAGES_FILE, renderRealPagesPerPage(report));
    log(`wrote ${link}`);
    env.notes.push(...realPages.notes);
  }
  if (llm) {
    blocks.push(renderLlmSummary({ run: llm, ours: OURS, theirs: [THEIRS, THEIRS4], envLine }));
    env.notes.push(...llm.notes);
  }
  if (act) blocks.push(renderActSummary({ run: act, ours: OURS, theirs: [THEIRS, THEIRS4], envLine }));
  if (hosted) {
    blocks.push(renderHostedCacheSummary({ run: hosted, envLine }));
    env.notes.push(...hosted.notes);
  }
  if (fn) {
    blocks.push(
      renderFunctionSummary({
        run: fn,
        ours: OURS,
        theirs: THEIRS,
        envLine,
        notRun: { col: THEIRS4, why: 'not measured yet: the function has not been written on Stagehand 4.4.0 (its `browserbase.launch` would have to reach the local hosted server, and its cold start needs node 22)' },
      }),
    );
    env.notes.push(...fn.notes);
  }
  const table = blocks.join('\n');
  process.stdout.write(`\n${table}`);
  if (footprintBlock) process.stdout.write(`\n${footprintBlock}`);
  if (footprintBlock && opts.updateReadme) {
    const res = updateReadme(BENCH_DOC_PATH, footprintBlock, FOOTPRINT_START, FOOTPRINT_END);
    log(res.ok ? `updated the footprint block in ${BENCH_DOC_PATH}` : `warning: ${res.warning}`);
  }
  for (const [id, why] of failures) env.notes.push(`${labelOf(id)}: ${why}`);
  for (const note of env.notes) process.stdout.write(`\n> ${note}\n`);
  if (opts.verbose) process.stderr.write(`\n${renderDetails(input)}\n`);

  if (opts.updateReadme && (opts.measurements || opts.corpusLimit !== null)) {
    // The block is the whole picture; a partial run would drop rows or show a partial corpus.
    log('warning: README not updated: --only <measurement> and --corpus-limit runs are partial');
  } else if (opts.updateReadme) {
    const res = updateReadme(BENCH_DOC_PATH, table);
    if (res.ok) log(`updated the bench block in ${BENCH_DOC_PATH}`);
    else log(`warning: ${res.warning}`);
    const headline = updateReadme(README_PATH, renderHeadline(table), HEADLINE_START, HEADLINE_END);
    if (headline.ok) log(`updated the bench headline in ${README_PATH}`);
    else log(`warning: ${headline.warning}`);
  }
  const extractFailed = [extract, llm].some((run) => run?.pages.some((p) => [...p.outcomes.values()].some((o) => !o.ok)));
  // Stagehand failing a real page is part of the comparison; the target is Tendril's.
  const realPagesFailed = realPages !== null && summarizeRealPages(realPages, OURS, [THEIRS, THEIRS4]).target === false;
  const actFailed = act !== null && [...act.outcomes.values()].some((o) => !o.ok);
  const hostedFailed = hosted !== null && !hosted.outcome.ok;
  const functionFailed = fn !== null && [...fn.outcomes.values()].some((o) => !o.ok);
  const footprintFailed = footprint !== null && footprint.some((o) => !o.ok);
  const anyFailure = failures.size > 0 || results.some((r) => r.failures.size > 0) || extractFailed || realPagesFailed || actFailed || hostedFailed || functionFailed || footprintFailed;
  return anyFailure ? 1 : 0;
}

function describe(r: Record<string, number>): string {
  return Object.entries(r)
    .map(([k, v]) => `${k} ${formatMs(v)} ms`)
    .join(', ');
}

function npmVersion(): string {
  return spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['--version'], { encoding: 'utf8' }).stdout?.trim() || 'unknown';
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function labelOf(id: string): string {
  return [OURS, THEIRS, THEIRS4].find((c) => c.id === id)?.label ?? id;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`[bench] ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
