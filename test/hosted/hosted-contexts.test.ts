// sdk.newContext() with env "HOSTED": an isolated context in a hosted session's browser, made through
// the session's guarded connection. The server's own driver, which runs act() for the client, finds
// the context's page by its target id; its cookies stay its own.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostedServer } from '../../src/hosted/server/http.js';
import { Sdk } from '../../src/index.js';
import { startFixtureServers, type FixtureServers } from '../fixtures/server.js';
import { HOSTED_TEST_ENV } from '../helpers.js';
import { startTestHostedServer } from '../support/hosted.js';

const KEY = 'hosted-contexts-key-5d2e';
let server: HostedServer;
let fixtures: FixtureServers;

beforeAll(async () => {
  [server, fixtures] = await Promise.all([
    startTestHostedServer({ ...HOSTED_TEST_ENV, HOSTED_API_KEYS: KEY, MAX_SESSIONS: '2' }),
    startFixtureServers(),
  ]);
});
afterAll(async () => {
  await server?.close();
  await fixtures?.close();
});

describe('env "HOSTED": sdk.newContext()', () => {
  it("opens an isolated context in the session's browser, whose page the server acts on, and closes it", async () => {
    const sdk = new Sdk({ env: 'HOSTED', apiKey: KEY, projectId: 'proj-1', hostedApiUrl: server.url, verbose: 0, disablePino: true });
    try {
      await sdk.init();
      const main = sdk.context.pages()[0]!;
      const context = await sdk.newContext();
      const page = await context.newPage(fixtures.a.url('act.html'));
      // newPage(url) resolves once the tab is attached, as Stagehand's does; its document loads after.
      await page.waitForLoadState('load');
      expect(sdk.context.pages()).toEqual([main]);
      // act(action) runs on the server, whose own driver finds this page among the browser's.
      expect(await sdk.act({ selector: '#top', method: 'click' }, { page })).toMatchObject({ success: true });
      expect(await page.evaluate(`document.getElementById('top-state').textContent`)).toBe('top clicked 1');
      await page.evaluate(`document.cookie = 'who=isolated; path=/'`);
      // The renderer hands document.cookie's write to the browser's cookie store asynchronously, and
      // CDP has no event for it: ask until the store has it.
      await expect.poll(async () => (await context.cookies()).map((cookie) => cookie.name), { timeout: 5000 }).toEqual(['who']);
      await main.goto(fixtures.a.url('leaf.html'));
      expect(await main.evaluate('document.cookie')).toBe('');
      await context.close();
      expect(page.isClosed()).toBe(true);
      expect(await sdk.extract({ page: main })).toMatchObject({ pageText: expect.stringMatching(/leaf/) });
    } finally {
      await sdk.close();
    }
  }, 60_000);
});
