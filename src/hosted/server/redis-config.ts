// Where the result cache's Redis is, read from the environment at start: one node (REDIS_URL), a
// Cluster (REDIS_CLUSTER_NODES) or a master found through Sentinel (REDIS_SENTINELS). Kept apart
// from redis.ts so that checking the configuration loads no Redis client.

import { isIP } from 'node:net';
import { InvalidOptionError } from '../../errors.js';
import { redactUrl } from '../../util/redact.js';

export interface RedisAddress {
  host: string;
  port: number;
}

/** What every connection to a data node uses. */
interface RedisAuth {
  username?: string;
  password?: string;
  tls: boolean;
}

/** `where` is what messages name (host:port lists), never a URL: a URL may hold the password. */
export type RedisConfig =
  | ({ mode: 'single'; node: RedisAddress; db: number; where: string } & RedisAuth)
  | ({ mode: 'cluster'; nodes: RedisAddress[]; where: string } & RedisAuth)
  | ({
      mode: 'sentinel';
      sentinels: RedisAddress[];
      masterName: string;
      db: number;
      /** The sentinels' own credentials, when they require AUTH. */
      sentinelUsername?: string;
      sentinelPassword?: string;
      where: string;
    } & RedisAuth);

export const REDIS_URL_FORM = 'redis://[user:password@]host[:port][/db], or rediss:// for TLS';

type Env = Record<string, string | undefined>;
const value = (env: Env, name: string) => env[name]?.trim() || undefined;
const hostPort = ({ host, port }: RedisAddress) => `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;

export function parseRedisUrl(raw: string): Extract<RedisConfig, { mode: 'single' }> {
  const bad = (why: string) => new InvalidOptionError(`REDIS_URL ${JSON.stringify(redactUrl(raw))} ${why}: expected ${REDIS_URL_FORM}.`);
  if (!URL.canParse(raw)) throw bad('is not a valid URL');
  const url = new URL(raw);
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw bad('is not a Redis URL');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!host) throw bad('names no host');
  if (url.search || url.hash) throw bad('has a query or fragment, which is not read');
  const db = url.pathname.replace(/^\//, '');
  if (!/^\d{0,5}$/.test(db)) throw bad('has a path that is not a database number');
  let username: string | undefined, password: string | undefined;
  try {
    [username, password] = [decodeURIComponent(url.username) || undefined, url.password ? decodeURIComponent(url.password) : undefined];
  } catch {
    throw bad('has badly percent-encoded credentials');
  }
  if (username && password === undefined) throw bad('has a user name but no password (a password alone is redis://:password@host)');
  const node = { host, port: Number(url.port || 6379) };
  return { mode: 'single', node, db: Number(db || 0), tls: url.protocol === 'rediss:', username, password, where: hostPort(node) };
}

/** `host:port` or `[v6 address]:port`, comma- or blank-separated; the port defaults to `defaultPort`. */
function parseAddresses(name: string, text: string, defaultPort: number): RedisAddress[] {
  const items = text.split(/[\s,]+/).filter(Boolean);
  if (!items.length) throw new InvalidOptionError(`${name} is empty: give host:port pairs, separated by commas.`);
  return items.map((item) => {
    const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^\s:/@[\]]+))(?::(\d{1,5}))?$/.exec(item);
    const port = Number(match?.[3] ?? defaultPort);
    if (!match || port < 1 || port > 65535) {
      // An item with an `@` may be a URL with a password: that part is not shown.
      throw new InvalidOptionError(
        `${name} has ${JSON.stringify(item.replace(/^(.*\/\/)?[^@]*@/, '$1…@'))}: give host:port pairs (10.0.0.5:7000, redis-1:7000, [fd00::5]:7000), separated by commas; credentials go in REDIS_USERNAME and REDIS_PASSWORD.`,
      );
    }
    return { host: match[1] ?? match[2]!, port };
  });
}

function flag(env: Env, name: string): boolean {
  const raw = value(env, name)?.toLowerCase();
  if (raw === undefined || raw === 'false' || raw === '0' || raw === 'no') return false;
  if (raw === 'true' || raw === '1' || raw === 'yes') return true;
  throw new InvalidOptionError(`${name} must be true or false, not ${JSON.stringify(env[name])}.`);
}

function database(env: Env): number {
  const raw = value(env, 'REDIS_DB');
  if (raw === undefined) return 0;
  if (!/^\d{1,5}$/.test(raw)) throw new InvalidOptionError(`REDIS_DB must be a database number, not ${JSON.stringify(raw)}.`);
  return Number(raw);
}

/**
 * The cache's Redis, or undefined when none is configured (the cache is then in memory). At most
 * one of REDIS_URL, REDIS_CLUSTER_NODES and REDIS_SENTINELS may be set.
 */
export function readRedisConfig(env: Env): RedisConfig | undefined {
  const [url, clusterNodes, sentinels] = [value(env, 'REDIS_URL'), value(env, 'REDIS_CLUSTER_NODES'), value(env, 'REDIS_SENTINELS')];
  const set = Object.entries({ REDIS_URL: url, REDIS_CLUSTER_NODES: clusterNodes, REDIS_SENTINELS: sentinels }).filter(([, v]) => v);
  if (set.length > 1)
    throw new InvalidOptionError(
      `${set.map(([name]) => name).join(' and ')} are both set: set only the one that says how your Redis runs (one node, Cluster or Sentinel).`,
    );
  const masterName = value(env, 'REDIS_SENTINEL_NAME');
  if (masterName && !sentinels)
    throw new InvalidOptionError(
      'REDIS_SENTINEL_NAME is set without REDIS_SENTINELS: give the sentinels too (host:port, separated by commas).',
    );
  const [username, password] = [value(env, 'REDIS_USERNAME'), env.REDIS_PASSWORD || undefined];
  if (username && password === undefined)
    throw new InvalidOptionError('REDIS_USERNAME is set without REDIS_PASSWORD: an ACL user needs its password too.');

  if (url) {
    const single = parseRedisUrl(url);
    if (single.password !== undefined && password !== undefined)
      throw new InvalidOptionError('REDIS_URL has a password and REDIS_PASSWORD is set too: give it in one place.');
    for (const name of ['REDIS_TLS', 'REDIS_DB']) {
      if (value(env, name))
        throw new InvalidOptionError(
          `${name} is for REDIS_CLUSTER_NODES and REDIS_SENTINELS: with REDIS_URL, say it in the URL (${REDIS_URL_FORM}).`,
        );
    }
    return single.password === undefined ? { ...single, username, password } : single;
  }
  if (clusterNodes) {
    if (value(env, 'REDIS_DB'))
      throw new InvalidOptionError('REDIS_DB is set with REDIS_CLUSTER_NODES: a Redis Cluster has database 0 only; unset REDIS_DB.');
    const nodes = parseAddresses('REDIS_CLUSTER_NODES', clusterNodes, 6379);
    return { mode: 'cluster', nodes, username, password, tls: flag(env, 'REDIS_TLS'), where: `Cluster ${nodes.map(hostPort).join(', ')}` };
  }
  if (sentinels) {
    if (!masterName)
      throw new InvalidOptionError(
        'REDIS_SENTINELS is set without REDIS_SENTINEL_NAME: give the name of the master the sentinels watch (as in `sentinel monitor <name> ...`).',
      );
    const addresses = parseAddresses('REDIS_SENTINELS', sentinels, 26379);
    const [sentinelUsername, sentinelPassword] = [value(env, 'REDIS_SENTINEL_USERNAME'), env.REDIS_SENTINEL_PASSWORD || undefined];
    if (sentinelUsername && sentinelPassword === undefined)
      throw new InvalidOptionError('REDIS_SENTINEL_USERNAME is set without REDIS_SENTINEL_PASSWORD.');
    const where = `master "${masterName}" via sentinels ${addresses.map(hostPort).join(', ')}`;
    return {
      mode: 'sentinel',
      sentinels: addresses,
      masterName,
      db: database(env),
      username,
      password,
      tls: flag(env, 'REDIS_TLS'),
      sentinelUsername,
      sentinelPassword,
      where,
    };
  }
  for (const name of ['REDIS_USERNAME', 'REDIS_PASSWORD', 'REDIS_TLS', 'REDIS_DB', 'REDIS_SENTINEL_USERNAME', 'REDIS_SENTINEL_PASSWORD']) {
    if (env[name]?.trim())
      throw new InvalidOptionError(
        `${name} is set but no Redis is: set REDIS_URL, REDIS_CLUSTER_NODES or REDIS_SENTINELS too, or unset ${name}.`,
      );
  }
  return undefined;
}
