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
import {
  CookieValidationError,
  InvalidOptionError,
  Sdk,
  type Context,
  type Cookie,
  type LogLine,
  type Page,
  type StorageState,
} from '../../src/index.js';
import { sdkOptions } from '../helpers.js';
import { startLoginSite, type LoginSite } from '../support/login-site.js';

let site: LoginSite;
let sdk: Sdk;
let dir: string;
let state: StorageState;
const lines: LogLine[] = [];
const storageLines = () => lines.filter((line) => line.category === 'storage');

/** A context's cookies in one order, to compare two lists. */
const sorted = (cookies: Cookie[]) => [...cookies].sort((a, b) => `${a.domain} ${a.name}`.localeCompare(`${b.domain} ${b.name}`));

/** The Cookie header a new page of the context sends to `url` (the site echoes it), and what document.cookie shows there. */
async function sent(context: Context, url: string): Promise<{ header: string; script: string }> {
  // Pages stay open until their context closes: a renderer shared with a page just closed was seen to go away under a new one.
  const page = await context.newPage();
  await page.goto(url);
  return page.evaluate(() => ({ header: document.body.textContent ?? '', script: document.cookie }));
}

/** Appends an iframe of `src` to the page and resolves once it has loaded. */
function addFrame(page: Page, src: string): Promise<unknown> {
  return page.evaluate(
    (url) =>
      new Promise((resolve) => {
        const iframe = document.createElement('iframe');
        iframe.onload = resolve;
        iframe.src = url;
        document.body.append(iframe);
      }),
    src,
  );
}

/** A new page of `top` with a frame of `frame`'s /echo-cookie: the Cookie header the frame sent. */
async function sentToFrame(context: Context, top: string, frame: string): Promise<string> {
  const page = await context.newPage();
  await page.goto(`${top}/`);
  await addFrame(page, `${frame}/echo-cookie`);
  const child = page.frames().find((each) => each !== page.mainFrame())!;
  return child.evaluate(() => document.body.textContent ?? '');
}

async function statusOf(page: Page, url: string): Promise<string> {
  await page.goto(url);
  return page.evaluate(() => document.getElementById('status')!.textContent ?? '');
}

beforeAll(async () => {
  site = await startLoginSite();
  dir = mkdtempSync(path.join(os.tmpdir(), 'tendril-storage-state-'));
  sdk = new Sdk(sdkOptions({ logger: (line) => void lines.push(line) }));
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

describe('what storageState() returns loads back as it was', () => {
  let rich: StorageState;

  it('a nameless cookie, partitioned ones, a priority, Strict, None and an expiry, and the localStorage of two origins', async () => {
    const context = await sdk.newContext();
    try {
      const page = await context.newPage();
      const lines = (...cookies: string[]) => cookies.map((line) => `c=${encodeURIComponent(line)}`).join('&');
      await page.goto(
        `${site.a}/set-cookie?${lines('st=strict; SameSite=Strict; Path=/app', 'sn=none; SameSite=None; Secure', 'ex=later; Max-Age=3600', 'fp=first; Secure; Partitioned; SameSite=None', 'pr=high; Priority=High')}`,
      );
      await page.evaluate(() => {
        document.cookie = 'value-only';
        localStorage.setItem('a', '1');
      });
      // The other site, in a frame under this one: its partitioned cookie is this site's partition's.
      await addFrame(page, `${site.b}/set-cookie?${lines('tp=third; Secure; Partitioned; SameSite=None')}`);
      await page.goto(`${site.b}/`);
      await page.evaluate(() => localStorage.setItem('b', '2'));
      rich = await context.storageState();
    } finally {
      await context.close();
    }
    const top = new URL(site.a).hostname;
    expect(sorted(rich.cookies)).toEqual([
      { name: '', value: 'value-only', domain: top, path: '/', expires: -1, httpOnly: false, secure: false, sameSite: 'Lax' },
      { name: 'ex', value: 'later', domain: top, path: '/', expires: expect.any(Number), httpOnly: false, secure: false, sameSite: 'Lax' },
      {
        ...{ name: 'fp', value: 'first', domain: top, path: '/', expires: -1, httpOnly: false, secure: true, sameSite: 'None' },
        ...{ partitionKey: `http://${top}`, _crHasCrossSiteAncestor: false },
      },
      { name: 'pr', value: 'high', domain: top, path: '/', expires: -1, httpOnly: false, secure: false, sameSite: 'Lax', priority: 'High' },
      { name: 'sn', value: 'none', domain: top, path: '/', expires: -1, httpOnly: false, secure: true, sameSite: 'None' },
      { name: 'st', value: 'strict', domain: top, path: '/app', expires: -1, httpOnly: false, secure: false, sameSite: 'Strict' },
      {
        ...{ name: 'tp', value: 'third', domain: 'localhost', path: '/', expires: -1, httpOnly: false, secure: true, sameSite: 'None' },
        ...{ partitionKey: `http://${top}`, _crHasCrossSiteAncestor: true },
      },
    ]);
    expect(rich.cookies.find((cookie) => cookie.name === 'ex')!.expires).toBeGreaterThan(Date.now() / 1000 + 3500);
    expect(rich.origins).toEqual(
      expect.arrayContaining([
        { origin: site.a, localStorage: [{ name: 'a', value: '1' }] },
        { origin: site.b, localStorage: [{ name: 'b', value: '2' }] },
      ]),
    );
  });

  it('in a new context: the same cookies and storage, sent as before (the nameless one as its value alone)', async () => {
    const context = await sdk.newContext({ storageState: rich });
    try {
      const back = await context.storageState();
      expect(sorted(back.cookies)).toEqual(sorted(rich.cookies));
      expect(back.origins).toEqual(expect.arrayContaining(rich.origins));
      expect(await sent(context, `${site.a}/echo-cookie`)).toEqual({
        header: 'sn=none; ex=later; fp=first; pr=high; value-only',
        script: 'sn=none; ex=later; fp=first; pr=high; value-only',
      });
      // The partitioned cookie of the other site goes to it only under the first site's pages.
      expect(await sentToFrame(context, site.a, site.b)).toBe('tp=third');
      expect((await sent(context, `${site.b}/echo-cookie`)).header).toBe('');
    } finally {
      await context.close();
    }
    expect(storageLines()).toEqual([]);
  });

  it('in a new Sdk, from a file', async () => {
    const file = path.join(dir, 'rich.json');
    writeFileSync(file, JSON.stringify(rich));
    const own = new Sdk(sdkOptions({ storageState: file }));
    try {
      await own.init();
      expect(sorted(await own.context.cookies())).toEqual(sorted(rich.cookies));
      const page = own.context.pages()[0]!;
      await page.goto(`${site.a}/echo-cookie`);
      expect(await page.evaluate(() => document.cookie)).toBe('sn=none; ex=later; fp=first; pr=high; value-only');
    } finally {
      await own.close();
    }
  });

  it('a nameless cookie that Chrome could not send is a typed error naming the fix', async () => {
    for (const value of ['', 'a=b']) {
      const error = await sdk
        .newContext({ storageState: { cookies: [{ ...rich.cookies[0]!, name: '', value }], origins: [] } })
        .catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(CookieValidationError);
      expect((error as Error).message).toMatch(/empty `name` needs a `value` without "="/);
    }
  });
});

describe('cookies Chrome does not keep (its own limits) are named in the log', () => {
  it('5,000 cookies of 25 domains: how many were dropped and why, and those kept are in the context', async () => {
    const now = Math.floor(Date.now() / 1000);
    const cookie = (name: string, domain: string, expires = now + 3600): Cookie => ({
      ...{ name, value: 'v', domain, path: '/', expires },
      ...{ httpOnly: false, secure: false, sameSite: 'Lax' },
    });
    const cookies = Array.from({ length: 5000 }, (_, index) => cookie(`c${index}`, `site${index % 25}.example`));
    // One already expired, one that repeats the first's name, domain and path.
    cookies.push(cookie('gone', 'site0.example', now - 60), cookie('c0', 'site0.example'));
    lines.length = 0;
    const context = await sdk.newContext({ storageState: { cookies, origins: [] } });
    try {
      const kept = (await context.cookies()).length;
      // 200 a domain is past Chrome's 180, and 5,000 past its 3,300.
      expect(kept).toBeLessThanOrEqual(3300);
      const dropped = 5000 - kept;
      expect(storageLines()).toEqual([
        expect.objectContaining({
          level: 0,
          message:
            `storageState: ${dropped + 2} of the 5002 cookies given are not in the context: ${dropped} dropped by Chrome's own limits` +
            ' (at most 180 cookies per domain and 3,300 in all; past them it deletes the least recently used); 1 already expired;' +
            ' 1 replaced by a later cookie of the same name, domain and path.',
          auxiliary: { given: 5002, dropped, expired: 1, repeated: 1 },
        }),
      ]);
    } finally {
      await context.close();
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
