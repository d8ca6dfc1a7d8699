// One login, many sessions: context.storageState() (cookies and every origin's localStorage, in
// Playwright's shape) and sdk.newContext({ storageState }) / new Sdk({ storageState }), on a loopback
// site that logs in with a session cookie and a localStorage token and says "logged in as ..." only
// with both. Files move between Tendril and playwright-core in both directions.

import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieValidationError, InvalidOptionError, Sdk, type Page, type StorageState } from '../../src/index.js';
import { sdkOptions } from '../helpers.js';
import { startLoginSite, type LoginSite } from '../support/login-site.js';

let site: LoginSite;
let sdk: Sdk;
let dir: string;
let state: StorageState;

async function statusOf(page: Page, url: string): Promise<string> {
  await page.goto(url);
  return page.evaluate(() => document.getElementById('status')!.textContent ?? '');
}

beforeAll(async () => {
  site = await startLoginSite();
  dir = mkdtempSync(path.join(os.tmpdir(), 'tendril-storage-state-'));
  sdk = new Sdk(sdkOptions());
  await sdk.init();
});
afterAll(async () => {
  await sdk?.close();
  await site?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('context.storageState()', () => {
  it("returns the cookies and the localStorage of every origin the context has been on, in Playwright's shape", async () => {
    const page = sdk.context.pages()[0]!;
    const pagesBefore = sdk.context.pages().length;
    const opened: Page[] = [];
    sdk.context.on('page', (each) => void opened.push(each));
    expect(await statusOf(page, `${site.a}/login?user=ada`)).toBe('saved');
    expect(await statusOf(page, `${site.a}/app`)).toBe('logged in as ada');
    // Another origin, then away from both: their storage is still read.
    await page.goto(`${site.b}/`);
    await page.evaluate(() => localStorage.setItem('theme', 'dark'));
    await page.goto('about:blank');
    state = await sdk.context.storageState();

    const [id] = [...site.sessions.keys()];
    expect(state.cookies).toEqual([
      { name: 'sid', value: id, domain: '127.0.0.1', path: '/', expires: -1, httpOnly: true, secure: false, sameSite: 'Lax' },
    ]);
    expect(state.origins).toEqual(
      expect.arrayContaining([
        { origin: site.a, localStorage: [{ name: 'token', value: site.sessions.get(id!)!.token }] },
        { origin: site.b, localStorage: [{ name: 'theme', value: 'dark' }] },
      ]),
    );
    expect(state.origins).toHaveLength(2);
    // The hidden page that read them is none of the context's pages.
    expect(sdk.context.pages()).toHaveLength(pagesBefore);
    expect(opened).toEqual([]);
  });

  it('starts 10 concurrent contexts logged in, each with storage of its own; without it, a context is logged out', async () => {
    const contexts = await Promise.all(Array.from({ length: 10 }, () => sdk.newContext({ storageState: state })));
    try {
      const statuses = await Promise.all(contexts.map(async (context) => statusOf(await context.newPage(), `${site.a}/app`)));
      expect(statuses).toEqual(Array(10).fill('logged in as ada'));
      // One context's storage stays its own.
      await contexts[0]!.pages()[0]!.evaluate(() => localStorage.setItem('token', 'changed'));
      expect(await contexts[1]!.pages()[0]!.evaluate(() => localStorage.getItem('token'))).toBe(
        state.origins.find((each) => each.origin === site.a)!.localStorage[0]!.value,
      );
      expect(await statusOf(contexts[0]!.pages()[0]!, `${site.a}/app`)).toBe('logged out');
      const bare = await sdk.newContext();
      expect(await statusOf(await bare.newPage(), `${site.a}/app`)).toBe('logged out');
      await bare.close();
    } finally {
      await Promise.all(contexts.map((context) => context.close()));
    }
  });

  it('loads a JSON file by its path; a bad file is a typed error naming the problem, and the Sdk goes on', async () => {
    const file = path.join(dir, 'state.json');
    writeFileSync(file, JSON.stringify(state));
    const context = await sdk.newContext({ storageState: file });
    expect(await statusOf(await context.newPage(), `${site.a}/app`)).toBe('logged in as ada');
    await context.close();

    const bad = async (content: string | undefined, pattern: RegExp, type: new (...args: never[]) => Error = InvalidOptionError) => {
      const name = path.join(dir, `bad-${randomUUID()}.json`);
      if (content !== undefined) writeFileSync(name, content);
      const error = await sdk.newContext({ storageState: name }).catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(type);
      expect((error as Error).message).toMatch(pattern);
    };
    await bad(undefined, /could not read .*bad-/);
    await bad('{ "cookies": [', /is not JSON/);
    await bad(
      JSON.stringify({ cookies: [], origins: [{ origin: 'ftp://x', localStorage: [] }] }),
      /origins\[0\]\.origin must be an http\(s\) origin/,
    );
    await bad(
      JSON.stringify({ cookies: [], origins: [{ origin: site.a, localStorage: [{ name: 'x' }] }] }),
      /origins\[0\]\.localStorage must be an array of \{ name, value \}/,
    );
    await bad(JSON.stringify({ cookies: [{ name: 'x' }] }), /needs a string `value`/, CookieValidationError);
    await bad(JSON.stringify([]), /not an object/);
    // A failed context leaves nothing open; the Sdk works on.
    const after = await sdk.newContext({ storageState: { cookies: [], origins: [] } });
    expect(await statusOf(await after.newPage(), `${site.a}/app`)).toBe('logged out');
    await after.close();
  });

  it('reads a file playwright-core wrote, and writes one playwright-core reads', async () => {
    const browser = await chromium.connectOverCDP(sdk.connectURL());
    try {
      // Logged in by Playwright: its file starts a Tendril context.
      const theirs = await browser.newContext();
      const page = await theirs.newPage();
      await page.goto(`${site.a}/login?user=grace`);
      await page.waitForFunction(() => document.getElementById('status')?.textContent === 'saved');
      const file = path.join(dir, 'playwright.json');
      await theirs.storageState({ path: file });
      await theirs.close();
      const ours = await sdk.newContext({ storageState: file });
      expect(await statusOf(await ours.newPage(), `${site.a}/app`)).toBe('logged in as grace');
      // And back: Tendril's state starts a Playwright context.
      const back = path.join(dir, 'tendril.json');
      writeFileSync(back, JSON.stringify(await ours.storageState()));
      await ours.close();
      const again = await browser.newContext({ storageState: back });
      const checked = await again.newPage();
      await checked.goto(`${site.a}/app`);
      expect(await checked.locator('#status').textContent()).toBe('logged in as grace');
      await again.close();
    } finally {
      await browser.close();
    }
  });
});

describe('new Sdk({ storageState })', () => {
  it("starts the Sdk's own context with it, before the first navigation", async () => {
    const own = new Sdk(sdkOptions({ storageState: state }));
    try {
      await own.init();
      expect(await statusOf(own.context.pages()[0]!, `${site.a}/app`)).toBe('logged in as ada');
      expect(own.context.pages()).toHaveLength(1);
    } finally {
      await own.close();
    }
  });
});
