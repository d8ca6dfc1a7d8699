// The hosted server's configuration, from the environment (flags of `tendril hosted serve` mirror it).

import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { InvalidOptionError } from '../../errors.js';
import { DEFAULT_CONNECT_TIMEOUT_MS } from './egress.js';
import { readAllowedNetworks } from './networks.js';
import { readRedisConfig, type RedisConfig } from './redis-config.js';

export interface HostedServerConfig {
  port: number;
  host: string;
  /** Keys accepted in x-hosted-api-key. */
  apiKeys: string[];
  maxSessions: number;
  /** Longest a session lives (also the default when a request gives no timeout). */
  sessionTimeoutMs: number;
  /** The base URL clients reach this server at (behind a load balancer): used in connectUrl. */
  publicUrl?: string;
  /** The result cache's Redis (REDIS_URL, REDIS_CLUSTER_NODES or REDIS_SENTINELS); none: in memory. */
  redis?: RedisConfig;
  chromePath?: string;
  chromeArgs: string[];
  /** Hosts to block for blockAds sessions (hosts-file format); default @ghostery/trackerdb's ad and analytics domains. */
  blockListFile?: string;
  /** Signs connectUrl tokens. Instances behind one load balancer must share it. */
  signingSecret: string;
  /**
   * Networks the sessions may reach beyond the public internet: CIDR ranges, addresses, host names
   * or `*.domain` patterns; `*` turns the network confinement off. Default none.
   */
  allowNetworks: string[];
  /** DNS servers the sessions' egress proxy asks (`host` or `host:port`); default the system's resolver. */
  dnsServers: string[];
  /** Most a session may download, in bytes, over all its files. */
  maxDownloadBytes: number;
  /** Where the other instances sharing the Redis reach this one (HOSTED_INTERNAL_URL); default the address it listens on. */
  internalUrl?: string;
  /** A session (not keepAlive) with no connectUrl client and no operation running ends after this long; 0: never. */
  idleTimeoutMs: number;
  /** The egress proxy's longest wait for a TCP connection to a site. */
  connectTimeoutMs: number;
  /** The egress proxy's longest wait for an http:// site's answer; 0: as long as the browser waits. */
  responseTimeoutMs: number;
  /** Admission (admission.ts): browsers started at once, requests queued for a start, and how long one may wait. */
  maxStarting: number;
  startQueue: number;
  startWaitMs: number;
}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min)
    throw new InvalidOptionError(`${name} must be an integer of at least ${min}, not ${JSON.stringify(raw)}.`);
  return value;
}

/** Splits like a shell: on blanks, except inside "double" or 'single' quotes (for flags whose value has spaces). */
export function splitArgs(text: string): string[] {
  const args: string[] = [];
  let current: string | undefined;
  let quote: string | undefined;
  for (const char of text) {
    if (quote) {
      if (char === quote) quote = undefined;
      else current += char;
    } else if (char === '"' || char === "'") {
      quote = char;
      current ??= '';
    } else if (/\s/.test(char)) {
      if (current !== undefined) args.push(current);
      current = undefined;
    } else {
      current = (current ?? '') + char;
    }
  }
  if (quote) throw new InvalidOptionError(`CHROME_ARGS has an unclosed ${quote} quote.`);
  if (current !== undefined) args.push(current);
  return args;
}

export function readServerConfig(env: Env = process.env): HostedServerConfig {
  const apiKeys = (env.HOSTED_API_KEYS ?? '')
    .split(',')
    .map((key) => key.trim())
    .filter(Boolean);
  if (!apiKeys.length) {
    throw new InvalidOptionError('HOSTED_API_KEYS is empty: set it to the comma-separated API keys this server accepts.');
  }
  const publicUrl = env.PUBLIC_URL?.trim() || undefined;
  if (publicUrl && !/^https?:\/\//.test(publicUrl)) throw new InvalidOptionError('PUBLIC_URL must be an http:// or https:// URL.');
  const internalUrl = env.HOSTED_INTERNAL_URL?.trim() || undefined;
  if (internalUrl && !/^https?:\/\/[^/]+\/?$/.test(internalUrl)) {
    throw new InvalidOptionError(
      'HOSTED_INTERNAL_URL must be an http:// or https:// URL with no path (e.g. http://10.0.0.7:3000): the address the other instances reach this one at.',
    );
  }
  return {
    port: integer(env, 'PORT', 3000, 0),
    host: env.HOST?.trim() || '127.0.0.1',
    apiKeys,
    maxSessions: integer(env, 'MAX_SESSIONS', 5, 1),
    sessionTimeoutMs: integer(env, 'SESSION_TIMEOUT_MS', 5 * 60_000, 1000),
    publicUrl: publicUrl?.replace(/\/+$/, ''),
    redis: readRedisConfig(env),
    chromePath: env.CHROME_PATH?.trim() || undefined,
    chromeArgs: splitArgs(env.CHROME_ARGS ?? ''),
    blockListFile: env.BLOCK_LIST_FILE?.trim() || undefined,
    signingSecret: env.HOSTED_SIGNING_SECRET?.trim() || randomBytes(32).toString('hex'),
    allowNetworks: readAllowedNetworks(env.HOSTED_ALLOW_NETWORKS),
    dnsServers: readDnsServers(env.HOSTED_DNS_SERVERS),
    maxDownloadBytes: integer(env, 'HOSTED_MAX_DOWNLOAD_BYTES', 100 * 1024 * 1024, 0),
    internalUrl: internalUrl?.replace(/\/+$/, ''),
    idleTimeoutMs: integer(env, 'HOSTED_IDLE_TIMEOUT_MS', 60_000, 0),
    connectTimeoutMs: integer(env, 'HOSTED_CONNECT_TIMEOUT_MS', DEFAULT_CONNECT_TIMEOUT_MS, 1000),
    responseTimeoutMs: responseTimeout(env),
    ...admissionLimits(env),
  };
}

/** One start per core by default (a start is CPU-bound), and a queue of eight rounds of starts. */
function admissionLimits(env: Env): Pick<HostedServerConfig, 'maxStarting' | 'startQueue' | 'startWaitMs'> {
  const maxStarting = integer(env, 'HOSTED_MAX_STARTING', Math.max(1, availableParallelism()), 1);
  return {
    maxStarting,
    startQueue: integer(env, 'HOSTED_START_QUEUE', 8 * maxStarting, 0),
    startWaitMs: integer(env, 'HOSTED_START_WAIT_MS', 20_000, 0),
  };
}

/** 0 (none of its own) or at least a second: a shorter limit would fail ordinary pages. */
function responseTimeout(env: Env): number {
  const value = integer(env, 'HOSTED_RESPONSE_TIMEOUT_MS', 0, 0);
  if (value > 0 && value < 1000)
    throw new InvalidOptionError(`HOSTED_RESPONSE_TIMEOUT_MS must be 0 (wait as long as the browser does) or at least 1000, not ${value}.`);
  return value;
}

function readDnsServers(text: string | undefined): string[] {
  const servers = (text ?? '').split(/[\s,]+/).filter(Boolean);
  for (const server of servers) {
    const address = isIP(server) ? server : (/^\[(.+)\](?::\d+)?$/.exec(server)?.[1] ?? server.replace(/:\d+$/, ''));
    if (!isIP(address))
      throw new InvalidOptionError(
        `HOSTED_DNS_SERVERS has ${JSON.stringify(server)}: give IP addresses, optionally with a port (10.0.0.2, 10.0.0.2:53, [fd00::2]:53).`,
      );
  }
  return servers;
}
