// Secrets must never reach logs or error messages. Connection URLs can carry tokens in their query
// string or user-info, so every URL we show goes through here.

export function redactUrl(raw: string): string {
  const start = raw.indexOf('//');
  try {
    // User-info is cut by hand before parsing: a password holding '/' would otherwise parse as a
    // host and a path, and be shown as such.
    const end = raw.slice(start + 2).search(/[?#]/);
    const at = raw.lastIndexOf('@', end < 0 ? raw.length : start + 2 + end);
    const url = new URL(start >= 0 && at > start ? `${raw.slice(0, start + 2)}user@${raw.slice(at + 1)}` : raw);
    if (url.username || url.password) {
      url.username = '***';
      url.password = '';
    }
    for (const key of [...url.searchParams.keys()]) url.searchParams.set(key, '***');
    return url.toString();
  } catch {
    // Not a URL: whatever might be credentials (up to the last '@') or a query goes.
    const at = raw.lastIndexOf('@');
    const hidden = (start >= 0 && at > start ? `${raw.slice(0, start + 2)}***${raw.slice(at)}` : raw).replace(/\?.*$/s, '?***');
    return hidden.length > 80 ? hidden.slice(0, 80) + '…' : hidden;
  }
}
