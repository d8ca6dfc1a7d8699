// Reads a zip's entries (stored or deflated) from its central directory: enough for the tests to
// look inside the trace files Tendril writes, with Node's zlib, independently of Tendril's writer.

import { inflateRawSync } from 'node:zlib';

export function unzip(bytes: Uint8Array): Map<string, Buffer> {
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  const end = data.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0) throw new Error('not a zip: no end of central directory');
  const count = data.readUInt16LE(end + 10);
  let at = data.readUInt32LE(end + 16);
  const out = new Map<string, Buffer>();
  for (let index = 0; index < count; index++) {
    if (data.readUInt32LE(at) !== 0x02014b50) throw new Error(`bad central directory entry at ${at}`);
    const method = data.readUInt16LE(at + 10);
    const compressed = data.readUInt32LE(at + 20);
    const nameLength = data.readUInt16LE(at + 28);
    const extra = data.readUInt16LE(at + 30);
    const comment = data.readUInt16LE(at + 32);
    const local = data.readUInt32LE(at + 42);
    const name = data.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    const start = local + 30 + data.readUInt16LE(local + 26) + data.readUInt16LE(local + 28);
    const body = data.subarray(start, start + compressed);
    out.set(name, method === 8 ? inflateRawSync(body) : Buffer.from(body));
    at += 46 + nameLength + extra + comment;
  }
  return out;
}
