// The two functions the `function` measurement compares, each bundled by esbuild into one minified
// ES module for Node: Tendril's reference function (examples/serverless) by scripts/function-bundle.ts,
// as `npm run serve:function` and the tests bundle it, and stagehand-function.ts with the very same
// options, its imports resolved from Stagehand's scratch install.
import { build } from 'esbuild';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleFunction } from '../../../function-bundle.js';
// @ts-expect-error: a plain ES module shared with esbuild.config.mjs, without types
import { bundleExtensionEntry } from '../../../extension-bundle.mjs';
import { SCRATCH as STAGEHAND_SCRATCH } from '../../libraries/stagehand.js';

export const STAGEHAND_FUNCTION = path.join(path.dirname(fileURLToPath(import.meta.url)), 'stagehand-function.ts');

/** scripts/function-bundle.ts's banner, character for character (it does not export it). */
const BANNER = "import { createRequire as __tendrilRequire } from 'node:module'; const require = __tendrilRequire(import.meta.url);";

export interface BuiltFunction {
  /** The one file to import. */
  readonly file: string;
  /** Its size on disk. */
  readonly bytes: number;
}

/** Into `dir`, which should have no node_modules above it, so that the file has to stand alone. */
export async function bundleTendrilFunction(dir: string): Promise<BuiltFunction> {
  const { file } = await bundleFunction('node', path.join(dir, 'tendril-function.mjs'), { minify: true });
  return { file, bytes: statSync(file).size };
}

export async function bundleStagehandFunction(dir: string): Promise<BuiltFunction> {
  const file = path.join(dir, 'stagehand-function.mjs');
  await build({
    stdin: {
      contents: readFileSync(STAGEHAND_FUNCTION, 'utf8'),
      // Where `@browserbasehq/stagehand` and `zod` resolve from: the scratch install, never the project.
      resolveDir: STAGEHAND_SCRATCH,
      sourcefile: path.basename(STAGEHAND_FUNCTION),
      loader: 'ts',
    },
    bundle: true,
    outfile: file,
    minify: true,
    legalComments: 'none',
    logLevel: 'silent',
    platform: 'node',
    target: 'node18',
    format: 'esm',
    banner: { js: BANNER },
  });
  return { file, bytes: statSync(file).size };
}

/**
 * `tendril/extension` (src/extension.ts) as esbuild.config.mjs measures it: one minified ES module,
 * the AI SDK left out (an extension bundles it once, for all its code). Stagehand has no such entry.
 */
export async function measureExtensionEntry(): Promise<number> {
  const { bytes } = (await bundleExtensionEntry({ minify: true })) as { bytes: number };
  return bytes;
}
