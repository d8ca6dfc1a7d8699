// Which URLs a hosted session may load: those of the public web. Every other scheme belongs to the
// server or to the browser itself: file: reads the server's disk, chrome: and about:version show the
// browser's internals (its command line among them), view-source: shows any URL (file: too),
// devtools: drives the browser. The connectUrl guard, the REST navigate and the target watch all
// judge a URL here, so they agree.

import { redactUrl } from '../../util/redact.js';

export const WEB_URLS = 'http:, https:, data:, blob: and about:blank';

/** Why a hosted session may not load `url`; undefined when it may. */
export function nonWebReason(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Chrome may read a string that URL does not: what cannot be judged is not loaded.
    return 'it is not a URL the server can read';
  }
  switch (parsed.protocol) {
    case 'http:':
    case 'https:':
    case 'data:':
    // Runs script in the page already shown, like Runtime.evaluate: nothing is loaded.
    case 'javascript:':
      return undefined;
    case 'blob:':
      // A blob belongs to the origin that made it: a web page's, or an opaque one (blob:null/...).
      return /^(https?:\/\/|null\/)/i.test(parsed.pathname) ? undefined : 'a blob: URL of a non-web origin is that origin';
    case 'about:':
      // Chrome turns every other about: page into a chrome:// page.
      return parsed.pathname === 'blank' || parsed.pathname === 'srcdoc'
        ? undefined
        : `about:${parsed.pathname} is one of the browser's own pages`;
    case 'file:':
      return "file: URLs read the server's own files";
    case 'chrome:':
    case 'chrome-untrusted:':
      return "chrome: pages are the browser's own: its settings and internals, the server's command line among them";
    case 'view-source:':
      return 'view-source: shows whatever URL follows it, file: URLs included';
    case 'devtools:':
      return 'DevTools pages drive the browser itself';
    case 'chrome-extension:':
      return 'extension pages run with the rights of an extension';
    default:
      return `${parsed.protocol} is not a scheme of the web`;
  }
}

/** The URL as an error may show it: credentials and query values hidden, at most 200 characters. */
export function shownUrl(url: string): string {
  const shown = redactUrl(url);
  return shown.length > 200 ? `${shown.slice(0, 200)}…` : shown;
}

/** "<what> to <url> is not allowed: ..." with the rule and what to do instead. */
export function urlRefusalMessage(what: string, url: string, reason: string): string {
  return (
    `${what} to ${shownUrl(url)} is not allowed: a hosted session loads only web URLs (${WEB_URLS}), and ${reason}. ` +
    'Serve the content from a web server, or pass your own as a data: URL.'
  );
}

/**
 * Chrome's own UI (the omnibox popup and the other top-chrome pages) shows up as targets of this
 * type: chrome: pages by design, with the browser's privileged bindings, and never the session's.
 */
export const BROWSER_UI = 'browser_ui';

/** Whether a target of the session may show `url`: a web URL, nothing yet, or Chrome's error page for a web URL that failed. */
export function targetUrlAllowed(url: string): boolean {
  return url === '' || url.startsWith('chrome-error://chromewebdata/') || nonWebReason(url) === undefined;
}
