// Public types of the context's cookie and domain-policy methods (Stagehand 3's shapes); src/types.ts
// re-exports them, so callers import every public type from one place.

/** A cookie of the browser (`context.cookies()`). */
export interface Cookie {
  /** Empty for a nameless cookie (`document.cookie = "value-only"`), which Chrome sends as its value alone. */
  name: string;
  value: string;
  domain: string;
  path: string;
  /** Unix time in seconds; -1 for a session cookie. */
  expires: number;
  httpOnly: boolean;
  secure: boolean;
  sameSite: 'Strict' | 'Lax' | 'None';
  /** A partitioned (CHIPS) cookie's partition: the top-level site it was set under, such as "https://example.org". Absent for others. */
  partitionKey?: string;
  /**
   * The other half of Chrome's partition key: whether a frame between the top and the cookie's was of another site.
   * Playwright's name for it, so that its files and ours carry the same partition.
   */
  _crHasCrossSiteAncestor?: boolean;
  /** Chrome's priority, given only when it is not "Medium" (the default). */
  priority?: 'Low' | 'Medium' | 'High';
}

/** A cookie to set (`context.addCookies()`): give `url`, or `domain` and `path`. */
export interface CookieParam {
  name: string;
  value: string;
  /** Sets `domain`, `path` (the URL's directory) and `secure` (https) from this URL. */
  url?: string;
  domain?: string;
  path?: string;
  /** Unix time in seconds; -1 or absent for a session cookie. */
  expires?: number;
  httpOnly?: boolean;
  secure?: boolean;
  sameSite?: 'Strict' | 'Lax' | 'None';
  /** Sets a partitioned (CHIPS) cookie, of this top-level site ("https://example.org"); it needs `secure`. */
  partitionKey?: string;
  /** With `partitionKey`: whether it was set under a cross-site ancestor (default true, as in Playwright). */
  _crHasCrossSiteAncestor?: boolean;
  priority?: 'Low' | 'Medium' | 'High';
}

/** Which cookies `context.clearCookies()` removes: those matching every field given (a string exactly). */
export interface ClearCookieOptions {
  name?: string | RegExp;
  domain?: string | RegExp;
  path?: string | RegExp;
}

/** Stagehand's form of a domainPolicy, taken by `context.setDomainPolicy()` beside Tendril's `{ allow, block }`. */
export interface StagehandDomainPolicy {
  allowedDomains?: string[];
  blockedDomains?: string[];
}

/**
 * A browser context's logins, as `context.storageState()` returns them and Playwright's
 * `context.storageState()` writes them: every cookie, and each origin's localStorage.
 * sessionStorage and IndexedDB are not part of it.
 */
export interface StorageState {
  cookies: Cookie[];
  origins: Array<{ origin: string; localStorage: Array<{ name: string; value: string }> }>;
}

/** Options of `sdk.newContext()` and `context.newContext()`. */
export interface NewContextOptions {
  /** Cookies and localStorage to start with, before the first navigation: a StorageState, or the path of its JSON file (Node). */
  storageState?: StorageState | string;
}

/** Options of `context.tracing.start()` (Playwright's names). */
export interface TracingStartOptions {
  /** A screencast of each page (the viewer's filmstrip), a few frames a second at most. Default false. */
  screenshots?: boolean;
  /** The DOM of each page's frames before and after every action (the viewer's Before and After tabs). Default false. */
  snapshots?: boolean;
  /** The trace's title, shown by the viewer. */
  title?: string;
}

/** Options of `context.tracing.stop()`. */
export interface TracingStopOptions {
  /** Where the zip goes (Node only). Without it, the bytes are only resolved. */
  path?: string;
}

/**
 * A trace of the context's calls, in the file Playwright's trace viewer opens
 * (`npx playwright show-trace trace.zip`): each public call with its parameters and result, each
 * model request with what it was sent and answered, network, console, and, when asked, a
 * screencast and DOM snapshots. See docs/tracing.md.
 */
export interface Tracing {
  /** Starts recording. TracingStateError when it already records. */
  start(options?: TracingStartOptions): Promise<void>;
  /**
   * Stops recording and resolves with the zip's bytes; with `path`, writes them there first. A path
   * that cannot be written rejects with TracingWriteError, which holds the bytes (nothing is lost).
   * TracingStateError when it does not record.
   */
  stop(options?: TracingStopOptions): Promise<Uint8Array>;
  /** Opens a group: the calls until groupEnd() are shown inside it. Groups nest. */
  group(name: string): Promise<void>;
  /** Closes the innermost open group. */
  groupEnd(): Promise<void>;
}
