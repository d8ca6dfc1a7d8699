// A small PNG reader for tests: the size, and the colour (and opacity) of a pixel, of the 8-bit, non-interlaced
// RGB or RGBA images Chrome writes. Enough to tell that a screenshot shows the element it should.

import { inflateSync } from 'node:zlib';

export interface Png {
  width: number;
  height: number;
  /** [r, g, b] of the pixel at (x, y). */
  pixel(x: number, y: number): [number, number, number];
  /** Its opacity, 0 to 255 (255 in an image without an alpha channel). */
  alpha(x: number, y: number): number;
}

export function readPng(data: Uint8Array): Png {
  const bytes = Buffer.from(data);
  if (bytes.subarray(0, 8).toString('hex') !== '89504e470d0a1a0a') throw new Error('not a PNG');
  let offset = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat: Buffer[] = [];
  while (offset < bytes.length) {
    const length = bytes.readUInt32BE(offset);
    const type = bytes.subarray(offset + 4, offset + 8).toString('latin1');
    const body = bytes.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      const [depth, colour, , , interlace] = [body[8], body[9], body[10], body[11], body[12]];
      if (depth !== 8 || (colour !== 2 && colour !== 6) || interlace !== 0)
        throw new Error(`unsupported PNG: depth ${depth}, colour type ${colour}, interlace ${interlace}`);
      channels = colour === 6 ? 4 : 3;
    } else if (type === 'IDAT') idat.push(body);
    offset += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const pixels = Buffer.alloc(stride * height);
  for (let row = 0; row < height; row++) {
    const filter = raw[row * (stride + 1)]!;
    const line = raw.subarray(row * (stride + 1) + 1, (row + 1) * (stride + 1));
    for (let i = 0; i < stride; i++) {
      const left = i >= channels ? pixels[row * stride + i - channels]! : 0;
      const up = row > 0 ? pixels[(row - 1) * stride + i]! : 0;
      const upLeft = row > 0 && i >= channels ? pixels[(row - 1) * stride + i - channels]! : 0;
      const predictor = [0, left, up, (left + up) >> 1, paeth(left, up, upLeft)][filter]!;
      pixels[row * stride + i] = (line[i]! + predictor) & 0xff;
    }
  }
  return {
    width,
    height,
    pixel: (x, y) => {
      const at = y * stride + x * channels;
      return [pixels[at]!, pixels[at + 1]!, pixels[at + 2]!];
    },
    alpha: (x, y) => (channels === 4 ? pixels[y * stride + x * channels + 3]! : 255),
  };
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** The size of a JPEG, from its frame header (SOF0 to SOF3); throws for what is not a JPEG. */
export function jpegSize(data: Uint8Array): { width: number; height: number } {
  const bytes = Buffer.from(data);
  if (bytes[0] !== 0xff || bytes[1] !== 0xd8) throw new Error('not a JPEG');
  let offset = 2;
  while (offset < bytes.length) {
    const marker = bytes[offset + 1]!;
    if (marker >= 0xc0 && marker <= 0xc3) return { height: bytes.readUInt16BE(offset + 5), width: bytes.readUInt16BE(offset + 7) };
    offset += 2 + bytes.readUInt16BE(offset + 2);
  }
  throw new Error('a JPEG without a frame header');
}
