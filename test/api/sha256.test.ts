/** The plain SHA-256 the token lookup uses gives webcrypto's digest for any input. */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { sha256 } from '../../lib/api/sha256.ts';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

it('matches the FIPS 180-4 examples', () => {
  expect(hex(sha256(''))).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  expect(hex(sha256('abc'))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  expect(hex(sha256('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq'))).toBe(
    '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
  );
});

it('matches webcrypto for strings and bytes of every length around the block boundaries', async () => {
  await fc.assert(
    fc.asyncProperty(fc.uint8Array({ minLength: 0, maxLength: 300 }), async (bytes) => {
      const expected = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
      expect(hex(sha256(bytes))).toBe(hex(expected));
    }),
    { numRuns: 500 },
  );
  for (let n = 50; n < 70; n++) {
    const text = 'é'.repeat(n);
    const expected = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
    expect(hex(sha256(text))).toBe(hex(expected));
  }
});
