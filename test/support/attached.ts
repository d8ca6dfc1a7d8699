// What the act tests that drive an attached Chrome share: a debug Chrome started by the test, the
// fixture servers, the fake model, one Sdk attached to that Chrome with a page of its own, and a
// second, independent DevTools client (chrome-remote-interface) to read what the actions did.

import CDP from 'chrome-remote-interface';
import { afterAll, beforeAll } from 'vitest';
import { Sdk, type ModelConfiguration, type Page } from '../../src/index.js';
import { startFixtureServers, type FixtureServers } from '../fixtures/server.js';
import { sdkOptions, startDebugChrome, type DebugChrome } from '../helpers.js';
import { startFakeModel, type FakeModel } from './fake-model.js';

export interface AttachedBrowser {
  chrome: DebugChrome;
  servers: FixtureServers;
  fake: FakeModel;
  sdk: Sdk;
  page: Page;
  /** The fake model, with `apiKey` as its key. */
  model(): ModelConfiguration;
  /** Evaluates in a target through the independent client: the page, or an out-of-process iframe by URL. */
  read(expression: string, frameUrlPart?: string): Promise<unknown>;
}

/** Starts all of it before the file's tests and stops it after; `ready` hears of it once started. */
export function useAttachedBrowser(apiKey: string, ready: (browser: AttachedBrowser) => void): void {
  let started: AttachedBrowser | undefined;
  beforeAll(async () => {
    const [chrome, servers, fake] = await Promise.all([startDebugChrome(), startFixtureServers(), startFakeModel()]);
    const sdk = new Sdk(sdkOptions({ localBrowserLaunchOptions: { cdpUrl: chrome.wsUrl } }));
    started = {
      chrome,
      servers,
      fake,
      sdk,
      page: undefined as unknown as Page,
      model: () => ({ modelName: 'openai/gpt-4.1-mini', apiKey, baseURL: fake.url }),
      read: (expression, frameUrlPart) => readThrough(chrome, started!.page, expression, frameUrlPart),
    };
    await sdk.init();
    started.page = await sdk.context.newPage();
    ready(started);
  });
  afterAll(async () => {
    await started?.sdk.close();
    await Promise.all([started?.chrome.kill(), started?.servers.close(), started?.fake.close()]);
  });
}

async function readThrough(chrome: DebugChrome, page: Page, expression: string, frameUrlPart?: string): Promise<unknown> {
  const targets = (await CDP.List({ port: chrome.port })) as Array<{ id: string; type: string; url: string }>;
  const target = frameUrlPart
    ? targets.find((each) => each.type === 'iframe' && each.url.includes(frameUrlPart))
    : targets.find((each) => each.id === page.targetId());
  if (!target) throw new Error(`no target for ${frameUrlPart ?? page.targetId()}`);
  const client = await CDP({ port: chrome.port, target: target.id });
  try {
    const { result, exceptionDetails } = await client.Runtime.evaluate({ expression, returnByValue: true });
    if (exceptionDetails) throw new Error(exceptionDetails.exception?.description ?? exceptionDetails.text);
    return result.value;
  } finally {
    await client.close();
  }
}
