// A hosted session waits for a slow site as long as a local browser would: the egress proxy's
// connect limit is not a limit on the answer, and when the proxy does give up on a site (its own
// HOSTED_RESPONSE_TIMEOUT_MS, a refused connection), goto() says so with a typed error instead of
// an HTTP status failure. All real: the hosted server, its Chromium and egress proxy, a site on loopback.

import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostedApi } from '../../src/hosted/client/api.js';
import type { HostedServer } from '../../src/hosted/server/http.js';
import { NavigationError, TimeoutError } from '../../src/index.js';
import { HOSTED_TEST_ENV } from '../helpers.js';
import { hostedSession, startTestHostedServer } from '../support/hosted.js';

const KEY = 'upstream-test-key-8b2c';

let site: http.Server;
let origin: string;
/** Resolves with a request's path once the site saw its client go away before it answered. */
const abandoned: Array<(path: string) => void> = [];
const servers: HostedServer[] = [];

async function startServer(env: Record<string, string> = {}): Promise<HostedServer> {
  const server = await startTestHostedServer({ ...HOSTED_TEST_ENV, HOSTED_API_KEYS: KEY, MAX_SESSIONS: '2', ...env });
  servers.push(server);
  return server;
}

const session = (server: HostedServer) => hostedSession(server, KEY);

function nextAbandoned(): Promise<string> {
  return new Promise((resolve) => abandoned.push(resolve));
}

beforeAll(async () => {
  site = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    res.once('close', () => {
      if (!res.writableFinished) abandoned.shift()?.(url.pathname);
    });
    if (url.pathname === '/slow') {
      const timer = setTimeout(
        () => res.writeHead(200, { 'content-type': 'text/html' }).end('<title>slow</title><p>answered late</p>'),
        Number(url.searchParams.get('ms')),
      );
      res.once('close', () => clearTimeout(timer));
      return;
    }
    if (url.pathname === '/hang') return; // never answers
    if (url.pathname === '/forged') {
      return void res
        .writeHead(200, { 'content-type': 'text/html', 'x-tendril-upstream-error': 'response-timeout 5' })
        .end('<p>a real page</p>');
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end('<p>ok</p>');
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  site?.closeAllConnections();
  await new Promise((resolve) => site?.close(resolve));
});

describe('a hosted session and slow or failing sites', () => {
  it('waits for a site that answers after 16 s when goto allows 60 s (the proxy once cut every answer at 15 s)', async () => {
    const { sdk, page } = await session(await startServer());
    try {
      const response = await page.goto(`${origin}/slow?ms=16000`, { timeoutMs: 60_000 });
      expect(response?.status()).toBe(200);
      expect(await page.evaluate(() => document.body.textContent)).toBe('answered late');
    } finally {
      await sdk.close();
    }
  }, 90_000);

  it("ends the wait at goto's own deadline, and the proxy lets go of the site's request then", async () => {
    const { sdk, page } = await session(servers[0] ?? (await startServer()));
    try {
      const gone = nextAbandoned();
      const error = await page.goto(`${origin}/hang`, { timeoutMs: 2000 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TimeoutError);
      expect((error as TimeoutError).timeoutMs).toBe(2000);
      // Chrome cancelled the request when goto stopped the navigation; the proxy closed its own to the site.
      expect(await gone).toBe('/hang');
      // The session goes on working.
      await page.goto(`${origin}/ok`);
      expect(await page.evaluate(() => document.body.textContent)).toBe('ok');
    } finally {
      await sdk.close();
    }
  }, 60_000);

  it("with HOSTED_RESPONSE_TIMEOUT_MS, a site that does not answer in time is a TimeoutError that names the site and the limit; the page shows the proxy's 504", async () => {
    const server = await startServer({ HOSTED_RESPONSE_TIMEOUT_MS: '2000' });
    const { sdk, page } = await session(server);
    try {
      const gone = nextAbandoned();
      const error = await page.goto(`${origin}/hang`, { timeoutMs: 60_000 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TimeoutError);
      expect((error as TimeoutError).timeoutMs).toBe(2000);
      expect((error as Error).message).toMatch(
        new RegExp(`127\\.0\\.0\\.1:\\d+ did not answer within 2000 ms.*HOSTED_RESPONSE_TIMEOUT_MS`),
      );
      expect(await gone).toBe('/hang');
      expect(await page.evaluate(() => document.body.textContent)).toMatch(
        /^The hosted server's egress proxy: 127\.0\.0\.1:\d+ did not answer within 2000 ms/,
      );
      // The same over REST navigate: the server's own goto raises it, and the client gets it as its TimeoutError.
      const api = new HostedApi(server.url, KEY, 30_000);
      const [id] = server.sessions.runningIds();
      const viaRest = await api
        .operation(
          id!,
          'navigate',
          { url: `${origin}/hang`, timeoutMs: 60_000, pageId: page.targetId },
          { bypassCache: true, timeoutMs: 60_000, onLog: () => undefined },
        )
        .catch((e: unknown) => e);
      expect(viaRest).toBeInstanceOf(TimeoutError);
      expect((viaRest as Error).message).toMatch(/did not answer within 2000 ms.*HOSTED_RESPONSE_TIMEOUT_MS/);
    } finally {
      await sdk.close();
    }
  }, 60_000);

  it("a refused connection is a NavigationError that says so, and a site cannot forge the proxy's header", async () => {
    const { sdk, page } = await session(servers[0] ?? (await startServer()));
    // A port nobody listens on: taken, then closed.
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const closedPort = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    try {
      const error = await page.goto(`http://127.0.0.1:${closedPort}/`).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NavigationError);
      expect(error).not.toBeInstanceOf(TimeoutError);
      expect((error as Error).message).toMatch(new RegExp(`127\\.0\\.0\\.1:${closedPort} refused the connection`));
      const response = await page.goto(`${origin}/forged`);
      expect(response?.status()).toBe(200);
      expect(response?.headers()['x-tendril-upstream-error']).toBeUndefined();
      expect(await page.evaluate(() => document.body.textContent)).toBe('a real page');
    } finally {
      await sdk.close();
    }
  }, 60_000);
});
