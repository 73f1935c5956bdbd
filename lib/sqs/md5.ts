/**
 * MD5 (RFC 1321) in plain TypeScript. SQS answers MD5OfMessageBody and MD5OfMessageAttributes,
 * which the AWS SDKs check, and Web Crypto offers no MD5. Not for anything secret: MD5 is only the
 * checksum SQS's wire format names.
 */

/** Per-round shift amounts. */
const S = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21];

/** floor(abs(sin(i + 1)) * 2^32). */
const K = new Int32Array(64);
for (let i = 0; i < 64; i++) K[i] = Math.floor(Math.abs(Math.sin(i + 1)) * 2 ** 32) | 0;

const encoder = new TextEncoder();
const words = new Int32Array(16);
const hex = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

function rotl(x: number, n: number): number {
  return (x << n) | (x >>> (32 - n));
}

/** The state after one 64-byte block at `offset` of `block`. */
function compress(state: Int32Array, block: Uint8Array, offset: number): void {
  for (let i = 0; i < 16; i++) {
    const o = offset + i * 4;
    words[i] =
      (block[o] as number) |
      ((block[o + 1] as number) << 8) |
      ((block[o + 2] as number) << 16) |
      ((block[o + 3] as number) << 24);
  }
  let a = state[0] as number;
  let b = state[1] as number;
  let c = state[2] as number;
  let d = state[3] as number;
  for (let i = 0; i < 64; i++) {
    let f: number;
    let g: number;
    if (i < 16) {
      f = (b & c) | (~b & d);
      g = i;
    } else if (i < 32) {
      f = (d & b) | (~d & c);
      g = (5 * i + 1) & 15;
    } else if (i < 48) {
      f = b ^ c ^ d;
      g = (3 * i + 5) & 15;
    } else {
      f = c ^ (b | ~d);
      g = (7 * i) & 15;
    }
    const next = d;
    d = c;
    c = b;
    const shift = S[((i >> 4) << 2) | (i & 3)] as number;
    b = (b + rotl((a + f + (K[i] as number) + (words[g] as number)) | 0, shift)) | 0;
    a = next;
  }
  state[0] = ((state[0] as number) + a) | 0;
  state[1] = ((state[1] as number) + b) | 0;
  state[2] = ((state[2] as number) + c) | 0;
  state[3] = ((state[3] as number) + d) | 0;
}

/**
 * The MD5 of `input` (a string is taken as UTF-8) as 32 lowercase hex digits.
 * @example md5Hex('Hello, world!') // '6cd3556deb0da54bca060b4c39479839'
 */
export function md5Hex(input: string | Uint8Array): string {
  const bytes = typeof input === 'string' ? encoder.encode(input) : input;
  const state = new Int32Array([0x67452301, 0xefcdab89 | 0, 0x98badcfe | 0, 0x10325476]);
  const whole = bytes.length - (bytes.length % 64);
  for (let offset = 0; offset < whole; offset += 64) compress(state, bytes, offset);
  // The tail, the 0x80 marker, zeros and the bit length (little-endian) in one or two blocks.
  const rest = bytes.length - whole;
  const tail = new Uint8Array(rest < 56 ? 64 : 128);
  tail.set(bytes.subarray(whole));
  tail[rest] = 0x80;
  const bits = bytes.length * 8;
  const view = new DataView(tail.buffer);
  view.setUint32(tail.length - 8, bits >>> 0, true);
  view.setUint32(tail.length - 4, Math.floor(bits / 2 ** 32), true);
  for (let offset = 0; offset < tail.length; offset += 64) compress(state, tail, offset);
  let out = '';
  for (let i = 0; i < 4; i++) {
    const word = state[i] as number;
    out +=
      hex[word & 0xff]! + hex[(word >>> 8) & 0xff]! + hex[(word >>> 16) & 0xff]! + hex[(word >>> 24) & 0xff]!;
  }
  return out;
}
