// Bundling Tendril for edge runtimes (no Node): the Node-only modules (launching Chrome, the
// connectURL() bridge, the download folder, reading an init script's file, Stagehand's act and agent caches) are
// swapped for stubs that fail with an explanation when used, reading a DevToolsActivePort file
// likewise, and any other Node built-in stops the build, naming who imported it. So an edge bundle
// that builds is one that imports no Node built-ins.
// Used by esbuild.config.mjs (dist/edge.js) and scripts/function-bundle.ts.

export const NODE_BUILTIN =
  /^node:|^(assert|async_hooks|buffer|child_process|crypto|diagnostics_channel|dns|events|fs|http|https|module|net|os|path|perf_hooks|process|readline|stream|string_decoder|timers|tls|tty|url|util|worker_threads|zlib)(\/.*)?$/;
const NODE_ONLY_MODULES = /[\\/](browser[\\/](launch|cdpBridge|downloads|textFile)|actCache|agentCache)\.js$/;
/** Modules that may import Node built-ins, lazily, on a path edge code never takes. */
const LAZY_NODE_IMPORTERS = /[\\/]src[\\/]browser[\\/]attach\.ts$/;

const WHY = {
  launch:
    'env "LOCAL" launches Chrome, which needs Node; in this runtime use env "HOSTED", or attach to a browser with a ws:// or wss:// cdpUrl.',
  cdpBridge: 'connectURL() serves a WebSocket, which needs Node.',
  downloads: 'a folder for downloads needs Node (files).',
  textFile: 'addInitScript({ path }) reads a file, which needs Node; pass { content } instead.',
  actCache: 'cacheDir keeps actions in files, which needs Node.',
  agentCache: 'cacheDir keeps agent runs in files, which needs Node.',
  file: "a DevToolsActivePort file path as cdpUrl needs Node to read it; give the browser's ws:// URL instead.",
};

export function edgeStubs() {
  return {
    name: 'tendril-edge-stubs',
    setup(build) {
      build.onResolve({ filter: NODE_ONLY_MODULES }, (args) => ({
        path: /launch|cdpBridge|downloads|textFile|actCache|agentCache/.exec(args.path)[0],
        namespace: 'tendril-node-only',
      }));
      build.onResolve({ filter: NODE_BUILTIN }, (args) => {
        if (LAZY_NODE_IMPORTERS.test(args.importer) && args.kind === 'dynamic-import')
          return { path: 'file', namespace: 'tendril-node-only' };
        return { errors: [{ text: `"${args.path}" is a Node built-in, imported by ${args.importer}: edge runtimes have no Node.` }] };
      });
      build.onLoad({ filter: /.*/, namespace: 'tendril-node-only' }, (args) => ({
        contents: `throw new Error(${JSON.stringify(`Not available in this runtime: ${WHY[args.path]}`)});`,
        loader: 'js',
      }));
    },
  };
}

/** esbuild options for an edge bundle: the Web platform, the conditions edge runtimes resolve. */
export const EDGE_OPTIONS = {
  platform: 'browser',
  conditions: ['edge-light', 'worker', 'browser'],
  target: 'es2022',
};
