// Link URLs: what a link's href resolves to, without a URL object per link where that is safe.

/**
 * A path from the root that the URL parser leaves as it is (no other host, no dot segment, nothing
 * it would percent-encode): the document's origin and the path make the whole URL.
 */
const PLAIN_PATH = /^\/(?![/\\])[\w\-.~!$&()*+,;=:@/%?#]*$/;
const DOT_SEGMENT = /\/\.|%2e/i;

/** The origin of the document walked, when http(s): what plain paths resolve against. */
let pathOrigin = '';

/** Takes the origin of the document about to be walked. */
export function startLinks(): void {
  pathOrigin = originOfDocument();
}

function originOfDocument(): string {
  try {
    const origin = new URL(document.baseURI).origin;
    return /^https?:/.test(origin) ? origin : '';
  } catch {
    return '';
  }
}

export function hrefOf(el: Element): string | undefined {
  const raw = el.getAttribute('href');
  if (raw === null) return undefined;
  // Already absolute and plain: as written (resolving costs more than the rest of the link).
  if (/^https?:\/\/[^\s\\]*$/i.test(raw)) return raw;
  if (pathOrigin && PLAIN_PATH.test(raw) && !DOT_SEGMENT.test(raw)) return pathOrigin + raw;
  // The browser's own resolution, against the document's base URL and encoding, with no URL object.
  if (el instanceof HTMLAnchorElement || el instanceof HTMLAreaElement) return el.href || raw;
  try {
    return new URL(raw, el.baseURI).href;
  } catch {
    return raw;
  }
}
