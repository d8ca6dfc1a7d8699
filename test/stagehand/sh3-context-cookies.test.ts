// Stagehand 3's context.cookies(urls), addCookies(cookies) and clearCookies(filter) on real
// Chromium, across the two fixture origins (127.0.0.1 and localhost): what the browser keeps, what
// it sends with the next request (the fixture's /echo-headers page shows the Cookie header), and
// the typed errors for cookies it could not take.

import { beforeEach, describe, expect, it } from 'vitest';
import { CookieSetError, CookieValidationError, InvalidOptionError, type Cookie, type CookieParam, type Page } from '../../src/index.js';
import { useBrowser } from '../helpers.js';

const fixture = useBrowser();

/** The Cookie header of the page's document request (an /echo-headers page). */
async function cookieHeader(page: Page, url: string): Promise<string | undefined> {
  await page.goto(url);
  return (await page.evaluate<Record<string, string>>("JSON.parse(document.getElementById('headers').textContent)")).cookie;
}

function names(cookies: Cookie[]): string[] {
  return cookies.map((cookie) => cookie.name).sort();
}

beforeEach(async () => {
  await fixture.sdk.context.clearCookies();
});

describe('cookies', () => {
  it('addCookies sets cookies by url or by domain and path, cookies() reads them back, and the next request sends them', async () => {
    const { page, sdk, servers } = fixture;
    const context = sdk.context;
    const inAnHour = Math.floor(Date.now() / 1000) + 3600;
    await context.addCookies([
      { name: 'a1', value: 'v1', url: servers.a.url('/') },
      { name: 'deep', value: 'd', url: servers.a.url('/sub/page.html') },
      { name: 'b1', value: 'v2', domain: 'localhost', path: '/' },
      { name: 'hidden', value: 'h', url: servers.b.url('/'), httpOnly: true, expires: inAnHour, sameSite: 'Strict' },
    ]);
    const all = await context.cookies();
    expect(names(all)).toEqual(['a1', 'b1', 'deep', 'hidden']);
    expect(all.find((cookie) => cookie.name === 'a1')).toEqual({
      name: 'a1',
      value: 'v1',
      domain: '127.0.0.1',
      path: '/',
      expires: -1,
      httpOnly: false,
      secure: false,
      sameSite: 'Lax',
    });
    expect(all.find((cookie) => cookie.name === 'deep')?.path).toBe('/sub/');
    const hidden = all.find((cookie) => cookie.name === 'hidden')!;
    expect([hidden.domain, hidden.httpOnly, hidden.sameSite, Math.round(hidden.expires)]).toEqual(['localhost', true, 'Strict', inAnHour]);

    // Filtered by the URLs they would be sent to: host, path on a "/" boundary.
    expect(names(await context.cookies(servers.a.url('/')))).toEqual(['a1']);
    expect(names(await context.cookies(servers.a.url('/sub/x.html')))).toEqual(['a1', 'deep']);
    expect(names(await context.cookies(servers.a.url('/subway')))).toEqual(['a1']);
    expect(names(await context.cookies([servers.a.url('/'), servers.b.url('/')]))).toEqual(['a1', 'b1', 'hidden']);
    expect(await context.cookies('https://example.org/')).toEqual([]);

    // Each origin's next request carries its own, and only its own.
    expect(await cookieHeader(page, servers.a.url('/echo-headers'))).toBe('a1=v1');
    expect((await cookieHeader(page, servers.b.url('/echo-headers')))?.split('; ').sort()).toEqual(['b1=v2', 'hidden=h']);
    // httpOnly keeps it from the page's script; the others it sees.
    expect(await page.evaluate('document.cookie')).toBe('b1=v2');
  });

  it('reads cookies the pages set themselves, a secure one on loopback included', async () => {
    const { page, sdk, servers } = fixture;
    await page.goto(servers.b.url('/leaf.html'));
    await page.evaluate("document.cookie = 'fromPage=1; path=/'");
    await sdk.context.addCookies([{ name: 'safe', value: 's', domain: 'localhost', path: '/', secure: true, sameSite: 'None' }]);
    const cookies = await sdk.context.cookies(servers.b.url('/leaf.html'));
    expect(names(cookies)).toEqual(['fromPage', 'safe']);
    expect(cookies.find((cookie) => cookie.name === 'safe')).toMatchObject({ secure: true, sameSite: 'None' });
    expect(names(await sdk.context.cookies(servers.a.url('/')))).toEqual([]);
  });

  it('clearCookies removes all, or exactly those matching a filter of strings or RegExps', async () => {
    const { sdk, servers } = fixture;
    const context = sdk.context;
    const add = () =>
      context.addCookies([
        { name: 'a1', value: '1', url: servers.a.url('/') },
        { name: 'k1', value: '1', url: servers.a.url('/') },
        { name: 'k2', value: '1', domain: 'localhost', path: '/' },
        { name: 'deep', value: '1', url: servers.a.url('/sub/page.html') },
        { name: 'b1', value: '1', domain: 'localhost', path: '/', httpOnly: true },
      ]);
    await add();
    await context.clearCookies({ name: 'a1' });
    expect(names(await context.cookies())).toEqual(['b1', 'deep', 'k1', 'k2']);
    // A global RegExp is tested from the start for each cookie.
    await context.clearCookies({ name: /^k/g });
    expect(names(await context.cookies())).toEqual(['b1', 'deep']);
    await context.clearCookies({ path: '/sub/' });
    expect(names(await context.cookies())).toEqual(['b1']);
    // What is kept keeps its attributes.
    expect((await context.cookies())[0]!.httpOnly).toBe(true);
    await add();
    await context.clearCookies({ domain: /^local/, name: 'k2' });
    expect(names(await context.cookies())).toEqual(['a1', 'b1', 'deep', 'k1']);
    await context.clearCookies({ domain: '127.0.0.1' });
    expect(names(await context.cookies())).toEqual(['b1']);
    await context.clearCookies({});
    expect(await context.cookies()).toEqual([]);
  });

  it('refuses cookies it cannot set with CookieValidationError, and a batch the browser refuses with CookieSetError, setting none', async () => {
    const { sdk, servers } = fixture;
    const context = sdk.context;
    const url = servers.a.url('/');
    const cases: Array<[unknown, RegExp]> = [
      [[{ name: 'n', value: 'v' }], /Cookie "n" must have a url, or a domain and a path/],
      [[{ name: 'n', value: 'v', domain: 'localhost' }], /must have a url, or a domain and a path/],
      [[{ name: 'n', value: 'v', url, domain: 'localhost' }], /either url or domain, not both/],
      [[{ name: 'n', value: 'v', url, path: '/' }], /either url or path, not both/],
      [[{ name: 'n', value: 'v', url, expires: -5 }], /invalid expires value; use -1 for a session cookie/],
      [[{ name: 'n', value: 'v', url, sameSite: 'None' }], /sameSite: "None" without secure: true/],
      [[{ name: 'n', value: 'v', url, sameSite: 'lax' }], /use "Strict", "Lax" or "None"/],
      [[{ name: 'n', value: 'v', url: 'about:blank' }], /Blank page cannot have cookie "n"/],
      [[{ name: 'n', value: 'v', url: 'data:text/html,x' }], /Data URL page cannot have cookie "n"/],
      [[{ name: 'n', value: 'v', url: 'not a url' }], /invalid url: "not a url"/],
      [[{ name: 'n', value: 5, url }], /needs a string `value`/],
      [[{ value: 'v', url }], /needs a string `name`/],
      // A nameless cookie is sent as its value alone: an empty value or one with "=" could not be.
      [[{ name: '', value: '', url }], /empty `name` needs a `value` without "="/],
      [[{ name: '', value: 'a=b', url }], /empty `name` needs a `value` without "="/],
      ['a=1', /pass an array of cookies/],
    ];
    for (const [cookies, message] of cases) {
      const error = await context.addCookies(cookies as CookieParam[]).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error, JSON.stringify(cookies)).toBeInstanceOf(CookieValidationError);
      expect(error).toBeInstanceOf(InvalidOptionError);
      expect((error as Error).message).toMatch(message);
    }
    await expect(context.cookies('nope')).rejects.toThrow(CookieValidationError);
    await expect(context.clearCookies({ value: 'x' } as never)).rejects.toThrow(/takes `name`, `domain` and `path`, not `value`/);
    await expect(context.clearCookies({ name: 5 } as never)).rejects.toThrow(InvalidOptionError);

    const refused = await context
      .addCookies([
        { name: 'good', value: '1', url },
        { name: 'bad;name', value: '1', url },
      ])
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    expect(refused).toBeInstanceOf(CookieSetError);
    expect((refused as Error).message).toMatch(/the browser refused the cookies \["good", "bad;name"\]/);
    expect(await context.cookies()).toEqual([]);
    // Still usable.
    await context.addCookies([{ name: 'good', value: '1', url }]);
    expect(names(await context.cookies())).toEqual(['good']);
  });
});
