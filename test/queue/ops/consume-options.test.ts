/**
 * Conformance, consume's options (issue 25): a receive attempt answered again on retry, a lease of
 * the consume's own, and an answer bounded in bytes, on every backend and partition count.
 */
import { expect, it } from 'vitest';
import { isQueueError } from '../../../lib/queue/errors.ts';
import { onEveryBackend } from '../support/suite.ts';

const VT = 30_000;

onEveryBackend('consume options', (make) => {
  it('answers a retried attempt with the same messages and counts, leasing nothing new', async () => {
    const { queue } = make();
    await queue.configure('q', { visibilityTimeoutMs: VT });
    await queue.createGroup('q', 'g', '0');
    const ids = await queue.produce(
      'q',
      Array.from({ length: 6 }, (_, i) => ({ body: i })),
    );
    const first = await queue.consume('q', 'g', 'c', 3, { attemptId: 'try-1' });
    expect(first).toHaveLength(3);
    expect(first.every((m) => m.deliveries === 1)).toBe(true);
    const again = await queue.consume('q', 'g', 'c', 3, { attemptId: 'try-1' });
    expect(again).toEqual(first);
    // Nothing more was leased: the consumer holds the three, and three remain for others.
    expect((await queue.pendingSummary('q', 'g')).pending).toBe(3);
    const rest = await queue.consume('q', 'g', 'c', 10, { attemptId: 'try-2' });
    expect([...first, ...rest].map((m) => m.id).sort()).toEqual([...ids].sort());
    expect(rest.every((m) => m.deliveries === 1)).toBe(true);
    // The first attempt still answers its own messages, not the second's.
    expect(await queue.consume('q', 'g', 'c', 3, { attemptId: 'try-1' })).toEqual(first);
  });

  it('consumes as usual when a message of the attempt was acked since, or for another consumer', async () => {
    const { queue } = make();
    await queue.configure('q', { visibilityTimeoutMs: VT });
    await queue.createGroup('q', 'g', '0');
    await queue.produce(
      'q',
      Array.from({ length: 4 }, (_, i) => ({ body: i })),
    );
    const first = await queue.consume('q', 'g', 'c', 2, { attemptId: 'a' });
    expect(first).toHaveLength(2);
    // The same attemptId from another consumer is another attempt.
    const other = await queue.consume('q', 'g', 'd', 1, { attemptId: 'a' });
    expect(other).toHaveLength(1);
    expect(first.map((m) => m.id)).not.toContain(other[0]?.id);
    expect(await queue.ack('q', 'g', [first[0]?.id as string])).toBe(1);
    const after = await queue.consume('q', 'g', 'c', 2, { attemptId: 'a' });
    expect(after).toHaveLength(1);
    expect([...first, ...other].map((m) => m.id)).not.toContain(after[0]?.id);
    expect((await queue.pendingSummary('q', 'g')).pending).toBe(3);
  });

  it('renews the leases of a replayed attempt from the retry', async () => {
    const { queue, clock } = make();
    await queue.configure('q', { visibilityTimeoutMs: VT });
    await queue.createGroup('q', 'g', '0');
    const [id] = await queue.produce('q', [{ body: 'job' }]);
    const first = await queue.consume('q', 'g', 'c', 1, { attemptId: 'r' });
    clock.advance(VT - 1);
    expect(await queue.consume('q', 'g', 'c', 1, { attemptId: 'r' })).toEqual(first);
    clock.advance(VT - 1);
    expect(await queue.consume('q', 'g', 'd', 1)).toEqual([]);
    // And a second replay still meets the record the first one renewed.
    expect(await queue.consume('q', 'g', 'c', 1, { attemptId: 'r' })).toEqual(first);
    clock.advance(VT);
    expect((await queue.consume('q', 'g', 'd', 1)).map((m) => [m.id, m.deliveries])).toEqual([[id, 2]]);
  });

  it('forgets an attempt once its lease ended: the retry redelivers with the next count', async () => {
    const { queue, clock } = make();
    await queue.configure('q', { visibilityTimeoutMs: VT });
    await queue.createGroup('q', 'g', '0');
    const [id] = await queue.produce('q', [{ body: 'job' }]);
    expect((await queue.consume('q', 'g', 'c', 1, { attemptId: 'x' })).map((m) => m.deliveries)).toEqual([1]);
    clock.advance(VT);
    const again = await queue.consume('q', 'g', 'c', 1, { attemptId: 'x' });
    expect(again.map((m) => [m.id, m.deliveries])).toEqual([[id, 2]]);
    // And that delivery is the attempt now.
    expect(await queue.consume('q', 'g', 'c', 1, { attemptId: 'x' })).toEqual(again);
  });

  it('ends the leases of a consume with leaseMs after leaseMs, not the visibility timeout', async () => {
    const { queue, clock } = make();
    await queue.configure('q', { visibilityTimeoutMs: VT });
    await queue.createGroup('q', 'g', '0');
    const [short, long] = await queue.produce('q', [{ body: 'short' }, { body: 'long' }]);
    expect((await queue.consume('q', 'g', 'a', 1, { leaseMs: 1000 })).map((m) => m.id)).toEqual([short]);
    expect((await queue.consume('q', 'g', 'a', 1, { leaseMs: 3 * VT })).map((m) => m.id)).toEqual([long]);
    clock.advance(999);
    expect(await queue.consume('q', 'g', 'b', 2)).toEqual([]);
    clock.advance(1);
    expect((await queue.consume('q', 'g', 'b', 2)).map((m) => [m.id, m.deliveries])).toEqual([[short, 2]]);
    expect(await queue.ack('q', 'g', [short as string])).toBe(1);
    clock.advance(VT);
    expect(await queue.consume('q', 'g', 'c', 2)).toEqual([]);
    clock.advance(2 * VT);
    const late = await queue.consume('q', 'g', 'c', 2);
    expect(late.map((m) => [m.id, m.deliveries])).toEqual([[long, 2]]);
  });

  it('bounds an answer to maxBytes and leases only what it answered', async () => {
    const { queue } = make();
    await queue.configure('q', { visibilityTimeoutMs: VT });
    await queue.createGroup('q', 'g', '0');
    const body = 'x'.repeat(250 * 1024);
    for (let i = 0; i < 12; i++) {
      await queue.produce(
        'q',
        Array.from({ length: 4 }, () => ({ body })),
      );
    }
    const got = await queue.consume('q', 'g', 'c', 1000);
    expect(JSON.stringify({ messages: got }).length).toBeLessThanOrEqual(8 * 1024 * 1024);
    expect(got.length).toBeGreaterThanOrEqual(31);
    expect(got.length).toBeLessThanOrEqual(32);
    expect(got.every((m) => m.deliveries === 1 && m.body === body)).toBe(true);
    expect((await queue.pendingSummary('q', 'g')).pending).toBe(got.length);
    // What did not fit is still there for the next consume, first delivery.
    const rest = await queue.consume('q', 'g', 'd', 1000);
    expect(rest).toHaveLength(48 - got.length);
    expect(rest.every((m) => m.deliveries === 1)).toBe(true);
    expect(new Set([...got, ...rest].map((m) => m.id)).size).toBe(48);
    // A small bound still delivers one message, however large.
    const ids = await queue.produce('q', [{ body }, { body }]);
    const one = await queue.consume('q', 'g', 'e', 10, { maxBytes: 1 });
    expect(one.map((m) => m.id)).toHaveLength(1);
    expect(ids).toContain(one[0]?.id);
    expect((await queue.stats('q')).groups[0]?.lag).toBe(1);
  });

  it('keeps a redelivery that does not fit with its holder and its count', async () => {
    const { queue, clock } = make();
    await queue.configure('q', { visibilityTimeoutMs: VT });
    await queue.createGroup('q', 'g', '0');
    const body = 'y'.repeat(100 * 1024);
    await queue.produce('q', [{ body }, { body }, { body }]);
    expect(await queue.consume('q', 'g', 'a', 3)).toHaveLength(3);
    clock.advance(VT);
    const first = await queue.consume('q', 'g', 'b', 3, { maxBytes: 250 * 1024 });
    expect(first.map((m) => m.deliveries)).toEqual([2, 2]);
    const left = await queue.consume('q', 'g', 'c', 3);
    expect(left.map((m) => m.deliveries)).toEqual([2]);
  });

  it('gives back a grouped message from its key turn that does not fit, as a first delivery', async () => {
    const { queue } = make();
    await queue.configure('q', { visibilityTimeoutMs: VT });
    await queue.createGroup('q', 'g', '0');
    const big = 'z'.repeat(100 * 1024);
    const keys = ['k1', 'k2', 'k3'];
    await queue.produce(
      'q',
      keys.map((groupKey) => ({ body: 'small', groupKey })),
    );
    const bigIds = await queue.produce(
      'q',
      keys.map((groupKey) => ({ body: big, groupKey })),
    );
    // The small ones are in flight, the big ones wait in their keys' lines.
    const small = await queue.consume('q', 'g', 'a', 10);
    expect(small.map((m) => m.body)).toEqual(['small', 'small', 'small']);
    expect(
      await queue.ack(
        'q',
        'g',
        small.map((m) => m.id),
      ),
    ).toBe(3);
    // Their turns come: two fit 250 KiB, the third goes back due at once, its count unspent.
    const got = await queue.consume('q', 'g', 'b', 10, { maxBytes: 250 * 1024 });
    expect(got.map((m) => [m.body === big, m.deliveries])).toEqual([
      [true, 1],
      [true, 1],
    ]);
    const rest = await queue.consume('q', 'g', 'c', 10);
    expect(rest.map((m) => [m.body === big, m.deliveries])).toEqual([[true, 1]]);
    expect([...got, ...rest].map((m) => m.id).sort()).toEqual([...bigIds].sort());
  });

  it('refuses an attemptId, leaseMs or maxBytes out of bounds, changing nothing', async () => {
    const { queue } = make();
    await queue.createGroup('q', 'g', '0');
    await queue.produce('q', [{ body: 1 }]);
    for (const options of [
      { attemptId: '' },
      { attemptId: 'a'.repeat(129) },
      { attemptId: 'with space' },
      { attemptId: 'é' },
      { leaseMs: -1 },
      { leaseMs: 12 * 3600_000 + 1 },
      { maxBytes: 0 },
      { maxBytes: 32 * 1024 * 1024 + 1 },
    ]) {
      await expect(queue.consume('q', 'g', 'c', 1, options)).rejects.toSatisfy((e) =>
        isQueueError(e, 'INVALID_ARGUMENT'),
      );
    }
    expect((await queue.pendingSummary('q', 'g')).pending).toBe(0);
    expect(await queue.consume('q', 'g', 'c', 1, { attemptId: 'a'.repeat(128) })).toHaveLength(1);
  });
});
