// A scratch install for the bench (a Stagehand version and what it needs, an MCP server the mcp
// measurement talks to, or a package whose install footprint is measured): its own folder under
// .bench/, never a dependency of the project.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * `npm install`s `specs` into `dir` (which gets a package.json of its own, so that npm does not
 * walk up into the project) and resolves with the seconds it took.
 */
export function scratchInstall(
  dir: string,
  name: string,
  specs: readonly string[],
  log: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): number {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'package.json'),
    `${JSON.stringify({ name, private: true, description: 'scratch install for npm run bench' }, null, 2)}\n`,
  );
  log(`installing ${specs.join(' ')} into ${path.relative(process.cwd(), dir) || dir} ...`);
  const t0 = performance.now();
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(npm, ['install', '--no-save', '--no-audit', '--no-fund', '--loglevel=error', ...specs], {
    cwd: dir,
    stdio: ['ignore', 'inherit', 'inherit'],
    timeout: 300_000,
    env,
  });
  if (result.status !== 0) throw new Error(`npm install in ${dir} failed (${result.error?.message ?? `exit ${result.status}`})`);
  return (performance.now() - t0) / 1000;
}

/** A scratch install kept between runs: made once, and checked on every run before it is used. */
export interface ScratchPackage {
  readonly dir: string;
  /** Its package.json's name. */
  readonly name: string;
  readonly specs: readonly string[];
  /** npm's environment, when it needs more than the bench's. */
  readonly env?: NodeJS.ProcessEnv;
  /** What keeps the install from being used, said as after an install that did not give it; null when usable. */
  readonly problem: () => string | null;
  /** Added to the "installed in N s" line. */
  readonly detail?: () => string;
}

/**
 * Installs `p` unless its folder holds a marker naming the same specs and `p.problem()` finds
 * nothing; the marker is written only once the new install has no problem either.
 */
export function ensureScratch(p: ScratchPackage, log: (line: string) => void): void {
  const marker = path.join(p.dir, '.installed');
  const wanted = p.specs.join(' ');
  if (existsSync(marker) && readFileSync(marker, 'utf8').trim() === wanted && p.problem() === null) return;
  const seconds = scratchInstall(p.dir, p.name, p.specs, log, p.env);
  const problem = p.problem();
  if (problem !== null) throw new Error(problem);
  writeFileSync(marker, `${wanted}\n`);
  log(`installed in ${seconds.toFixed(1)} s${p.detail?.() ?? ''}`);
}

/**
 * The package.json of `name` as Node would find it from `fromDir` (walking up node_modules folders);
 * some packages' `exports` (Stagehand 4.4.0's) hide it from `require.resolve`.
 */
export function packageJson(name: string, fromDir: string): string | null {
  for (let dir = fromDir; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name, 'package.json');
    if (existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) return null;
  }
}

/** The version of `name` that `fromDir` would import, or null when there is none. */
export function installedVersion(name: string, fromDir: string): string | null {
  try {
    const file = packageJson(name, fromDir);
    return file ? ((JSON.parse(readFileSync(file, 'utf8')) as { version?: string }).version ?? null) : null;
  } catch {
    return null;
  }
}

/** Absolute path of a package's ESM entry as Node resolves it from `fromDir`, to import it by path. */
export function esmEntry(name: string, fromDir: string): string {
  const pkgJson = packageJson(name, fromDir);
  if (!pkgJson) throw new Error(`${name} is not installed in ${fromDir}`);
  const pkg = JSON.parse(readFileSync(pkgJson, 'utf8')) as {
    exports?: { '.'?: { import?: string | { default?: string } } };
    module?: string;
  };
  const imp = pkg.exports?.['.']?.import;
  const rel = typeof imp === 'string' ? imp : (imp?.default ?? pkg.module);
  if (!rel) throw new Error(`${name} has no ESM entry point`);
  return path.join(path.dirname(pkgJson), rel);
}
