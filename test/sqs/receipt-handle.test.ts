/** Receipt-handle holders: fresh random ones per receive, and the attempt holder as before (Web Crypto's SHA-256). */
import { expect, it } from 'vitest';
import { toBase64Url } from '../../lib/sqs/base64.ts';
import {
  attemptHolder,
  decodeReceiptHandle,
  encodeReceiptHandle,
  newHolder,
} from '../../lib/sqs/receipt-handle.ts';

it('draws a different 128-bit holder for every receive, across refills of its random pool', () => {
  const holders = Array.from({ length: 1000 }, () => newHolder());
  expect(new Set(holders).size).toBe(1000);
  for (const holder of holders) expect(holder).toMatch(/^sqs-[A-Za-z0-9_-]{22}$/);
  // A handle with such a holder reads back.
  const handle = encodeReceiptHandle({
    queue: 'orders',
    id: '1-0',
    deliveries: 1,
    holder: holders[999] as string,
  });
  expect(decodeReceiptHandle(handle, 'orders').holder).toBe(holders[999]);
});

it('derives the same attempt holder as the previous release (first 16 bytes of SHA-256, base64url)', async () => {
  const digest = await crypto.subtle.digest(
    'SHA-256',
    new TextEncoder().encode('AKID\norders.fifo\nattempt-1'),
  );
  const expected = `sqs-${toBase64Url(new Uint8Array(digest).subarray(0, 16))}`;
  expect(await attemptHolder('AKID', 'orders.fifo', 'attempt-1')).toBe(expected);
  expect(await attemptHolder('AKID', 'orders.fifo', 'attempt-2')).not.toBe(expected);
});
