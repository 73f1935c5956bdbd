/** Conformance: recurring schedules fired by the sweep, on every backend, with the injected clock. */
import { expect, it } from 'vitest';
import { onEveryBackend } from '../support/suite.ts';

const MINUTE = 60_000;

onEveryBackend('schedules', (make) => {
  it('enqueues each occurrence exactly once with two sweeps racing, and catches up once after a gap', async () => {
    const { queue, clock, another } = make();
    clock.set(Date.UTC(2026, 0, 5, 12, 1));
    await queue.createGroup('q', 'g', '0');
    const { schedule, created } = await queue.putSchedule('q', 'tick', {
      cron: '*/5 * * * *',
      message: { body: { job: 'tick' }, attributes: { kind: 'cron' } },
    });
    expect(created).toBe(true);
    expect(schedule).toEqual({
      name: 'tick',
      cron: '*/5 * * * *',
      timezone: 'UTC',
      message: { body: { job: 'tick' }, attributes: { kind: 'cron' } },
      lastFiredAt: clock.now(),
      nextRunAt: Date.UTC(2026, 0, 5, 12, 5),
    });
    const other = another();
    // Nothing is due before 12:05.
    expect((await queue.sweep()).scheduled).toBe(0);
    for (const minute of [5, 10, 15]) {
      clock.set(Date.UTC(2026, 0, 5, 12, minute) + 1000);
      const [a, b] = await Promise.all([queue.sweep(), other.sweep()]);
      expect(a.scheduled + b.scheduled).toBe(1);
      expect(a.catchUps + b.catchUps).toBe(0);
      // A later sweep of the same occurrence adds nothing.
      expect((await queue.sweep()).scheduled).toBe(0);
    }
    const got = await queue.consume('q', 'g', 'c', 10);
    expect(got.map((m) => [m.body, m.attributes])).toEqual([
      [{ job: 'tick' }, { kind: 'cron' }],
      [{ job: 'tick' }, { kind: 'cron' }],
      [{ job: 'tick' }, { kind: 'cron' }],
    ]);
    expect(
      await queue.ack(
        'q',
        'g',
        got.map((m) => m.id),
      ),
    ).toBe(3);
    // Down for an hour: one message for the twelve missed occurrences, and the report says so.
    clock.set(Date.UTC(2026, 0, 5, 13, 17));
    const caughtUp = await queue.sweep();
    expect([caughtUp.scheduled, caughtUp.catchUps]).toEqual([1, 1]);
    expect(await queue.consume('q', 'g', 'c', 10)).toHaveLength(1);
    clock.set(Date.UTC(2026, 0, 5, 13, 20));
    expect(await queue.sweep()).toMatchObject({ scheduled: 1, catchUps: 0 });
    const [listed] = await queue.listSchedules('q');
    expect([listed?.lastFiredAt, listed?.nextRunAt]).toEqual([
      Date.UTC(2026, 0, 5, 13, 20),
      Date.UTC(2026, 0, 5, 13, 25),
    ]);
  });

  it('fires once a day across both DST changes in a named time zone', async () => {
    const { queue, clock } = make();
    await queue.createGroup('q', 'g', '0');
    const fired = async (from: number, days: number): Promise<number[]> => {
      clock.set(from);
      // Afresh each time: a schedule put again would keep (and catch up) what it missed meanwhile.
      await queue.deleteSchedule('q', 'daily');
      await queue.putSchedule('q', 'daily', {
        cron: '30 2 * * *',
        timezone: 'Europe/Paris',
        message: { body: 'daily' },
      });
      const times: number[] = [];
      for (let t = from; t < from + days * 24 * 60 * MINUTE; t += 15 * MINUTE) {
        clock.set(t);
        const report = await queue.sweep();
        for (let i = 0; i < report.scheduled; i++) times.push(t);
      }
      return times;
    };
    // Spring forward on 29 March 2026: 02:30 does not exist in Paris that night; it still fires once.
    const spring = await fired(Date.UTC(2026, 2, 27, 12), 3);
    expect(spring).toHaveLength(3);
    expect(spring[0]).toBe(Date.UTC(2026, 2, 28, 1, 30));
    expect(spring[2]).toBe(Date.UTC(2026, 2, 30, 0, 30));
    // Fall back on 25 October 2026: 02:30 happens twice in Paris; it fires once.
    const fall = await fired(Date.UTC(2026, 9, 23, 12), 3);
    expect(fall).toHaveLength(3);
    expect(fall[0]).toBe(Date.UTC(2026, 9, 24, 0, 30));
    expect(fall[2]).toBe(Date.UTC(2026, 9, 26, 1, 30));
    expect(await queue.consume('q', 'g', 'c', 10)).toHaveLength(6);
  });

  it('keeps a due occurrence that has not fired when the schedule is put again, same or changed', async () => {
    const { queue, clock } = make();
    clock.set(Date.UTC(2026, 0, 5, 12, 1));
    await queue.createGroup('q', 'g', '0');
    const input = { cron: '*/5 * * * *', message: { body: 'tick' } };
    await queue.putSchedule('q', 'tick', input);
    // 12:05 is due; before any sweep fires it, the same schedule is put again.
    clock.set(Date.UTC(2026, 0, 5, 12, 6));
    const again = await queue.putSchedule('q', 'tick', input);
    expect(again.created).toBe(false);
    expect(again.schedule.lastFiredAt).toBe(Date.UTC(2026, 0, 5, 12, 1));
    expect(await queue.sweep()).toMatchObject({ scheduled: 1, catchUps: 0 });
    // 12:10 is due; the schedule is changed (another body) before it fires: it fires, by the new spec.
    clock.set(Date.UTC(2026, 0, 5, 12, 11));
    await queue.putSchedule('q', 'tick', { ...input, message: { body: 'tock' } });
    expect(await queue.sweep()).toMatchObject({ scheduled: 1 });
    expect((await queue.sweep()).scheduled).toBe(0);
    expect((await queue.consume('q', 'g', 'c', 10)).map((m) => m.body)).toEqual(['tick', 'tock']);
    // A new schedule still starts afresh: nothing at or before its creation fires.
    await queue.putSchedule('q', 'fresh', { cron: '*/5 * * * *', message: { body: 'new' } });
    expect((await queue.sweep()).scheduled).toBe(0);
  });

  it('registers a queue not yet configured when a schedule is put on it, as produce does', async () => {
    const { queue, clock, partitions } = make();
    clock.set(Date.UTC(2026, 0, 5, 12, 1));
    const { created } = await queue.putSchedule('fresh', 'tick', {
      cron: '*/5 * * * *',
      message: { body: 1 },
    });
    expect(created).toBe(true);
    expect(await queue.listQueues()).toEqual(['fresh']);
    expect((await queue.stats('fresh')).partitions).toBe(partitions);
    expect((await queue.listSchedules('fresh')).map((s) => s.name)).toEqual(['tick']);
    await queue.createGroup('fresh', 'g', '0');
    clock.set(Date.UTC(2026, 0, 5, 12, 5));
    expect((await queue.sweep()).scheduled).toBe(1);
    expect((await queue.consume('fresh', 'g', 'c', 10)).map((m) => m.body)).toEqual([1]);
  });

  it('lists, replaces and deletes schedules, and refuses a wrong cron or time zone naming the field', async () => {
    const { queue } = make();
    await queue.configure('q', {});
    await queue.putSchedule('q', 'b', { cron: '0 * * * *', message: { body: 1, ttlMs: 5000, dedupId: 'd' } });
    const replaced = await queue.putSchedule('q', 'b', { cron: '0 0 * * *', message: { body: 2 } });
    expect(replaced.created).toBe(false);
    await queue.putSchedule('q', 'a', { cron: '0 0 1 * *', timezone: 'Asia/Tokyo', message: { body: 3 } });
    expect((await queue.listSchedules('q')).map((s) => [s.name, s.cron, s.timezone, s.message])).toEqual([
      ['a', '0 0 1 * *', 'Asia/Tokyo', { body: 3 }],
      ['b', '0 0 * * *', 'UTC', { body: 2 }],
    ]);
    for (const [input, message] of [
      [{ cron: 'every minute', message: { body: 1 } }, 'cron must be'],
      [{ cron: '61 * * * *', message: { body: 1 } }, 'cron must be'],
      [{ cron: '* * * * *', timezone: 'Mars/Olympus', message: { body: 1 } }, 'timezone must be'],
      [{ cron: '* * * * *', message: { body: 1, delayMs: 5 } }, 'unknown field delayMs'],
    ] as const) {
      await expect(queue.putSchedule('q', 'c', input as never)).rejects.toThrow(message);
    }
    expect((await queue.listSchedules('q')).map((s) => s.name)).toEqual(['a', 'b']);
    expect(await queue.deleteSchedule('q', 'a')).toBe(true);
    expect(await queue.deleteSchedule('q', 'a')).toBe(false);
    await expect(queue.listSchedules('missing')).rejects.toThrow('Queue "missing" does not exist');
    // A deleted queue takes its schedules with it.
    expect(await queue.deleteQueue('q')).toBe(true);
    await queue.configure('q', {});
    expect(await queue.listSchedules('q')).toEqual([]);
  });
});
