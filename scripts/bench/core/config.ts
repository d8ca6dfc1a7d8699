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

/** The bench's browser unless CHROME_PATH names another. */
export const DEFAULT_CHROME = '/usr/bin/chromium';

export function launchSpec(): LaunchSpec {
  return { executablePath: process.env.CHROME_PATH || DEFAULT_CHROME, args: CHROME_ARGS };
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
