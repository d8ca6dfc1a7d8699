// Install footprint: what `npm install <package>` puts into an empty project, for Tendril (built and
// packed with `npm pack`, so exactly what would be published) and both Stagehands from the registry.
// Bytes are the files' own sizes (what is downloaded and unpacked), not disk blocks, which depend on
// the file system; packages are the entries of npm's lockfile of that tree. Each install gets a fresh
// folder under .bench/, and npm's cache is shared, so the registry is asked once per package.
import { spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT, SCRATCH_ROOT } from '../../core/config.js';
import { scratchInstall } from '../../core/scratch.js';
import { STAGEHAND4_VERSION } from '../../libraries/stagehand4.js';

export const FOOTPRINT_ID = 'footprint';
const STAGEHAND3_VERSION = '3.7.3';

export interface Footprint {
  readonly label: string;
  /** What was installed: the tarball's name, or package@version. */
  readonly spec: string;
  readonly bytes: number;
  readonly packages: number;
  /** The largest packages, by bytes, for the report. */
  readonly largest: ReadonlyArray<{ name: string; bytes: number }>;
}

export type FootprintOutcome = { ok: true; value: Footprint } | { ok: false; label: string; error: string };

function run(command: string, args: string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 300_000, stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(' ')} failed: ${(result.stderr || result.error?.message || '').trim().slice(-400)}`);
  return result.stdout;
}

/** Sizes of every file under `dir`, symlinks counted as links (npm's .bin entries), not followed. */
function treeBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    total += entry.isDirectory() ? treeBytes(full) : lstatSync(full).size;
  }
  return total;
}

/** The top-level packages of node_modules (scoped ones by their full name) and their sizes. */
function packageSizes(modules: string): Array<{ name: string; bytes: number }> {
  const out: Array<{ name: string; bytes: number }> = [];
  for (const entry of readdirSync(modules, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name === '.bin' || entry.name.startsWith('.')) continue;
    const full = path.join(modules, entry.name);
    if (entry.name.startsWith('@')) {
      for (const inner of readdirSync(full, { withFileTypes: true })) {
        if (inner.isDirectory()) out.push({ name: `${entry.name}/${inner.name}`, bytes: treeBytes(path.join(full, inner.name)) });
      }
    } else {
      out.push({ name: entry.name, bytes: treeBytes(full) });
    }
  }
  return out.sort((a, b) => b.bytes - a.bytes);
}

function measureInstall(label: string, spec: string, shown: string, log: (line: string) => void): Footprint {
  const dir = path.join(SCRATCH_ROOT, 'footprint', label.replace(/\W+/g, '-').toLowerCase());
  rmSync(dir, { recursive: true, force: true });
  scratchInstall(dir, 'tendril-bench-footprint', [spec], log);
  const modules = path.join(dir, 'node_modules');
  // npm's hidden lockfile of the tree it installed (the install saves no package-lock.json).
  const lock = JSON.parse(readFileSync(path.join(modules, '.package-lock.json'), 'utf8')) as { packages: Record<string, unknown> };
  return {
    label,
    spec: shown,
    bytes: treeBytes(modules),
    packages: Object.keys(lock.packages).filter((key) => key !== '').length,
    largest: packageSizes(modules).slice(0, 4),
  };
}

/** Builds and packs this checkout, then installs it and both Stagehands, one after the other. */
export function runFootprint(log: (line: string) => void): FootprintOutcome[] {
  const outcomes: FootprintOutcome[] = [];
  const attempt = (label: string, measure: () => Footprint) => {
    try {
      outcomes.push({ ok: true, value: measure() });
    } catch (error) {
      outcomes.push({ ok: false, label, error: (error as Error).message });
      log(`${FOOTPRINT_ID}: ${label}: ${(error as Error).message}`);
    }
  };
  attempt('Tendril', () => {
    log(`${FOOTPRINT_ID}: building and packing this checkout ...`);
    run('npm', ['run', 'build', '--silent'], REPO_ROOT);
    const packDir = path.join(SCRATCH_ROOT, 'footprint', 'pack');
    rmSync(packDir, { recursive: true, force: true });
    mkdirSync(packDir, { recursive: true });
    const tarball = run('npm', ['pack', '--silent', '--pack-destination', packDir], REPO_ROOT).trim().split('\n').pop()!;
    return measureInstall('Tendril', path.join(packDir, tarball), `${tarball} (npm pack)`, log);
  });
  for (const version of [STAGEHAND3_VERSION, STAGEHAND4_VERSION]) {
    const spec = `@browserbasehq/stagehand@${version}`;
    attempt(`Stagehand ${version}`, () => measureInstall(`Stagehand ${version}`, spec, spec, log));
  }
  return outcomes;
}
