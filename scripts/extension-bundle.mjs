// Bundling `tendril/extension` (src/extension.ts): an ES module for Chrome extensions. It must not
// import a Node built-in: the build fails naming the module that would. The AI SDK (`ai`,
// `@ai-sdk/*`) stays an import, resolved by the extension's own bundler; so does every optional peer.
// Used by esbuild.config.mjs (dist/extension.js), scripts/build-extension.mjs, the tests and the bench.
import { build } from 'esbuild';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EDGE_OPTIONS, NODE_BUILTIN } from './edge-stubs.mjs';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const EXTENSION_ENTRY = path.join(REPO_ROOT, 'src', 'extension.ts');
/** What the size is measured without: the AI SDK, which an extension bundles once for all its code. */
export const AI_SDK = ['ai', '@ai-sdk/*'];
/**
 * docs/extension.md's promise: minified, without the AI SDK, under this many bytes (248 kB, kB = 1000 B).
 * It was 220 kB until the third round of hostile pages (one input queue per tab, deadlines per action,
 * evaluate's NaN/-0/BigInt) and the hooks of storage states and budgets took 1.2 kB that no cut found;
 * 246 kB with the trace recorder; 248 kB since the driver keeps the events chrome.debugger delivers
 * ahead of the answers they follow (1.1 kB) and navigates for a status alone (0.6 kB).
 */
export const EXTENSION_SIZE_TARGET = 248_000;

/** Fails the build on any Node built-in, naming who imported it: an extension has no Node. */
export function noNodeBuiltins() {
  return {
    name: 'tendril-no-node-builtins',
    setup(b) {
      b.onResolve({ filter: NODE_BUILTIN }, (args) => ({
        errors: [{ text: `"${args.path}" is a Node built-in, imported by ${args.importer}: a Chrome extension has no Node.` }],
      }));
    },
  };
}

/**
 * The extension's Sdk always turns pino off (src/extension.ts sends log lines to the console: pino
 * writes to file descriptors, which an extension does not have), so src/util/pinoSink.ts, and pino
 * with it, is left out: a stub stands in for it, failing loudly should anything ever call it. It
 * saves a tenth of the bundle.
 */
export function withoutPino() {
  return {
    name: 'tendril-without-pino',
    setup(b) {
      b.onResolve({ filter: /\/util\/pinoSink\.js$/ }, () => ({ path: 'pinoSink', namespace: 'tendril-without-pino' }));
      b.onLoad({ filter: /.*/, namespace: 'tendril-without-pino' }, () => ({
        contents:
          'export function pinoSink() { throw new Error("pino is left out of tendril/extension: log lines go to the console or to the `logger` option."); }',
        loader: 'js',
      }));
    },
  };
}

/**
 * OpenTelemetry cannot load in an extension's service worker (import() is refused there), so
 * src/util/tracing.ts gives way to no-ops with the same exports; a missing one fails the build.
 */
export function withoutTracing() {
  return {
    name: 'tendril-without-tracing',
    setup(b) {
      b.onResolve({ filter: /\/util\/tracing\.js$/ }, () => ({ path: 'tracing', namespace: 'tendril-without-tracing' }));
      b.onLoad({ filter: /.*/, namespace: 'tendril-without-tracing' }, () => ({
        contents: [
          'export const loadTracing = async () => {};',
          'export const traced = (_name, _attributes, work) => work({ recording: false, set() {} });',
          'export const injectTraceHeaders = () => {};',
          'export const withIncomingTrace = (_headers, work) => work();',
          'export const spanUrl = (url) => url;',
          'export const tracedOperation = (_operation, _env, _metrics, _pageOf, work) => work();',
          'export const tracedGoto = (_page, _url, _waitUntil, work) => work();',
          'export const tracedModelRequest = (_label, work) => work();',
        ].join('\n'),
        loader: 'js',
      }));
    },
  };
}

/**
 * An extension's bundler always includes the AI SDK, so src/llm/aiSdk.ts's check for a missing
 * package has nothing to catch there: a plain load stands in for it.
 */
export function withoutAiSdkCheck() {
  return {
    name: 'tendril-without-ai-sdk-check',
    setup(b) {
      b.onResolve({ filter: /(^|\/)aiSdk\.js$/ }, () => ({ path: 'aiSdk', namespace: 'tendril-without-ai-sdk-check' }));
      b.onLoad({ filter: /.*/, namespace: 'tendril-without-ai-sdk-check' }, () => ({
        contents: 'export const importAiSdk = (_name, load) => load();',
        loader: 'js',
      }));
    },
  };
}

/**
 * chrome.debugger has tab sessions only, no browser session: it cannot make isolated browser
 * contexts (Target.createBrowserContext), so newContext() fails there whatever is tried. A stub of
 * src/driver/isolation.ts says so at once, with the message the real module gives, and keeps
 * the bytes for what an extension can use.
 */
export function withoutIsolation() {
  return {
    name: 'tendril-without-isolation',
    setup(b) {
      b.onResolve({ filter: /(^|\/)isolation\.js$/ }, () => ({ path: 'isolation', namespace: 'tendril-without-isolation' }));
      b.onLoad({ filter: /.*/, namespace: 'tendril-without-isolation' }, () => ({
        contents: [
          "import { SdkStateError } from './errors.ts';",
          'export async function createBrowserContext() {',
          '  throw new SdkStateError(\'newContext(): an extension has tab sessions only, no isolated contexts; launch or attach to a browser (env "LOCAL") for isolated contexts.\');',
          '}',
          'export const isolatedDownloads = async () => {}, disposeBrowserContext = isolatedDownloads, startIsolated = isolatedDownloads;',
        ].join('\n'),
        loader: 'js',
        resolveDir: path.join(REPO_ROOT, 'src'),
      }));
    },
  };
}

/**
 * An extension drives the user's own tabs, never a hosted session, so no hosted server's egress
 * proxy ever answers for a site there: src/driver/upstream.ts gives way to "nothing to say".
 */
export function withoutHostedUpstream() {
  return {
    name: 'tendril-without-hosted-upstream',
    setup(b) {
      b.onResolve({ filter: /(^|\/)upstream\.js$/ }, (args) =>
        path.resolve(args.resolveDir, args.path) === path.join(REPO_ROOT, 'src', 'driver', 'upstream.js')
          ? { path: 'upstream', namespace: 'tendril-without-hosted-upstream' }
          : undefined,
      );
      b.onLoad({ filter: /.*/, namespace: 'tendril-without-hosted-upstream' }, () => ({
        contents: 'export const upstreamFailure = () => undefined;\nexport const tunnelHint = () => "";',
        loader: 'js',
      }));
    },
  };
}

/** The plugins every extension build uses: no Node built-in, no pino, no tracing, no AI SDK check, no isolated contexts, no hosted proxy's answers. */
export function extensionPlugins() {
  return [noNodeBuiltins(), withoutPino(), withoutTracing(), withoutAiSdkCheck(), withoutIsolation(), withoutHostedUpstream()];
}

/**
 * esbuild options for code that runs in an extension (Chrome's service worker or its pages). No
 * keepNames (it costs a twentieth of the bundle): the one place names matter, the errors' `name`,
 * is spelled out in src/errors.ts, which also survives the extension's own bundler minifying it.
 */
export const EXTENSION_OPTIONS = { ...EDGE_OPTIONS, conditions: ['browser', 'worker'] };

/**
 * Bundles src/extension.ts (or `entry`). `outfile` writes it (with a source map); without, it is only
 * measured. Resolves with the bytes of the JavaScript and the source files that went in.
 */
export async function bundleExtensionEntry({ outfile, minify = false, entry = EXTENSION_ENTRY } = {}) {
  const peers = ['@ghostery/trackerdb', 'playwright-core', 'puppeteer-core', 'zod'];
  const result = await build({
    ...EXTENSION_OPTIONS,
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    external: [...AI_SDK, ...peers],
    minify,
    legalComments: 'none',
    sourcemap: outfile ? true : false,
    metafile: true,
    write: Boolean(outfile),
    outfile: outfile ?? path.join(REPO_ROOT, 'dist', 'extension.measure.js'),
    logLevel: 'silent',
    plugins: extensionPlugins(),
  });
  const [name, output] = Object.entries(result.metafile.outputs).find(([file]) => file.endsWith('.js'));
  return { file: name, bytes: output.bytes, inputs: Object.keys(result.metafile.inputs) };
}
