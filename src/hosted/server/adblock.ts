// browserSettings.blockAds: a session's Chromium gets a proxy auto-config (PAC) script that sends
// requests for ad and tracker hosts (and their subdomains) to a "proxy" that drops them, and every
// other request DIRECT. Blocking in the network stack covers every frame, worker and process of the
// browser with no DevTools plumbing per target, and costs a dictionary lookup per request.
//
// The host list: BLOCK_LIST_FILE (hosts-file lines, bare domains, or `||domain^` rules), else the
// advertising and analytics domains of Ghostery's tracker database (@ghostery/trackerdb, an optional
// peer; its data is licensed CC-BY-NC-SA 4.0). Read from disk once, never fetched.

import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { InvalidOptionError } from '../../errors.js';
import type { Logger } from '../../logger.js';

const TRACKERDB = '@ghostery/trackerdb';
const BLOCKED_CATEGORIES = new Set(['advertising', 'site_analytics', 'pornvertising']);
const HOST = /^(?=.{1,253}$)[a-z0-9_-]+(\.[a-z0-9_-]+)+$/;

/** Hosts from a list file: `0.0.0.0 host` / `127.0.0.1 host`, a bare `host`, or `||host^`; `#` and `!` start comments. */
export function parseBlockList(text: string): string[] {
  const hosts = new Set<string>();
  for (const raw of text.split('\n')) {
    const line = raw.replace(/[#!].*$/, '').trim().toLowerCase();
    if (!line) continue;
    const rule = /^\|\|([^/^$*]+)\^(\$.*)?$/.exec(line);
    const words = line.split(/\s+/);
    const host = rule ? rule[1]! : words.length === 2 && /^(0\.0\.0\.0|127\.0\.0\.1|::1?)$/.test(words[0]!) ? words[1]! : words.length === 1 ? words[0]! : '';
    if (HOST.test(host) && host !== 'localhost') hosts.add(host);
  }
  return [...hosts];
}

async function trackerDbHosts(): Promise<string[]> {
  let entry: string;
  try {
    entry = createRequire(import.meta.url).resolve(TRACKERDB);
  } catch {
    throw new InvalidOptionError(
      `blockAds needs a block list, and none is installed: run \`npm install ${TRACKERDB}\` next to the server (its data is CC-BY-NC-SA 4.0), ` +
        'or set BLOCK_LIST_FILE to a hosts file of your own.',
    );
  }
  // The package exports only its engine; the plain JSON export sits beside it in dist/.
  const file = path.join(path.dirname(entry), '..', 'trackerdb.json');
  const db = JSON.parse(await readFile(file, 'utf8')) as { domains: Record<string, string>; patterns: Record<string, { category?: string }> };
  return Object.entries(db.domains)
    .filter(([, pattern]) => BLOCKED_CATEGORIES.has(db.patterns[pattern]?.category ?? ''))
    .map(([domain]) => domain.toLowerCase());
}

/** The PAC script: walks up the host's labels, so a listed domain blocks its subdomains too. */
function pacScript(hosts: string[], proxy: string): string {
  const table = JSON.stringify(Object.fromEntries(hosts.map((host) => [host, 1])));
  return `var BLOCKED = ${table};
function FindProxyForURL(url, host) {
  host = host.toLowerCase();
  for (;;) {
    if (Object.prototype.hasOwnProperty.call(BLOCKED, host)) return "PROXY ${proxy}";
    var dot = host.indexOf(".");
    if (dot < 0) return "DIRECT";
    host = host.slice(dot + 1);
  }
}
`;
}

/**
 * A loopback server that serves the PAC script (at a path nobody can guess) and is itself the proxy
 * blocked requests go to: it drops them, so they fail like a refused connection.
 */
export class AdBlocker {
  #blocked = 0;

  private constructor(
    private readonly server: http.Server,
    private readonly pacUrl: string,
    readonly hostCount: number,
  ) {}

  static async start(listFile: string | undefined, logger: Logger): Promise<AdBlocker> {
    const hosts = listFile ? parseBlockList(await readList(listFile)) : await trackerDbHosts();
    if (!hosts.length) throw new InvalidOptionError(`The block list ${listFile ?? TRACKERDB} has no hosts in it.`);
    const secret = randomBytes(16).toString('hex');
    let pac = '';
    let blocker: AdBlocker | undefined;
    const drop = (socket: { destroy(): void }) => {
      if (blocker) blocker.#blocked++;
      socket.destroy();
    };
    const server = http.createServer((req, res) => {
      if (req.url === `/${secret}.pac`) {
        res.writeHead(200, { 'content-type': 'application/x-ns-proxy-autoconfig', 'cache-control': 'no-store' }).end(pac);
        return;
      }
      drop(req.socket);
    });
    server.on('connect', (_req, socket) => drop(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    server.unref();
    const { port } = server.address() as AddressInfo;
    pac = pacScript(hosts, `127.0.0.1:${port}`);
    blocker = new AdBlocker(server, `http://127.0.0.1:${port}/${secret}.pac`, hosts.length);
    logger.info('hosted', 'Ad and tracker blocking ready', { hosts: hosts.length, source: listFile ? 'BLOCK_LIST_FILE' : TRACKERDB });
    return blocker;
  }

  /** Requests dropped so far, over all sessions. */
  get blockedCount(): number {
    return this.#blocked;
  }

  /** The Chromium flag that puts a browser behind the block list. */
  chromeArgs(): string[] {
    return [`--proxy-pac-url=${this.pacUrl}`];
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

async function readList(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new InvalidOptionError(`BLOCK_LIST_FILE ${file} cannot be read: ${(error as Error).message}`);
  }
}
