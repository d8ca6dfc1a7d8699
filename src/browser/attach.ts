import { Connection } from '../cdp/connection.js';
import { WebSocketTransport } from '../cdp/wsTransport.js';
import { BrowserConnectError, InvalidOptionError } from '../errors.js';
import type { Logger } from '../logger.js';
import { redactUrl } from '../util/redact.js';
import type { BrowserHandle } from './browser.js';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '0.0.0.0', '[::1]', '::1']);

/** A host name that reaches this machine. */
export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK.has(hostname) || /^127\./.test(hostname);
}

/**
 * Turns any accepted form of `cdpUrl` into the browser's WebSocket endpoint:
 * `ws(s)://` as is; `http(s)://host:port` through `/json/version`; otherwise the path of a
 * `DevToolsActivePort` file, or of the profile directory that holds one.
 */
export async function resolveBrowserEndpoint(cdpUrl: string, headers: Record<string, string>, timeoutMs: number): Promise<string> {
  if (/^wss?:\/\//i.test(cdpUrl)) return cdpUrl;
  if (/^https?:\/\//i.test(cdpUrl)) return fromHttp(cdpUrl, headers, timeoutMs);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(cdpUrl)) {
    throw new InvalidOptionError(
      `cdpUrl "${redactUrl(cdpUrl)}" has an unsupported scheme. Use ws://, wss://, http://, https:// or a DevToolsActivePort file path.`,
    );
  }
  return fromActivePortFile(cdpUrl);
}

async function fromHttp(base: string, headers: Record<string, string>, timeoutMs: number): Promise<string> {
  const given = new URL(base);
  // A full browser URL given with an http scheme: just switch the scheme.
  if (given.pathname.startsWith('/devtools/')) {
    given.protocol = given.protocol === 'https:' ? 'wss:' : 'ws:';
    return given.toString();
  }
  const versionUrl = new URL('/json/version', given);
  let body: { webSocketDebuggerUrl?: string };
  try {
    const response = await fetch(versionUrl, { headers, signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    body = (await response.json()) as typeof body;
  } catch (error) {
    throw new BrowserConnectError(
      `Could not read ${redactUrl(versionUrl.toString())} (${(error as Error).message}). ` +
        'Is Chrome running with --remote-debugging-port on that port?',
      { cause: error },
    );
  }
  if (!body.webSocketDebuggerUrl) {
    throw new BrowserConnectError(`${redactUrl(versionUrl.toString())} has no webSocketDebuggerUrl; is that a Chrome debug endpoint?`);
  }
  const endpoint = new URL(body.webSocketDebuggerUrl);
  // Chrome names the address it bound; behind a port mapping or proxy the address we reached is right.
  if (isLoopbackHost(endpoint.hostname) && !isLoopbackHost(given.hostname)) {
    endpoint.host = given.host;
    if (given.protocol === 'https:') endpoint.protocol = 'wss:';
  }
  return endpoint.toString();
}

async function fromActivePortFile(location: string): Promise<string> {
  // Files need Node; loaded here so that attaching by URL (the HOSTED path, edge runtimes) needs none.
  const [{ readFile, stat }, { default: path }] = await Promise.all([import('node:fs/promises'), import('node:path')]);
  let file = location;
  try {
    if ((await stat(location)).isDirectory()) file = path.join(location, 'DevToolsActivePort');
  } catch {
    throw new InvalidOptionError(
      `cdpUrl "${location}" is neither a ws://, wss:// or http:// URL nor an existing DevToolsActivePort file or profile directory.`,
    );
  }
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new BrowserConnectError(
      `Could not read ${file} (${(error as Error).message}). Chrome writes it when started with --remote-debugging-port.`,
    );
  }
  const [port, browserPath] = text.split(/\r?\n/).map((line) => line.trim());
  if (!/^\d+$/.test(port ?? '') || !browserPath?.startsWith('/devtools/browser/')) {
    throw new BrowserConnectError(`${file} does not look like a DevToolsActivePort file (a port line, then /devtools/browser/<id>).`);
  }
  return `ws://127.0.0.1:${port}${browserPath}`;
}

class AttachedBrowser implements BrowserHandle {
  readonly kind = 'attached' as const;
  constructor(readonly connection: Connection) {}
  async close(): Promise<void> {
    // Never Browser.close: the browser belongs to the user. Closing the socket detaches every
    // session, and Chrome resumes any target that was paused waiting for us.
    this.connection.close();
  }
}

export async function attachToBrowser(
  cdpUrl: string,
  headers: Record<string, string> | undefined,
  timeoutMs: number,
  logger: Logger,
  commandTimeoutMs: number,
): Promise<BrowserHandle> {
  const endpoint = await resolveBrowserEndpoint(cdpUrl, headers ?? {}, timeoutMs);
  logger.info('browser', 'Attaching to a running browser', { endpoint: redactUrl(endpoint) });
  const transport = await WebSocketTransport.connect(endpoint, { headers, timeoutMs });
  const connection = new Connection(transport, {
    commandTimeoutMs,
    trace: logger.verbose >= 2 ? (line) => logger.debug('cdp', line) : undefined,
  });
  try {
    const version = await connection.rootSession.send('Browser.getVersion', undefined, { timeoutMs });
    logger.info('browser', 'Attached', { product: version.product });
  } catch (error) {
    connection.close();
    throw new BrowserConnectError(`Connected to ${redactUrl(endpoint)}, but it did not answer as a browser.`, { cause: error });
  }
  return new AttachedBrowser(connection);
}
