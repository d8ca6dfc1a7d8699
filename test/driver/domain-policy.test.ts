// domainPolicy against real Chromium: two fixture servers (127.0.0.1 and localhost), plus other
// host names for the localhost server (Chrome resolves every *.localhost to loopback), so allowed
// and refused hosts are real hosts with real servers behind them. Each server's request log says
// what left the browser; the pages themselves say what their requests saw.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { HostedServer } from '../../src/hosted/server/http.js';
import { DomainPolicyError, InvalidOptionError, NavigationError, Sdk, type LogLine, type Page } from '../../src/index.js';
import { startFixtureServers, type FixtureServers } from '../fixtures/server.js';
import { sdkOptions, HOSTED_TEST_ENV } from '../helpers.js';
import { startFakeModel, type FakeModel, type FakeRequest } from '../support/fake-model.js';
import { startTestHostedServer } from '../support/hosted.js';

let servers: FixtureServers;
let fake: FakeModel;

beforeAll(async () => {
  [servers, fake] = await Promise.all([startFixtureServers(), startFakeModel()]);
});
afterAll(async () => {
  await Promise.all([servers?.close(), fake?.close()]);
});

/**
 * The requests the localhost server received for host names matching `host` (a host, or `*` for
 * any). Chrome's own favicon fetch for a page an earlier test showed (on an allowed host) can land
 * any time later, so it is left out: it is not a page's request.
 */
function reached(host: string): string[] {
  const port = new URL(servers.b.origin).port;
  return servers.b.requests.filter(
    (line) => (host === '*' || line.startsWith(`${host}:${port}/`)) && !line.endsWith(':' + port + '/favicon.ico'),
  );
}

/** The async result a fixture page leaves in window.done, read in `frame` (the main frame by default). */
function done(page: Page, urlPart?: string): Promise<Record<string, unknown>> {
  const frame = urlPart ? page.frames().find((each) => each.url().includes(urlPart)) : page.mainFrame();
  if (!frame)
    throw new Error(
      `no frame with ${urlPart}: ${page
        .frames()
        .map((each) => each.url())
        .join(', ')}`,
    );
  return frame.evaluate('window.done');
}

describe('checking the option', () => {
  it('refuses a malformed domainPolicy in the constructor with InvalidOptionError naming the field', () => {
    const cases: Array<[unknown, RegExp]> = [
      ['example.org', /domainPolicy must be an object/],
      [{ allow: 'example.org' }, /domainPolicy\.allow must be an array/],
      [{ allow: ['https://example.org/'] }, /domainPolicy\.allow has "https:\/\/example\.org\/", which is not a host pattern/],
      [{ block: ['example.org:8080'] }, /domainPolicy\.block has "example\.org:8080"/],
      [{ allow: [] }, /domainPolicy\.allow is empty/],
      [{ allowed: ['example.org'] }, /domainPolicy takes only `allow` and `block`, not `allowed`/],
    ];
    for (const [domainPolicy, message] of cases) {
      const error = (() => {
        try {
          new Sdk({ domainPolicy: domainPolicy as never });
        } catch (caught) {
          return caught;
        }
      })();
      expect(error, JSON.stringify(domainPolicy)).toBeInstanceOf(InvalidOptionError);
      expect((error as Error).message).toMatch(message);
    }
    // The session's own policy for HOSTED is checked as early, and says where it was.
    expect(() => new Sdk({ env: 'HOSTED', hostedSessionCreateParams: { domainPolicy: { block: ['*.'] } } })).toThrow(
      /hostedSessionCreateParams\.domainPolicy\.block has "\*\."/,
    );
  });
});

describe('allow: [127.0.0.1]', () => {
  let sdk: Sdk;
  let page: Page;
  const lines: LogLine[] = [];
  const model = () => ({ modelName: 'openai/gpt-4.1-mini', apiKey: 'sk-policy-test', baseURL: fake.url });

  beforeAll(async () => {
    sdk = new Sdk(sdkOptions({ domainPolicy: { allow: ['127.0.0.1'] }, verbose: 1, logger: (line) => lines.push(line) }));
    await sdk.init();
    page = sdk.context.pages()[0]!;
  });
  afterAll(async () => {
    await sdk?.close();
  });
  beforeEach(async () => {
    await page.goto(servers.a.url('/policy-links.html'));
    servers.b.requests.length = 0;
    fake.reset();
  });

  it('goto() to a refused host throws DomainPolicyError naming the host, and the page stays', async () => {
    const target = servers.b.url('/leaf.html?from=goto');
    const error = await page.goto(target).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DomainPolicyError);
    expect(error).toBeInstanceOf(NavigationError);
    expect((error as DomainPolicyError).host).toBe('localhost');
    expect((error as DomainPolicyError).url).toBe(target);
    expect((error as DomainPolicyError).policy).toEqual({ allow: ['127.0.0.1'] });
    expect((error as Error).message).toMatch(/localhost was refused by the domainPolicy \(allow 127\.0\.0\.1\)/);
    expect(page.url()).toBe(servers.a.url('/policy-links.html'));
    expect(await page.title()).toBe('Policy links');
    expect(reached('*')).toEqual([]);
    // A new tab at a refused URL is not even opened.
    const pages = sdk.context.pages().length;
    await expect(sdk.context.newPage(target)).rejects.toBeInstanceOf(DomainPolicyError);
    expect(sdk.context.pages()).toHaveLength(pages);
  });

  it('a goto redirected to a refused host throws DomainPolicyError, and the page stays on its previous URL', async () => {
    const start = servers.a.requests.length;
    const error = await page
      .goto(servers.a.url(`/redirect-to?to=${servers.b.url('/leaf.html?from=redirect')}`))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DomainPolicyError);
    expect((error as DomainPolicyError).host).toBe('localhost');
    expect((error as DomainPolicyError).url).toBe(servers.b.url('/leaf.html?from=redirect'));
    expect((error as Error).message).toMatch(/was redirected/);
    expect(servers.a.requests.slice(start).some((line) => line.includes('/redirect-to?'))).toBe(true);
    expect(reached('*')).toEqual([]);
    expect(page.url()).toBe(servers.a.url('/policy-links.html'));
    // Still the same document, alive and usable.
    expect(await page.evaluate(() => document.getElementById('here')?.textContent)).toBe('on the allowed site');
    expect((await sdk.extract()).pageText).toContain('link: Partner site');
  });

  it('blocks a page’s fetch, script, image, worker fetch, WebSocket and iframe to a refused host while its own requests load', async () => {
    await page.goto(servers.a.url('/policy-resources.html'));
    expect(await done(page)).toEqual({ own: 200, fetched: 'failed', otherScript: 'failed', ownScript: 'loaded', worker: 'failed' });
    expect(reached('*')).toEqual([]);
    // Each refusal is logged once, at info level, with its host, URL (query values hidden) and frame.
    const script = lines.filter((line) => line.category === 'policy' && String(line.auxiliary?.url).includes('/marker.js?script='));
    expect(script).toEqual([
      expect.objectContaining({
        level: 1,
        message: 'Request refused by the domainPolicy',
        auxiliary: { host: 'localhost', url: servers.b.url('/marker.js?script=***'), frame: page.mainFrame().id, type: 'Script' },
      }),
    ]);
    const { pageText } = await sdk.extract();
    expect(pageText).toContain('A page on one site');
    expect(pageText).not.toContain('leaf text');
  });

  it('blocks the fetches of a service worker to a refused host', async () => {
    await page.goto(servers.a.url('/workers.html'));
    // Chrome 156 intercepts a shared worker's requests only some of the time (its first fetch went
    // through in most tries here; see docs/browsers.md), so only the service worker is held to it.
    expect((await done(page)).service).toBe('failed');
    expect(reached('*').filter((line) => line.includes('fetch=service'))).toEqual([]);
  });

  it('act() clicking a link to a refused host fails with DomainPolicyError, and the page stays', async () => {
    fake.script((request) => ({
      json: { elementId: idOf(request, 'link', 'Partner site'), method: 'click', arguments: [], description: 'the partner link' },
    }));
    const error = await sdk.act('open the partner site', { model: model(), timeout: 10_000 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DomainPolicyError);
    expect((error as DomainPolicyError).host).toBe('localhost');
    expect((error as DomainPolicyError).url).toBe(servers.b.url('/leaf.html?from=link'));
    expect(fake.requests).toHaveLength(1);
    expect(page.url()).toBe(servers.a.url('/policy-links.html'));
    expect(reached('*')).toEqual([]);
    // A link on the allowed site is followed as usual, and the act succeeds.
    const followed = await sdk.act({ selector: 'css=#own', method: 'click', description: 'own page' }, { timeout: 10_000 });
    expect(followed.success).toBe(true);
    expect(page.url()).toBe(servers.a.url('/leaf.html?from=own'));
  });

  it('act() on a link whose server redirects to a refused host fails with DomainPolicyError', async () => {
    const error = await sdk.act({ selector: 'css=#redirect', method: 'click' }, { timeout: 10_000 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DomainPolicyError);
    expect((error as DomainPolicyError).url).toBe(servers.b.url('/leaf.html?from=redirect'));
    expect(page.url()).toBe(servers.a.url('/policy-links.html'));
    expect(reached('*')).toEqual([]);
  });

  it('a popup (target=_blank, window.open) whose first page is refused is closed, and act() fails naming the host', async () => {
    const pages = sdk.context.pages().map((each) => each.targetId());
    for (const [selector, from] of [
      ['css=#blank', 'blank'],
      ['css=#open', 'open'],
    ]) {
      const error = await sdk.act({ selector: selector!, method: 'click' }, { page, timeout: 10_000 }).catch((caught: unknown) => caught);
      expect(error, selector).toBeInstanceOf(DomainPolicyError);
      expect((error as DomainPolicyError).host).toBe('localhost');
      expect((error as DomainPolicyError).url).toBe(servers.b.url(`/leaf.html?from=${from}`));
      expect((error as Error).message).toMatch(/^A popup the action opened to localhost was refused/);
      // Gone by the time act() fails: no empty tab is left behind.
      expect(sdk.context.pages().map((each) => each.targetId())).toEqual(pages);
    }
    expect(reached('*')).toEqual([]);
    expect(page.url()).toBe(servers.a.url('/policy-links.html'));
  });
});

describe('allow: [127.0.0.1, *.localhost], block: [sub.localhost]', () => {
  let sdk: Sdk;
  let page: Page;

  beforeAll(async () => {
    sdk = new Sdk(sdkOptions({ domainPolicy: { allow: ['127.0.0.1', '*.localhost'], block: ['sub.localhost'] } }));
    await sdk.init();
    page = sdk.context.pages()[0]!;
  });
  afterAll(async () => {
    await sdk?.close();
  });

  it('"*." allows the host and its subdomains; block wins over allow', async () => {
    const other = servers.b.url('/leaf.html?host=other').replace('//localhost', '//other.localhost');
    await page.goto(other);
    expect(page.url()).toBe(other);
    await page.goto(servers.b.url('/leaf.html?host=base'));
    expect(page.url()).toBe(servers.b.url('/leaf.html?host=base'));
    const sub = servers.b.url('/leaf.html?host=sub').replace('//localhost', '//sub.localhost');
    const error = await page.goto(sub).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DomainPolicyError);
    expect((error as DomainPolicyError).host).toBe('sub.localhost');
    expect((error as Error).message).toContain('allow 127.0.0.1, *.localhost; block sub.localhost');
    expect(reached('sub.localhost')).toEqual([]);
    expect(page.url()).toBe(servers.b.url('/leaf.html?host=base'));
  });

  it('an allowed out-of-process iframe loads, and its own requests to a blocked host are refused', async () => {
    servers.b.requests.length = 0;
    await page.goto(servers.a.url('/policy-frames.html'));
    const inner = page.frames().find((frame) => frame.url().includes('policy-inner.html'));
    expect(inner?.isOutOfProcess()).toBe(true);
    expect(await done(page, 'policy-inner.html')).toEqual({ sub: 'failed', other: 'opaque', own: 200 });
    expect(reached('sub.localhost')).toEqual([]);
    expect(reached('other.localhost')).toEqual([expect.stringContaining('/leaf.html?fetch=other')]);
    expect(reached('localhost')).toEqual(
      expect.arrayContaining([expect.stringContaining('/policy-inner.html'), expect.stringContaining('/leaf.html?fetch=own')]),
    );
    const { pageText } = await sdk.extract();
    expect(pageText).toContain('inner frame text');
    expect(pageText).not.toContain('leaf text');
  });

  it('refuses the WebSockets of an out-of-process iframe and of its worker to a blocked host, and lets its socket to an allowed host through', async () => {
    servers.b.requests.length = 0;
    await page.goto(servers.a.url('/policy-socket-frames.html'));
    const inner = page.frames().find((frame) => frame.url().includes('policy-socket-inner.html'));
    expect(inner?.isOutOfProcess()).toBe(true);
    expect(await done(page, 'policy-socket-inner.html')).toEqual(['settled', 'settled', 'settled']);
    // The server logs a socket's upgrade request like any other: the blocked one never left Chrome.
    expect(reached('sub.localhost')).toEqual([]);
    expect(reached('other.localhost')).toEqual([expect.stringContaining('/socket?from=frame-other')]);
  });
});

describe('env "HOSTED"', () => {
  let server: HostedServer;
  let proxy: http.Server;
  let proxyUrl: string;
  const created: unknown[] = [];

  beforeAll(async () => {
    server = await startTestHostedServer({ ...HOSTED_TEST_ENV, HOSTED_API_KEYS: 'policy-key-7d2e', MAX_SESSIONS: '2' });
    // In front of the service: notes each session-create body, passes everything through.
    const target = new URL(server.url);
    proxy = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        if (req.method === 'POST' && req.url === '/v1/sessions') created.push(JSON.parse(body.toString()));
        const upstream = http.request(
          { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        upstream.on('error', () => res.destroy());
        upstream.end(body);
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    proxy?.closeAllConnections();
    await new Promise((resolve) => proxy?.close(resolve));
    await server?.close();
  });

  it('sends the session its domainPolicy, and the client’s driver enforces it on the session’s pages, popups and frames', async () => {
    const sdk = new Sdk({
      env: 'HOSTED',
      apiKey: 'policy-key-7d2e',
      projectId: 'proj-policy',
      hostedApiUrl: proxyUrl,
      verbose: 0,
      disablePino: true,
      domainPolicy: { allow: ['example.org'] },
      hostedSessionCreateParams: { domainPolicy: { allow: ['127.0.0.1'] } },
    });
    try {
      await sdk.init();
      // The session's own policy wins over the Sdk-wide one.
      expect(created).toEqual([expect.objectContaining({ projectId: 'proj-policy', domainPolicy: { allow: ['127.0.0.1'] } })]);
      const page = sdk.context.pages()[0]!;
      await page.goto(servers.a.url('/policy-links.html'));
      servers.b.requests.length = 0;
      await expect(page.goto(servers.b.url('/leaf.html?from=hosted'))).rejects.toBeInstanceOf(DomainPolicyError);
      const redirected = await page
        .goto(servers.a.url(`/redirect-to?to=${servers.b.url('/leaf.html?from=hosted-redirect')}`))
        .catch((caught: unknown) => caught);
      expect(redirected).toBeInstanceOf(DomainPolicyError);
      expect(page.url()).toBe(servers.a.url('/policy-links.html'));
      // The service clicks; the popup's page is refused, and act() says so here too.
      const pages = sdk.context.pages().map((each) => each.targetId());
      const popup = await sdk.act({ selector: 'css=#blank', method: 'click' }, { timeout: 10_000 }).catch((caught: unknown) => caught);
      expect(popup).toBeInstanceOf(DomainPolicyError);
      expect((popup as DomainPolicyError).url).toBe(servers.b.url('/leaf.html?from=blank'));
      expect(sdk.context.pages().map((each) => each.targetId())).toEqual(pages);
      await page.goto(servers.a.url('/policy-resources.html'));
      expect(await done(page)).toEqual({ own: 200, fetched: 'failed', otherScript: 'failed', ownScript: 'loaded', worker: 'failed' });
      expect(reached('*')).toEqual([]);
    } finally {
      await sdk.close();
    }
  });
});

/** The id of the line `role: name` in the prompt, as a model reading it would pick. */
function idOf(request: FakeRequest, role: string, name: string): string {
  const match = new RegExp(`\\[((?:\\d+-)?\\d+)\\] ${role}: ${name}`).exec(request.user);
  if (!match) throw new Error(`no ${role} "${name}" in the prompt:\n${request.user}`);
  return match[1]!;
}
