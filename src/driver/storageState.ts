// One login, many sessions: a browser context's cookies and the localStorage of every origin it has
// been on, in the shape of Playwright's storageState() (so files move between the two), and the way
// back in before the first navigation.
//
// An origin's localStorage can only be read or written by a document of that origin (DOMStorage.*
// also needs a frame of it). So both go through a hidden page of our own (Target.createTarget
// `hidden`: no tab, and not one of the context's pages) whose every request is answered here with an
// empty document: it visits each origin as a top-level document without reaching the network. It
// lives in the browser context it serves, whose storage every process of it shares (out-of-process
// frames included), so nothing crosses to another context. Which origins: those whose documents the
// context's pages have shown at the top since it was made (or since the Sdk attached), and those of a
// state put in; Chrome has no list of the origins that hold storage. A frame's localStorage under
// another site's page is partitioned by that site in Chrome; like Playwright, this keeps the
// first-party storage only. sessionStorage and IndexedDB are not part of it (Playwright's default).

import type { CdpSession } from '../cdp/session.js';
import { CookieValidationError, InvalidOptionError, SdkError, SdkStateError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Cookie, CookieParam, StorageState } from '../types.js';
import { withDeadline } from '../util/time.js';
import { checkCookie } from './cookies.js';
import type { ReadTextFile } from './initScripts.js';

/** What the keeper needs of its Context (named here: this module must not import context.ts, which imports it). */
export interface StorageHost {
  cookies(): Promise<Cookie[]>;
  addCookies(cookies: CookieParam[]): Promise<void>;
  pages(): Array<{ url(): string }>;
  on(event: 'page', handler: (page: { session: CdpSession }) => void): unknown;
}

/** The Context's options the keeper reads. */
interface HostOptions {
  browserContextId?: string | undefined;
  timeoutMs: number;
  readFile?: ReadTextFile | undefined;
}

/** The http(s) origin of a URL; undefined for any other (about:blank, data:, file:), which has no storage to keep. */
function webOrigin(url: string): string | undefined {
  return /^https?:\/\//i.test(url) ? new URL(url).origin : undefined;
}

const READ = `(() => { const s = localStorage, out = []; for (let i = 0; i < s.length; i++) { const name = s.key(i); out.push({ name, value: s.getItem(name) }); } return out; })()`;

/** What names a cookie in Chrome's store: a later cookie with the same replaces it. */
function cookieKey({ name, domain, path, partitionKey }: Pick<Cookie, 'name' | 'domain' | 'path' | 'partitionKey'>): string {
  return JSON.stringify([name, domain.replace(/^\./, '').toLowerCase(), path, partitionKey ?? '']);
}

/**
 * Says how many of the cookies given Chrome did not keep, and why, since Chrome drops them without
 * an error: a cookie store holds at most 180 cookies per domain (eTLD+1) and 3,300 in all, and past
 * either it deletes the least recently used (30 of the domain's, 300 in all; CookieMonster's
 * kDomainMaxCookies and kMaxCookies). A cookie already expired is deleted as it is set, and one that
 * repeats another's name, domain and path replaces it.
 */
function reportDropped(given: Cookie[], kept: Cookie[], logger: Logger): void {
  const now = Date.now() / 1000;
  const there = new Set(kept.map(cookieKey));
  const seen = new Set<string>();
  let expired = 0;
  let repeated = 0;
  let capped = 0;
  // From the last: the last of a repeated key is the one Chrome kept.
  for (const cookie of [...given].reverse()) {
    if (typeof cookie.domain !== 'string') continue;
    const key = cookieKey(cookie);
    if (seen.has(key)) repeated++;
    else if (typeof cookie.expires === 'number' && cookie.expires !== -1 && cookie.expires <= now) expired++;
    else if (!there.has(key)) capped++;
    seen.add(key);
  }
  if (!expired && !repeated && !capped) return;
  const parts = [
    capped &&
      `${capped} dropped by Chrome's own limits (at most 180 cookies per domain and 3,300 in all; past them it deletes the least recently used)`,
    expired && `${expired} already expired`,
    repeated && `${repeated} replaced by a later cookie of the same name, domain and path`,
  ].filter(Boolean);
  logger.error(
    'storage',
    `storageState: ${capped + expired + repeated} of the ${given.length} cookies given are not in the context: ${parts.join('; ')}.`,
    { given: given.length, dropped: capped, expired, repeated },
  );
}

/** A storage state, checked: `where` names it in errors (a file's path, or the option). */
export function checkStorageState(value: unknown, where: string): StorageState {
  const fail = (why: string): never => {
    throw new InvalidOptionError(
      `${where}: ${why} A storage state is { cookies: [...], origins: [{ origin, localStorage: [{ name, value }] }] }, as context.storageState() and Playwright's write it.`,
    );
  };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail('it is not an object.');
  const { cookies = [], origins = [] } = value as { cookies?: unknown; origins?: unknown };
  if (!Array.isArray(cookies)) fail('`cookies` is not an array.');
  if (!Array.isArray(origins)) fail('`origins` is not an array.');
  (origins as unknown[]).forEach((entry, index) => {
    const { origin, localStorage } = (entry ?? {}) as { origin?: unknown; localStorage?: unknown };
    if (typeof origin !== 'string' || webOrigin(origin) !== origin)
      fail(`origins[${index}].origin must be an http(s) origin such as "https://example.org", not ${JSON.stringify(origin)}.`);
    if (!Array.isArray(localStorage) || !localStorage.every((item) => typeof item?.name === 'string' && typeof item.value === 'string')) {
      fail(`origins[${index}].localStorage must be an array of { name, value } strings.`);
    }
  });
  // Each cookie as it will be put in, so that a state that cannot load fails here, before any page
  // (a batch worker checks its --storage-state at start, not in every job).
  (cookies as unknown[]).forEach((cookie, index) => {
    try {
      checkCookie(cookieParamOf(cookie), index);
    } catch (error) {
      if (!(error instanceof CookieValidationError)) throw error;
      const why = error.message.replace(/^addCookies: cookie \d+ /, '');
      throw new CookieValidationError(
        `${where}: cookies[${index}]${why.startsWith('Cookie ') ? ': ' : ' '}${why} Fix that cookie or leave it out of the state.`,
        { cause: error },
      );
    }
  });
  return { cookies: cookies as Cookie[], origins: origins as StorageState['origins'] };
}

/** What of a state's cookie goes to addCookies (a state's cookies have a domain and a path, never a url). */
function cookieParamOf(cookie: unknown): unknown {
  if (typeof cookie !== 'object' || cookie === null) return cookie;
  const { name, value, domain, path, expires, httpOnly, secure, sameSite, partitionKey, _crHasCrossSiteAncestor, priority } =
    cookie as Cookie;
  return { name, value, domain, path, expires, httpOnly, secure, sameSite, partitionKey, _crHasCrossSiteAncestor, priority };
}

/** The storage of one browser context: what it has been on, read and written through a hidden page. */
export class StorageKeeper {
  /** Our hidden pages, which the context leaves alone. */
  readonly hidden = new Set<string>();
  readonly #origins = new Set<string>();

  constructor(
    private readonly host: StorageHost,
    private readonly root: CdpSession,
    private readonly options: HostOptions,
    private readonly logger: Logger,
  ) {
    // Every origin a page's main frame goes to (read() adds where the open pages are now).
    host.on('page', ({ session }) => {
      session.on('Page.frameNavigated', ({ frame }) => {
        if (!frame.parentId) this.#note(frame.url);
      });
    });
  }

  #note(url: string): void {
    const origin = webOrigin(url);
    if (origin) this.#origins.add(origin);
  }

  /** The cookies, and the localStorage of each origin the context has been on that has any. */
  async read(): Promise<StorageState> {
    for (const page of this.host.pages()) this.#note(page.url());
    const cookies = await this.host.cookies();
    const origins: StorageState['origins'] = [];
    await this.#visit([...this.#origins], async (origin, evaluate) => {
      const localStorage = (await evaluate(READ)) as Array<{ name: string; value: string }>;
      if (localStorage.length) origins.push({ origin, localStorage });
    });
    return { cookies, origins };
  }

  /** Puts a state in (an object, or the path of its JSON file): cookies first, then each origin's items. */
  async apply(given: unknown): Promise<void> {
    let value = given;
    if (typeof given === 'string') {
      const { readFile } = this.options;
      if (!readFile)
        throw new InvalidOptionError(
          `storageState ${JSON.stringify(given)}: reading a file needs Node's fs; pass the state object instead.`,
        );
      let text: string;
      try {
        text = await readFile(given);
      } catch (error) {
        throw new InvalidOptionError(`storageState: could not read ${JSON.stringify(given)} (${(error as Error).message}).`, {
          cause: error,
        });
      }
      try {
        value = JSON.parse(text);
      } catch (error) {
        throw new InvalidOptionError(`storageState ${JSON.stringify(given)} is not JSON (${(error as Error).message}).`, { cause: error });
      }
    }
    const state = checkStorageState(value, typeof given === 'string' ? `storageState ${JSON.stringify(given)}` : 'storageState');
    await this.host.addCookies(state.cookies.map(cookieParamOf) as CookieParam[]);
    if (state.cookies.length) reportDropped(state.cookies, await this.host.cookies(), this.logger);
    for (const { origin } of state.origins) this.#origins.add(origin);
    const items = new Map(state.origins.map(({ origin, localStorage }) => [origin, localStorage]));
    await this.#visit(
      [...items.keys()].filter((origin) => items.get(origin)!.length),
      (origin, evaluate) =>
        evaluate(`for (const { name, value } of ${JSON.stringify(items.get(origin))}) localStorage.setItem(name, value)`),
    );
  }

  /** Opens a hidden page, shows it each origin (an empty document of ours), lets `work` run there, and closes it. */
  async #visit(
    origins: string[],
    work: (origin: string, evaluate: (expression: string) => Promise<unknown>) => Promise<unknown>,
  ): Promise<void> {
    if (!origins.length) return;
    const { root } = this;
    const { browserContextId, timeoutMs } = this.options;
    const { targetId } = await root.send('Target.createTarget', { url: 'about:blank', browserContextId, hidden: true, background: true });
    this.hidden.add(targetId);
    try {
      const { sessionId } = await root.send('Target.attachToTarget', { targetId, flatten: true });
      const session = root.childSession(sessionId)!;
      // A browser without hidden targets made a tab (a page): nothing of it may reach the network.
      if (session.targetType === 'page')
        throw new SdkStateError(
          'This browser cannot open hidden pages (Target.createTarget `hidden`), which storage states need; use a recent Chrome.',
        );
      session.on('Fetch.requestPaused', ({ requestId }) => {
        void session.sendQuiet('Fetch.fulfillRequest', {
          requestId,
          responseCode: 200,
          responseHeaders: [{ name: 'content-type', value: 'text/html' }],
          body: '',
        });
      });
      await Promise.all([
        session.send('Fetch.enable', {}),
        session.send('Page.enable'),
        session.sendQuiet('Runtime.runIfWaitingForDebugger'),
      ]);
      for (const origin of origins) {
        const loaded = new Promise((resolve) => session.once('Page.loadEventFired', resolve));
        const { errorText } = await session.send('Page.navigate', { url: `${origin}/` });
        if (errorText) throw new SdkError(`Could not open ${origin} to reach its localStorage: ${errorText}.`);
        await withDeadline(loaded, timeoutMs, `Opening ${origin} to reach its localStorage`);
        await work(origin, async (expression) => {
          const { result, exceptionDetails } = await session.send('Runtime.evaluate', { expression, returnByValue: true });
          if (exceptionDetails)
            throw new SdkError(
              `The localStorage of ${origin} could not be reached: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`,
            );
          return result.value;
        });
      }
    } finally {
      await root.sendQuiet('Target.closeTarget', { targetId });
      this.hidden.delete(targetId);
    }
  }
}
