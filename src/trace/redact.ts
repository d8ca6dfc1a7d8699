// What never goes into a trace: credentials in URLs, the values of headers that carry them, what
// was typed into password fields, and every secret the run handed over (model API keys), wherever
// it turns up in the text of the file.

import { redactUrl } from '../util/redact.js';

const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'api-key']);
/** Query parameters whose values are credentials more often than not. */
const SECRET_PARAMS = /^(?:.*[-_])?(?:key|apikey|token|secret|password|passwd|pwd|auth|signature|sig|session|credential)s?$/i;

export const REDACTED = '***';

/** A page's URL as a trace shows it: without user-info, and credential-like query values hidden; the rest kept for reading. */
export function traceUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return raw.includes('@') || raw.includes('?') ? redactUrl(raw) : raw;
  }
  if (!/^(?:https?|wss?):$/.test(url.protocol)) return url.protocol === 'data:' ? raw.slice(0, 100) : raw;
  if (url.username || url.password) {
    url.username = url.username ? REDACTED : '';
    url.password = '';
  }
  for (const key of [...url.searchParams.keys()]) if (SECRET_PARAMS.test(key)) url.searchParams.set(key, REDACTED);
  return url.toString();
}

/** Headers as HAR lists them, with the values of those that carry credentials hidden. */
export function traceHeaders(headers: Record<string, unknown> | undefined): Array<{ name: string; value: string }> {
  return Object.entries(headers ?? {}).map(([name, value]) => ({
    name,
    value: SECRET_HEADERS.has(name.toLowerCase()) ? REDACTED : String(value),
  }));
}

/** Every occurrence of each secret (8 characters or more: shorter ones would hide ordinary text) replaced. */
export function scrub(text: string, secrets: ReadonlySet<string>): string {
  for (const secret of secrets) if (secret.length >= 8 && text.includes(secret)) text = text.split(secret).join(REDACTED);
  return text;
}
