// `npm run build:extension`: the example extension (examples/extension) built unpacked into
// dist/extension/, ready for chrome://extensions → "Load unpacked". Its worker and panel are bundled
// with `tendril/extension` from this repository's source, the AI SDK included, no Node built-in.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { EXTENSION_ENTRY, EXTENSION_OPTIONS, extensionPlugins, REPO_ROOT } from './extension-bundle.mjs';

export const EXAMPLE_DIR = path.join(REPO_ROOT, 'examples', 'extension');

const fromSource = {
  name: 'tendril-extension-from-source',
  setup(b) {
    b.onResolve({ filter: /^tendril\/extension$/ }, () => ({ path: EXTENSION_ENTRY }));
    b.onResolve({ filter: /^tendril\/extension-relay$/ }, () => ({ path: path.join(REPO_ROOT, 'src', 'extensionRelay.ts') }));
  },
};

/** Writes the unpacked extension into `outdir` (emptied first) and resolves with its path. */
export async function buildExampleExtension(outdir = path.join(REPO_ROOT, 'dist', 'extension')) {
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  await build({
    ...EXTENSION_OPTIONS,
    entryPoints: { worker: path.join(EXAMPLE_DIR, 'worker.ts'), panel: path.join(EXAMPLE_DIR, 'panel.ts') },
    bundle: true,
    // Classic scripts: the manifest's service worker is not a module, the panel loads panel.js plainly.
    format: 'iife',
    minify: true,
    legalComments: 'none',
    outdir,
    logLevel: 'warning',
    plugins: [fromSource, ...extensionPlugins()],
  });
  for (const file of ['manifest.json', 'panel.html']) copyFileSync(path.join(EXAMPLE_DIR, file), path.join(outdir, file));
  return outdir;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const outdir = await buildExampleExtension();
  console.log(
    `The example extension is in ${path.relative(process.cwd(), outdir) || outdir}: load it unpacked (see examples/extension/README.md).`,
  );
}
