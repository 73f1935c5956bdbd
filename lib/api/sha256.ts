/**
 * SHA-256 (FIPS 180-4) in plain TypeScript, synchronous and without allocating: the token lookup
 * digests every presented bearer token, and webcrypto's digest is asynchronous (on Node a hop
 * through the thread pool for each request), which cost more than the rest of an ack. Tokens are
 * short, so one or two blocks.
 */

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

const INITIAL = [
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];

const encoder = new TextEncoder();
/** Scratch space, reused: the functions are synchronous, so no two calls share it at once. */
const w = new Uint32Array(64);
let padded = new Uint8Array(128);
let view = new DataView(padded.buffer);

/** The 8 words of the digest of `input` (a string is taken as UTF-8) into `out`. */
export function sha256Words(input: string | Uint8Array, out: Uint32Array): Uint32Array {
  // A UTF-8 string is at most 3 bytes per UTF-16 unit; room for the padding besides.
  const room = (typeof input === 'string' ? input.length * 3 : input.length) + 72;
  if (padded.length < room) {
    padded = new Uint8Array(Math.ceil(room / 64) * 64);
    view = new DataView(padded.buffer);
  }
  const length =
    typeof input === 'string' ? (encoder.encodeInto(input, padded).written as number) : input.length;
  if (typeof input !== 'string') padded.set(input);
  // The message, a 1 bit, zeros, and its length in bits as a 64-bit big-endian number.
  const blocks = Math.ceil((length + 9) / 64);
  const end = blocks * 64;
  padded[length] = 0x80;
  padded.fill(0, length + 1, end);
  const bits = length * 8;
  view.setUint32(end - 8, Math.floor(bits / 0x1_0000_0000));
  view.setUint32(end - 4, bits >>> 0);

  let h0 = INITIAL[0] as number;
  let h1 = INITIAL[1] as number;
  let h2 = INITIAL[2] as number;
  let h3 = INITIAL[3] as number;
  let h4 = INITIAL[4] as number;
  let h5 = INITIAL[5] as number;
  let h6 = INITIAL[6] as number;
  let h7 = INITIAL[7] as number;
  for (let block = 0; block < blocks; block++) {
    for (let t = 0; t < 16; t++) w[t] = view.getUint32(block * 64 + t * 4);
    for (let t = 16; t < 64; t++) {
      const x = w[t - 15] as number;
      const y = w[t - 2] as number;
      const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
      const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
      w[t] = ((w[t - 16] as number) + s0 + (w[t - 7] as number) + s1) >>> 0;
    }
    let a = h0;
    let b = h1;
    let c = h2;
    let d = h3;
    let e = h4;
    let f = h5;
    let g = h6;
    let k = h7;
    for (let t = 0; t < 64; t++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const ch = (e & f) ^ (~e & g);
      const t1 = (k + S1 + ch + (K[t] as number) + (w[t] as number)) >>> 0;
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const maj = (a & b) ^ (a & c) ^ (b & c);
      const t2 = (S0 + maj) >>> 0;
      k = g;
      g = f;
      f = e;
      e = (d + t1) >>> 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) >>> 0;
    }
    h0 = (h0 + a) >>> 0;
    h1 = (h1 + b) >>> 0;
    h2 = (h2 + c) >>> 0;
    h3 = (h3 + d) >>> 0;
    h4 = (h4 + e) >>> 0;
    h5 = (h5 + f) >>> 0;
    h6 = (h6 + g) >>> 0;
    h7 = (h7 + k) >>> 0;
  }
  out[0] = h0;
  out[1] = h1;
  out[2] = h2;
  out[3] = h3;
  out[4] = h4;
  out[5] = h5;
  out[6] = h6;
  out[7] = h7;
  return out;
}

/**
 * The SHA-256 digest of `input` as 32 bytes.
 * @example sha256('abc') // Uint8Array(32) [0xba, 0x78, ...]
 */
export function sha256(input: string | Uint8Array): Uint8Array {
  const words = sha256Words(input, new Uint32Array(8));
  const out = new Uint8Array(32);
  const outView = new DataView(out.buffer);
  for (let i = 0; i < 8; i++) outView.setUint32(i * 4, words[i] as number);
  return out;
}
