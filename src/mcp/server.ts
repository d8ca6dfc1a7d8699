// `tendril mcp`: Tendril as a Model Context Protocol server, over stdio (what MCP clients start
// by default) or Streamable HTTP. The SDK makes a fresh protocol instance per connection (stdio),
// per 2025-era session or per 2026-07-28 request (HTTP); all of them share this process's one
// browser, each client in a browser context of its own (contexts.ts) unless `shared`.

import { McpServer, type McpServerFactory } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { loadAiSdk } from '../llm/generate.js';
import { Sdk } from '../sdk.js';
import type { SdkOptions } from '../types.js';
import { McpBrowser } from './browser.js';
import { ClientContexts } from './contexts.js';
import { serveHttp } from './http.js';
import { registerTools, type ToolSettings } from './tools/index.js';

/** How long shutting down may take before the process exits anyway (Chrome ends with its pipe). */
const CLOSE_DEADLINE_MS = 10_000;

const INSTRUCTIONS =
  'Tendril drives a real Chromium. Start with navigate, then read with page_text (the page as compact text, every frame and shadow ' +
  'root included) and act on what you read. Actions answer briefly; ask for include_page_text, or call page_text, to see the result.';

export interface McpServerSettings {
  sdk: SdkOptions;
  /** The version the server tells clients: the package's, which the command line reads (cli/version.ts). */
  version: string;
  /** Streamable HTTP on this port; stdio when undefined. */
  http?: { port: number; host: string; loopback: boolean; token: string | undefined };
  /** The deadline of a tool call that asks a model (extract, act, observe), in ms. */
  modelTimeoutMs: number;
  /** The directory `upload` may take files from (--upload-dir); undefined: upload is off. */
  uploadDir?: string;
  /** Where stop_tracing writes its traces (--trace-dir); undefined: the system's temp folder. */
  traceDir?: string;
  /** One browser context for every client (`--shared`), rather than one each. */
  shared: boolean;
  /** How long a client's browser context may go without a tool call before it ends, in ms; 0: never. */
  contextIdleMs: number;
  /** Where the server's own lines go (stderr: stdout is the protocol's in stdio mode). */
  log: (line: string) => void;
}

export function serverFactory(contexts: ClientContexts, tools: ToolSettings, version: string): McpServerFactory {
  return () => {
    const server = new McpServer({ name: 'tendril', version }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
    registerTools(server, contexts, tools);
    return server;
  };
}

/**
 * Runs until the client goes (stdin ends) or a signal comes, then closes the browser and exits.
 * Resolves with the URL in HTTP mode, once listening; in stdio mode once serving.
 */
export async function runMcpServer(settings: McpServerSettings): Promise<string | undefined> {
  const browser = new McpBrowser(settings.sdk);
  // Every tool call that asks a model needs the AI SDK, whose first load is seconds on a busy
  // machine: start it now, while the client starts and the browser launches, not in a call's time.
  try {
    if (!Sdk.environment(settings.sdk).modelsOnService) void loadAiSdk().catch(() => undefined);
  } catch {
    // Options the environment refuses are the first tool call's to report, as before.
  }
  const contexts = new ClientContexts(browser, {
    shared: settings.shared,
    http: settings.http !== undefined,
    idleMs: settings.contextIdleMs,
    log: settings.log,
    traceDir: settings.traceDir,
  });
  const factory = serverFactory(
    contexts,
    {
      modelTimeoutMs: settings.modelTimeoutMs,
      log: settings.log,
      uploadDir: settings.uploadDir,
      traceDir: settings.traceDir,
    },
    settings.version,
  );
  const onError = (error: Error) => settings.log(`${error.name}: ${error.message}`);
  let closeTransport: () => Promise<void>;
  let url: string | undefined;
  if (settings.http) {
    const sessions = {
      started: (id: string, principal: string) => contexts.sessionStarted(id, principal),
      ended: (id: string) => contexts.sessionEnded(id),
    };
    const server = await serveHttp(factory, { ...settings.http, onError, sessions });
    contexts.onSessionExpired = (id) => void server.endSession(id);
    closeTransport = () => server.close();
    url = server.url;
  } else {
    const handle = serveStdio(factory, { onerror: onError });
    closeTransport = () => handle.close();
    // The client closing our stdin is how stdio servers are told to stop.
    process.stdin.once('end', () => void shutdown('stdin ended'));
    process.stdin.once('close', () => void shutdown('stdin closed'));
  }

  let stopping: Promise<void> | undefined;
  function shutdown(reason: string): Promise<void> {
    stopping ??= (async () => {
      settings.log(`stopping (${reason})`);
      const forced = setTimeout(() => {
        settings.log(`the browser did not close within ${CLOSE_DEADLINE_MS} ms; exiting anyway`);
        process.exit(1);
      }, CLOSE_DEADLINE_MS);
      forced.unref();
      await contexts.stop();
      await Promise.allSettled([browser.close(), closeTransport()]);
      process.exit(0);
    })();
    return stopping;
  }
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void shutdown(signal));
  return url;
}
