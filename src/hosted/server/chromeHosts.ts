// The hosts Chromium calls on its own, with no page asking: its clock check, component and
// extension updates and their downloads, sign-in's account check, the optimization guide's hints,
// autofill and Safe Browsing. Seen from every session's egress proxy seconds after its browser starts
// (Chromium 156, with Tendril's launch flags, --disable-background-networking included). The proxy
// sees only a CONNECT with the host name (no frame, no headers of the page's), so a request is
// told apart by its host: a page never needs these, and its refusals of any other host stay in the log.

const OWN_HOSTS = new Set([
  'update.googleapis.com',
  'optimizationguide-pa.googleapis.com',
  'content-autofill.googleapis.com',
  'safebrowsing.googleapis.com',
  'accounts.google.com',
]);

/** Whether `host` is one Chromium itself calls (clients2.google.com, update.googleapis.com, ...). */
export function chromeOwnHost(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return OWN_HOSTS.has(name) || /^clients\d*\.google\.com$/.test(name) || /(^|\.)gvt1\.com$/.test(name);
}
