// The reference function (examples/serverless) bundled by esbuild into one file, as a platform would
// bundle it: `tendril` is this repository's source, zod comes from its node_modules. For the local
// function server, the edge-runtime tests and the bench (bundle size, cold start).

import { build } from 'esbuild';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
// @ts-expect-error: a plain ES module shared with esbuild.config.mjs, without types
import { EDGE_OPTIONS, edgeStubs } from './edge-stubs.mjs';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const FUNCTION_DIR = path.join(REPO_ROOT, 'examples', 'serverless');

/** What a HOSTED-only function leaves out of its bundle. */
export const AI_SDK_EXTERNALS = ['ai', '@ai-sdk/*'] as const;

export interface FunctionBundle {
  file: string;
  bytes: number;
}

/**
 * `node`: api/run.ts as an ES module for Node (named GET/POST exports). `edge`: api/run-edge.ts as a
 * script for an edge runtime, whose fetch handler calls the function; it imports no Node built-in
 * (the build fails if anything would).
 */
export async function bundleFunction(
  runtime: 'node' | 'edge',
  outfile: string,
  options: { minify?: boolean } = {},
): Promise<FunctionBundle> {
  const tendril = {
    name: 'tendril-from-source',
    setup: (b: { onResolve: Function }) => b.onResolve({ filter: /^tendril$/ }, () => ({ path: path.join(REPO_ROOT, 'src', 'index.ts') })),
  };
  // The function runs with env "HOSTED": its models run on the service, so the AI SDK, which Tendril
  // loads only on a model call of its own, stays out (it is resolved at run time if ever needed).
  const common = {
    bundle: true,
    outfile,
    external: [...AI_SDK_EXTERNALS],
    minify: options.minify ?? true,
    legalComments: 'none' as const,
    metafile: true,
    logLevel: 'silent' as const,
  };
  const result =
    runtime === 'node'
      ? await build({
          ...common,
          entryPoints: [path.join(FUNCTION_DIR, 'api', 'run.ts')],
          platform: 'node',
          target: 'node18',
          format: 'esm',
          // CommonJS dependencies require() Node's modules; an ES module has no require of its own.
          banner: {
            js: "import { createRequire as __tendrilRequire } from 'node:module'; const require = __tendrilRequire(import.meta.url);",
          },
          plugins: [tendril as never],
        })
      : await build({
          ...common,
          ...EDGE_OPTIONS,
          format: 'iife',
          stdin: {
            // What the platform does for `export default` in an edge function: answer each fetch with it.
            contents: `import handler from './api/run-edge.ts';\naddEventListener('fetch', (event) => event.respondWith(handler(event.request)));\n`,
            resolveDir: FUNCTION_DIR,
            loader: 'ts',
          },
          plugins: [tendril as never, edgeStubs()],
        });
  const bytes = Object.values(result.metafile!.outputs).reduce((sum, output) => sum + output.bytes, 0);
  return { file: outfile, bytes };
}
