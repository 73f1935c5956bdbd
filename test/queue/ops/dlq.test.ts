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
});
