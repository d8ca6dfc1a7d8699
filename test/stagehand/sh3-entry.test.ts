// Stagehand 3's entry on Tendril: a Stagehand-style program with only the import swapped runs
// (constructor options, init, context.pages(), goto, extract/act/observe through the fake model,
// metrics, history, logger, close), Stagehand's error classes catch what Tendril throws, and every
// option Tendril cannot honour fails at once (test/stagehand/sh3-entry-options.test.ts, with the error classes).

import { createOpenAI } from '@ai-sdk/openai';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ActTimeoutError,
  AISdkClient,
  CustomOpenAIClient,
  ElementNotFoundError,
  ExtractTimeoutError,
  InvalidOptionError,
  ObserveTimeoutError,
  SdkError,
  Stagehand,
  StagehandClosedError,
  StagehandElementNotFoundError,
  StagehandError,
  StagehandEvalError,
  StagehandInvalidArgumentError,
  StagehandNotInitializedError,
  TimeoutError,
  V3,
  type HistoryEntry,
  type StagehandLogLine,
  type V3Options,
} from '../../src/index.js';
import { Sdk } from '../../src/sdk.js';
import { startFixtureServers, type FixtureServers } from '../fixtures/server.js';
import { CHROME, startDebugChrome, TEST_ARGS, type DebugChrome } from '../helpers.js';
import { startFakeModel, type FakeModel, type FakeRequest } from '../support/fake-model.js';
import { selfSigned } from '../support/tls.js';

let servers: FixtureServers;
let fake: FakeModel;
const model = () => ({ modelName: 'openai/gpt-4.1-mini', apiKey: 'sk-sh3-test', baseURL: fake.url });
const quiet = { verbose: 0, disablePino: true } as const;

/** The id of the line `role: name` in the prompt, as a model reading it would pick. */
function idOf(request: FakeRequest, role: string, name: string): string {
  const match = new RegExp(`\\[((?:\\d+-)?\\d+)\\] ${role}: ${name}`).exec(request.user);
  if (!match) throw new Error(`no ${role} "${name}" in the prompt:\n${request.user}`);
  return match[1]!;
}
const choose =
  (role: string, name: string, method: string, args: string[] = []) =>
  (request: FakeRequest) => ({
    json: { elementId: idOf(request, role, name), method, arguments: args, description: `${method} ${name}` },
  });

async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  [servers, fake] = await Promise.all([startFixtureServers(), startFakeModel()]);
});
afterAll(async () => {
  await Promise.all([servers?.close(), fake?.close()]);
});
beforeEach(() => fake.reset());

describe('a Stagehand program with only the import swapped', () => {
  const lines: StagehandLogLine[] = [];
  const proxied: string[] = [];
  const work = mkdtempSync(path.join(os.tmpdir(), 'tendril-sh3-'));
  let stagehand: Stagehand;
  let proxy: Server;
  let tls: Server;
  let tlsHost: string;
  let port: number;

  beforeAll(async () => {
    // A proxy that answers every request itself, and an HTTPS server whose certificate nobody signed.
    proxy = createHttpServer((req, res) => {
      proxied.push(req.url ?? '');
      res.setHeader('content-type', 'text/html');
      res.end('<title>through the proxy</title><p>proxied</p>');
    });
    const { key, cert } = await selfSigned(work, 'localhost');
    tls = createHttpsServer({ key, cert }, (_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end('<title>self-signed</title><p>secret page</p>');
    });
    [, tlsHost, port] = await Promise.all([listen(proxy), listen(tls), freePort()]);
    const proxyHost = `127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    stagehand = new Stagehand({
      env: 'LOCAL',
      verbose: 1,
      disablePino: true,
      logger: (line) => lines.push(line),
      model: model(),
      domSettleTimeout: 500,
      selfHeal: true,
      experimental: false,
      sessionId: 'sh3-entry-run',
      localBrowserLaunchOptions: {
        headless: true,
        executablePath: CHROME,
        args: TEST_ARGS,
        locale: 'de-DE',
        deviceScaleFactor: 2,
        port,
        // Loopback goes direct (the fixtures), as Chrome always lets it; other hosts go through the proxy.
        proxy: { server: `http://${proxyHost}`, bypass: '*.direct.example' },
        ignoreHTTPSErrors: true,
        ignoreDefaultArgs: ['--mute-audio'],
        downloadsPath: path.join(work, 'downloads'),
        acceptDownloads: true,
      },
    });
    await stagehand.init();
  });
  afterAll(async () => {
    await stagehand?.close();
    await Promise.all([new Promise((resolve) => proxy?.close(resolve)), new Promise((resolve) => tls?.close(resolve))]);
    rmSync(work, { recursive: true, force: true });
  });

  it('runs: init, context.pages()[0], goto, extract, act, observe, metrics, history', async () => {
    expect(stagehand).toBeInstanceOf(Sdk);
    expect(V3).toBe(Stagehand);
    const page = stagehand.context.pages()[0]!;
    await page.goto(servers.a.url('act.html'));

    fake.script([{ json: { heading: 'Act page' } }]);
    const data = await stagehand.extract('the heading', z.object({ heading: z.string() }));
    expect(data).toEqual({ heading: 'Act page' });

    fake.script(choose('button', 'Top button', 'click'));
    const acted = await stagehand.act('click the top button');
    expect(acted.success).toBe(true);
    expect(await page.evaluate(() => document.getElementById('top-state')!.textContent)).toBe('top clicked 1');

    fake.script((request) => ({
      json: {
        elements: [{ elementId: idOf(request, 'button', 'Top button'), description: 'the top button', method: 'click', arguments: [] }],
      },
    }));
    const [action] = await stagehand.observe({ selector: '/html/body' });
    expect(action).toMatchObject({ description: 'the top button', method: 'click' });
    expect((await stagehand.act(action!)).success).toBe(true);
    expect(await page.evaluate(() => document.getElementById('top-state')!.textContent)).toBe('top clicked 2');

    // Stagehand's metrics are a promise of flat counters; these are also the Sdk's own.
    const metrics = await stagehand.metrics;
    expect(metrics.totalPromptTokens).toBeGreaterThan(0);
    expect(metrics.totalPromptTokens).toBe(metrics.actPromptTokens + metrics.extractPromptTokens + metrics.observePromptTokens);
    expect(metrics.agentPromptTokens).toBe(0);
    expect(stagehand.metrics.total.promptTokens).toBe(metrics.totalPromptTokens);
    expect(JSON.parse(JSON.stringify(stagehand.metrics))).not.toHaveProperty('then');

    const history = await stagehand.history;
    expect(history.map((entry: HistoryEntry) => entry.method)).toEqual(['extract', 'act', 'observe', 'act']);
    expect(history[1]!.parameters).toMatchObject({ instruction: 'click the top button' });
    expect(history[3]!.parameters).toEqual({ observeResult: action });
    expect(Object.isFrozen(history)).toBe(true);
  });

  it("takes Stagehand's defaults and launch options: viewport 1288x711, locale, scale, port, proxy, TLS, switches", async () => {
    const page = stagehand.context.pages()[0]!;
    await page.goto(servers.a.url('leaf.html'));
    expect(stagehand.configuredViewport).toEqual({ width: 1288, height: 711 });
    expect(await stagehand.resolveViewport()).toEqual({ width: 1288, height: 711 });
    expect(await page.evaluate(() => [navigator.language, window.devicePixelRatio])).toEqual(['de-DE', 2]);
    const version = (await (await fetch(`http://127.0.0.1:${port}/json/version`)).json()) as { webSocketDebuggerUrl: string };
    expect(version.webSocketDebuggerUrl).toMatch(/^ws:\/\/127\.0\.0\.1/);
    await page.goto('http://sh3-entry.example/through');
    expect(await page.title()).toBe('through the proxy');
    expect(proxied).toContain('http://sh3-entry.example/through');
    await page.goto(`https://${tlsHost.replace('127.0.0.1', 'localhost')}/`);
    expect(await page.title()).toBe('self-signed');
    const cmdline = readFileSync(`/proc/${stagehand.browserProcessId()}/cmdline`, 'utf8').split('\0');
    expect(cmdline).not.toContain('--mute-audio');
    expect(cmdline).toContain('--hide-scrollbars');
  });

  it('logs to the Stagehand logger with typed auxiliary values, and stagehand.logger(line) writes there too', async () => {
    lines.length = 0;
    stagehand.logger({
      category: 'program',
      message: 'hello from the program',
      level: 1,
      auxiliary: { count: { value: '3', type: 'integer' } },
    });
    stagehand.logger({ message: 'too detailed', level: 2 });
    stagehand.logger.info('program', 'through the Sdk method', { ok: true, n: 1.5 });
    expect(lines).toEqual([
      expect.objectContaining({
        category: 'program',
        message: 'hello from the program',
        level: 1,
        auxiliary: { count: { value: '3', type: 'integer' } },
      }),
      expect.objectContaining({
        category: 'program',
        message: 'through the Sdk method',
        auxiliary: { ok: { value: 'true', type: 'boolean' }, n: { value: '1.5', type: 'float' } },
      }),
    ]);
    expect(stagehand.verbose).toBe(1);
    expect(stagehand.sessionId).toBe('sh3-entry-run');
  });

  it("raises Stagehand's error classes from real failures, Tendril's classes still matching", async () => {
    const page = stagehand.context.pages()[0]!;
    await page.goto(servers.a.url('act.html'));
    const missing = await stagehand.extract({ selector: '#no-such-element' }).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(StagehandElementNotFoundError);
    expect(missing).toBeInstanceOf(ElementNotFoundError);
    expect(missing).toBeInstanceOf(StagehandError);
    const thrown = await page
      .evaluate(() => {
        throw new Error('boom in the page');
      })
      .catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(StagehandEvalError);
    expect(thrown).not.toBeInstanceOf(StagehandElementNotFoundError);
    const bad = await stagehand.extract({ timeout: -5 }).catch((error: unknown) => error);
    expect(bad).toBeInstanceOf(StagehandInvalidArgumentError);
    expect(bad).toBeInstanceOf(InvalidOptionError);
    // A disabled button cannot be clicked: Stagehand's act() says so in its result.
    const result = await stagehand.act({ selector: 'xpath=//button[@id="off"]', method: 'click' });
    expect(result.success).toBe(false);
    expect(result.message).toMatch(/disabled/i);
  });

  it('times out as ActTimeoutError, ExtractTimeoutError and ObserveTimeoutError, all TimeoutErrors', async () => {
    fake.script(() => ({ hang: true }));
    const act = await stagehand.act('click the top button', { timeout: 300 }).catch((error: unknown) => error);
    const extract = await stagehand.extract('the heading', { timeout: 300 }).catch((error: unknown) => error);
    const observe = await stagehand.observe('the buttons', { timeout: 300 }).catch((error: unknown) => error);
    for (const [error, type] of [
      [act, ActTimeoutError],
      [extract, ExtractTimeoutError],
      [observe, ObserveTimeoutError],
    ] as const) {
      expect(error).toBeInstanceOf(type);
      expect(error).toBeInstanceOf(TimeoutError);
      expect((error as TimeoutError).timeoutMs).toBe(300);
      expect((error as Error).name).toBe(type.name);
    }
  });

  it("refuses extract's ignoreSelectors and screenshot and Stagehand 2's call options, and agent()'s screenshot modes", async () => {
    await expect(stagehand.extract('x', { ignoreSelectors: ['#ads'] })).rejects.toThrow(/ignoreSelectors.*selector/);
    await expect(stagehand.extract({ screenshot: true })).rejects.toThrow(InvalidOptionError);
    await expect(stagehand.observe({ ignoreSelectors: ['#ads'] })).rejects.toThrow(InvalidOptionError);
    // Stagehand 2's call options: `iframes: true` is what Tendril does anyway; the others say what to write.
    await expect(stagehand.extract({ iframes: true } as never)).resolves.toHaveProperty('pageText');
    await expect(stagehand.extract({ iframes: false } as never)).rejects.toThrow(/selector/);
    await expect(stagehand.act('click it', { domSettleTimeoutMs: 100 } as never)).rejects.toThrow(/domSettleTimeout` on the constructor/);
    await expect(stagehand.observe('the buttons', { modelName: 'gpt-4o' } as never)).rejects.toThrow(/pass `model`/);
    await expect(stagehand.agent({ mode: 'cua' }).execute('click it')).rejects.toThrow(/mode "cua".*"dom"/);
  });
});

describe('Stagehand options that change act(), observe() and the model requests', () => {
  let chrome: DebugChrome;
  const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'tendril-sh3-cache-'));
  const made: Stagehand[] = [];
  async function open(options: V3Options): Promise<Stagehand> {
    const stagehand = new Stagehand({ ...quiet, ...options, localBrowserLaunchOptions: { cdpUrl: chrome.wsUrl } });
    made.push(stagehand);
    await stagehand.init();
    await stagehand.context.pages()[0]!.goto(servers.a.url('act.html'));
    return stagehand;
  }
  beforeAll(async () => {
    chrome = await startDebugChrome();
  });
  afterAll(async () => {
    for (const each of made) await each.close();
    await chrome?.kill();
    rmSync(cacheDir, { recursive: true, force: true });
  });

  it('selfHeal: false gives up after the first failed choice; true reads the page again', async () => {
    const chooseDisabled = choose('button', 'Disabled button', 'click');
    fake.script(chooseDisabled);
    const strict = await open({ model: model(), selfHeal: false });
    const once = await strict.act('click the button');
    expect(once.success).toBe(false);
    expect(fake.requests).toHaveLength(1);
    fake.reset();
    fake.script(chooseDisabled);
    const healing = await open({ model: model() });
    expect((await healing.act('click the button')).success).toBe(false);
    expect(fake.requests).toHaveLength(2);
  });

  it('cacheDir: the second act() of an instruction on the same page replays the action without the model', async () => {
    fake.script(choose('button', 'Top button', 'click'));
    const stagehand = await open({ model: model(), cacheDir });
    const page = stagehand.context.pages()[0]!;
    expect((await stagehand.act('click the top button')).success).toBe(true);
    expect(fake.requests).toHaveLength(1);
    expect(readdirSync(cacheDir).filter((name) => name.endsWith('.json'))).toHaveLength(1);
    expect((await stagehand.act('click the top button')).success).toBe(true);
    expect(fake.requests).toHaveLength(1);
    expect(await page.evaluate(() => document.getElementById('top-state')!.textContent)).toBe('top clicked 2');
  });

  it("takes variables of any kind, actTimeoutMs as act()'s default, and systemPrompt in every request", async () => {
    fake.script(choose('textbox', 'Note', 'fill', ['%quantity% pieces']));
    const stagehand = await open({ model: model(), systemPrompt: 'Answer in the customs of the shop.', actTimeoutMs: 400 });
    const page = stagehand.context.pages()[0]!;
    expect(
      // Its own timeout: the 400 ms default is for the hanging call below, and a loaded machine can take longer than that here.
      (
        await stagehand.act('write %quantity% pieces into the note', {
          variables: { quantity: { value: 3, description: 'how many' } },
          timeout: 15_000,
        })
      ).success,
    ).toBe(true);
    expect(await page.evaluate(() => (document.getElementById('note') as HTMLInputElement).value)).toBe('3 pieces');
    expect(fake.requests[0]!.system).toContain('Answer in the customs of the shop.');
    expect(fake.requests[0]!.user).not.toContain('3 pieces');
    fake.script(() => ({ hang: true }));
    const started = Date.now();
    await expect(stagehand.act('click the top button')).rejects.toBeInstanceOf(ActTimeoutError);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("observe() tells the model the variables' names, never their values", async () => {
    fake.script(() => ({ json: { elements: [] } }));
    const stagehand = await open({ model: model() });
    await stagehand.observe('the note field', { variables: { secret: { value: 'hunter2', description: 'the password' } } });
    expect(fake.requests[0]!.user).toContain('%secret% (the password)');
    expect(fake.requests[0]!.prompt).not.toContain('hunter2');
  });

  it('model: openaiEndpointFormat, temperature and reasoningEffort reach the request', async () => {
    fake.script(choose('button', 'Top button', 'click'));
    const stagehand = await open({ model: { ...model(), openaiEndpointFormat: 'chat', temperature: 0.25 } });
    expect((await stagehand.act('click the top button')).success).toBe(true);
    expect(fake.requests[0]!.endpoint).toBe('chat');
    expect(fake.requests[0]!.body.temperature).toBe(0.25);
    fake.reset();
    fake.script(choose('button', 'Top button', 'click'));
    expect(
      (await stagehand.act('click the top button', { model: { ...model(), modelName: 'openai/o4-mini', reasoningEffort: 'low' } })).success,
    ).toBe(true);
    expect(fake.requests[0]!.endpoint).toBe('responses');
    expect(fake.requests[0]!.body.reasoning).toMatchObject({ effort: 'low' });
  });

  it("llmClient: an AISdkClient's model and a CustomOpenAIClient's server answer", async () => {
    fake.script(choose('button', 'Top button', 'click'));
    const viaAiSdk = await open({
      llmClient: new AISdkClient({ model: createOpenAI({ baseURL: fake.url, apiKey: 'sk-aisdk' }).chat('gpt-4.1-mini') }),
    });
    expect((await viaAiSdk.act('click the top button')).success).toBe(true);
    expect(fake.requests[0]!.headers.authorization).toBe('Bearer sk-aisdk');
    fake.reset();
    fake.script(choose('button', 'Top button', 'click'));
    const viaOpenAi = await open({
      llmClient: new CustomOpenAIClient({ modelName: 'local-model', client: { baseURL: fake.url, apiKey: 'sk-custom' } }),
    });
    expect((await viaOpenAi.act('click the top button')).success).toBe(true);
    expect(fake.requests[0]).toMatchObject({ endpoint: 'chat', model: 'local-model' });
  });

  it("is not initialized before init() and is closed after close(), as Stagehand's errors say", async () => {
    const stagehand = new Stagehand({ ...quiet, localBrowserLaunchOptions: { cdpUrl: chrome.wsUrl } });
    expect(() => stagehand.context).toThrow(StagehandNotInitializedError);
    await stagehand.init();
    await stagehand.close({ force: true });
    await stagehand.close();
    const after = (() => {
      try {
        return stagehand.context;
      } catch (error) {
        return error;
      }
    })();
    expect(after).toBeInstanceOf(StagehandClosedError);
    expect(after).toBeInstanceOf(SdkError);
    // As in Stagehand, init() starts it again (test/stagehand/sh3-reinit.test.ts).
  });
});
