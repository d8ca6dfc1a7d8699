// `tendril mcp`: the MCP server's command line. Browser and model flags as `tendril extract` has
// them; the transport flags are the server's own.

import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { isIP } from 'node:net';
import { runMcpServer } from '../mcp/server.js';
import { TOOL_NAMES } from '../mcp/tools/index.js';
import { DEFAULT_MODEL_TIMEOUT_MS } from '../llm/ask.js';
import type { SdkOptions } from '../types.js';
import { browserLaunchOptions, commandLineModel } from './model.js';
import { parseFlags, parsePort, UsageError } from './usage.js';
import { packageVersion } from './version.js';

/** `text` in lines of at most 100 characters, the lines after the first indented by `indent`. */
function wrap(text: string, indent: number): string {
  const lines = [''];
  for (const word of text.split(' ')) {
    const line = lines[lines.length - 1]!;
    if (line && indent + line.length + 1 + word.length > 100) lines.push(word);
    else lines[lines.length - 1] = line ? `${line} ${word}` : word;
  }
  return lines.join(`\n${' '.repeat(indent)}`);
}

export const MCP_USAGE = `tendril mcp [flags]

Runs Tendril as an MCP server on one browser, started at the first tool call, each client in a
browser context of its own. Speaks stdio unless --port is given. MCP clients start it with:
{ "command": "npx", "args": ["tendril", "mcp"] }.

Tools: ${wrap(`${TOOL_NAMES.join(', ')}.`, 'Tools: '.length)}

Transport:
  --port N             serve Streamable HTTP at http://HOST:N/mcp instead of stdio (0: any free port)
  --host ADDR          listen on ADDR (default 127.0.0.1); anything but loopback lets the network in
  --token T            HTTP: require "Authorization: Bearer T" (default TENDRIL_MCP_TOKEN)
Clients:
  --shared             one browser context (cookies, storage, tabs) for every client, not one each
  --context-idle-timeout MS
                       a client's browser context ends after this long without a tool call
                       (default 1800000, 30 minutes; 0: never)
Browser (default: a local Chrome or Chromium, found as the library finds it, or CHROME_PATH):
  --cdp-url URL        attach to a running Chrome (ws://…, http://host:port, or a DevToolsActivePort path)
  --hosted             use the hosted service: HOSTED_API_URL, HOSTED_API_KEY (HOSTED_PROJECT_ID optional)
  --chrome-args ARGS   extra switches for a launched Chromium (default CHROME_ARGS)
Model (extract, observe, act with an instruction):
  --model NAME         provider/model (default MODEL_NAME, else openai/gpt-4.1-mini); the key from
                       MODEL_API_KEY or the provider's own variable (OPENAI_API_KEY, …)
  --base-url URL       the model server's URL (default MODEL_BASE_URL), for OpenAI-compatible servers
  --model-timeout MS   deadline of a tool call that asks a model (default 120000)
  Without a key, a client that offers sampling lends its own model (sampling/createMessage).
Files:
  --upload-dir DIR     the directory the upload tool may take files from (default: upload is off);
                       nothing outside it is readable through the server
  --trace-dir DIR      a trace zip of each session's context, from its first tool call to its end,
                       in DIR (docs/tracing.md); stop_tracing saves there too (default: the temp folder)
Other:
  --verbose            the library's log on stderr`;

const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  token: { type: 'string' },
  shared: { type: 'boolean' },
  'context-idle-timeout': { type: 'string' },
  'cdp-url': { type: 'string' },
  hosted: { type: 'boolean' },
  'chrome-args': { type: 'string' },
  model: { type: 'string' },
  'base-url': { type: 'string' },
  'model-timeout': { type: 'string' },
  'upload-dir': { type: 'string' },
  'trace-dir': { type: 'string' },
  verbose: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function mcpCommand(argv: string[]): Promise<number> {
  const values = parse(argv);
  if (values.help) {
    process.stdout.write(`${MCP_USAGE}\n`);
    return 0;
  }
  if (values.hosted && values['cdp-url']) throw new UsageError('Choose one browser: --cdp-url or --hosted.', MCP_USAGE);
  const http = transport(values);
  const log = (line: string) => void process.stderr.write(`tendril mcp: ${line}\n`);
  const sdk: SdkOptions = {
    env: values.hosted ? 'HOSTED' : 'LOCAL',
    verbose: values.verbose ? 2 : 0,
    disablePino: !values.verbose,
    model: commandLineModel(values),
    localBrowserLaunchOptions: browserLaunchOptions(values),
  };
  if (http && !http.loopback) {
    log(`WARNING: listening on ${http.host}, not loopback: whoever reaches this port drives the browser, and through it your network.`);
    if (!http.token) log('WARNING: and there is no --token: anyone at all can. Set --token or TENDRIL_MCP_TOKEN.');
  }
  const url = await runMcpServer({
    sdk,
    version: packageVersion(),
    http,
    log,
    modelTimeoutMs: modelTimeout(values['model-timeout']),
    shared: values.shared === true,
    contextIdleMs: contextIdle(values['context-idle-timeout']),
    uploadDir: uploadDir(values['upload-dir']),
    traceDir: values['trace-dir'],
  });
  if (url) process.stdout.write(`tendril mcp listening on ${url}\n`);
  // The process lives on in its transport; the server decides when it ends.
  return new Promise<number>(() => undefined);
}

function parse(argv: string[]) {
  return parseFlags(argv, OPTIONS, MCP_USAGE).values;
}

function modelTimeout(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_MODEL_TIMEOUT_MS;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0)
    throw new UsageError(`--model-timeout takes a positive number of milliseconds, not ${JSON.stringify(raw)}.`, MCP_USAGE);
  return value;
}

/** Long enough for an agent to wait on its user; short enough that forgotten contexts do not pile up. */
const DEFAULT_CONTEXT_IDLE_MS = 30 * 60_000;

function contextIdle(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_CONTEXT_IDLE_MS;
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(value)) {
    throw new UsageError(`--context-idle-timeout takes a number of milliseconds (0: never), not ${JSON.stringify(raw)}.`, MCP_USAGE);
  }
  return value;
}

/** The upload directory, checked at start: a wrong one is a usage error, not a failed tool call later. */
function uploadDir(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const dir = path.resolve(raw);
  if (!raw.trim() || !existsSync(dir) || !statSync(dir).isDirectory())
    throw new UsageError(`--upload-dir takes an existing directory, not ${JSON.stringify(raw)}.`, MCP_USAGE);
  return dir;
}

function transport(values: {
  port?: string;
  host?: string;
  token?: string;
}): { port: number; host: string; loopback: boolean; token: string | undefined } | undefined {
  const token = values.token ?? (process.env.TENDRIL_MCP_TOKEN?.trim() || undefined);
  if (values.port === undefined) {
    if (values.host !== undefined || values.token !== undefined)
      throw new UsageError('--host and --token are for HTTP: give --port too.', MCP_USAGE);
    return undefined;
  }
  const port = parsePort(values.port, MCP_USAGE);
  if (token !== undefined && !token.trim()) throw new UsageError('--token is empty.', MCP_USAGE);
  const host = values.host ?? '127.0.0.1';
  return { port, host, loopback: isLoopback(host), token };
}

function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}
