// Stagehand 3's entry without a browser: its error classes keep Stagehand's constructors and names
// and match Tendril's errors of the same meaning only, every option Tendril cannot honour fails at
// construction with an InvalidOptionError naming the fix, and the options that map onto Tendril's
// map as they should. test/stagehand/sh3-entry.test.ts runs the rest in real Chromium.

import { createOpenAI } from '@ai-sdk/openai';
import { describe, expect, it } from 'vitest';
import {
  ActTimeoutError,
  AISdkClient,
  ElementNotFoundError,
  ElementNotVisibleError,
  ElementObscuredError,
  ExtractTimeoutError,
  InvalidOptionError,
  LLMClient,
  Stagehand,
  StagehandElementNotFoundError,
  StagehandError,
  StagehandInvalidArgumentError,
  type V3Options,
} from '../../src/index.js';
import { toSdkOptions } from '../../src/stagehand/options.js';

const quiet = { verbose: 0, disablePino: true } as const;

describe("Stagehand's error classes", () => {
  it("keep Stagehand's constructors and names, and stand for the Tendril errors of the same meaning only", () => {
    const constructed = new StagehandElementNotFoundError(['//button[9]']);
    expect(constructed.name).toBe('StagehandElementNotFoundError');
    expect(constructed.message).toContain('//button[9]');
    expect(constructed).toBeInstanceOf(ElementNotFoundError);
    expect(constructed).toBeInstanceOf(StagehandError);
    expect(new InvalidOptionError('bad')).not.toBeInstanceOf(StagehandElementNotFoundError);
    expect(new ElementObscuredError('covered', '<div id="banner">')).not.toBeInstanceOf(ElementNotVisibleError);
    expect(new Error('plain')).not.toBeInstanceOf(StagehandError);
    expect(new ActTimeoutError(5)).not.toBeInstanceOf(ExtractTimeoutError);
  });
});

describe('Stagehand options Tendril cannot honour fail at once, naming the fix', () => {
  const refusals: Array<[string, V3Options, RegExp]> = [
    ['env BROWSERBASE', { env: 'BROWSERBASE' }, /env "HOSTED".*hostedApiUrl.*apiKey.*projectId/],
    ['a useTouch that is no boolean', { useTouch: 'yes' as unknown as boolean }, /true or false/],
    ['logInferenceToFile', { logInferenceToFile: true }, /logger.*verbose: 2/],
    ['keepAlive for a launched Chrome', { keepAlive: true }, /cdpUrl/],
    ['acceptDownloads: false', { localBrowserLaunchOptions: { acceptDownloads: false } }, /Leave it out/],
    [
      'a proxy password for a SOCKS proxy',
      { localBrowserLaunchOptions: { proxy: { server: 'socks5://p:1080', username: 'u', password: 'p' } } },
      /http:\/\/ or https:\/\/ proxy/,
    ],
    ['a bad locale', { localBrowserLaunchOptions: { locale: 'not a locale!' } }, /"en-US"/],
    ['a bad deviceScaleFactor', { localBrowserLaunchOptions: { deviceScaleFactor: 0 } }, /deviceScaleFactor/],
    ['a bad port', { localBrowserLaunchOptions: { port: 70000 } }, /TCP port/],
    ['a custom LLMClient', { llmClient: new (class extends LLMClient {})('my-model') }, /Pass `model`/],
    ['model.middleware', { model: { modelName: 'openai/gpt-4.1-mini', middleware: {} } as never }, /wrapLanguageModel.*AISdkClient/],
    ['model.auth', { model: { modelName: 'google/gemini-2.5-flash', auth: {} } as never }, /apiKey/],
    [
      'providerOptions.vertex',
      { model: { modelName: 'google/gemini-2.5-flash', providerOptions: { vertex: {} } } as never },
      /AISdkClient/,
    ],
    ['reasoningEffort on anthropic', { model: { modelName: 'anthropic/claude-sonnet-4-5', reasoningEffort: 'low' } }, /providerOptions/],
    [
      'llmClient with HOSTED',
      { env: 'HOSTED', llmClient: new AISdkClient({ model: createOpenAI({ apiKey: 'x' }).chat('gpt-4.1-mini') }) },
      /pass `model`/,
    ],
    [
      'Browserbase session settings with HOSTED',
      { env: 'HOSTED', browserbaseSessionCreateParams: { proxies: true, browserSettings: { solveCaptchas: true } } },
      /proxies, browserSettings\.solveCaptchas.*blockAds/,
    ],
    ['browserbaseSessionID with HOSTED', { env: 'HOSTED', browserbaseSessionID: 'abc' }, /Leave it out/],
    ['waitForCaptchaSolves with HOSTED', { env: 'HOSTED', waitForCaptchaSolves: true }, /Leave it out/],
    ['disableAPI with HOSTED', { env: 'HOSTED', disableAPI: true }, /hosted server/],
    ['systemPrompt with HOSTED', { env: 'HOSTED', systemPrompt: 'be brief' }, /env "LOCAL"/],
    ['selfHeal: false with HOSTED', { env: 'HOSTED', selfHeal: false }, /Leave it out/],
  ];
  it.each(refusals)('%s', (_name, options, fix) => {
    const error = (() => {
      try {
        new Stagehand({ ...quiet, ...options });
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect(error).toBeInstanceOf(StagehandInvalidArgumentError);
    expect((error as Error).message).toMatch(fix);
    // As a Stagehand test would write it.
    expect(() => new Stagehand({ ...quiet, ...options })).toThrow(StagehandInvalidArgumentError);
  });

  it("maps what a Tendril hosted session can do, and Stagehand's download settings", () => {
    const hosted = toSdkOptions({
      env: 'HOSTED',
      keepAlive: true,
      browserbaseSessionCreateParams: {
        projectId: 'p1',
        region: 'eu',
        timeout: 60_000,
        browserSettings: { blockAds: true, viewport: { width: 800, height: 600 } },
      },
    });
    expect(hosted.hostedSessionCreateParams).toEqual({
      projectId: 'p1',
      region: 'eu',
      keepAlive: true,
      timeout: 60_000,
      browserSettings: { blockAds: true, viewport: { width: 800, height: 600 } },
    });
    expect(hosted.model).toBe('openai/gpt-4.1-mini');
    const local = toSdkOptions({
      localBrowserLaunchOptions: { downloadsPath: '/tmp/sh3-downloads', cdpUrl: 'http://127.0.0.1:9' },
      browserbaseSessionCreateParams: { proxies: true },
    });
    expect(local.downloadsPath).toBe('/tmp/sh3-downloads');
    expect(local.localBrowserLaunchOptions).toEqual({ cdpUrl: 'http://127.0.0.1:9' });
    expect(local.hostedSessionCreateParams).toBeUndefined();
  });
});
