// A scratch install for the bench (a Stagehand version and what it needs): its own folder under
// .bench/, never a dependency of the project.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * `npm install`s `specs` into `dir` (which gets a package.json of its own, so that npm does not
 * walk up into the project) and resolves with the seconds it took.
 */
export function scratchInstall(dir: string, name: string, specs: readonly string[], log: (line: string) => void, env: NodeJS.ProcessEnv = process.env): number {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify({ name, private: true, description: 'scratch install for npm run bench' }, null, 2)}\n`);
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
