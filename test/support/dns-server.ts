// A DNS server on loopback UDP that answers A and AAAA queries from a table (NXDOMAIN for other
// names): lets the hosted server's egress proxy resolve made-up names for real, through
// HOSTED_DNS_SERVERS, and lets a test point a name at loopback the way a hostile DNS answer would.

import { createSocket } from 'node:dgram';
import { isIP } from 'node:net';

export interface DnsServer {
  /** 127.0.0.1:<port>, for HOSTED_DNS_SERVERS. */
  address: string;
  /** Names asked so far (lower-case). */
  asked: string[];
  close(): Promise<void>;
}

function readName(message: Buffer, offset: number): { name: string; end: number } {
  const labels: string[] = [];
  let at = offset;
  while (message[at]) {
    const length = message[at]!;
    labels.push(message.subarray(at + 1, at + 1 + length).toString('latin1'));
    at += 1 + length;
  }
  return { name: labels.join('.').toLowerCase(), end: at + 1 };
}

function addressBytes(address: string): Buffer {
  if (isIP(address) === 4) return Buffer.from(address.split('.').map(Number));
  const [head = '', tail] = address.split('::') as [string, string | undefined];
  const groups = (part: string) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const front = groups(head);
  const back = tail === undefined ? [] : groups(tail);
  const all = [...front, ...new Array(8 - front.length - back.length).fill(0), ...back];
  const bytes = Buffer.alloc(16);
  all.forEach((group, index) => bytes.writeUInt16BE(group, index * 2));
  return bytes;
}

/** The made-up hosts of the hosted tests' ad pages, and localhost, all on loopback. */
export const TEST_HOSTS: Record<string, string[]> = {
  localhost: ['127.0.0.1'],
  'ads.doubleclick.net': ['127.0.0.1'],
  'cdn.tendril-test.example': ['127.0.0.1'],
};

/** `table`: name → addresses (IPv4 answer A queries, IPv6 AAAA). */
export async function startDnsServer(table: Record<string, string[]>): Promise<DnsServer> {
  const socket = createSocket('udp4');
  const asked: string[] = [];
  socket.on('message', (query, peer) => {
    if (query.length < 12) return;
    const { name, end } = readName(query, 12);
    const type = query.readUInt16BE(end);
    asked.push(name);
    const family = type === 1 ? 4 : type === 28 ? 6 : 0;
    const known = Object.hasOwn(table, name);
    const answers = known ? table[name]!.filter((address) => isIP(address) === family) : [];
    const header = Buffer.alloc(12);
    query.copy(header, 0, 0, 2);
    header.writeUInt16BE(known ? 0x8180 : 0x8183, 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    const records = answers.map((address) => {
      const data = addressBytes(address);
      const record = Buffer.alloc(12);
      record.writeUInt16BE(0xc00c, 0);
      record.writeUInt16BE(type, 2);
      record.writeUInt16BE(1, 4);
      record.writeUInt32BE(5, 6);
      record.writeUInt16BE(data.length, 10);
      return Buffer.concat([record, data]);
    });
    socket.send(Buffer.concat([header, query.subarray(12, end + 4), ...records]), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${socket.address().port}`,
    asked,
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}
