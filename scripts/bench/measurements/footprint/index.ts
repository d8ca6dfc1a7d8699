// Install footprint: no browser, npm installs into empty folders. Its own block of docs/benchmarks.md,
// so a run of it alone updates it.
import { spawnSync } from 'node:child_process';
import { runFootprint } from './measure.js';
import { renderFootprint } from './report.js';

export { FOOTPRINT_ID } from './measure.js';
export { FOOTPRINT_END, FOOTPRINT_START } from './report.js';

/** `date`: the run's, as the other tables' lines give it. */
export function footprint(log: (line: string) => void, date: string): { readonly block: string; readonly failed: boolean } {
  const outcomes = runFootprint(log);
  return {
    block: renderFootprint(outcomes, `${date} · Node ${process.version} · npm ${npmVersion()}`),
    failed: outcomes.some((o) => !o.ok),
  };
}

function npmVersion(): string {
  return spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['--version'], { encoding: 'utf8' }).stdout?.trim() || 'unknown';
}
