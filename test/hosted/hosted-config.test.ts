// The hosted server's configuration: CHROME_ARGS splitting, block lists, and a server whose
// BLOCK_LIST_FILE replaces the default list (real Chromium, real server).

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AdBlocker, parseBlockList } from '../../src/hosted/server/adblock.js';
import { readServerConfig, splitArgs } from '../../src/hosted/server/config.js';
import { startHostedServer } from '../../src/hosted/server/http.js';
import { InvalidOptionError, Sdk } from '../../src/index.js';
import { Logger } from '../../src/logger.js';
import { startFixtureServers } from '../fixtures/server.js';
import { CHROME, TEST_ARGS, HOSTED_TEST_ENV } from '../helpers.js';
import { startDnsServer, TEST_HOSTS } from '../support/dns-server.js';

const dir = mkdtempSync(path.join(tmpdir(), 'tendril-hosted-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const quiet = () => new Logger({ verbose: 0, disablePino: true });

describe('hosted server configuration', () => {
  it('splits CHROME_ARGS like a shell, so a flag value may hold spaces', () => {
    expect(splitArgs(` --no-sandbox  "--host-resolver-rules=MAP * 127.0.0.1, MAP a b" --x='1 2'`)).toEqual([
      '--no-sandbox',
      '--host-resolver-rules=MAP * 127.0.0.1, MAP a b',
      '--x=1 2',
    ]);
    expect(splitArgs('')).toEqual([]);
    expect(() => splitArgs('"--open')).toThrow(/unclosed " quote/);
  });

  it('reads hosts files, bare domains and ||domain^ rules, and nothing else', () => {
    const list = [
      '# a comment',
      '0.0.0.0 ads.example.com',
      '127.0.0.1 Tracker.Example.net  # trailing comment',
      'plain.example.org',
      '||rule.example.io^$third-party',
      '! adblock comment',
      '0.0.0.0 localhost',
      '||path.example.com/ads.js',
      'not a host line',
      '1.2.3.4 mapped.example.com',
    ].join('\n');
    expect(parseBlockList(list).sort()).toEqual(['ads.example.com', 'plain.example.org', 'rule.example.io', 'tracker.example.net']);
  });

  it('blocks ads with a built-in list where @ghostery/trackerdb is not installed, and with the database where it is', async () => {
    const lines: string[] = [];
    const logger = new Logger({ verbose: 1, disablePino: true, logger: (line) => void lines.push(line.message) });
    const notInstalled = (name: string): string => {
      throw Object.assign(new Error(`Cannot find module '${name}'`), { code: 'MODULE_NOT_FOUND' });
    };
    const builtIn = await AdBlocker.start(undefined, logger, notInstalled);
    expect(
      ['ads.doubleclick.net', 'securepubads.g.doubleclick.net', 'www.google-analytics.com'].map((host) => builtIn.blocks(host)),
    ).toEqual([true, true, true]);
    expect(['example.org', 'www.google.com', 'doubleclick.net.example.org'].map((host) => builtIn.blocks(host))).toEqual([
      false,
      false,
      false,
    ]);
    expect(lines.join('\n')).toMatch(/short built-in list .*npm install @ghostery\/trackerdb/);
    // The database (a dev dependency here) lists far more: a tracker the built-in list leaves out.
    const database = await AdBlocker.start(undefined, logger);
    expect([builtIn.blocks('mmtro.com'), database.blocks('mmtro.com')]).toEqual([false, true]);
  });

  it('refuses numbers that are not numbers, an empty key list, and a URL that is not one', () => {
    expect(() => readServerConfig({ HOSTED_API_KEYS: 'k', MAX_SESSIONS: 'five' })).toThrow(/MAX_SESSIONS must be an integer/);
    expect(() => readServerConfig({ HOSTED_API_KEYS: ' , ' })).toThrow(/HOSTED_API_KEYS is empty/);
    expect(() => readServerConfig({ HOSTED_API_KEYS: 'k', PUBLIC_URL: 'example.com' })).toThrow(/PUBLIC_URL/);
    expect(() => readServerConfig({ HOSTED_API_KEYS: 'k', HOSTED_INTERNAL_URL: '10.0.0.7:3000' })).toThrow(
      /HOSTED_INTERNAL_URL must be an http/,
    );
    expect(() => readServerConfig({ HOSTED_API_KEYS: 'k', HOSTED_INTERNAL_URL: 'http://10.0.0.7:3000/prefix' })).toThrow(/with no path/);
    expect(() => readServerConfig({ HOSTED_API_KEYS: 'k', HOSTED_IDLE_TIMEOUT_MS: 'soon' })).toThrow(
      /HOSTED_IDLE_TIMEOUT_MS must be an integer/,
    );
    expect(readServerConfig({ HOSTED_API_KEYS: 'k', HOSTED_INTERNAL_URL: 'http://10.0.0.7:3000/' })).toMatchObject({
      internalUrl: 'http://10.0.0.7:3000',
      idleTimeoutMs: 60_000,
    });
    expect(() => readServerConfig({ HOSTED_API_KEYS: 'k', HOSTED_CONNECT_TIMEOUT_MS: '500' })).toThrow(
      /HOSTED_CONNECT_TIMEOUT_MS must be an integer of at least 1000/,
    );
    expect(() => readServerConfig({ HOSTED_API_KEYS: 'k', HOSTED_RESPONSE_TIMEOUT_MS: '20' })).toThrow(
      /HOSTED_RESPONSE_TIMEOUT_MS must be 0 \(wait as long as the browser does\) or at least 1000/,
    );
    const defaults = readServerConfig({ HOSTED_API_KEYS: 'k' });
    expect([defaults.connectTimeoutMs, defaults.responseTimeoutMs]).toEqual([15_000, 0]);
    expect(readServerConfig({ HOSTED_API_KEYS: 'k', HOSTED_RESPONSE_TIMEOUT_MS: '120000' }).responseTimeoutMs).toBe(120_000);
    expect(() => readServerConfig({ HOSTED_API_KEYS: 'k', HOSTED_MAX_STARTING: '0' })).toThrow(
      /HOSTED_MAX_STARTING must be an integer of at least 1/,
    );
    expect(() => readServerConfig({ HOSTED_API_KEYS: 'k', HOSTED_START_QUEUE: '-1' })).toThrow(
      /HOSTED_START_QUEUE must be an integer of at least 0/,
    );
    expect(() => readServerConfig({ HOSTED_API_KEYS: 'k', HOSTED_START_WAIT_MS: 'soon' })).toThrow(
      /HOSTED_START_WAIT_MS must be an integer/,
    );
    // One start per core, a queue of eight rounds of starts.
    const cores = Math.max(1, availableParallelism());
    expect([defaults.maxStarting, defaults.startQueue, defaults.startWaitMs]).toEqual([cores, 8 * cores, 20_000]);
    const set = readServerConfig({ HOSTED_API_KEYS: 'k', HOSTED_MAX_STARTING: '3', HOSTED_START_WAIT_MS: '0' });
    expect([set.maxStarting, set.startQueue, set.startWaitMs]).toEqual([3, 24, 0]);
  });

  it('does not start with a BLOCK_LIST_FILE it cannot read', async () => {
    const config = readServerConfig({
      ...HOSTED_TEST_ENV,
      HOSTED_API_KEYS: 'k',
      PORT: '0',
      BLOCK_LIST_FILE: path.join(dir, 'missing.txt'),
    });
    const error = await startHostedServer(config, quiet()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect((error as Error).message).toMatch(/BLOCK_LIST_FILE .*missing\.txt cannot be read/);
  });

  it('blocks the hosts of BLOCK_LIST_FILE instead of the default list', async () => {
    const file = path.join(dir, 'hosts.txt');
    writeFileSync(file, '0.0.0.0 tendril-test.example\n');
    const fixtures = await startFixtureServers();
    const dns = await startDnsServer(TEST_HOSTS);
    const server = await startHostedServer(
      readServerConfig({
        ...HOSTED_TEST_ENV,
        HOSTED_API_KEYS: 'k',
        PORT: '0',
        BLOCK_LIST_FILE: file,
        CHROME_PATH: CHROME,
        CHROME_ARGS: TEST_ARGS.join(' '),
        HOSTED_DNS_SERVERS: dns.address,
      }),
      quiet(),
    );
    const sdk = new Sdk({
      env: 'HOSTED',
      apiKey: 'k',
      projectId: 'p',
      hostedApiUrl: server.url,
      verbose: 0,
      disablePino: true,
      hostedSessionCreateParams: { browserSettings: { blockAds: true } },
    });
    try {
      await sdk.init();
      const page = sdk.context.pages()[0]!;
      await page.goto(fixtures.a.url('ads.html'));
      // A listed domain blocks its subdomains too (cdn.tendril-test.example); the default list is not used.
      expect(await page.evaluate('window.done')).toEqual(['ad loaded', 'own blocked', 'frame ad loaded']);
    } finally {
      await sdk.close();
      await server.close();
      await Promise.all([fixtures.close(), dns.close()]);
    }
  });
});
