// What a hosted session's log tells its operator: the requests of the session's pages that the
// server refused, at info level; Chromium's own background requests (its clock check, component
// updates, sign-in: no page made them), only at debug. Real server, its Chromium and egress proxy.

import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { HostedApi } from '../../src/hosted/client/api.js';
import type { HostedServer } from '../../src/hosted/server/http.js';
import { Logger } from '../../src/logger.js';
import type { LogLine } from '../../src/types.js';
import { startFixtureServers, type FixtureServers } from '../fixtures/server.js';
import { HOSTED_TEST_ENV } from '../helpers.js';
import { startTestHostedServer } from '../support/hosted.js';

const KEY = 'logs-test-key-3e7a';
let server: HostedServer;
let fixtures: FixtureServers;
const lines: LogLine[] = [];

beforeAll(async () => {
  const logger = new Logger({ verbose: 2, disablePino: true, logger: (line) => lines.push(line) });
  [server, fixtures] = await Promise.all([
    startTestHostedServer({ ...HOSTED_TEST_ENV, HOSTED_API_KEYS: KEY }, logger),
    startFixtureServers(),
  ]);
});
afterAll(async () => {
  await Promise.all([server?.close(), fixtures?.close()]);
});

const refusals = (session: string) =>
  lines.filter((line) => line.auxiliary?.session === session && /^Refused a (background )?request/.test(line.message));

describe("a hosted session's refused requests in the server's log", () => {
  it('are at info level when a page made them, and at debug when Chromium made them on its own', async () => {
    const api = new HostedApi(server.url, KEY, 60_000);
    // Only loopback: every host Chromium calls on its own is refused by the policy, with no DNS asked.
    const session = await api.createSession({ projectId: 'p', domainPolicy: { allow: ['127.0.0.1', 'localhost'] } });
    try {
      const browser = await chromium.connectOverCDP(session.connectUrl);
      const page = browser.contexts()[0]!.pages()[0]!;
      await page.goto(fixtures.a.url('act.html'));
      // A page's own request to a host outside the policy: the page's, so the operator sees it.
      expect(
        await page.evaluate(() =>
          fetch('http://refused-by-policy.test/data').then(
            () => 'loaded',
            () => 'failed',
          ),
        ),
      ).toBe('failed');
      await browser.close();
      await vi.waitFor(() => expect(refusals(session.id).some((line) => line.auxiliary?.host === 'refused-by-policy.test')).toBe(true), {
        timeout: 10_000,
        interval: 50,
      });
      // Chromium's own calls come within seconds of its start (clients2.google.com, update.googleapis.com, ...).
      await vi.waitFor(() => expect(refusals(session.id).filter((line) => line.level === 2).length).toBeGreaterThan(0), {
        timeout: 20_000,
        interval: 50,
      });
      const byLevel = (level: number) => [
        ...new Set(
          refusals(session.id)
            .filter((line) => line.level === level)
            .map((line) => line.auxiliary?.host),
        ),
      ];
      expect(byLevel(1)).toEqual(['refused-by-policy.test']);
      for (const host of byLevel(2)) expect(host).toMatch(/(^|\.)(google\.com|googleapis\.com|gvt1\.com)$/);
    } finally {
      await api.releaseSession(session.id);
    }
  }, 60_000);
});
