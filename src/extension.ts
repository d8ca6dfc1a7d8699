// The package entry `tendril/extension`: the Sdk inside a Chrome extension (MV3 service worker or
// extension page), driving the user's own tabs through chrome.debugger. Only env "EXTENSION": nothing
// here launches Chrome, serves connectURL() or talks to a hosted browser, so the bundle carries no
// Node built-in and no hosted client (esbuild.config.mjs fails the build if a Node built-in slips in).
import { extension } from './env/extension.js';
import { SdkCore, type SdkEntry } from './sdkCore.js';
import { recordTraces } from './trace/recorder.js';
import type { LogLine, SdkOptions } from './types.js';

const extensionEntry: SdkEntry = {
  available: [extension],
  refuse: (env) =>
    `tendril/extension runs only env "EXTENSION" (this browser's tabs). For env ${JSON.stringify(env)}, ` +
    "use `import { Sdk } from 'tendril'` in Node or an edge runtime.",
  tracing: recordTraces,
};

/**
 * The client inside a Chrome extension. `init()` attaches to the active tab (or to
 * `extension.tabIds`), `context.pages()` are the attached tabs, `context.newPage(url)` opens a tab,
 * `close()` detaches and leaves every tab open. Model calls go from the extension straight to the
 * provider (`model.baseURL` for OpenAI-compatible servers).
 */
export class Sdk extends SdkCore {
  constructor(options: SdkOptions = {}) {
    super(toConsole(options), extensionEntry);
  }
}

/**
 * pino writes to file descriptors, which an extension does not have: its lines go to the console
 * instead (the service worker's DevTools), unless the caller takes them or turns them off.
 */
function toConsole(options: SdkOptions): SdkOptions {
  const logger = options.logger ?? (options.disablePino ? undefined : consoleLine);
  return { ...options, disablePino: true, logger };
}

function consoleLine(line: LogLine): void {
  const text = `[tendril:${line.category}] ${line.message}`;
  const write = line.level === 0 ? console.error : line.level === 1 ? console.info : console.debug;
  if (line.auxiliary) write(text, line.auxiliary);
  else write(text);
}

export * from './publicApi.js';
