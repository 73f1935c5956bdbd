/** The plain HMAC-SHA256 and hex SHA-256 SigV4 verification uses give Web Crypto's answers. */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { hmacSha256, hmacSha256Hex, sha256HexSync } from '../../lib/sqs/hmac-sha256.ts';

const hex = (bytes: ArrayBuffer | Uint8Array) => Buffer.from(new Uint8Array(bytes)).toString('hex');

async function webHmac(key: Uint8Array, data: Uint8Array): Promise<string> {
  const imported = await crypto.subtle.importKey(
    'raw',
    key as Uint8Array<ArrayBuffer>,
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  return hex(await crypto.subtle.sign('HMAC', imported, data as Uint8Array<ArrayBuffer>));
}

it('matches the RFC 4231 test cases', () => {
  const key = new Uint8Array(20).fill(0x0b);
  expect(hmacSha256Hex(key, 'Hi There')).toBe(
    'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7',
  );
  expect(hmacSha256Hex(new TextEncoder().encode('Jefe'), 'what do ya want for nothing?')).toBe(
    '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
  );
  // A key longer than the block: hashed first.
  expect(
    hmacSha256Hex(new Uint8Array(131).fill(0xaa), 'Test Using Larger Than Block-Size Key - Hash Key First'),
  ).toBe('60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54');
});

it('matches Web Crypto for keys and messages of every length around the block boundaries', async () => {
  await fc.assert(
    fc.asyncProperty(
      // Web Crypto refuses an empty HMAC key.
      fc.uint8Array({ minLength: 1, maxLength: 140 }),
      fc.uint8Array({ minLength: 0, maxLength: 300 }),
      async (key, data) => {
        expect(hex(hmacSha256(key, data))).toBe(await webHmac(key, data));
        expect(sha256HexSync(data)).toBe(hex(await crypto.subtle.digest('SHA-256', data)));
      },
    ),
    { numRuns: 300 },
  );
});

it('takes a string as UTF-8', async () => {
  const text = 'é€😀'.repeat(30);
  const bytes = new TextEncoder().encode(text);
  expect(sha256HexSync(text)).toBe(hex(await crypto.subtle.digest('SHA-256', bytes)));
  expect(hmacSha256Hex(bytes, text)).toBe(await webHmac(bytes, bytes));
});
