// The browser's cookies, as Stagehand's and Playwright's contexts give them: read (all, or those a
// URL would be sent), added (checked first, so a cookie Chrome would drop without a word is an
// error), and cleared (all, or those matching a filter). The Storage domain reaches every cookie
// of the browser context from any page's session, which also works where there is no browser
// session (an extension); a filtered clear deletes exactly the matching cookies.

import type { Protocol } from 'devtools-protocol';
import type { CdpSession } from '../cdp/session.js';
import { CookieSetError, CookieValidationError, InvalidOptionError } from '../errors.js';
import type { ClearCookieOptions, Cookie, CookieParam } from '../types.js';

/**
 * Where the cookies are reached: a page's session (its browser context), or, with no page open, the
 * browser session (`browser`), naming the browser context unless it is the default one.
 */
export interface CookieJar {
  session: CdpSession;
  browser?: boolean;
  browserContextId?: string;
}

const SAME_SITE = ['Strict', 'Lax', 'None'];
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

const PRIORITY = ['Low', 'Medium', 'High'];

function toCookie(raw: Protocol.Network.Cookie): Cookie {
  const { name, value, domain, path, expires, httpOnly, secure, partitionKey, priority } = raw;
  // Chrome leaves sameSite out when the cookie did not set it; browsers treat that as Lax.
  const cookie: Cookie = {
    name,
    value,
    domain,
    path,
    expires: raw.session ? -1 : expires,
    httpOnly,
    secure,
    sameSite: raw.sameSite ?? 'Lax',
  };
  // Playwright's shape for a partition: a partitioned cookie loaded without it would be sent to every top-level site.
  if (partitionKey) {
    cookie.partitionKey = partitionKey.topLevelSite;
    cookie._crHasCrossSiteAncestor = partitionKey.hasCrossSiteAncestor;
  }
  if (priority && priority !== 'Medium') cookie.priority = priority;
  return cookie;
}

/** Whether the browser would send `cookie` with a request to `url` (host, path on a `/` boundary, secure). */
function sentTo(cookie: Cookie, url: URL): boolean {
  const domain = cookie.domain.startsWith('.') ? cookie.domain : `.${cookie.domain}`;
  if (!`.${url.hostname}`.endsWith(domain)) return false;
  const path = url.pathname;
  if (!path.startsWith(cookie.path)) return false;
  if (path.length > cookie.path.length && !cookie.path.endsWith('/') && path[cookie.path.length] !== '/') return false;
  // Chrome treats loopback hosts as secure contexts, so their secure cookies go over http too.
  return !cookie.secure || url.protocol === 'https:' || LOOPBACK.has(url.hostname);
}

function parseUrls(urls: unknown): URL[] {
  if (urls === undefined || urls === null) return [];
  const list = typeof urls === 'string' ? [urls] : urls;
  if (!Array.isArray(list)) throw new CookieValidationError('cookies(urls): pass a URL string or an array of them.');
  return list.map((url) => {
    try {
      return new URL(String(url));
    } catch {
      throw new CookieValidationError(`cookies(urls): ${JSON.stringify(url)} is not an absolute URL such as "https://example.org/".`);
    }
  });
}

async function rawCookies({ session, browserContextId }: CookieJar): Promise<Protocol.Network.Cookie[]> {
  return (await session.send('Storage.getCookies', { browserContextId })).cookies;
}

/** Every cookie of the browser context, or only those that would be sent to one of `urls`. */
export async function readCookies(jar: CookieJar, urls?: unknown): Promise<Cookie[]> {
  const parsed = parseUrls(urls);
  const cookies = (await rawCookies(jar)).map(toCookie);
  return parsed.length ? cookies.filter((cookie) => parsed.some((url) => sentTo(cookie, url))) : cookies;
}

/** One cookie checked as addCookies checks it (CookieValidationError naming it), in the browser's form. */
export function checkCookie(given: unknown, index: number): Protocol.Network.CookieParam {
  if (given === null || typeof given !== 'object')
    throw new CookieValidationError(`addCookies: cookie ${index} is not an object with name and value.`);
  const cookie = given as CookieParam;
  const { name, value, url, domain, path, expires, sameSite, partitionKey, priority } = cookie;
  if (typeof name !== 'string') throw new CookieValidationError(`addCookies: cookie ${index} needs a string \`name\`.`);
  const what = name ? `Cookie ${JSON.stringify(name)}` : `Cookie ${index} (nameless)`;
  if (typeof value !== 'string') throw new CookieValidationError(`${what} needs a string \`value\`.`);
  // A nameless cookie is sent as its value alone, so a "=" in it would read as a name: Chrome refuses both.
  if (!name && (!value || value.includes('='))) {
    throw new CookieValidationError(
      `${what}: a cookie with an empty \`name\` needs a \`value\` without "=" (it is sent as the value alone); give it a name.`,
    );
  }
  if (!url && !(domain && path)) throw new CookieValidationError(`${what} must have a url, or a domain and a path.`);
  if (url && domain) throw new CookieValidationError(`${what} should have either url or domain, not both.`);
  if (url && path) throw new CookieValidationError(`${what} should have either url or path, not both: the path comes from the url.`);
  if (expires !== undefined && (typeof expires !== 'number' || !Number.isFinite(expires) || (expires < 0 && expires !== -1))) {
    throw new CookieValidationError(`${what} has an invalid expires value; use -1 for a session cookie, or a Unix time in seconds.`);
  }
  if (sameSite !== undefined && !SAME_SITE.includes(sameSite))
    throw new CookieValidationError(`${what} has sameSite ${JSON.stringify(sameSite)}; use "Strict", "Lax" or "None".`);
  if (partitionKey !== undefined && (typeof partitionKey !== 'string' || !/^https?:\/\/[^/]+$/.test(partitionKey)))
    throw new CookieValidationError(
      `${what} has partitionKey ${JSON.stringify(partitionKey)}; use the top-level site, such as "https://example.org".`,
    );
  if (priority !== undefined && !PRIORITY.includes(priority))
    throw new CookieValidationError(`${what} has priority ${JSON.stringify(priority)}; use "Low", "Medium" or "High".`);
  const param: Protocol.Network.CookieParam = {
    name,
    value,
    domain,
    path,
    secure: cookie.secure,
    httpOnly: cookie.httpOnly,
    sameSite,
    priority,
  };
  if (expires !== undefined && expires !== -1) param.expires = expires;
  if (partitionKey) param.partitionKey = { topLevelSite: partitionKey, hasCrossSiteAncestor: cookie._crHasCrossSiteAncestor !== false };
  if (url) {
    if (url === 'about:blank') throw new CookieValidationError(`Blank page cannot have cookie ${JSON.stringify(name)}.`);
    if (url.startsWith('data:')) throw new CookieValidationError(`Data URL page cannot have cookie ${JSON.stringify(name)}.`);
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new CookieValidationError(`${what} has an invalid url: ${JSON.stringify(url)}.`);
    }
    param.domain = parsed.hostname;
    param.path = parsed.pathname.slice(0, parsed.pathname.lastIndexOf('/') + 1);
    param.secure = parsed.protocol === 'https:';
  }
  // Chrome drops such a cookie without an error; say so instead.
  if (param.sameSite === 'None' && !param.secure) {
    throw new CookieValidationError(
      `${what} has sameSite: "None" without secure: true; browsers require secure: true for sameSite "None".`,
    );
  }
  return param;
}

/** Adds cookies after checking them all: either every one is set, or none is and the error says why. */
export async function addCookies({ session, browserContextId }: CookieJar, cookies: unknown): Promise<void> {
  if (!Array.isArray(cookies)) throw new CookieValidationError('addCookies: pass an array of cookies, such as [{ name, value, url }].');
  const params = cookies.map(checkCookie);
  if (!params.length) return;
  try {
    await session.send('Storage.setCookies', { cookies: params, browserContextId });
  } catch (error) {
    const names = params.map((cookie) => JSON.stringify(cookie.name)).join(', ');
    throw new CookieSetError(
      `addCookies: the browser refused the cookies [${names}] (${(error as Error).message}); check their domain, path, secure and sameSite.`,
      { cause: error },
    );
  }
}

function checkFilter(filter: unknown): ClearCookieOptions | undefined {
  if (filter === undefined || filter === null) return undefined;
  if (typeof filter !== 'object' || Array.isArray(filter))
    throw new InvalidOptionError('clearCookies(filter): pass an object such as { name, domain, path }, or nothing to clear all.');
  for (const [key, value] of Object.entries(filter)) {
    if (key !== 'name' && key !== 'domain' && key !== 'path')
      throw new InvalidOptionError(`clearCookies(filter) takes \`name\`, \`domain\` and \`path\`, not \`${key}\`.`);
    if (value !== undefined && typeof value !== 'string' && !(value instanceof RegExp)) {
      throw new InvalidOptionError(`clearCookies(filter): \`${key}\` must be a string or a RegExp.`);
    }
  }
  const { name, domain, path } = filter as ClearCookieOptions;
  return name === undefined && domain === undefined && path === undefined ? undefined : { name, domain, path };
}

function matches(cookie: Cookie, filter: ClearCookieOptions): boolean {
  return (['name', 'domain', 'path'] as const).every((key) => {
    const wanted = filter[key];
    if (wanted === undefined) return true;
    if (typeof wanted === 'string') return cookie[key] === wanted;
    // A global or sticky RegExp remembers where it stopped; each cookie is tested from the start.
    wanted.lastIndex = 0;
    return wanted.test(cookie[key]);
  });
}

/** Removes every cookie, or those matching each field of `filter`; the others stay as they were. */
export async function clearCookies(jar: CookieJar, filter?: unknown): Promise<void> {
  const { session, browserContextId } = jar;
  const checked = checkFilter(filter);
  if (!checked) {
    await session.send('Storage.clearCookies', { browserContextId });
    return;
  }
  const all = await rawCookies(jar);
  const doomed = all.filter((cookie) => matches(toCookie(cookie), checked));
  if (!doomed.length) return;
  if (!jar.browser) {
    await Promise.all(
      doomed.map(({ name, domain, path, partitionKey }) => session.send('Network.deleteCookies', { name, domain, path, partitionKey })),
    );
    return;
  }
  // The browser session has no Network domain to delete one cookie with: all go, the others come back.
  const kept = all
    .filter((cookie) => !doomed.includes(cookie))
    .map(({ name, value, domain, path, secure, httpOnly, sameSite, priority, partitionKey, expires, session: untilClosed }) => {
      return { name, value, domain, path, secure, httpOnly, sameSite, priority, partitionKey, expires: untilClosed ? undefined : expires };
    });
  await session.send('Storage.clearCookies', { browserContextId });
  if (kept.length) await session.send('Storage.setCookies', { cookies: kept, browserContextId });
}
