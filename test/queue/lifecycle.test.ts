/** Conformance: delayed messages, dedup, dead letters, sweep, stats and queue lifecycle on every backend. */
import { expect, it } from 'vitest';
import { idShape, onEveryBackend } from './support/suite.ts';

const VT = 30_000;

onEveryBackend('lifecycle', (make) => {
  it('keeps delayed messages invisible until due, then delivers them', async () => {
    const { queue, clock, partitions } = make();
    await queue.createGroup('q', 'g', '0');
    const [delayedId, nowId] = await queue.produce('q', [
      { body: 'later', delayMs: 10_000, attributes: { trace: 't1' } },
      { body: 'now' },
    ]);
    expect(delayedId).toMatch(idShape(/^delayed-\d+$/, partitions));
    expect((await queue.stats('q')).delayed).toBe(1);
    expect((await queue.consume('q', 'g', 'c', 10)).map((m) => m.id)).toEqual([nowId]);
    clock.advance(9_999);
    expect(await queue.consume('q', 'g', 'c', 10)).toEqual([]);
    clock.advance(1);
    const [later] = await queue.consume('q', 'g', 'c', 10);
    expect(later?.body).toBe('later');
    expect(later?.attributes).toEqual({ trace: 't1' });
    expect(later?.enqueuedAt).toBe(clock.now() - 10_000);
    expect((await queue.stats('q')).delayed).toBe(0);
  });

  it('answers a repeated dedupId within the window with the first id and adds nothing', async () => {
    const { queue, clock } = make();
    await queue.configure('q', { dedupWindowMs: 60_000 });
    const [first, inBatch] = await queue.produce('q', [
      { body: 1, dedupId: 'order-7' },
      { body: 2, dedupId: 'order-7' },
    ]);
    expect(inBatch).toBe(first);
    clock.advance(59_999);
    expect(await queue.produce('q', [{ body: 3, dedupId: 'order-7' }])).toEqual([first]);
    expect((await queue.stats('q')).length).toBe(1);
    clock.advance(1);
    const [after] = await queue.produce('q', [{ body: 4, dedupId: 'order-7' }]);
    expect(after).not.toBe(first);
    expect((await queue.stats('q')).length).toBe(2);
    // A deleted and recreated queue does not remember the old queue's ids.
    await queue.deleteQueue('q');
    await queue.produce('q', [{ body: 5, dedupId: 'order-7' }]);
    expect((await queue.browse('q', {})).map((m) => m.body)).toEqual([5]);
  });

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

  it('sweeps: dead-letters stale over-limit messages, promotes delayed ones, trims what every group acked', async () => {
    const { queue, clock } = make();
    await queue.configure('q', { visibilityTimeoutMs: VT, maxDeliveries: 1, consumerIdleMs: 60_000 });
    await queue.createGroup('q', 'g1', '0');
    await queue.createGroup('q', 'g2', '0');
    const ids = await queue.produce('q', [{ body: 0 }, { body: 1 }, { body: 2 }, { body: 3 }]);
    await queue.produce('q', [{ body: 'd', delayMs: 1000 }]);
    const got1 = await queue.consume('q', 'g1', 'a', 4);
    await queue.ack(
      'q',
      'g1',
      got1.map((m) => m.id),
    );
    const got2 = await queue.consume('q', 'g2', 'b', 2);
    await queue.ack('q', 'g2', [got2[0]?.id as string]);
    clock.advance(VT);
    const report = await queue.sweep();
    expect(report).toEqual({
      scheduled: 0,
      catchUps: 0,
      deadLettered: 1,
      promoted: 1,
      deletedReferences: 0,
      consumersRemoved: 0,
      trimmed: 2,
      complete: true,
    });
    // g2 has not received ids[2], ids[3] or the promoted message: they stay.
    expect((await queue.browse('q', {})).map((m) => m.body)).toEqual([2, 3, 'd']);
    expect((await queue.listDeadLetters('q', {})).deadLetters.map((d) => d.deadLetteredFrom)).toEqual([
      ids[1],
    ]);
    clock.advance(60_000);
    expect((await queue.sweep()).consumersRemoved).toBe(2);
    expect((await queue.stats('q')).groups.map((g) => g.consumers)).toEqual([0, 0]);
  });

  it('keeps acked entries for the retention time before trimming them', async () => {
    const { queue, clock } = make();
    await queue.configure('q', { retentionMs: 60_000 });
    await queue.createGroup('q', 'g', '0');
    await queue.produce('q', [{ body: 1 }]);
    clock.advance(1000);
    await queue.produce('q', [{ body: 2 }]);
    const got = await queue.consume('q', 'g', 'c', 2);
    await queue.ack(
      'q',
      'g',
      got.map((m) => m.id),
    );
    expect((await queue.sweep()).trimmed).toBe(0);
    clock.advance(59_000);
    expect((await queue.sweep()).trimmed).toBe(1);
    clock.advance(1000);
    expect((await queue.sweep()).trimmed).toBe(1);
    expect((await queue.stats('q')).length).toBe(0);
  });

  it('never trims when no group exists, and drops pending references to deleted entries', async () => {
    const { queue, raw, at, clock } = make();
    await queue.produce('q', [{ body: 1 }, { body: 2 }]);
    expect((await queue.sweep()).trimmed).toBe(0);
    await queue.createGroup('q', 'g', '0');
    const [a] = await queue.consume('q', 'g', 'c', 2);
    const gone = at('q', a?.id as string);
    await raw("return redis.call('XDEL', KEYS[1], ARGV[1])", [gone.keys.stream], [gone.raw]);
    clock.advance(1);
    const report = await queue.sweep();
    expect(report.deletedReferences).toBe(1);
    expect((await queue.pendingSummary('q', 'g')).pending).toBe(1);
  });

  it('sweeps and trims exactly when group positions are ids past 2^53, up to the largest id', async () => {
    const { queue, raw, keys, clock, partitions } = make();
    const stream = keys.queue('q').stream;
    const [first] = await queue.produce('q', [{ body: 1 }]);
    // Entries written by another client at ids no Lua number holds exactly.
    await raw("return redis.call('XADD', KEYS[1], ARGV[1], 'f', 'v')", [stream], ['9007199254740993-5']);
    await raw(
      "return redis.call('XADD', KEYS[1], ARGV[1], 'f', 'v')",
      [stream],
      ['13142020195029854291-18446744073709551615'],
    );
    await raw("return redis.call('XADD', KEYS[1], ARGV[1], 'f', 'v')", [stream], ['13142020195029854292-0']);
    // `late` has read up to the id whose sequence is the largest possible: only the next entry is left.
    await queue.createGroup('q', 'late', '13142020195029854291-18446744073709551615');
    await queue.createGroup('q', 'done', '18446744073709551615-18446744073709551615');
    clock.advance(1);
    const report = await queue.sweep();
    expect(report.trimmed).toBe(3);
    const left = await raw("return redis.call('XRANGE', KEYS[1], '-', '+')", [stream]);
    expect(left).toEqual([['13142020195029854292-0', ['f', 'v']]]);
    expect(first).toMatch(idShape(/^\d+-0$/, partitions));
    const [delivered] = await queue.consume('q', 'late', 'c', 10);
    expect(delivered?.id).toBe('13142020195029854292-0');
    expect(delivered?.fields).toEqual({ f: 'v' });
  });

  it('resumes a sweep that ran out of budget where it stopped', async () => {
    const { queue, clock } = make();
    for (const name of ['qa', 'qb', 'qc']) {
      await queue.configure(name, { visibilityTimeoutMs: VT, maxDeliveries: 1 });
      await queue.createGroup(name, 'g', '0');
      await queue.produce(
        name,
        Array.from({ length: 6 }, (_, i) => ({ body: i })),
      );
      await queue.consume(name, 'g', 'c', 6);
    }
    clock.advance(VT);
    const reports = [];
    for (let i = 0; i < 20; i++) {
      const report = await queue.sweep({ budget: 4 });
      reports.push(report);
      if (report.complete) break;
    }
    expect(reports.length).toBeGreaterThan(2);
    expect(reports.slice(0, -1).every((r) => !r.complete)).toBe(true);
    expect(reports.reduce((sum, r) => sum + r.deadLettered, 0)).toBe(18);
    for (const name of ['qa', 'qb', 'qc']) expect((await queue.stats(name)).deadLetters).toBe(6);
  });

  it('sweeps with a cost that follows the stale messages, not the pending backlog', async () => {
    const { queue, clock } = make();
    await queue.configure('q', { visibilityTimeoutMs: VT, maxDeliveries: 1, maxInFlightPerConsumer: 5000 });
    await queue.createGroup('q', 'g', '0');
    // One partition holds the backlog (the pending-list slice is per partition with pending entries).
    for (let i = 0; i < 3; i++) {
      await queue.produce(
        'q',
        Array.from({ length: 1000 }, (_, j) => ({ body: i * 1000 + j, partitionKey: 'backlog' })),
      );
    }
    await queue.consume('q', 'g', 'early', 10);
    clock.advance(1000);
    await queue.consume('q', 'g', 'late', 1000);
    await queue.consume('q', 'g', 'late', 1000);
    await queue.consume('q', 'g', 'late', 990);
    clock.advance(VT - 1000);
    // 10 expired leases + one 100-entry slice of the pending list + 2 consumers fit in 150 units.
    const report = await queue.sweep({ budget: 150 });
    expect(report).toMatchObject({ deadLettered: 10, complete: true });
    expect((await queue.pendingSummary('q', 'g')).pending).toBe(2990);
  });

  it('stops when its time budget is spent and finishes on the next call', async () => {
    const { queue, clock } = make();
    await queue.configure('q', { visibilityTimeoutMs: VT, maxDeliveries: 1 });
    await queue.createGroup('q', 'g', '0');
    await queue.produce('q', [{ body: 1 }]);
    await queue.consume('q', 'g', 'c', 1);
    clock.advance(VT);
    expect(await queue.sweep({ timeBudgetMs: 0 })).toEqual({
      scheduled: 0,
      catchUps: 0,
      deadLettered: 0,
      promoted: 0,
      deletedReferences: 0,
      consumersRemoved: 0,
      trimmed: 0,
      complete: false,
    });
    expect(await queue.sweep({ timeBudgetMs: 1000 })).toMatchObject({ deadLettered: 1, complete: true });
  });

  it('reports stats in one call', async () => {
    const { queue, clock, partitions } = make();
    await queue.createGroup('q', 'g', '0');
    await queue.produce('q', [{ body: 1 }, { body: 2 }, { body: 3 }, { body: 'd', delayMs: 5000 }]);
    clock.advance(2000);
    const got = await queue.consume('q', 'g', 'c', 1);
    clock.advance(500);
    const stats = await queue.stats('q');
    expect(stats).toEqual({
      name: 'q',
      partitions,
      paused: false,
      length: 3,
      delayed: 1,
      deadLetters: 0,
      groups: [
        {
          name: 'g',
          paused: false,
          pending: 1,
          lag: 2,
          consumers: 1,
          oldestPendingAgeMs: 2500,
          lastDeliveredId: got[0]?.id,
          keyedWaiting: 0,
          waitingKeys: 0,
          oldestWaitingKey: null,
        },
      ],
    });
    await expect(queue.stats('nope').catch((e) => e.code)).resolves.toBe('QUEUE_NOT_FOUND');
  });

  it('registers, configures, lists and deletes queues', async () => {
    const { queue, partitions } = make();
    expect(await queue.getConfig('q')).toBeNull();
    await queue.produce('q', [{ body: 1 }]);
    expect(await queue.getConfig('q')).toEqual({
      visibilityTimeoutMs: 30_000,
      maxDeliveries: 5,
      dedupWindowMs: 300_000,
      retentionMs: 0,
      consumerIdleMs: 3_600_000,
      partitions,
      maxInFlightPerConsumer: 1000,
      maxInFlightPerKey: 1,
      retryBackoff: 'none',
      retryDelayMs: 1000,
      retryMaxDelayMs: 3_600_000,
      messageTtlMs: 0,
    });
    const updated = await queue.configure('other', { maxDeliveries: 9 });
    expect(updated.maxDeliveries).toBe(9);
    expect((await queue.getConfig('other'))?.maxDeliveries).toBe(9);
    expect(await queue.listQueues()).toEqual(['other', 'q']);
    await queue.createGroup('q', 'g', '0');
    await queue.consume('q', 'g', 'c', 1);
    expect(await queue.deleteQueue('q')).toBe(true);
    expect(await queue.deleteQueue('q')).toBe(false);
    expect(await queue.listQueues()).toEqual(['other']);
    await expect(queue.stats('q').catch((e) => e.code)).resolves.toBe('QUEUE_NOT_FOUND');
  });

  it('uses configured defaults for queues that did not override them', async () => {
    const { another } = make();
    const queue = another({ defaults: { maxDeliveries: 3 } });
    await queue.produce('q', [{ body: 1 }]);
    expect((await queue.getConfig('q'))?.maxDeliveries).toBe(3);
  });
});
