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
