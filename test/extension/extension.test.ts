import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
// @ts-expect-error: a plain ES module shared with esbuild.config.mjs, without types
import { bundleExtensionEntry, EXTENSION_OPTIONS, EXTENSION_SIZE_TARGET, extensionPlugins } from '../../scripts/extension-bundle.mjs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BrowserHandle } from '../../src/browser/browser.js';
import { launchChrome } from '../../src/browser/launch.js';
import { Sdk as ExtensionSdk } from '../../src/extension.js';
import { BrowserConnectError, InvalidOptionError, Sdk } from '../../src/index.js';
import { Logger } from '../../src/logger.js';
import { startFixtureServers, type FixtureServers } from '../fixtures/server.js';
import { CHROME, HOSTED_TEST_ENV, TEST_ARGS } from '../helpers.js';
import { readServerConfig } from '../../src/hosted/server/config.js';
import { startHostedServer } from '../../src/hosted/server/http.js';
import { loadExtension, type LoadedExtension } from './load.js';
// @ts-expect-error: a plain ES module, without types
import { buildExampleExtension } from '../../scripts/build-extension.mjs';
import { startFakeModel, type FakeModel, type FakeRequest } from '../support/fake-model.js';

/*
 * `new Sdk({ env: "EXTENSION" })` from `tendril/extension`, running in a real extension's service
 * worker (test/extension/sdk-worker.ts, bundled here with zod and the AI SDK) and driving tabs of
 * the browser it runs in; the test reads what happened through its own connection to that browser.
 */

const HERE = path.dirname(fileURLToPath(import.meta.url));
const STEP_TIMEOUT_MS = 20_000;
const READY = 'tendril sdk harness ready';

describe('tendril/extension without a browser', () => {
  it('refuses the other envs and the options that need Node or a hosted browser, naming the fix', () => {
    const refused = (make: () => unknown) => {
      try {
        make();
      } catch (error) {
        return error;
      }
      return undefined;
    };
    const local = refused(() => new ExtensionSdk({ env: 'LOCAL' }));
    expect(local).toBeInstanceOf(InvalidOptionError);
    expect((local as Error).message).toMatch(/tendril\/extension runs only env "EXTENSION".*import \{ Sdk \} from 'tendril'/);
    expect(refused(() => new ExtensionSdk({ env: 'HOSTED' }))).toBeInstanceOf(InvalidOptionError);
    expect((refused(() => new ExtensionSdk({ localBrowserLaunchOptions: { cdpUrl: 'ws://127.0.0.1:9222' } })) as Error).message).toMatch(
      /localBrowserLaunchOptions is for env "LOCAL".*extension: \{ tabIds \}/,
    );
    expect((refused(() => new ExtensionSdk({ downloadsPath: '/tmp/x' })) as Error).message).toMatch(/downloadsPath needs Node/);
    expect((refused(() => new ExtensionSdk({ apiKey: 'k' })) as Error).message).toMatch(/apiKey is for env "HOSTED"/);
    expect((refused(() => new ExtensionSdk({ extension: { tabIds: [] } })) as Error).message).toMatch(
      /extension.tabIds` must be a non-empty array/,
    );
    expect((refused(() => new Sdk({ extension: { tabIds: [1] } })) as Error).message).toMatch(
      /`extension` options are for env "EXTENSION"/,
    );
    // Token budgets are left out of its bundle: refused, never ignored.
    expect((refused(() => new ExtensionSdk({ budget: { maxTokens: 5 } })) as Error).message).toMatch(
      /Token budgets are not in tendril\/extension/,
    );
    // Its default env is EXTENSION; the main entry's stays LOCAL.
    expect(refused(() => new ExtensionSdk())).toBeUndefined();
  });

  it('fails init() clearly where there is no chrome.debugger (here, Node)', async () => {
    const sdk = new Sdk({ env: 'EXTENSION', verbose: 0, disablePino: true });
    const error = await sdk.init().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BrowserConnectError);
    expect((error as Error).message).toMatch(
      /env "EXTENSION" runs inside a Chrome extension.*there is no `chrome` here.*use env "LOCAL" or "HOSTED"/,
    );
  });
});

describe('the tendril/extension bundle', () => {
  it(`has no Node built-in, no launcher, bridge, hosted client or Stagehand class or subclass, and is under ${EXTENSION_SIZE_TARGET / 1000} kB minified without the AI SDK`, async () => {
    const { bytes, inputs } = (await bundleExtensionEntry({ minify: true })) as { bytes: number; inputs: string[] };
    console.info(`tendril/extension: ${(bytes / 1000).toFixed(1)} kB minified without the AI SDK`);
    expect(bytes).toBeLessThan(EXTENSION_SIZE_TARGET);
    // docs/extension.md states the size as the build prints it (kB = 1000 B), to half a kB.
    const docs = readFileSync(path.join(HERE, '..', '..', 'docs', 'extension.md'), 'utf8');
    const said = Number(/`tendril\/extension` is an ES module[^]*?: ([\d.]+) kB minified without the AI SDK/.exec(docs)?.[1]);
    expect(
      Math.abs(said - bytes / 1000),
      `docs/extension.md says ${said} kB; the bundle is ${(bytes / 1000).toFixed(1)} kB`,
    ).toBeLessThanOrEqual(0.5);
    expect(inputs).toContain('src/extension.ts');
    expect(
      inputs.filter((file) =>
        /src\/browser\/(launch|cdpBridge|downloads|attach)\.ts|src\/hosted\/|src\/stagehand\/|protocol\/(?!headers\.ts)|node_modules\/(ws|zod|pino)\//.test(
          file,
        ),
      ),
    ).toEqual([]);
  });

  it('fails the build when a Node built-in slips in, naming the importer', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tendril-ext-slip-'));
    try {
      const entry = path.join(dir, 'entry.ts');
      writeFileSync(
        entry,
        `export { Sdk } from ${JSON.stringify(path.join(HERE, '..', '..', 'src', 'extension.ts'))};\nexport { readFileSync } from 'node:fs';\n`,
      );
      const error = await bundleExtensionEntry({ entry }).catch((e: unknown) => e);
      expect((error as Error).message).toMatch(/"node:fs" is a Node built-in, imported by .*entry\.ts: a Chrome extension has no Node/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

let servers: FixtureServers;
let fake: FakeModel;
let browser: BrowserHandle;
let extensionDir: string;
let ext: LoadedExtension;
const model = () => ({ modelName: 'openai/gpt-4.1-mini', apiKey: 'sk-extension-test', baseURL: fake.url });

/** The product of ext-product.html: the fake model answers it (with the link's id), extract returns it (with the link's URL). */
const KETTLE = { name: 'Blue kettle', price: 24.5, tags: ['kitchen', 'steel'] };
const answerKettle = () => fake.script((request) => ({ json: { ...KETTLE, link: idOf(request, 'link', 'Details of the kettle') } }));
const extractedKettle = () => ({ ...KETTLE, link: servers.a.url('products/blue-kettle?ref=ext') });

async function buildTestExtension(): Promise<string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tendril-test-sdk-extension-'));
  await build({
    entryPoints: [path.join(HERE, 'sdk-worker.ts')],
    bundle: true,
    format: 'iife',
    // What an extension's own bundler does with tendril/extension: everything in one script, the AI
    // SDK and zod included, and (checked) no Node built-in.
    ...EXTENSION_OPTIONS,
    plugins: extensionPlugins(),
    outfile: path.join(dir, 'worker.js'),
    logLevel: 'silent',
  });
  const manifest = {
    manifest_version: 3,
    name: 'Tendril Sdk test',
    version: '1.0',
    permissions: ['debugger', 'tabs'],
    // The model server is another origin: without host permission, the worker's fetch would need CORS.
    host_permissions: ['<all_urls>'],
    background: { service_worker: 'worker.js' },
  };
  writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
  return dir;
}

/** Evaluates in a frame target of the browser through the test's own connection (not the extension's). */
async function readInTarget(urlPart: string, type: 'page' | 'iframe', expression: string): Promise<unknown> {
  const root = browser.connection.rootSession;
  const { targetInfos } = await root.send('Target.getTargets');
  const target = targetInfos.find((each) => each.type === type && each.url.includes(urlPart));
  if (!target) throw new Error(`no ${type} target at ${urlPart}: ${JSON.stringify(targetInfos.map((each) => [each.type, each.url]))}`);
  const { sessionId } = await root.send('Target.attachToTarget', { targetId: target.targetId, flatten: true });
  try {
    const { result } = await browser.connection.session(sessionId)!.send('Runtime.evaluate', { expression, returnByValue: true });
    return result.value;
  } finally {
    await root.send('Target.detachFromTarget', { sessionId });
  }
}

/** The id the page text gives the line `role: name`, as a model reading the prompt would find it. */
function idOf(request: FakeRequest, role: string, name: string, last = false): string {
  const matches = [...request.user.matchAll(new RegExp(`\\[((?:\\d+-)?\\d+)\\] ${role}: ${name}`, 'g'))];
  const match = last ? matches.at(-1) : matches[0];
  if (!match) throw new Error(`no ${role} "${name}" in the prompt:\n${request.user}`);
  return match[1]!;
}

describe('Sdk({ env: "EXTENSION" }) in an extension service worker', () => {
  beforeAll(async () => {
    [servers, fake, extensionDir] = await Promise.all([startFixtureServers(), startFakeModel(), buildTestExtension()]);
    browser = await launchChrome(
      {
        executablePath: CHROME,
        // A debugging port too, so that a local Sdk can attach to the same browser (see the page text test).
        args: [
          ...TEST_ARGS,
          '--enable-unsafe-extension-debugging',
          '--disable-breakpad',
          '--disable-crash-reporter',
          '--remote-debugging-port=0',
        ],
      },
      new Logger({ verbose: 0, disablePino: true }),
      STEP_TIMEOUT_MS,
    );
    ext = await loadExtension(browser, extensionDir, { readyLine: READY, timeoutMs: STEP_TIMEOUT_MS });
  });
  afterAll(async () => {
    await browser?.close();
    await Promise.all([servers?.close(), fake?.close()]);
    if (extensionDir) rmSync(extensionDir, { recursive: true, force: true });
  });
  beforeEach(() => fake.reset());

  it("reads a page's text through iframes (out-of-process too) and shadow roots (closed too), byte for byte as a local Sdk does", async () => {
    const url = servers.a.url('ext-page.html');
    const tabId = await ext.call<number>('openTab', url);
    expect(await ext.call('init', 'text', { tabIds: [tabId] })).toEqual({ pages: [url] });
    const text = await ext.call<string>('pageText', 'text');
    for (const line of [
      'heading: Everything at once',
      'paragraph: open shadow text',
      'button: Open shadow button',
      'paragraph: closed shadow text',
      'paragraph: same-origin child',
      'paragraph: cross-origin child',
      'button: closed in oopif',
    ]) {
      expect(text).toContain(line);
    }
    // The leaf inside the same-origin child and the one inside the out-of-process frame.
    expect(text.match(/paragraph: leaf text/g)).toHaveLength(2);
    // A local Sdk attached to the same browser reads the same tab, already loaded as the extension
    // found it: both discover its frames the same way (the frame tree, then the out-of-process frames
    // as they attach), so even the frame numbers agree.
    const local = new Sdk({ verbose: 0, disablePino: true, localBrowserLaunchOptions: { cdpUrl: browser.tempProfile! } });
    try {
      await local.init();
      const page = local.context.pages().find((each) => each.url() === url)!;
      expect((await local.extract({ page })).pageText).toBe(text);
    } finally {
      await local.close();
    }
  });

  it('opens a tab with context.newPage(), and close() detaches from every tab and leaves them open', async () => {
    const second = servers.b.url('leaf.html');
    expect(await ext.call('newPage', 'text', second)).toEqual({ url: second, title: 'Leaf', pages: 2 });
    const out = await ext.call<{ open: string[]; attached: string[] }>('close', 'text');
    expect(out.open).toEqual(expect.arrayContaining([servers.a.url('ext-page.html'), second]));
    expect(out.attached.filter((url) => url === second || url === servers.a.url('ext-page.html'))).toEqual([]);
  });

  it('sets cookies, init scripts and extra headers through chrome.debugger, which has no browser session', async () => {
    const url = servers.a.url('echo-headers?ext');
    const tabId = await ext.call<number>('openTab', servers.a.url('leaf.html?extras'));
    await ext.call('init', 'extras', { tabIds: [tabId] });
    expect(await ext.call('contextExtras', 'extras', url)).toEqual({
      cookies: ['ext'],
      cookieHeader: 'ext=1',
      header: 'on',
      initMark: 'from the extension',
      fromPath: {
        error: {
          name: 'InvalidOptionError',
          message: 'context.addInitScript: { path } needs to read a file, which this runtime cannot; pass { content } instead.',
        },
      },
      cleared: 0,
    });
    await ext.call('close', 'extras');
  });

  it('attaches to the active tab when no tab is named', async () => {
    const url = servers.b.url('leaf.html?active');
    await ext.call<number>('openTab', url, true);
    expect(await ext.call('init', 'active', {})).toEqual({ pages: [url] });
    await ext.call('close', 'active');
  });

  it('extract(instruction, schema) asks the model from the extension and checks its answer with the schema', async () => {
    const url = servers.a.url('ext-product.html');
    const tabId = await ext.call<number>('openTab', url);
    await ext.call('init', 'model', { tabIds: [tabId], model: model() });
    answerKettle();
    expect(await ext.call('extract', 'model', 'the product')).toEqual(extractedKettle());
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]!.user).toContain('heading: Blue kettle');
    expect(fake.requests[0]!.headers.authorization).toBe('Bearer sk-extension-test');
    expect(fake.requests[0]!.schema).toMatchObject({ type: 'object', required: ['name', 'price', 'tags', 'link'] });
    // A provider loaded at run time cannot be, in a service worker: the error says so, and what works.
    expect(
      await ext.attempt('extractWith', 'model', 'the product', { modelName: 'anthropic/claude-sonnet-4-5', apiKey: 'sk-extension-test' }),
    ).toEqual({
      error: {
        name: 'UnsupportedModelError',
        message: expect.stringMatching(
          /needs the package @ai-sdk\/anthropic, which is imported at run time, .*outside Node .*Use openai, a server speaking OpenAI's API .*, or `modelServer`/,
        ),
      },
    });
    expect(fake.requests).toHaveLength(1);
  });

  it('sends model calls to a hosted Tendril server with `modelServer`, which runs the provider the extension cannot load', async () => {
    const server = await startHostedServer(
      readServerConfig({
        ...HOSTED_TEST_ENV,
        PORT: '0',
        HOSTED_API_KEYS: 'ext-model-server-key',
        CHROME_PATH: CHROME,
        CHROME_ARGS: TEST_ARGS.join(' '),
      }),
      new Logger({ verbose: 0, disablePino: true }),
    );
    try {
      const tabId = await ext.call<number>('openTab', servers.a.url('ext-product.html'));
      const anthropic = { modelName: 'anthropic/claude-sonnet-4-5', apiKey: 'sk-ant-extension-test', baseURL: fake.url };
      await ext.call('init', 'via-server', {
        tabIds: [tabId],
        model: anthropic,
        modelServer: { url: server.url, apiKey: 'ext-model-server-key' },
      });
      answerKettle();
      expect(await ext.call('extract', 'via-server', 'the product')).toEqual(extractedKettle());
      // The server spoke Anthropic's Messages API, with the key the extension sent it.
      expect(fake.requests).toHaveLength(1);
      expect(fake.requests[0]!.endpoint).toBe('messages');
      expect(fake.requests[0]!.headers['x-api-key']).toBe('sk-ant-extension-test');
      expect(fake.requests[0]!.user).toContain('heading: Blue kettle');
      await ext.call('close', 'via-server');
    } finally {
      await server.close();
    }
  });

  it('observe() finds a button in an out-of-process iframe, and act() clicks it (from observe, then by instruction)', async () => {
    const url = servers.a.url('act.html');
    const tabId = await ext.call<number>('openTab', url);
    await ext.call('init', 'act', { tabIds: [tabId], model: model() });
    fake.script((request) => ({
      json: {
        elements: [
          {
            elementId: idOf(request, 'button', 'Frame button', true),
            description: 'the cross-origin frame button',
            method: 'click',
            arguments: [],
          },
        ],
      },
    }));
    const actions = await ext.call<Array<{ selector: string; description: string; method: string }>>('observe', 'act', 'the buttons');
    expect(actions).toEqual([
      expect.objectContaining({
        description: 'the cross-origin frame button',
        method: 'click',
        selector: expect.stringMatching(/^xpath=\/html/),
      }),
    ]);
    expect(await ext.call('act', 'act', actions[0])).toMatchObject({ success: true });
    const frameState = `document.getElementById('frame-state').textContent`;
    expect(await readInTarget(servers.b.url('act-frame.html'), 'iframe', frameState)).toBe('frame clicked 1');
    fake.script((request) => ({
      json: { elementId: idOf(request, 'button', 'Frame button', true), method: 'click', arguments: [], description: 'click Frame button' },
    }));
    expect(await ext.call('act', 'act', 'click the button in the second frame')).toMatchObject({ success: true });
    expect(await readInTarget(servers.b.url('act-frame.html'), 'iframe', frameState)).toBe('frame clicked 2');
    // The same-origin frame's button was not touched.
    expect(
      await readInTarget(
        servers.a.url('act.html'),
        'page',
        `document.getElementById('same').contentDocument.getElementById('frame-state').textContent`,
      ),
    ).toBe('frame idle');
    expect((await ext.call<{ connectUrl: unknown }>('refusals', 'act')).connectUrl).toEqual({
      error: { name: 'SdkStateError', message: expect.stringMatching(/connectURL\(\) is not available in an extension/) },
    });
    await ext.call('close', 'act');
  });

  it('fails an operation clearly when the user closes its tab meanwhile, and stays usable for its other tabs', async () => {
    const keep = servers.a.url('leaf.html?keep');
    const doomed = servers.b.url('leaf.html?doomed');
    const keepTab = await ext.call<number>('openTab', keep);
    const doomedTab = await ext.call<number>('openTab', doomed);
    await ext.call('init', 'two', { tabIds: [keepTab, doomedTab], model: model() });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // The model answers only once the tab is gone: the act has read the page and waits for it.
    fake.script(async (request) => {
      await held;
      return {
        json: { elementId: idOf(request, 'paragraph', 'leaf text'), method: 'click', arguments: [], description: 'click the text' },
      };
    });
    await ext.call('startAct', 'two', 'click the text', doomed);
    await fake.nextRequest();
    const root = browser.connection.rootSession;
    const { targetInfos } = await root.send('Target.getTargets');
    await root.send('Target.closeTarget', { targetId: targetInfos.find((each) => each.url === doomed)!.targetId });
    release();
    expect(await ext.attempt('finish', 'two')).toEqual({
      error: {
        name: 'PageClosedError',
        message: expect.stringMatching(
          /^The page closed while act\("click the text"\) was running: click on \[(?:\d+-)?\d+\] paragraph: leaf text was not done/,
        ),
      },
    });
    expect(await ext.call('pages', 'two')).toEqual([keep]);
    expect(await ext.call<string>('pageText', 'two', keep)).toContain('paragraph: leaf text');
    await ext.call('close', 'two');
  });

  it('refuses a chrome:// tab with a clear error, attached to nothing', async () => {
    const tabId = await ext.call<number>('openTab', 'chrome://version');
    const out = await ext.attempt('init', 'chrome', { tabIds: [tabId] });
    expect(out).toEqual({
      error: {
        name: 'BrowserConnectError',
        message: expect.stringMatching(/Cannot attach the debugger to tab \d+: .*chrome:\/\/ pages.*cannot be debugged by an extension/),
      },
    });
    expect(await ext.call('closeTab', tabId)).toBe(true);
  });

  it('the example extension (npm run build:extension) reads the active tab, extracts with the settings it keeps, and says what is missing', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tendril-test-example-extension-'));
    try {
      await buildExampleExtension(dir);
      const example = await loadExtension(browser, dir, {
        readyLine: 'tendril example ready',
        timeoutMs: STEP_TIMEOUT_MS,
        global: 'tendrilExample',
      });
      const url = servers.a.url('ext-product.html?example');
      await ext.call<number>('openTab', url, true);
      const text = await example.call<{ ok: boolean; url: string; text: string }>('run', { kind: 'text' });
      expect(text).toMatchObject({ ok: true, url });
      expect(text.text).toContain('heading: Blue kettle');
      expect(await example.call('run', { kind: 'act', instruction: 'click Details' })).toEqual({
        ok: false,
        error: expect.stringMatching(/^MissingLLMConfigurationError: act\(instruction\) needs a model/),
      });
      // What the panel's Save does, then its Extract button.
      const settings = { modelName: 'openai/gpt-4.1-mini', apiKey: 'sk-example-key', baseURL: fake.url };
      await example.worker.send('Runtime.evaluate', {
        expression: `chrome.storage.local.set({ tendrilModel: ${JSON.stringify(settings)} })`,
        awaitPromise: true,
      });
      fake.script([{ json: { extraction: 'Blue kettle, 24.50' } }]);
      expect(await example.call('run', { kind: 'extract', instruction: 'name and price' })).toEqual({
        ok: true,
        url,
        text: 'Blue kettle, 24.50',
      });
      expect(fake.requests[0]!.headers.authorization).toBe('Bearer sk-example-key');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
