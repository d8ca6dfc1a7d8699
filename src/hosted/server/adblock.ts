// browserSettings.blockAds: the session's egress proxy (egress.ts), which every request of its
// browser passes, refuses ad and tracker hosts and their subdomains. Blocking in the network path
// covers every frame, worker and process of the browser with no DevTools plumbing per target, and
// costs a few dictionary lookups per request.
//
// The host list: BLOCK_LIST_FILE (hosts-file lines, bare domains, or `||domain^` rules), else the
// advertising and analytics domains of Ghostery's tracker database (@ghostery/trackerdb, an optional
// peer; its data is licensed CC-BY-NC-SA 4.0), else a short list of our own (adHosts.ts), so that
// blockAds works on every server. Read from disk once, never fetched.

import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { InvalidOptionError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { BUILT_IN_AD_HOSTS } from './adHosts.js';

const TRACKERDB = '@ghostery/trackerdb';
const BLOCKED_CATEGORIES = new Set(['advertising', 'site_analytics', 'pornvertising']);
const HOST = /^(?=.{1,253}$)[a-z0-9_-]+(\.[a-z0-9_-]+)+$/;

/** Hosts from a list file: `0.0.0.0 host` / `127.0.0.1 host`, a bare `host`, or `||host^`; `#` and `!` start comments. */
export function parseBlockList(text: string): string[] {
  const hosts = new Set<string>();
  for (const raw of text.split('\n')) {
    const line = raw
      .replace(/[#!].*$/, '')
      .trim()
      .toLowerCase();
    if (!line) continue;
    const rule = /^\|\|([^/^$*]+)\^(\$.*)?$/.exec(line);
    const words = line.split(/\s+/);
    const host = rule
      ? rule[1]!
      : words.length === 2 && /^(0\.0\.0\.0|127\.0\.0\.1|::1?)$/.test(words[0]!)
        ? words[1]!
        : words.length === 1
          ? words[0]!
          : '';
    if (HOST.test(host) && host !== 'localhost') hosts.add(host);
  }
  return [...hosts];
}

/** Where a package's entry is, as Node would find it from here; throws when it is not installed. */
export type Resolve = (name: string) => string;

/** The tracker database's ad and analytics domains, or undefined when it is not installed. */
async function trackerDbHosts(resolve: Resolve): Promise<string[] | undefined> {
  let entry: string;
  try {
    entry = resolve(TRACKERDB);
  } catch {
    return undefined;
  }
  // The package exports only its engine; the plain JSON export sits beside it in dist/.
  const file = path.join(path.dirname(entry), '..', 'trackerdb.json');
  const db = JSON.parse(await readFile(file, 'utf8')) as {
    domains: Record<string, string>;
    patterns: Record<string, { category?: string }>;
  };
  return Object.entries(db.domains)
    .filter(([, pattern]) => BLOCKED_CATEGORIES.has(db.patterns[pattern]?.category ?? ''))
    .map(([domain]) => domain.toLowerCase());
}

/** The block list, checked by each blocking session's egress proxy (egress.ts) for every request. */
export class AdBlocker {
  private constructor(private readonly hosts: Set<string>) {}

  static async start(
    listFile: string | undefined,
    logger: Logger,
    resolve: Resolve = createRequire(import.meta.url).resolve,
  ): Promise<AdBlocker> {
    const listed = listFile ? parseBlockList(await readList(listFile)) : await trackerDbHosts(resolve);
    const [hosts, source] = listed ? [listed, listFile ? 'BLOCK_LIST_FILE' : TRACKERDB] : [BUILT_IN_AD_HOSTS, 'built-in'];
    if (!hosts.length) throw new InvalidOptionError(`The block list ${listFile ?? TRACKERDB} has no hosts in it.`);
    logger.info('hosted', 'Ad and tracker blocking ready', { hosts: hosts.length, source });
    if (!listed) {
      logger.info(
        'hosted',
        `blockAds uses a short built-in list of ${hosts.length} ad and analytics domains: for thousands, \`npm install ${TRACKERDB}\` (CC-BY-NC-SA 4.0) or set BLOCK_LIST_FILE.`,
      );
    }
    return new AdBlocker(new Set(hosts));
  }

  /** Whether `host` or a domain it belongs to is listed: a listed domain blocks its subdomains too. */
  blocks(host: string): boolean {
    for (let name = host.toLowerCase(); ; ) {
      if (this.hosts.has(name)) return true;
      const dot = name.indexOf('.');
      if (dot < 0) return false;
      name = name.slice(dot + 1);
    }
  }
}

async function readList(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new InvalidOptionError(`BLOCK_LIST_FILE ${file} cannot be read: ${(error as Error).message}`);
  }
}
