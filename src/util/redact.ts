// Secrets must never reach logs or error messages. Connection URLs can carry tokens in their query
// string or user-info, so every URL we show goes through here.

export function redactUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.username || url.password) {
      url.username = url.username ? '***' : '';
      url.password = url.password ? '***' : '';
    }
    for (const key of [...url.searchParams.keys()]) url.searchParams.set(key, '***');
    return url.toString();
  } catch {
    return raw.length > 80 ? raw.slice(0, 80) + '…' : raw;
  }
}
