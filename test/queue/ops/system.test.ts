/**
 * Conformance, the system family (lib/queue/ops/system.ts): the sweep (dead-letters stale
 * messages, promotes delayed ones, trims, resumes within its budgets) and the cheap idle sweep of
 * issue 18 (a scheduled sweep skips queues it found idle until their revisit time).
 */
import { expect, it } from 'vitest';
import { scripts } from '../../../lib/queue/scripts.generated.ts';
import type { RedisClient } from '../../../lib/redis/client.ts';
import { idShape, onEveryBackend } from '../support/suite.ts';

const VT = 30_000;

onEveryBackend('sweep', (make) => {
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
      deletedQueues: 0,
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
      deletedQueues: 0,
      complete: false,
    });
    expect(await queue.sweep({ timeBudgetMs: 1000 })).toMatchObject({ deadLettered: 1, complete: true });
  });
});

onEveryBackend('a sweep racing a queue delete', (make) => {
  it('skips a queue deleted while the sweep visits it, counts it, and sweeps the others', async () => {
    const { queue, client, clock, another } = make();
    await queue.configure('a', { partitions: 8 });
    await queue.createGroup('a', 'g', '0');
    await queue.produce('b', [{ body: 'later', delayMs: 10 }]);
    clock.advance(10);
    // The queue is deleted between the sweep's step on its partition 0 and the one on partition 1.
    let steps = 0;
    let deleted = false;
    const racing: RedisClient = {
      async evalsha(sha, keys, args) {
        if (sha === scripts.sweepQueue.sha && keys.some((key) => key.includes('{a')) && ++steps === 2) {
          deleted = await queue.deleteQueue('a');
        }
        return client.evalsha(sha, keys, args);
      },
      eval: (source, keys, args) => client.eval(source, keys, args),
    };
    const report = await another({ redis: racing }).sweep();
    expect(deleted).toBe(true);
    expect(report).toMatchObject({ deletedQueues: 1, promoted: 1, complete: true });
    expect(await queue.listQueues()).toEqual(['b']);
    expect(await queue.getConfig('a')).toBeNull();
    expect(await queue.sweep()).toMatchObject({ deletedQueues: 0, complete: true });
  });
});

onEveryBackend('the cheap idle sweep (issue 18)', (make) => {
  it('costs one command when every queue was found idle, until the revisit time', async () => {
    const h = make();
    await h.queue.createGroup('idle-a', 'g', '$');
    await h.queue.createGroup('idle-b', 'g', '$');
    // First scheduled sweep: neither queue has a record yet, both are visited and found idle.
    const first = h.calls.length;
    expect((await h.queue.sweep({ revisitMs: 60_000 })).complete).toBe(true);
    expect(h.calls.slice(first).filter((c) => c.name === 'sweepQueue')).toHaveLength(2 * h.partitions);
    // Idle now: the plan alone.
    h.clock.advance(59_000);
    const idle = h.calls.length;
    const report = await h.queue.sweep({ revisitMs: 60_000 });
    expect(report).toEqual({
      deadLettered: 0,
      promoted: 0,
      deletedReferences: 0,
      consumersRemoved: 0,
      trimmed: 0,
      deletedQueues: 0,
      scheduled: 0,
      catchUps: 0,
      complete: true,
    });
    expect(h.calls.slice(idle).map((c) => c.name)).toEqual(['sweepPlan']);
    // An explicit sweep still visits everything.
    const full = h.calls.length;
    await h.queue.sweep();
    expect(h.calls.slice(full).filter((c) => c.name === 'sweepQueue')).toHaveLength(2 * h.partitions);
    // Past the revisit time both are visited again.
    h.clock.advance(1_000);
    const later = h.calls.length;
    await h.queue.sweep({ revisitMs: 60_000 });
    expect(h.calls.slice(later).filter((c) => c.name === 'sweepQueue')).toHaveLength(2 * h.partitions);
  });

  it('visits a new queue and a queue where it did work on the next scheduled sweep', async () => {
    const h = make();
    await h.queue.configure('busy', { maxDeliveries: 1, visibilityTimeoutMs: 1000 });
    await h.queue.createGroup('busy', 'g', '0');
    await h.queue.sweep({ revisitMs: 600_000 });
    // A message over its deliveries whose lease expired: the sweep dead-letters it (work done).
    await h.queue.produce('busy', [{ body: 1 }]);
    await h.queue.consume('busy', 'g', 'c', 1);
    h.clock.advance(700_000);
    expect((await h.queue.sweep({ revisitMs: 600_000 })).deadLettered).toBe(1);
    await h.queue.createGroup('fresh', 'g', '$');
    const next = h.calls.length;
    await h.queue.sweep({ revisitMs: 600_000 });
    const visited = h.calls.slice(next).filter((c) => c.name === 'sweepQueue');
    // 'busy' (work last time) and 'fresh' (never swept), each on every partition.
    expect(visited).toHaveLength(2 * h.partitions);
    // Both idle now: the next one is the plan alone.
    const idle = h.calls.length;
    await h.queue.sweep({ revisitMs: 600_000 });
    expect(h.calls.slice(idle).map((c) => c.name)).toEqual(['sweepPlan']);
  });

  it('visits an idle queue with a schedule by its next occurrence, and at once after a new schedule', async () => {
    const h = make();
    h.clock.set(Date.UTC(2026, 0, 1, 12, 0, 10));
    await h.queue.createGroup('ticks', 'g', '0');
    await h.queue.putSchedule('ticks', 'hourly', { cron: '0 * * * *', message: { body: 'tick' } });
    // Visited at once after the schedule was made (nothing due yet), then found idle.
    await h.queue.sweep({ revisitMs: 24 * 3_600_000 });
    await h.queue.sweep({ revisitMs: 24 * 3_600_000 });
    const idle = h.calls.length;
    await h.queue.sweep({ revisitMs: 24 * 3_600_000 });
    expect(h.calls.slice(idle).map((c) => c.name)).toEqual(['sweepPlan']);
    // 13:00 comes long before the day's revisit time: the sweep visits and fires it.
    h.clock.set(Date.UTC(2026, 0, 1, 13, 0, 5));
    expect((await h.queue.sweep({ revisitMs: 24 * 3_600_000 })).scheduled).toBe(1);
    expect((await h.queue.consume('ticks', 'g', 'c', 10)).map((m) => m.body)).toEqual(['tick']);
    // A new schedule due sooner than the recorded visit is not late either.
    await h.queue.putSchedule('ticks', 'quarter', { cron: '15 * * * *', message: { body: 'quarter' } });
    h.clock.set(Date.UTC(2026, 0, 1, 13, 15, 5));
    expect((await h.queue.sweep({ revisitMs: 24 * 3_600_000 })).scheduled).toBe(1);
  });
});
