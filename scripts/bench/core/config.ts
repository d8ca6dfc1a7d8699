// Paths, launch settings and environment facts shared by every part of the bench.
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** scripts/bench: this file is in its core/ folder. */
export const BENCH_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const REPO_ROOT = path.resolve(BENCH_DIR, '..', '..');
export const PAGES_DIR = path.join(BENCH_DIR, 'pages');
/** Real articles for extraction measurements; read in place, never copied. */
export const CORPUS_DIR = '/work/shared/corpus/articles';
/** Scratch installs of comparison libraries (gitignored). */
export const SCRATCH_ROOT = path.join(REPO_ROOT, '.bench');
export const README_PATH = path.join(REPO_ROOT, 'README.md');
/** Where the full tables go; the README shows their headline rows. */
export const BENCH_DOC_PATH = path.join(REPO_ROOT, 'docs', 'benchmarks.md');
/** Latest full results that are committed (linked from the README block). */
export const RESULTS_DIR = path.join(BENCH_DIR, 'results');
export const LIBRARY_IDS: readonly string[] = ['tendril', 'stagehand', 'stagehand4'];
/**
 * Deadline for anything Stagehand 4.4.0's child is asked that has no deadline of its own (init,
 * close), and the `timeout` its page-text snapshot is given in place of its own 20 s.
 */
export const STAGEHAND4_DEADLINE_MS = 60_000;

/** Flags both libraries pass to Chromium, on top of whatever each adds itself. */
export const CHROME_ARGS: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/**
 * Added for every extraction page, both libraries: the corpus pages reference remote scripts,
 * styles and images, and without this each of them would hold the load event until DNS gives up.
 */
export const OFFLINE_ARG = '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1';

export interface LaunchSpec {
  readonly executablePath: string;
  readonly args: readonly string[];
}

export function launchSpec(): LaunchSpec {
  return { executablePath: process.env.CHROME_PATH || '/usr/bin/chromium', args: CHROME_ARGS };
}

/** "Chromium 156.0.8078.79" (the Debian wrapper script chatters on stderr; only stdout counts). */
export function chromiumVersion(executablePath: string): string {
  try {
    const out = execFileSync(executablePath, ['--version'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 15_000,
    });
    const m = /^(.*?\d+(?:\.\d+){1,3})/.exec(out.trim());
    return m ? m[1]! : out.trim() || 'unknown';
  } catch {
    return 'unknown';
  }
}

function positiveInt(raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`expected a positive integer, got ${JSON.stringify(raw)}`);
  return n;
}

export interface BenchOptions {
  readonly iterations: number;
  readonly warmups: number;
  readonly updateReadme: boolean;
  /** Library ids to run (default: all). */
  readonly only: readonly string[] | null;
  /** Measurement ids to run (default: all); `--only` takes both kinds of id. */
  readonly measurements: readonly string[] | null;
  /** Upper bound for any single library operation before it counts as hung. */
  readonly opTimeoutMs: number;
  readonly verbose: boolean;
  /** Timed extract() iterations on the generated table and the demo page. */
  readonly extractIterations: number;
  /** Timed extract() iterations per corpus page (Stagehand takes seconds per page). */
  readonly corpusIterations: number;
  /** Use only the first N corpus pages (null: all). */
  readonly corpusLimit: number | null;
  /** One goto + extract() on one page slower than this counts as a failure of that page. */
  readonly pageDeadlineMs: number;
  /** extract-llm: corpus articles to run (null: all); `--corpus-limit` lowers it further. */
  readonly llmPages: number | null;
  /** act: timed act(action) calls per library (after `warmups` untimed). */
  readonly actIterations: number;
}

const ARGS_HELP = '--update-readme, --verbose, --only=<library|measurement>[,...], --corpus-limit=N';

export function parseOptions(argv: readonly string[], env: NodeJS.ProcessEnv): BenchOptions {
  let only: string[] | null = env.BENCH_ONLY ? env.BENCH_ONLY.split(',').map((s) => s.trim()) : null;
  let updateReadme = env.BENCH_UPDATE_README === '1' || env.BENCH_UPDATE_README === 'true';
  let verbose = env.BENCH_VERBOSE === '1';
  let corpusLimit = env.BENCH_CORPUS_LIMIT || undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    // Both `--flag=value` and `--flag value`.
    const value = (name: string): string | undefined => {
      if (arg.startsWith(`${name}=`)) return arg.slice(name.length + 1);
      if (arg !== name) return undefined;
      const next = argv[++i];
      if (next === undefined) throw new Error(`${name} needs a value`);
      return next;
    };
    let v: string | undefined;
    if (arg === '--update-readme') updateReadme = true;
    else if (arg === '--verbose') verbose = true;
    else if ((v = value('--only')) !== undefined) only = v.split(',').map((s) => s.trim());
    else if ((v = value('--corpus-limit')) !== undefined) corpusLimit = v;
    else throw new Error(`unknown argument ${arg} (known: ${ARGS_HELP})`);
  }
  const libs = only?.filter((id) => LIBRARY_IDS.includes(id)) ?? [];
  const measurements = only?.filter((id) => !LIBRARY_IDS.includes(id)) ?? [];
  return {
    iterations: positiveInt(env.BENCH_ITERATIONS, 7),
    warmups: env.BENCH_WARMUPS === '0' ? 0 : positiveInt(env.BENCH_WARMUPS, 1),
    updateReadme,
    only: libs.length ? libs : null,
    measurements: measurements.length ? measurements : null,
    opTimeoutMs: positiveInt(env.BENCH_OP_TIMEOUT_MS, 60_000),
    verbose,
    extractIterations: positiveInt(env.BENCH_EXTRACT_ITERATIONS, 3),
    corpusIterations: positiveInt(env.BENCH_CORPUS_ITERATIONS, 1),
    corpusLimit: corpusLimit === undefined ? null : positiveInt(corpusLimit, 0),
    pageDeadlineMs: positiveInt(env.BENCH_PAGE_DEADLINE_MS, 60_000),
    // 20 keeps a full run within ~15 min; Stagehand's two model calls per page dominate it.
    llmPages: env.BENCH_LLM_PAGES === 'all' ? null : positiveInt(env.BENCH_LLM_PAGES, 20),
    actIterations: positiveInt(env.BENCH_ACT_ITERATIONS, 15),
  };
}

export function machineLine(): string {
  return `${os.platform()} ${os.arch()}, ${os.cpus().length} cores`;
}

/** A model as both libraries' constructors take it (the AI SDK's OpenAI provider underneath). */
export interface BenchModel {
  readonly modelName: string;
  readonly apiKey: string;
  readonly baseURL: string;
  /** Handed to the AI SDK's provider factory by both libraries; the bench times requests with it. */
  readonly fetch?: typeof fetch;
}

/**
 * Constructor options for either library: Tendril keeps Stagehand's option names, so one object
 * serves both and the two always launch the same browser (and reach the same model) the same way.
 */
export function clientOptions(launch: LaunchSpec, model?: BenchModel) {
  return {
    env: 'LOCAL' as const,
    verbose: 0 as const,
    disablePino: true,
    localBrowserLaunchOptions: { executablePath: launch.executablePath, headless: true, args: [...launch.args] },
    ...(model ? { model: { ...model } } : {}),
  };
}
