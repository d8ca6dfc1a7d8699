#!/usr/bin/env node
// The `tendril` command. Installed from npm, it runs the bundle (dist/cli.js). In a clone of the
// repository (src/ beside this file), it runs the source through tsx instead, so that `npx tendril`
// works right after `npm ci`, with no build and never an outdated one: npx links a package's own
// bin from its folder, and this file, unlike dist/, is there in every clone.

import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = new URL('../', import.meta.url);
const source = new URL('src/cli/main.ts', root);

if (!existsSync(source)) {
  await import('../dist/cli.js');
} else {
  let tsx;
  try {
    tsx = await import('tsx/esm/api');
  } catch {
    process.stderr.write('tendril: this clone has no node_modules: run `npm ci` in it first.\n');
    process.exit(2);
  }
  // The scripts injected into pages are generated from src/injected/ (npm run gen); a fresh clone has none yet.
  if (!existsSync(new URL('src/generated/reader.ts', root))) {
    execFileSync(process.execPath, [fileURLToPath(new URL('esbuild.config.mjs', root)), '--page-scripts'], {
      cwd: fileURLToPath(root),
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }
  tsx.register();
  await import(source.href);
}
