/**
 * Conformance, first delivery times (Message.firstDeliveredAt, include/first-delivery.lua): kept in
 * the group's meta record from a message's first delivery until it ends, across lease expiries,
 * nacks, reclaims and receive-attempt replays; gone with an ack or a dead-lettering; absent for a
 * pending entry an older release delivered (no record).
 */
import { expect, it } from 'vitest';
import { onEveryBackend } from '../support/suite.ts';

const VT = 30_000;

onEveryBackend('first delivery times', (make) => {
  it('answers the first delivery time on every redelivery, reclaim and replay, and drops it with the ack', async () => {
    const { queue, clock, at, raw } = make();
    await queue.configure('q', { visibilityTimeoutMs: VT, retryBackoff: 'none' });
    await queue.createGroup('q', 'g', '0');
    const [id] = await queue.produce('q', [{ body: 1 }]);
    const first = clock.now();
    const [delivered] = await queue.consume('q', 'g', 'a', 1, { attemptId: 'try-1' });
    expect(delivered).toMatchObject({ id, deliveries: 1, firstDeliveredAt: first });
    clock.advance(5);
    // A replay of the attempt answers the same delivery, the same first time.
    expect(await queue.consume('q', 'g', 'a', 1, { attemptId: 'try-1' })).toMatchObject([
      { id, deliveries: 1, firstDeliveredAt: first },
    ]);
    clock.advance(VT);
    expect(await queue.consume('q', 'g', 'b', 1)).toMatchObject([
      { id, deliveries: 2, firstDeliveredAt: first },
    ]);
    await queue.nack('q', 'g', [id as string], 0);
    clock.advance(1);
    expect(await queue.consume('q', 'g', 'c', 1)).toMatchObject([
      { id, deliveries: 3, firstDeliveredAt: first },
    ]);
    clock.advance(VT + 1);
    const reclaimed = await queue.reclaim('q', 'g', 'd', { minIdleMs: 0 });
    expect(reclaimed.messages).toMatchObject([{ id, deliveries: 4, firstDeliveredAt: first }]);

    const { keys, raw: rawId } = at('q', id as string);
    const meta = keys.group('g').meta;
    const record = () => raw("return redis.call('HGET', KEYS[1], ARGV[1])", [meta], [`d:${rawId}`]);
    expect(await record()).toBe(String(first));
    await queue.ack('q', 'g', [id as string]);
    expect(await record()).toBeNull();

    // A second message: its own first time, not the first one's.
    clock.advance(1000);
    const [second] = await queue.produce('q', [{ body: 2 }]);
    expect(await queue.consume('q', 'g', 'a', 1)).toMatchObject([
      { id: second, deliveries: 1, firstDeliveredAt: clock.now() },
    ]);
  });

  it('drops the record when the message is dead-lettered', async () => {
    const { queue, clock, at, raw } = make();
    await queue.configure('q', { visibilityTimeoutMs: VT, maxDeliveries: 1 });
    await queue.createGroup('q', 'g', '0');
    const [id] = await queue.produce('q', [{ body: 1 }]);
    expect((await queue.consume('q', 'g', 'a', 1))[0]?.firstDeliveredAt).toBe(clock.now());
    const { keys, raw: rawId } = at('q', id as string);
    const record = () =>
      raw("return redis.call('HEXISTS', KEYS[1], ARGV[1])", [keys.group('g').meta], [`d:${rawId}`]);
    expect(await record()).toBe(1);
    clock.advance(VT);
    expect(await queue.consume('q', 'g', 'a', 1)).toEqual([]);
    expect((await queue.stats('q')).deadLetters).toBe(1);
    expect(await record()).toBe(0);
  });

  it('leaves it out for a pending entry an older release delivered (no record), then keeps the next message', async () => {
    const { queue, clock, at, raw } = make();
    await queue.configure('q', { visibilityTimeoutMs: VT, retryBackoff: 'none' });
    await queue.createGroup('q', 'g', '0');
    const [id] = await queue.produce('q', [{ body: 1 }]);
    await queue.consume('q', 'g', 'a', 1);
    // What the previous release leaves: the pending entry without its first delivery time.
    const { keys, raw: rawId } = at('q', id as string);
    await raw("return redis.call('HDEL', KEYS[1], ARGV[1])", [keys.group('g').meta], [`d:${rawId}`]);
    clock.advance(VT);
    const [again] = await queue.consume('q', 'g', 'b', 1);
    expect(again).toMatchObject({ id, deliveries: 2 });
    expect(again?.firstDeliveredAt).toBeUndefined();
    expect(Object.hasOwn(again ?? {}, 'firstDeliveredAt')).toBe(false);
    await queue.ack('q', 'g', [id as string]);
  });
});
