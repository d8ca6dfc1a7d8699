// An address typed without its scheme, as people type them: "example.org/page", "127.0.0.1:8765",
// "localhost:3000". The public web is https:// now, so a public host gets https://; a server on this
// machine or on a private network (a dev server, a fixture, a router's page) usually speaks plain
// http:// and has no certificate to offer, so loopback, private and link-local addresses and
// localhost get http://.

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
// "localhost:3000" parses as the scheme "localhost:"; a host, a port and nothing else is an address.
const HOST_AND_PORT = /^[^/:?#@]+:\d+(?:[/?#]|$)/;

/** Whether `host` (a URL's hostname: IPv6 in brackets) is this machine or a private network's. */
export function isLocalHost(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  const v4 = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(name)?.slice(1).map(Number);
  if (v4) {
    const [a, b] = v4 as [number, number];
    return a === 127 || a === 10 || a === 0 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254);
  }
  const v6 = /^\[(.*)\]$/.exec(name)?.[1];
  return v6 !== undefined && (v6 === '::1' || /^f[cd][0-9a-f]{0,2}:/.test(v6) || /^fe[89ab][0-9a-f]?:/.test(v6));
}

/** `raw` as a URL: as it is when it has a scheme, else with http:// for a local host and https:// for the others. */
export function withScheme(raw: string): string {
  const value = raw.trim();
  if (SCHEME.test(value) && !HOST_AND_PORT.test(value)) return value;
  let host = '';
  try {
    host = new URL(`http://${value}`).hostname;
  } catch {
    // Not an address at all: https:// it is, and whoever parses it says what is wrong.
  }
  return `${isLocalHost(host) ? 'http' : 'https'}://${value}`;
}
