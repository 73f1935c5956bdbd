/**
 * Conformance, the dead-letter family (lib/queue/ops/dlq.ts): dead-lettering on consume, paging,
 * redriving and purging dead letters, and their index.
 */
import { expect, it } from 'vitest';
import { onEveryBackend } from '../support/suite.ts';

const VT = 30_000;

onEveryBackend('dead letters', (make) => {
  it('dead-letters on consume a message that would exceed max deliveries, with where it came from', async () => {
    const { queue, clock } = make();
    await queue.configure('q', { visibilityTimeoutMs: VT, maxDeliveries: 2 });
    await queue.createGroup('q', 'g', '0');
    const [id] = await queue.produce('q', [{ body: { poison: true }, attributes: { a: 'b' } }]);
    await queue.consume('q', 'g', 'c', 1);
    clock.advance(VT);
    expect((await queue.consume('q', 'g', 'c', 1)).map((m) => m.deliveries)).toEqual([2]);
    clock.advance(VT);
    expect(await queue.consume('q', 'g', 'c', 1)).toEqual([]);
    const stats = await queue.stats('q');
    expect(stats.deadLetters).toBe(1);
    expect(stats.groups[0]?.pending).toBe(0);
    const { deadLetters, cursor } = await queue.listDeadLetters('q', {});
    expect(cursor).toBeNull();
    expect(deadLetters).toHaveLength(1);
    expect(deadLetters[0]).toMatchObject({
      body: { poison: true },
      attributes: { a: 'b' },
      deadLetteredFrom: id,
      group: 'g',
      deliveries: 2,
      reason: 'maxDeliveries',
      deadLetteredAt: clock.now(),
    });
  });

  it('pages, redrives and purges dead letters', async () => {
    const { queue, clock } = make();
    await queue.configure('q', { visibilityTimeoutMs: VT, maxDeliveries: 1 });
    await queue.createGroup('q', 'g', '0');
    await queue.produce('q', [{ body: 0 }, { body: 1 }, { body: 2 }]);
    await queue.consume('q', 'g', 'c', 3);
    clock.advance(VT);
    expect((await queue.sweep()).deadLettered).toBe(3);
    const page1 = await queue.listDeadLetters('q', { count: 2 });
    expect(page1.deadLetters.map((d) => d.body)).toEqual([0, 1]);
    const page2 = await queue.listDeadLetters('q', { count: 2, cursor: page1.cursor as string });
    expect(page2.deadLetters.map((d) => d.body)).toEqual([2]);
    expect(page2.cursor).toBeNull();
    expect(await queue.redrive('q', { ids: [page1.deadLetters[0]?.id as string, '5-5'] })).toBe(1);
    const redriven = await queue.consume('q', 'g', 'c', 10);
    expect(redriven.map((m) => [m.body, m.deliveries])).toEqual([[0, 1]]);
    expect(await queue.redrive('q', { all: true })).toBe(2);
    expect((await queue.stats('q')).deadLetters).toBe(0);
    expect((await queue.consume('q', 'g', 'c', 10)).map((m) => m.body)).toEqual([1, 2]);
    clock.advance(VT);
    expect((await queue.sweep()).deadLettered).toBe(3);
    expect(await queue.purgeDeadLetters('q')).toBe(3);
    expect(await queue.purgeDeadLetters('q')).toBe(0);
    expect((await queue.stats('q')).deadLetters).toBe(0);
  });

  it('forgets the index entry of a redriven or purged dead letter', async () => {
    const { queue, clock, raw, at } = make();
    await queue.configure('q', { visibilityTimeoutMs: VT, maxDeliveries: 1 });
    await queue.createGroup('q', 'g', '0');
    const [a] = await queue.produce('q', [{ body: 1 }]);
    await queue.consume('q', 'g', 'c', 1);
    clock.advance(VT);
    expect((await queue.sweep()).deadLettered).toBe(1);
    const { keys } = at('q', a as string);
    expect(await raw("return redis.call('HLEN', KEYS[1])", [keys.dlqIndex])).toBe(1);
    expect(await queue.redrive('q', { all: true })).toBe(1);
    expect(await raw("return redis.call('HLEN', KEYS[1])", [keys.dlqIndex])).toBe(0);
    // The sweep trimmed the acked entry: with its dead letter gone, nothing is left of it.
    expect(await queue.getMessage('q', a as string)).toBeNull();
    const [again] = await queue.consume('q', 'g', 'c', 1);
    clock.advance(VT);
    await queue.sweep();
    expect((await queue.getMessage('q', again?.id as string))?.groups[0]?.state).toBe('dead-lettered');
    expect(await queue.purgeDeadLetters('q')).toBe(1);
    expect(await raw("return redis.call('EXISTS', KEYS[1])", [keys.dlqIndex])).toBe(0);
  });

  it('moves dead letters into the queue deadLetterQueue names, with where they came from, once', async () => {
    const { queue, clock } = make();
    await queue.configure('src', { maxDeliveries: 1, visibilityTimeoutMs: 1000, deadLetterQueue: 'target' });
    await queue.createGroup('target', 'g', '0');
    await queue.createGroup('src', 'g', '0');
    const [id] = await queue.produce('src', [{ body: { n: 1 }, attributes: { a: 'b' }, groupKey: 'k' }]);
    const enqueuedAt = clock.now();
    await queue.consume('src', 'g', 'c', 10);
    clock.advance(1500);
    // The second delivery would pass maxDeliveries: dead-lettered, then moved by the same consume.
    expect(await queue.consume('src', 'g', 'c', 10)).toEqual([]);
    expect((await queue.listDeadLetters('src', {})).deadLetters).toEqual([]);
    const [got] = await queue.consume('target', 'g', 'c', 10);
    expect(got).toMatchObject({
      body: { n: 1 },
      groupKey: 'k',
      deliveries: 1,
      attributes: {
        a: 'b',
        'dlq:source': 'src',
        'dlq:id': id,
        'dlq:enqueuedAt': String(enqueuedAt),
        'dlq:deliveries': '1',
        'dlq:reason': 'maxDeliveries',
      },
    });
    expect(await queue.deadLetterSources('target')).toEqual(['src']);
    expect(await queue.deadLetterSources('src')).toEqual([]);
    const self = await queue.configure('src', { deadLetterQueue: 'src' }).catch((e) => e);
    expect(self.code).toBe('INVALID_ARGUMENT');
  });

  it('keeps dead letters while the target does not exist, and the sweep moves them once it does', async () => {
    const { queue, clock } = make();
    await queue.configure('src', { messageTtlMs: 1000, deadLetterQueue: 'later' });
    await queue.createGroup('src', 'g', '0');
    await queue.produce('src', [{ body: 1 }, { body: 2 }]);
    clock.advance(2000);
    await queue.sweep();
    const kept = (await queue.listDeadLetters('src', {})).deadLetters;
    expect(kept.map((d) => [d.body, d.reason])).toEqual([
      [1, 'expired'],
      [2, 'expired'],
    ]);
    expect(await queue.getConfig('later')).toBeNull();
    await queue.createGroup('later', 'g', '0');
    await queue.sweep();
    expect((await queue.listDeadLetters('src', {})).deadLetters).toEqual([]);
    const moved = await queue.consume('later', 'g', 'c', 10);
    expect(moved.map((m) => [m.body, m.attributes['dlq:reason']]).sort()).toEqual([
      [1, 'expired'],
      [2, 'expired'],
    ]);
    // A repeated move (cut off before the delete) adds nothing: the dedup id is the dead letter's.
    expect(
      await queue.deleteDeadLetters(
        'src',
        kept.map((d) => d.id),
      ),
    ).toBe(0);
    await queue.produce('later', [{ body: 1, dedupId: `dlq:src:${kept[0]?.id}` }]);
    expect(await queue.consume('later', 'g', 'c2', 10)).toEqual([]);
  });
});
