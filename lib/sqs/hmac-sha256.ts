/**
 * HMAC-SHA256 (RFC 2104) and SHA-256 hex digests in plain code, synchronous, over the SHA-256 the
 * token lookup uses (lib/api/sha256.ts). SigV4 verification digests the body and the canonical
 * request and signs the string to sign on every SQS request; through webcrypto each of those is an
 * asynchronous job (on Node a hop through the thread pool), which cost more per request than the
 * rest of the SQS layer together. Inputs here are small (a request body up to SYNC_HASH_LIMIT, a
 * canonical request, a string to sign); larger bodies still go to webcrypto, off the event loop.
 */
import { sha256, sha256Words } from '../api/sha256.ts';

/**
 * Bodies larger than this are digested by webcrypto, which does not block the event loop: plain
 * code hashes some 50-100 MB/s, so 16 KiB holds the loop for at most about 0.3 ms, about what a
 * thread-pool hop costs in latency. Typical SQS requests (batches of small messages) are smaller.
 */
export const SYNC_HASH_LIMIT = 16 * 1024;

const BLOCK = 64;
const encoder = new TextEncoder();
const hexDigits = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
const words = new Uint32Array(8);

function wordsHex(digest: Uint32Array): string {
  let out = '';
  for (let i = 0; i < 8; i++) {
    const word = digest[i] as number;
    out +=
      (hexDigits[word >>> 24] as string) +
      (hexDigits[(word >>> 16) & 0xff] as string) +
      (hexDigits[(word >>> 8) & 0xff] as string) +
      (hexDigits[word & 0xff] as string);
  }
  return out;
}

/**
 * The SHA-256 of `input` (a string is taken as UTF-8) as 64 lowercase hex digits, computed here.
 * @example sha256HexSync('') // 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'
 */
export function sha256HexSync(input: string | Uint8Array): string {
  return wordsHex(sha256Words(input, words));
}

/**
 * HMAC-SHA256 of `data` (a string is taken as UTF-8) under `key`, as 32 bytes.
 * @example hmacSha256(encoder.encode('key'), 'The quick brown fox jumps over the lazy dog')
 */
export function hmacSha256(key: Uint8Array, data: string | Uint8Array): Uint8Array {
  const block = new Uint8Array(BLOCK);
  block.set(key.length > BLOCK ? sha256(key) : key);
  const message = typeof data === 'string' ? encoder.encode(data) : data;
  const inner = new Uint8Array(BLOCK + message.length);
  for (let i = 0; i < BLOCK; i++) inner[i] = (block[i] as number) ^ 0x36;
  inner.set(message, BLOCK);
  const outer = new Uint8Array(BLOCK + 32);
  for (let i = 0; i < BLOCK; i++) outer[i] = (block[i] as number) ^ 0x5c;
  outer.set(sha256(inner), BLOCK);
  return sha256(outer);
}

/** HMAC-SHA256 as 64 lowercase hex digits. */
export function hmacSha256Hex(key: Uint8Array, data: string | Uint8Array): string {
  const mac = hmacSha256(key, data);
  let out = '';
  for (const byte of mac) out += hexDigits[byte];
  return out;
}
