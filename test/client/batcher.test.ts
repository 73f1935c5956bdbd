/**
 * The batcher behind the worker's acks (lib/client/batcher.ts), on manual timers: ids within the
 * linger go in one call, ids that arrive while a call is in flight linger from the oldest of them
 * (not one call per round trip), `max` bounds a call, and `flush` ends the lingering.
 */
import { describe, expect, it } from 'vitest';
import { createBatcher } from '../../lib/client/batcher.ts';
import { createManualClock } from '../../lib/clock.ts';
import { createManualTimers } from './support/manual-timers.ts';

/** A batcher whose calls take `callMs` of manual time; the ids of each call, and when it was sent. */
function setup(lingerMs: number, callMs: number, max = 1000) {
  const clock = createManualClock(0);
  const timers = createManualTimers(clock);
  const calls: { at: number; ids: string[] }[] = [];
  const batcher = createBatcher(
    async (ids) => {
      calls.push({ at: clock.now(), ids });
      await timers.sleep(callMs);
    },
    max,
    timers,
    lingerMs,
  );
  /** Adds one id every `everyMs`, `count` in all, then waits until all were sent. */
  const feed = async (count: number, everyMs: number) => {
    for (let i = 0; i < count; i++) {
      batcher.add(String(i));
      await timers.advance(everyMs);
    }
    await timers.run(batcher.idle());
  };
  return { batcher, calls, feed, timers };
}

describe('the ack batcher', () => {
  it('sends ids that keep arriving during calls once per linger, not once per call', async () => {
    // An id every 2 ms, calls of 5 ms, a linger of 20 ms: each call carries about ten.
    const { calls, feed } = setup(20, 5);
    await feed(50, 2);
    expect(calls.flatMap((call) => call.ids)).toEqual(Array.from({ length: 50 }, (_, i) => String(i)));
    expect(calls.length).toBeLessThanOrEqual(5);
    expect(calls[0]).toEqual({ at: 20, ids: Array.from({ length: 10 }, (_, i) => String(i)) });
  });

  it('with no linger, sends on the next tick and then whatever came during each call', async () => {
    const { calls, feed } = setup(0, 5);
    await feed(10, 2);
    expect(calls.flatMap((call) => call.ids)).toEqual(Array.from({ length: 10 }, (_, i) => String(i)));
    // The first alone on the next tick, then each call takes what came during the one before.
    expect(calls[0]).toEqual({ at: 0, ids: ['0'] });
    expect(calls.length).toBeGreaterThan(2);
    expect(calls.length).toBeLessThan(10);
  });

  it('bounds a call by max, and sends the rest right after', async () => {
    const { batcher, calls, timers } = setup(20, 5, 3);
    for (let i = 0; i < 7; i++) batcher.add(String(i));
    await timers.run(batcher.idle());
    expect(calls).toEqual([
      { at: 20, ids: ['0', '1', '2'] },
      { at: 25, ids: ['3', '4', '5'] },
      { at: 30, ids: ['6'] },
    ]);
  });

  it('stops lingering once flushed', async () => {
    const { batcher, calls, timers } = setup(60_000, 5);
    batcher.add('a');
    await timers.advance(100);
    expect(calls).toEqual([]);
    batcher.flush();
    await timers.run(batcher.idle());
    expect(calls).toEqual([{ at: 100, ids: ['a'] }]);
    batcher.add('b');
    await timers.run(batcher.idle());
    expect(calls[1]?.ids).toEqual(['b']);
    expect(calls[1]?.at).toBeLessThan(200);
  });
});
