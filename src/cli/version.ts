// `tendril --version`: the version in the package.json of the code that runs, read when asked, so
// that it is always the installed one (no copy to forget at a release).

import { readFileSync } from 'node:fs';

/** The bundle (dist/cli.js) is one folder below package.json; this file, run from a clone, two. */
const CANDIDATES = ['../package.json', '../../package.json'];

export function packageVersion(): string {
  for (const candidate of CANDIDATES) {
    let meta: { name?: unknown; version?: unknown };
    try {
      meta = JSON.parse(readFileSync(new URL(candidate, import.meta.url), 'utf8')) as typeof meta;
    } catch {
      continue; // not there (or not JSON): the other layout
    }
    if (meta.name === 'tendril' && typeof meta.version === 'string') return meta.version;
  }
  throw new Error(`tendril's package.json is not beside ${import.meta.url}: reinstall the package.`);
}
