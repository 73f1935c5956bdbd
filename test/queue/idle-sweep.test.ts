/**
 * Issue 18: a scheduled sweep (`revisitMs`) skips queues a sweep found idle until their revisit
 * time, so a sweep of an idle registry is one command; new queues and queues with work are
 * visited at once, and an explicit sweep (no revisitMs) still visits everything.
 */
import { expect, it } from 'vitest';
import { onEveryBackend } from './support/suite.ts';

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
