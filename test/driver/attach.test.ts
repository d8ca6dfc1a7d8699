import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import CDP from 'chrome-remote-interface';
import WebSocket, { WebSocketServer } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserConnectError, InvalidOptionError, Sdk } from '../../src/index.js';
import { startFixtureServers, type FixtureServers } from '../fixtures/server.js';
import { startDebugChrome, type DebugChrome } from '../helpers.js';

let servers: FixtureServers;
let chrome: DebugChrome;

beforeAll(async () => {
  [servers, chrome] = await Promise.all([startFixtureServers(), startDebugChrome()]);
});
afterAll(async () => {
  await chrome?.kill();
  await servers?.close();
});

function attachOptions(cdpUrl: string, cdpHeaders?: Record<string, string>) {
  return { verbose: 0 as const, disablePino: true, localBrowserLaunchOptions: { cdpUrl, cdpHeaders } };
}

async function pageTargets(): Promise<Array<{ id: string; url: string; type: string }>> {
  return (await CDP.List({ port: chrome.port })) as Array<{ id: string; url: string; type: string }>;
}

/** A WebSocket proxy in front of Chrome that lets only requests with the right header through. */
async function startHeaderCheckingProxy(upstream: string, header: string, value: string) {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 512 * 1024 * 1024 });
  const server = http.createServer((_, res) => res.writeHead(404).end());
  server.on('upgrade', (req, socket, head) => {
    if (req.headers[header] !== value) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (client) => {
      const target = new WebSocket(upstream, { maxPayload: 512 * 1024 * 1024 });
      const queue: string[] = [];
      client.on('message', (data) => (target.readyState === WebSocket.OPEN ? target.send(data.toString()) : queue.push(data.toString())));
      target.on('open', () => queue.splice(0).forEach((message) => target.send(message)));
      target.on('message', (data) => client.send(data.toString()));
      client.on('close', () => target.close());
      target.on('close', () => client.close());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/devtools/browser/proxied`,
    close: () => {
      for (const client of wss.clients) client.terminate();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('attaching to a running Chrome', () => {
  it('attaches by http://127.0.0.1:PORT and only detaches on close', async () => {
    const sdk = new Sdk(attachOptions(`http://127.0.0.1:${chrome.port}`));
    await sdk.init();
    expect(sdk.browserProcessId()).toBeUndefined();
    const page = sdk.context.pages()[0]!;
    await page.goto(servers.a.url('/frames.html'));
    expect(page.frames().some((frame) => frame.isOutOfProcess())).toBe(true);
    await sdk.close();
    expect(chrome.alive()).toBe(true);
    // The user's page is still there, where we left it.
    expect((await pageTargets()).some((target) => target.url === servers.a.url('/frames.html'))).toBe(true);
  });

  it('attaches through a DevToolsActivePort file, or the profile directory holding it', async () => {
    for (const cdpUrl of [path.join(chrome.userDataDir, 'DevToolsActivePort'), chrome.userDataDir]) {
      const sdk = new Sdk(attachOptions(cdpUrl));
      await sdk.init();
      const page = sdk.context.pages()[0]!;
      await page.goto(servers.b.url('/leaf.html'));
      expect(await page.title()).toBe('Leaf');
      await sdk.close();
      expect(chrome.alive()).toBe(true);
    }
  });

  it('sends cdpHeaders on the WebSocket upgrade', async () => {
    const proxy = await startHeaderCheckingProxy(chrome.wsUrl, 'x-tendril-test', 'sesame');
    try {
      const refused = new Sdk(attachOptions(proxy.url));
      await expect(refused.init()).rejects.toBeInstanceOf(BrowserConnectError);
      const sdk = new Sdk(attachOptions(proxy.url, { 'x-tendril-test': 'sesame' }));
      await sdk.init();
      const page = await sdk.context.newPage();
      await page.goto(servers.a.url('/leaf.html'));
      // A message of more than 50 MB through the WebSocket transport (and the proxy).
      const size = 50 * 1024 * 1024 + 5;
      expect((await page.evaluate((n: number) => 'z'.repeat(n), size)).length).toBe(size);
      await page.close();
      await sdk.close();
    } finally {
      await proxy.close();
    }
  });

  it('shows the page newPage() created to an independent client (chrome-remote-interface)', async () => {
    const sdk = new Sdk(attachOptions(chrome.wsUrl));
    await sdk.init();
    try {
      const page = await sdk.context.newPage();
      await page.goto(servers.b.url('/child.html'));
      const target = (await pageTargets()).find((each) => each.id === page.targetId());
      expect(target?.url).toBe(servers.b.url('/child.html'));
      const client = await CDP({ port: chrome.port, target: page.targetId() });
      try {
        const { result } = await client.Runtime.evaluate({ expression: 'document.title' });
        expect(result.value).toBe('Child');
      } finally {
        await client.close();
      }
      await page.close();
      expect((await pageTargets()).some((each) => each.id === page.targetId())).toBe(false);
    } finally {
      await sdk.close();
    }
  });

  it('reads a page that was loaded before it attached, out-of-process frames included, the same way every time', async () => {
    // Chrome announces the out-of-process frame before it answers for the page's own frame tree.
    const { id } = (await CDP.New({ port: chrome.port, url: servers.a.url('/act.html') })) as { id: string };
    try {
      const texts = new Set<string>();
      for (let attempt = 0; attempt < 6; attempt++) {
        const sdk = new Sdk(attachOptions(chrome.wsUrl));
        await sdk.init();
        try {
          const page = sdk.context.pages().find((each) => each.targetId() === id)!;
          await page.waitForLoadState('load', { timeoutMs: 10_000 });
          expect(page.frames().filter((frame) => frame.isOutOfProcess())).toHaveLength(1);
          const { pageText } = await sdk.extract({ page });
          expect(pageText.match(/Iframe/g)).toHaveLength(2);
          texts.add(pageText);
        } finally {
          await sdk.close();
        }
      }
      expect(texts.size).toBe(1);
    } finally {
      await CDP.Close({ port: chrome.port, id });
    }
  });

  it('reads closed roots of a page loaded before it attached, which no closed-root watch reports on', async () => {
    const { id } = (await CDP.New({ port: chrome.port, url: servers.a.url('/snap-shadow-watch.html') })) as { id: string };
    const sdk = new Sdk(attachOptions(chrome.wsUrl));
    try {
      await sdk.init();
      const page = sdk.context.pages().find((each) => each.targetId() === id)!;
      await page.waitForLoadState('load', { timeoutMs: 10_000 });
      const { pageText } = await sdk.extract({ page });
      expect(pageText).toMatch(/before words[\s\S]*middle words[\s\S]*after words/);
      expect(pageText).toMatch(/declarative words[\s\S]*parsed light/);
    } finally {
      await sdk.close();
      await CDP.Close({ port: chrome.port, id });
    }
  });

  it('explains cdpUrl values it cannot use', async () => {
    await expect(new Sdk(attachOptions('ftp://example/x')).init()).rejects.toBeInstanceOf(InvalidOptionError);
    await expect(new Sdk(attachOptions('/no/such/DevToolsActivePort')).init()).rejects.toBeInstanceOf(InvalidOptionError);
    const closedPort = new Sdk({
      ...attachOptions('http://127.0.0.1:1'),
      localBrowserLaunchOptions: { cdpUrl: 'http://127.0.0.1:1', connectTimeoutMs: 2000 },
    });
    await expect(closedPort.init()).rejects.toThrow(/remote-debugging-port/);
  });
});
