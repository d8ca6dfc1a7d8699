// localBrowserLaunchOptions.proxy with username and password: Chrome goes through a loopback proxy
// of ours (src/browser/proxyForwarder.ts) that adds the credentials toward the real proxy. Here the
// real proxy is one on loopback that answers 407 to anything without the right Proxy-Authorization,
// and sends what it lets through to the fixture server (plain HTTP) or a TLS server (CONNECT).

import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxyForwarder } from '../../src/browser/proxyForwarder.js';
import { Logger } from '../../src/logger.js';
import { InvalidOptionError, NavigationError, Sdk, Stagehand, type LogLine } from '../../src/index.js';
import { startFixtureServers, type FixtureServers } from '../fixtures/server.js';
import { sdkOptions } from '../helpers.js';
import { selfSigned } from '../support/tls.js';

const USER = 'agent-7';
const SECRET = 'pa55-Word-only-here';
const GOOD = `Basic ${Buffer.from(`${USER}:${SECRET}`).toString('base64')}`;

interface Seen {
  method: string;
  target: string;
  authorized: boolean;
}

let servers: FixtureServers;
let proxy: Server;
let tls: Server;
let proxyUrl: string;
const seen: Seen[] = [];
const work = mkdtempSync(path.join(os.tmpdir(), 'tendril-proxy-auth-'));

const listen = (server: Server) =>
  new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));

beforeAll(async () => {
  servers = await startFixtureServers();
  const fixture = new URL(servers.a.url('/'));
  const { key, cert } = await selfSigned(work, 'secure.example');
  tls = createHttpsServer({ key, cert }, (_req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end('<title>over tls</title><p id="t">tunnelled</p>');
  });
  const tlsPort = await listen(tls);
  proxy = createServer((req, res) => {
    const authorized = req.headers['proxy-authorization'] === GOOD;
    seen.push({ method: req.method ?? '', target: req.url ?? '', authorized });
    if (!authorized) {
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="test"', 'content-length': '0' }).end();
      return;
    }
    // Every host it is asked for is the fixture server.
    const target = new URL(req.url ?? '/');
    const out = request(
      {
        host: fixture.hostname,
        port: fixture.port,
        method: req.method,
        path: target.pathname + target.search,
        headers: { ...req.headers, host: fixture.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(out);
  });
  proxy.on('connect', (req, client: Socket, head: Buffer) => {
    const authorized = req.headers['proxy-authorization'] === GOOD;
    seen.push({ method: 'CONNECT', target: req.url ?? '', authorized });
    client.on('error', () => undefined);
    if (!authorized) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const remote = connect(tlsPort, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      remote.write(head);
      remote.pipe(client);
      client.pipe(remote);
    });
    remote.on('error', () => client.destroy());
  });
  proxyUrl = `http://127.0.0.1:${await listen(proxy)}`;
});

afterAll(async () => {
  proxy.closeAllConnections();
  await Promise.all([new Promise((resolve) => proxy.close(resolve)), new Promise((resolve) => tls.close(resolve)), servers.close()]);
  rmSync(work, { recursive: true, force: true });
});

function withProxy(password: string, lines: LogLine[]): Sdk {
  return new Sdk(
    sdkOptions({
      verbose: 2,
      logger: (line) => lines.push(line),
      localBrowserLaunchOptions: { ignoreHTTPSErrors: true, proxy: { server: proxyUrl, username: USER, password } },
    }),
  );
}

describe('a proxy that demands credentials', () => {
  it('answers 407 to a request without them', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      request(`${proxyUrl}`, { method: 'GET', path: 'http://shop.example/child.html', headers: { host: 'shop.example' } }, (answer) => {
        answer.resume();
        resolve(answer.statusCode ?? 0);
      })
        .on('error', reject)
        .end();
    });
    expect(status).toBe(407);
  });

  it('lets Chrome through with localBrowserLaunchOptions.proxy.username and password, for HTTP and HTTPS, and logs no secret', async () => {
    const lines: LogLine[] = [];
    const sdk = withProxy(SECRET, lines);
    await sdk.init();
    try {
      const page = sdk.context.pages()[0]!;
      seen.length = 0;
      const response = await page.goto('http://shop.example/child.html');
      expect(response?.status()).toBe(200);
      expect(await page.locator('#c').textContent()).toBe('same-origin child');
      await page.goto('https://secure.example/');
      expect(await page.locator('#t').textContent()).toBe('tunnelled');
      expect(seen).toContainEqual({ method: 'GET', target: 'http://shop.example/child.html', authorized: true });
      expect(seen).toContainEqual({ method: 'CONNECT', target: 'secure.example:443', authorized: true });
      expect(seen.filter((each) => !each.authorized)).toEqual([]);
    } finally {
      await sdk.close();
    }
    const logged = JSON.stringify(lines);
    expect(logged).not.toContain(SECRET);
    expect(logged).not.toContain(GOOD.slice(6));
  });

  it('with the wrong password: the page gets a 502 that says why (HTTP) or fails to load (HTTPS), and the log says the proxy refused, without the secret', async () => {
    const lines: LogLine[] = [];
    const sdk = withProxy('not-the-password', lines);
    await sdk.init();
    try {
      const page = sdk.context.pages()[0]!;
      const response = await page.goto('http://shop.example/child.html');
      expect(response?.status()).toBe(502);
      expect(await page.evaluate(() => document.body.innerText)).toContain('refused the credentials of localBrowserLaunchOptions.proxy');
      await expect(page.goto('https://secure.example/')).rejects.toThrow(NavigationError);
    } finally {
      await sdk.close();
    }
    expect(lines.some((line) => line.message.includes('refused the credentials'))).toBe(true);
    expect(JSON.stringify(lines)).not.toContain('not-the-password');
  });
});

describe('the forwarder', () => {
  it('gives up on a proxy that never answers, within its deadline, and refuses connections once closed', async () => {
    // Reads what it is sent (so it sees the forwarder hang up) and answers nothing.
    const silent = createNetServer((socket) => socket.on('error', () => undefined).resume());
    const silentPort = await new Promise<number>((resolve) =>
      silent.listen(0, '127.0.0.1', () => resolve((silent.address() as AddressInfo).port)),
    );
    const forwarder = await startProxyForwarder(
      { server: `127.0.0.1:${silentPort}`, username: 'u', password: 'p' },
      new Logger({ verbose: 0, disablePino: true }),
      200,
    );
    try {
      const { port } = new URL(forwarder.server);
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () =>
          socket.write('CONNECT secure.example:443 HTTP/1.1\r\nHost: secure.example:443\r\n\r\n'),
        );
        let text = '';
        socket.on('data', (chunk) => (text += chunk.toString()));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
      });
      expect(answer).toMatch(/^HTTP\/1\.1 502/);
      await forwarder.close();
      const refused = await new Promise<string>((resolve) => {
        const socket = connect(Number(port), '127.0.0.1', () => resolve('connected'));
        socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
      });
      expect(refused).toBe('ECONNREFUSED');
    } finally {
      await forwarder.close();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('takes credentials only as strings, and only for one http(s) proxy, without echoing them', () => {
    const make = (proxy: object) => () => new Stagehand({ disablePino: true, localBrowserLaunchOptions: { proxy } as never });
    expect(make({ server: 'http://p:1', username: 'u', password: 7 })).toThrow(InvalidOptionError);
    expect(make({ server: 'socks5://p:1080', username: 'u', password: 'hidden-value' })).toThrow(/SOCKS/);
    expect(make({ server: 'socks5://p:1080', username: 'u', password: 'hidden-value' })).not.toThrow(/hidden-value/);
    expect(make({ server: 'http://p:1', username: 'u', password: 'p' })).not.toThrow();
  });
});
