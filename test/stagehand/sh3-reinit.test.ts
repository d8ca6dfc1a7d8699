// Stagehand's init() after close(): a closed Stagehand starts again with a fresh browser, where
// act() and extract() work; the Sdk's close() stays final.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Sdk, SdkStateError, Stagehand, StagehandClosedError } from '../../src/index.js';
import { startFixtureServers, type FixtureServers } from '../fixtures/server.js';
import { processAlive, sdkOptions, waitUntilGone } from '../helpers.js';
import { startFakeModel, type FakeModel, type FakeRequest } from '../support/fake-model.js';

let servers: FixtureServers;
let fake: FakeModel;
beforeAll(async () => {
  [servers, fake] = await Promise.all([startFixtureServers(), startFakeModel()]);
});
afterAll(async () => {
  await Promise.all([servers?.close(), fake?.close()]);
});

/** The id of the line `role: name` in the prompt, as a model reading it would pick. */
function idOf(request: FakeRequest, role: string, name: string): string {
  const match = new RegExp(`\\[((?:\\d+-)?\\d+)\\] ${role}: ${name}`).exec(request.user);
  if (!match) throw new Error(`no ${role} "${name}" in the prompt:\n${request.user}`);
  return match[1]!;
}

describe('Stagehand init() after close()', () => {
  it('starts again with a fresh browser, where act() and extract() work', async () => {
    const { localBrowserLaunchOptions } = sdkOptions();
    const stagehand = new Stagehand({
      verbose: 0,
      disablePino: true,
      localBrowserLaunchOptions,
      model: { modelName: 'openai/gpt-4.1-mini', apiKey: 'sk-reinit', baseURL: fake.url },
    });
    try {
      await stagehand.init();
      const first = stagehand.browserProcessId()!;
      const firstPage = stagehand.context.pages()[0]!;
      await firstPage.goto(servers.a.url('/act-plain.html'));
      await stagehand.extract();
      expect(await stagehand.history).toHaveLength(1);
      // Closing while a second init() waits: the init() waits for the close, then starts afresh.
      const closing = stagehand.close();
      const again = stagehand.init();
      await closing;
      expect(await waitUntilGone([first], 10_000)).toEqual([]);
      await again;

      const second = stagehand.browserProcessId()!;
      expect(second).not.toBe(first);
      expect(processAlive(second)).toBe(true);
      expect(firstPage.isClosed()).toBe(true);
      // As Stagehand's close() does, history starts empty.
      expect(await stagehand.history).toEqual([]);
      const page = stagehand.context.pages()[0]!;
      expect(page).not.toBe(firstPage);
      expect(page.url()).toBe('about:blank');
      await page.goto(servers.a.url('/act-plain.html'));

      fake.script((request) => ({
        json: { elementId: idOf(request, 'button', 'Go'), method: 'click', arguments: [], description: 'click Go' },
      }));
      expect((await stagehand.act('click the Go button')).success).toBe(true);
      expect(await page.evaluate(() => (window as unknown as { clicks: string[] }).clicks)).toEqual(['go']);
      fake.script(() => ({ json: { away: 'Away from the button' } }));
      expect(await stagehand.extract('the text away from the button', z.object({ away: z.string() }))).toEqual({
        away: 'Away from the button',
      });
      expect((await stagehand.extract()).pageText).toContain('button: Go');

      // Between close() and init(), the context says so, and how to go on.
      await stagehand.close();
      expect(await waitUntilGone([second], 10_000)).toEqual([]);
      const closed = (() => {
        try {
          return stagehand.context;
        } catch (error) {
          return error;
        }
      })();
      expect(closed).toBeInstanceOf(StagehandClosedError);
      expect((closed as Error).message).toMatch(/init\(\)/);
      await stagehand.init();
      expect(stagehand.context.pages()).toHaveLength(1);
    } finally {
      await stagehand.close();
    }
  });

  it('leaves a closed Sdk closed', async () => {
    const sdk = new Sdk(sdkOptions());
    await sdk.init();
    await sdk.close();
    const error = await sdk.init().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SdkStateError);
    expect((error as Error).message).toMatch(/closed; create a new one/);
  });
});
