// A hosted session reaches the public web and nothing else of the server's machine: loopback,
// link-local and private addresses are refused by name, by address and after DNS, unless the
// operator allows them (HOSTED_ALLOW_NETWORKS); its downloads stay in its own capped folder and go
// with it. All real: the hosted server, its Chromium, a DNS server and HTTP servers on loopback.
//
// The pages a session may load are served on 127.0.0.2 (Linux routes all of 127/8 to loopback),
// the one range these servers allow; the "services" it must not reach listen on 127.0.0.1.

import { existsSync, readdirSync, watch } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readServerConfig } from '../../src/hosted/server/config.js';
import type { HostedServer } from '../../src/hosted/server/http.js';
import { chromium } from 'playwright-core';
import WebSocket from 'ws';
import { HostedApi } from '../../src/hosted/client/api.js';
import { DomainPolicyError, InvalidOptionError } from '../../src/index.js';
import { startDnsServer, type DnsServer } from '../support/dns-server.js';
import { hostedSession, startTestHostedServer } from '../support/hosted.js';

const KEY = 'net-test-key-5d1e';

interface Site {
  origin: string;
  /** Requests it answered, by path. */
  hits: string[];
  close(): Promise<void>;
}

/** A server that answers CORS-readable "secret" at any path, and a download at /file/<bytes>. */
async function startSite(host: string): Promise<Site> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/redirect') return void res.writeHead(302, { location: url.searchParams.get('to') ?? '/' }).end();
    if (url.pathname === '/policy') {
      // Its own host is allowed; `other` is the host the policy refuses (on the same server).
      const other = url.searchParams.get('other');
      return void res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          `<title>policy</title><p id=own>own</p><iframe id=same src="/frame"></iframe><iframe id=other src="${other}/frame"></iframe>` +
            `<script>window.probe = (u) => fetch(u).then((r) => r.text(), () => 'failed');</script>`,
        );
    }
    if (url.pathname === '/frame')
      return void res.writeHead(200, { 'content-type': 'text/html', 'access-control-allow-origin': '*' }).end('<p>framed</p>');
    const file = /^\/file\/(\d+)$/.exec(req.url ?? '');
    if (file) {
      const size = Number(file[1]);
      res.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-disposition': 'attachment; filename="data.bin"',
        'content-length': size,
      });
      return void res.end(Buffer.alloc(size, 7));
    }
    res.writeHead(200, { 'content-type': 'text/html', 'access-control-allow-origin': '*' }).end('<title>site</title><p>secret</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://${host}:${port}`,
    hits,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

let dns: DnsServer;
let pages: Site;
let service: Site;
let servers: HostedServer[] = [];

async function startServer(env: Record<string, string> = {}): Promise<HostedServer> {
  const server = await startTestHostedServer({
    HOSTED_API_KEYS: KEY,
    MAX_SESSIONS: '2',
    HOSTED_DNS_SERVERS: dns.address,
    HOSTED_ALLOW_NETWORKS: '127.0.0.2',
    ...env,
  });
  servers.push(server);
  return server;
}

const session = (server: HostedServer) => hostedSession(server, KEY);

/** What a page's fetch() of each URL gave: the body's text, or "failed". */
function fetchAll(page: Awaited<ReturnType<typeof session>>['page'], urls: string[]): Promise<string[]> {
  return page.evaluate(
    (list: string[]) =>
      Promise.all(
        list.map((url) =>
          fetch(url).then(
            (response) => response.text(),
            () => 'failed',
          ),
        ),
      ),
    urls,
  );
}

/** Resolves once the folder holds exactly `names`, woken by its changes; fails after 10 s with what it holds. */
function folderBecomes(folder: string, names: string[]): Promise<void> {
  const matches = () => JSON.stringify(readdirSync(folder).sort()) === JSON.stringify([...names].sort());
  return new Promise((resolve, reject) => {
    const watcher = watch(folder, () => {
      if (!matches()) return;
      clearTimeout(timer);
      watcher.close();
      resolve();
    });
    const timer = setTimeout(() => {
      watcher.close();
      reject(new Error(`${folder} still holds ${readdirSync(folder).join(', ')}`));
    }, 10_000);
    if (matches()) {
      clearTimeout(timer);
      watcher.close();
      resolve();
    }
  });
}

beforeAll(async () => {
  dns = await startDnsServer({
    'pages.test': ['127.0.0.2'],
    'other.test': ['127.0.0.2'],
    'sub.pages.test': ['127.0.0.2'],
    'evil.test': ['127.0.0.1'],
    'mixed.test': ['127.0.0.1', '127.0.0.2'],
    localhost: ['127.0.0.1'],
  });
  [pages, service] = await Promise.all([startSite('127.0.0.2'), startSite('127.0.0.1')]);
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await Promise.all([dns?.close(), pages?.close(), service?.close()]);
});

describe('hosted sessions and private networks', () => {
  it('cannot reach a loopback service by address, by a name that resolves there, through mapped IPv6 or 0.0.0.0; the metadata address is refused', async () => {
    const server = await startServer();
    const { sdk, page } = await session(server);
    try {
      const port = new URL(service.origin).port;
      const pagesPort = new URL(pages.origin).port;
      await page.goto(`http://pages.test:${pagesPort}/`);
      expect(await page.evaluate(() => document.body.textContent)).toBe('secret');
      const results = await fetchAll(page, [
        `http://127.0.0.1:${port}/by-address`,
        `http://localhost:${port}/by-localhost`,
        `http://evil.test:${port}/by-dns`,
        `http://[::ffff:127.0.0.1]:${port}/by-mapped-v6`,
        `http://0.0.0.0:${port}/by-zero`,
        `http://pages.test:${pagesPort}/allowed`,
      ]);
      expect(results).toEqual(['failed', 'failed', 'failed', 'failed', 'failed', '<title>site</title><p>secret</p>']);
      expect(service.hits).toEqual([]);
      // A top-level navigation gets the refusal as its page, naming why.
      const response = await page.goto('http://169.254.169.254/latest/meta-data/');
      expect(response?.status()).toBe(403);
      expect(await page.evaluate(() => document.body.textContent)).toMatch(
        /Refused by the hosted server: 169\.254\.169\.254 is on a private, loopback or link-local network/,
      );
      // A name with one refused and one allowed address is reached on the allowed one only.
      expect(await fetchAll(page, [`http://mixed.test:${pagesPort}/mixed`])).toEqual(['<title>site</title><p>secret</p>']);
      expect(service.hits).toEqual([]);
    } finally {
      await sdk.close();
    }
  });

  it('reaches the loopback service once the operator allows it, by range or by name', async () => {
    const port = new URL(service.origin).port;
    for (const allow of ['127.0.0.2,127.0.0.1/32', '127.0.0.2,evil.test']) {
      const server = await startServer({ HOSTED_ALLOW_NETWORKS: allow });
      const { sdk, page } = await session(server);
      try {
        await page.goto(`${pages.origin}/`);
        const host = allow.includes('evil.test') ? 'evil.test' : '127.0.0.1';
        const before = service.hits.length;
        expect(await fetchAll(page, [`http://${host}:${port}/allowed-${host}`])).toEqual(['<title>site</title><p>secret</p>']);
        expect(service.hits.slice(before)).toEqual([`/allowed-${host}`]);
      } finally {
        await sdk.close();
        await servers.pop()!.close();
      }
    }
  });

  it('refuses a bad HOSTED_ALLOW_NETWORKS or HOSTED_DNS_SERVERS at start, and proxy flags in CHROME_ARGS', async () => {
    expect(() => readServerConfig({ HOSTED_API_KEYS: 'k', HOSTED_ALLOW_NETWORKS: '10.0.0.0/99' })).toThrow(
      /HOSTED_ALLOW_NETWORKS has "10\.0\.0\.0\/99"/,
    );
    expect(() => readServerConfig({ HOSTED_API_KEYS: 'k', HOSTED_ALLOW_NETWORKS: 'http://intranet/' })).toThrow(/HOSTED_ALLOW_NETWORKS/);
    expect(() => readServerConfig({ HOSTED_API_KEYS: 'k', HOSTED_DNS_SERVERS: 'dns.example' })).toThrow(
      /HOSTED_DNS_SERVERS has "dns\.example"/,
    );
    const error = await startServer({ CHROME_ARGS: '--proxy-server=http://10.0.0.1:3128' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect((error as Error).message).toMatch(/CHROME_ARGS has --proxy-server/);
  });
});

describe("a hosted session's domainPolicy, enforced by the server for any client", () => {
  it('refuses navigations, redirects, popups, iframes and requests to hosts outside it, also for a Playwright client', async () => {
    const server = await startServer();
    const api = new HostedApi(server.url, KEY, 30_000);
    const created = await api.createSession({ projectId: 'p', domainPolicy: { allow: ['*.pages.test'], block: ['sub.pages.test'] } });
    const browser = await chromium.connectOverCDP(created.connectUrl);
    const before = pages.hits.length;
    try {
      const port = new URL(pages.origin).port;
      const own = `http://pages.test:${port}`;
      const other = `http://other.test:${port}`;
      const page = browser.contexts()[0]!.pages()[0] ?? (await browser.contexts()[0]!.newPage());
      await page.goto(`${own}/policy?other=${encodeURIComponent(other)}`);
      expect(await page.frameLocator('#same').locator('p').textContent()).toBe('framed');
      // The refused frame gets the server's refusal, never the other host's document.
      expect(await page.frameLocator('#other').locator('body').textContent()).toMatch(
        /Refused by the hosted server: other\.test is outside the session's domainPolicy \(allow \*\.pages\.test; block sub\.pages\.test\)/,
      );
      expect(
        await page.evaluate(`Promise.all([probe('${own}/frame'), probe('${other}/frame'), probe('http://sub.pages.test:${port}/frame')])`),
      ).toEqual(['<p>framed</p>', 'failed', 'failed']);
      const navigation = await page.goto(`${other}/`);
      expect(navigation?.status()).toBe(403);
      const redirected = await page.goto(`${own}/redirect?to=${encodeURIComponent(`${other}/`)}`);
      expect(redirected?.status()).toBe(403);
      expect(redirected?.url()).toBe(`${other}/`);
      const [popup] = await Promise.all([page.waitForEvent('popup'), page.evaluate(`window.open('${other}/frame')`)]);
      await popup.waitForLoadState('domcontentloaded');
      expect(await popup.locator('body').textContent()).toMatch(/Refused by the hosted server: other\.test/);
      // REST navigate (the server's own driver) refuses it before it leaves, with the policy's error.
      const rest = await api
        .operation(created.id, 'navigate', { url: `${other}/` }, { bypassCache: true, timeoutMs: 30_000, onLog: () => undefined })
        .catch((e: unknown) => e);
      expect(rest).toBeInstanceOf(DomainPolicyError);
      expect(rest).toMatchObject({ host: 'other.test', url: `${other}/`, policy: { allow: ['*.pages.test'], block: ['sub.pages.test'] } });
      // Only the allowed host reached the site: the page, its frame, the probe and the redirect.
      expect(pages.hits.slice(before).filter((hit) => hit !== '/favicon.ico')).toEqual([
        `/policy?other=${encodeURIComponent(other)}`,
        '/frame',
        '/frame',
        `/redirect?to=${encodeURIComponent(`${other}/`)}`,
      ]);
    } finally {
      await browser.close();
      await api.releaseSession(created.id);
    }
  });

  it('refuses a session whose domainPolicy is not one, with a 400 naming the pattern', async () => {
    const server = await startServer();
    const api = new HostedApi(server.url, KEY, 30_000);
    const error = await api.createSession({ projectId: 'p', domainPolicy: { allow: ['https://pages.test/'] } }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(
      /400 bad_request.*domainPolicy\.allow has "https:\/\/pages\.test\/", which is not a host pattern/,
    );
  });
});

describe('hosted session downloads', () => {
  it('land in the session folder, never in the home folder, are capped, and are gone after release', async () => {
    const server = await startServer({ HOSTED_MAX_DOWNLOAD_BYTES: '50000' });
    const homeDownloads = path.join(os.homedir(), 'Downloads');
    const homeBefore = existsSync(homeDownloads) ? readdirSync(homeDownloads) : [];
    const { sdk, page } = await session(server);
    try {
      const id = server.sessions.runningIds()[0]!;
      const record = server.sessions.get(id);
      const folder = record.downloadsDir!;
      const root = record.browser!.connection.rootSession;
      const ended = (expected: string) =>
        new Promise<string>((resolve) => {
          const off = root.on('Browser.downloadProgress', (event) => {
            if (event.state === 'inProgress') return;
            off();
            resolve(`${expected}:${event.state}`);
          });
        });
      await page.goto(`${pages.origin}/`);
      const click = (bytes: number) =>
        page.evaluate((href: string) => {
          const link = document.createElement('a');
          link.href = href;
          link.download = 'data.bin';
          document.body.append(link);
          link.click();
        }, `${pages.origin}/file/${bytes}`);
      const small = ended('small');
      await click(20_000);
      expect(await small).toBe('small:completed');
      const saved = readdirSync(folder);
      expect(saved).toHaveLength(1);
      // Cancelled as it starts, or, when loopback was faster than the cancel, removed once complete:
      // either way it is not kept (the partial file of a cancelled one goes too, a moment later).
      const big = ended('big');
      await click(2_000_000);
      expect(['big:canceled', 'big:completed']).toContain(await big);
      await folderBecomes(folder, saved);
      expect(path.dirname(folder).startsWith(os.tmpdir())).toBe(true);
      await sdk.close();
      expect(existsSync(path.dirname(folder))).toBe(false);
      expect(existsSync(homeDownloads) ? readdirSync(homeDownloads) : []).toEqual(homeBefore);
    } finally {
      await sdk.close();
    }
  });

  it('still land in the session folder after a client that set its own download behaviour left', async () => {
    const server = await startServer();
    const api = new HostedApi(server.url, KEY, 30_000);
    const created = await api.createSession({ projectId: 'p' });
    try {
      const record = server.sessions.get(created.id);
      // A client sets downloads its way and leaves; Chrome then resets them to its own default.
      const socket = new WebSocket(created.connectUrl);
      await new Promise((resolve) => socket.once('open', resolve));
      socket.send(JSON.stringify({ id: 1, method: 'Browser.setDownloadBehavior', params: { behavior: 'default' } }));
      await new Promise((resolve) => socket.once('message', resolve));
      const left = new Promise((resolve) => socket.once('close', resolve));
      socket.close();
      await left;
      // A download nobody set anything for: the server's own navigation to a file.
      const root = record.browser!.connection.rootSession;
      const done = new Promise<string>((resolve) => {
        const off = root.on('Browser.downloadProgress', (event) => {
          if (event.state === 'inProgress') return;
          off();
          resolve(event.state);
        });
      });
      await api
        .operation(
          created.id,
          'navigate',
          { url: `${pages.origin}/file/1000` },
          { bypassCache: true, timeoutMs: 30_000, onLog: () => undefined },
        )
        .catch(() => undefined);
      expect(await done).toBe('completed');
      expect(readdirSync(record.downloadsDir!)).toHaveLength(1);
      expect(existsSync(path.join(record.workspace!.dir, 'Downloads'))).toBe(false);
    } finally {
      await api.releaseSession(created.id);
    }
  });
});
