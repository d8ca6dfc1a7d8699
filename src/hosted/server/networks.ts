// Which addresses a hosted session may reach. By default only the public internet: loopback,
// link-local (the cloud metadata address), the private ranges and the other special-purpose blocks
// are refused, by name or by address, after DNS: an allowed-looking name whose answer points inside
// is refused all the same. HOSTED_ALLOW_NETWORKS lets an operator open ranges or hosts.

import { BlockList, isIP } from 'node:net';
import { InvalidOptionError } from '../../errors.js';
import { checkDomainPolicy, hostAllowed } from '../../util/domainPolicy.js';

// IANA special-purpose blocks that are not the public internet (RFC 6890 and successors).
const SPECIAL_V4 = [
  '0.0.0.0/8', // "this network"; 0.0.0.0 reaches the local machine on Linux
  '10.0.0.0/8',
  '100.64.0.0/10', // carrier-grade NAT
  '127.0.0.0/8',
  '169.254.0.0/16', // link-local, cloud metadata (169.254.169.254)
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '192.88.99.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/4', // multicast
  '240.0.0.0/4', // reserved, and the broadcast address
];
const SPECIAL_V6 = [
  '::/127', // unspecified and loopback
  '100::/64', // discard
  '2001::/23', // protocol assignments (Teredo among them)
  '2001:db8::/32',
  'fc00::/7', // unique local
  'fe80::/10', // link-local
  'fec0::/10', // old site-local
  'ff00::/8', // multicast
];

function addRange(list: BlockList, range: string): boolean {
  const [address, bits] = range.split('/');
  const family = isIP(address ?? '');
  if (!family) return false;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (bits === undefined) {
    list.addAddress(address!, type);
    return true;
  }
  const prefix = Number(bits);
  if (!/^\d+$/.test(bits) || prefix > (family === 4 ? 32 : 128)) return false;
  list.addSubnet(address!, prefix, type);
  return true;
}

const special = new BlockList();
for (const range of [...SPECIAL_V4, ...SPECIAL_V6]) addRange(special, range);

/** The 16 bytes of an IPv6 address (no brackets, no zone), or undefined. */
function ipv6Bytes(text: string): number[] | undefined {
  if (isIP(text) !== 6) return undefined;
  let body = text;
  const tail: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(body);
  if (dotted) {
    tail.push(...dotted[1]!.split('.').map(Number));
    body = `${body.slice(0, -dotted[1]!.length)}0:0`;
  }
  const [head = '', rest] = body.split('::') as [string, string | undefined];
  const groups = (part: string) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const front = groups(head);
  const back = rest === undefined ? [] : groups(rest);
  const all = [...front, ...new Array(8 - front.length - back.length).fill(0), ...back];
  const bytes = all.flatMap((group) => [group >> 8, group & 0xff]);
  if (tail.length) bytes.splice(12, 4, ...tail);
  return bytes;
}

/**
 * The IPv4 address an IPv6 one carries to the v4 internet (mapped ::ffff:a.b.c.d, NAT64
 * 64:ff9b::a.b.c.d, 6to4 2002:aabb:ccdd::), which is what the connection really reaches.
 */
function embeddedV4(address: string): string | undefined {
  const bytes = ipv6Bytes(address);
  if (!bytes) return undefined;
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((byte) => byte === 0);
  if (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return bytes.slice(12, 16).join('.');
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zeros(4, 12))
    return bytes.slice(12, 16).join('.');
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return bytes.slice(2, 6).join('.');
  return undefined;
}

export class NetworkRules {
  readonly #ranges = new BlockList();
  readonly #hosts: { allow?: string[] } | undefined;
  /** Everything is allowed (`HOSTED_ALLOW_NETWORKS=*`): for an operator whose own network does the confining. */
  readonly open: boolean;

  /** `allowed`: CIDR ranges, addresses, host names or `*.domain` patterns. */
  constructor(allowed: string[]) {
    this.open = allowed.includes('*');
    const names: string[] = [];
    for (const entry of allowed) {
      if (entry === '*') continue;
      const bare = entry.replace(/^\[(.*)\]$/, '$1');
      if (isIP(bare.split('/')[0] ?? '')) {
        if (!addRange(this.#ranges, bare))
          throw new InvalidOptionError(`HOSTED_ALLOW_NETWORKS has ${JSON.stringify(entry)}, which is not a valid address range.`);
      } else {
        names.push(entry);
      }
    }
    try {
      this.#hosts = names.length ? checkDomainPolicy({ allow: names }) : undefined;
    } catch (error) {
      throw new InvalidOptionError(
        `HOSTED_ALLOW_NETWORKS: ${(error as Error).message.replace(/^domainPolicy\.allow has/, 'has')} Ranges are written like 10.0.0.0/8 or fd00::/8.`,
      );
    }
  }

  /** The host is named in the allowed list: it may be reached whatever its addresses. */
  allowsName(host: string): boolean {
    return this.open || (this.#hosts !== undefined && hostAllowed(this.#hosts, host));
  }

  /** Undefined when a connection to `address` is allowed, else why not (for the refusal). */
  refusal(address: string): string | undefined {
    if (this.open) return undefined;
    const family = isIP(address);
    if (!family) return `${address} is not an IP address`;
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (this.#ranges.check(address, type)) return undefined;
    const carried = family === 6 ? embeddedV4(address) : undefined;
    if (carried && this.#ranges.check(carried, 'ipv4')) return undefined;
    if (special.check(address, type) || (carried && special.check(carried, 'ipv4'))) {
      return `${address} is on a private, loopback or link-local network`;
    }
    return undefined;
  }
}

/** HOSTED_ALLOW_NETWORKS: comma- or space-separated. */
export function readAllowedNetworks(text: string | undefined): string[] {
  const entries = (text ?? '')
    .split(/[\s,]+/)
    .map((entry) => entry.trim().toLowerCase())
    .filter(Boolean);
  new NetworkRules(entries);
  return entries;
}
