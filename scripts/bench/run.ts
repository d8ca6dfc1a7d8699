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
//   npm run bench -- --only mcp --corpus-limit 10       # MCP servers: Tendril, Playwright MCP, chrome-devtools-mcp
//
// Progress goes to stderr, the markdown table to stdout.
import { existsSync } from 'node:fs';
import type { BenchEnv, LibraryAdapter } from './core/adapter.js';
import {
  BENCH_DOC_PATH,
  CORPUS_DIR,
  DEFAULT_CHROME,
  PAGES_DIR,
  README_PATH,
  chromiumVersion,
  launchSpec,
  machineLine,
} from './core/config.js';
import { plural } from './core/format.js';
import { errorText, type ComparisonContext, type Finished, type ReportContext } from './core/measurement.js';
import { parseOptions } from './core/options.js';
import { TABLE_PATH, tableHtml } from './core/page-sets.js';
import { corpusHash, machineKey, PeerCache } from './core/peer-cache.js';
import { ChromeReaper } from './core/procs.js';
import { HEADLINE_END, HEADLINE_START, renderHeadline, updateReadme } from './core/readme.js';
import { startServer, type Mount } from './core/server.js';
import { renderDetails, renderTable, runTimings, type RowResult } from './core/timing.js';
import { COLUMNS, labelOf, loadLibrary, OURS, THEIRS, THEIRS4 } from './libraries/index.js';
import { STAGEHAND4_VERSION } from './libraries/stagehand4.js';
import { COMPARISONS, FOOTPRINT_END, FOOTPRINT_ID, FOOTPRINT_START, MEASUREMENTS, footprint } from './measurements/index.js';

const log = (line: string): void => {
  process.stderr.write(`[bench] ${line}\n`);
};

async function main(): Promise<number> {
  const opts = parseOptions(process.argv.slice(2), process.env);
  const known = [...MEASUREMENTS.map((m) => m.id), ...COMPARISONS.map((c) => c.id), FOOTPRINT_ID];
  const unknown = opts.measurements?.filter((id) => !known.includes(id)) ?? [];
  if (unknown.length)
    throw new Error(
      `unknown --only value(s) ${unknown.join(', ')} (libraries: tendril, stagehand, stagehand4; measurements: ${known.join(', ')})`,
    );
  const selected = (id: string) => !opts.measurements || opts.measurements.includes(id);
  const timing = MEASUREMENTS.filter((m) => selected(m.id));
  const comparisons = COMPARISONS.filter((c) => selected(c.id));
  const launch = launchSpec();
  if (!existsSync(launch.executablePath)) throw new Error(`Chromium not found at ${launch.executablePath} (set CHROME_PATH)`);

  // No Chrome may outlive the bench, whatever happens.
  const reaper = new ChromeReaper();
  process.on('exit', () => reaper.killAll());
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    process.once(signal, () => {
      log(`${signal}: killing Chrome processes started by the bench`);
      reaper.killAll();
      process.exit(code);
    });
  }

  const chromium = chromiumVersion(launch.executablePath);
  log(`${chromium} at ${launch.executablePath}; Node ${process.version}`);
  if (timing.length) {
    log(
      `${timing.map((m) => m.id).join(', ')}: ${plural(opts.iterations, 'iteration')} and ${plural(opts.warmups, 'warm-up')} per library`,
    );
  }
  for (const c of comparisons) log(c.plan(opts));

  // Libraries run in this order within every iteration (A B A B ...). None is loaded (nor
  // installed) when nothing selected runs one.
  const needsLibraries = timing.length > 0 || comparisons.some((c) => c.usesLibraries !== false);
  const failures = new Map<string, string>(); // library id -> why it stopped
  const libs: LibraryAdapter[] = [];
  for (const col of COLUMNS) {
    if (!needsLibraries || (opts.only && !opts.only.includes(col.id))) continue;
    try {
      libs.push(await loadLibrary(col.id, log));
    } catch (err) {
      failures.set(col.id, `could not load: ${errorText(err)}`);
      log(`${col.label}: could not load: ${errorText(err)}`);
    }
  }

  const mounts: Mount[] = [{ prefix: '/', dir: PAGES_DIR }];
  if (existsSync(CORPUS_DIR)) mounts.push({ prefix: '/corpus/', dir: CORPUS_DIR });
  const server = await startServer(mounts, new Map([[TABLE_PATH, tableHtml]]));
  // Another binary of the same version (CHROME_PATH=…/chromium-headless-shell says the same) is another browser.
  const browserKey = launch.executablePath === DEFAULT_CHROME ? chromium : `${chromium} (${launch.executablePath})`;
  const peers = new PeerCache({ corpus: corpusHash(), chromium: browserKey, machine: machineKey() }, process.env.BENCH_FRESH_PEERS !== '1');
  const env: BenchEnv = { server, launch, reaper, opTimeoutMs: opts.opTimeoutMs, notes: [], peers };
  const ctx: ComparisonContext = { libs, unavailable: failures, env, opts, log };

  let results: RowResult[] = [];
  const finished: Finished[] = [];
  /** Measurements whose tables go to blocks of their own (which say themselves what was kept). */
  const ownBlockIds = new Set<string>();
  try {
    results = await runTimings(timing, ctx);
    for (const c of comparisons) {
      const done = await c.run(ctx);
      if (done) finished.push(done);
      if (done?.block) ownBlockIds.add(c.id);
    }
  } finally {
    peers.save();
    await server.close();
    const killed = reaper.killAll();
    if (killed) log(`killed ${killed} leftover Chrome process(es)`);
  }

  const date = new Date().toISOString().slice(0, 10);
  const envLine = `${date} · ${chromium} · Node ${process.version} · ${machineLine()}`;
  const fp = selected(FOOTPRINT_ID) ? footprint(log, date) : null;
  const meta =
    `_${envLine} · ` +
    `median of ${plural(opts.iterations, 'iteration')} per library after ${plural(opts.warmups, 'untimed warm-up')} each, libraries alternating · ` +
    `all launch the same headless Chromium; \`goto\` waits for \`load\` in all · ratio = Tendril / that Stagehand (below 1: Tendril faster) · ` +
    `Stagehand ${STAGEHAND4_VERSION} runs in a node 22 child process that times each operation itself (the pipe is not counted) · ` +
    `\`npm run bench\`_`;
  const input = { ours: OURS, theirs: [THEIRS, THEIRS4], rows: results, meta };
  const report: ReportContext = { ours: OURS, theirs: [THEIRS, THEIRS4], envLine, log };
  const blocks: string[] = [];
  const ownBlocks: Array<{ readonly start: string; readonly end: string; readonly text: string }> = [];
  if (results.length) blocks.push(renderTable(input));
  for (const done of finished) {
    if (done.block) ownBlocks.push({ ...done.block, text: done.report(report) });
    else blocks.push(done.report(report));
    env.notes.push(...done.notes);
  }
  // Which peers' columns of these tables were kept from an earlier run, and from when.
  const kept = peers.notes().filter((note) => !ownBlockIds.has(note.slice(0, note.indexOf(':'))));
  if (blocks.length && kept.length)
    blocks.push(["**Peers' results kept from an earlier run:**", '', ...kept.map((note) => `- ${note}`), ''].join('\n'));
  const table = blocks.join('\n');
  process.stdout.write(`\n${[table, ...ownBlocks.map((b) => b.text)].filter(Boolean).join('\n')}`);
  if (opts.updateReadme) {
    for (const b of ownBlocks) {
      const res = updateReadme(BENCH_DOC_PATH, b.text, b.start, b.end);
      log(res.ok ? `updated the ${b.start} block in ${BENCH_DOC_PATH}` : `warning: ${res.warning}`);
    }
    for (const { headline } of finished) {
      if (!headline) continue;
      const res = updateReadme(README_PATH, headline.text(report), headline.start, headline.end);
      log(res.ok ? `updated the ${headline.start} block in ${README_PATH}` : `warning: ${res.warning}`);
    }
  }
  if (fp) process.stdout.write(`\n${fp.block}`);
  if (fp && opts.updateReadme) {
    const res = updateReadme(BENCH_DOC_PATH, fp.block, FOOTPRINT_START, FOOTPRINT_END);
    log(res.ok ? `updated the footprint block in ${BENCH_DOC_PATH}` : `warning: ${res.warning}`);
  }
  env.notes.push(...peers.notes());
  for (const [id, why] of failures) env.notes.push(`${labelOf(id)}: ${why}`);
  for (const note of env.notes) process.stdout.write(`\n> ${note}\n`);
  if (opts.verbose) process.stderr.write(`\n${renderDetails(input)}\n`);

  // A run of measurements with blocks of their own only leaves the bench block as it is.
  const benchBlock = opts.updateReadme && blocks.length > 0;
  if (benchBlock && (opts.measurements || opts.corpusLimit !== null)) {
    // The block is the whole picture; a partial run would drop rows or show a partial corpus.
    log('warning: README not updated: --only <measurement> and --corpus-limit runs are partial');
  } else if (benchBlock) {
    const res = updateReadme(BENCH_DOC_PATH, table);
    if (res.ok) log(`updated the bench block in ${BENCH_DOC_PATH}`);
    else log(`warning: ${res.warning}`);
    const headline = updateReadme(README_PATH, renderHeadline(table), HEADLINE_START, HEADLINE_END);
    if (headline.ok) log(`updated the bench headline in ${README_PATH}`);
    else log(`warning: ${headline.warning}`);
  }
  const anyFailure =
    failures.size > 0 || results.some((r) => r.failures.size > 0) || finished.some((done) => done.failed(report)) || fp?.failed === true;
  return anyFailure ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`[bench] ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
