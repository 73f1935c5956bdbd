/**
 * Manual timers for the worker's `timers` option, on the same manual clock as the service under
 * test: time moves only when a test advances it, and then every timer that falls due runs in
 * order, each at its own time, with the work it starts (in-process requests included) given the
 * chance to finish before the clock moves on. A heartbeat, a shutdown grace or a drain budget is
 * then checked in milliseconds of real time, and the same way on a loaded machine.
 */

import { sleepOn, type Timers } from '../../../lib/client/timers.ts';
import type { ManualClock } from '../../../lib/clock.ts';

export interface ManualTimers extends Timers {
  /** Moves the clock `ms` forward, running each timer when its time comes. */
  advance(ms: number): Promise<void>;
  /**
   * Advances in steps of `stepMs` (default 10) until `check` holds; throws once `limitMs` of
   * manual time (default 60 s) has passed without it.
   */
  until(
    check: () => boolean | Promise<boolean>,
    options?: { stepMs?: number; limitMs?: number },
  ): Promise<void>;
  /** Advances until `promise` settles: its value, or its error thrown. */
  run<T>(promise: Promise<T>): Promise<T>;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Timers set and not yet run or cleared. */
  pending(): number;
}

interface Entry {
  id: number;
  at: number;
  callback: () => void;
}

/** Lets promise chains, in-process requests and their stream reads run to the end. */
async function settle(): Promise<void> {
  for (let round = 0; round < 10; round++) await new Promise((resolve) => setImmediate(resolve));
}

export function createManualTimers(clock: ManualClock): ManualTimers {
  let nextId = 1;
  const entries = new Map<number, Entry>();

  const due = (limit: number): Entry | undefined => {
    let first: Entry | undefined;
    for (const entry of entries.values()) {
      if (entry.at > limit) continue;
      if (first === undefined || entry.at < first.at || (entry.at === first.at && entry.id < first.id))
        first = entry;
    }
    return first;
  };

  const timers: ManualTimers = {
    now: () => clock.now(),
    setTimeout(callback, ms) {
      const id = nextId++;
      entries.set(id, { id, at: clock.now() + Math.max(0, ms), callback });
      return id;
    },
    clearTimeout(handle) {
      entries.delete(handle as number);
    },
    async advance(ms) {
      const target = clock.now() + ms;
      await settle();
      for (let entry = due(target); entry !== undefined; entry = due(target)) {
        entries.delete(entry.id);
        if (entry.at > clock.now()) clock.set(entry.at);
        entry.callback();
        await settle();
      }
      if (target > clock.now()) clock.set(target);
      await settle();
    },
    async until(check, { stepMs = 10, limitMs = 60_000 } = {}) {
      const deadline = clock.now() + limitMs;
      await settle();
      while (!(await check())) {
        if (clock.now() >= deadline) throw new Error(`condition not met within ${limitMs} ms of manual time`);
        await timers.advance(stepMs);
      }
    },
    async run<T>(promise: Promise<T>): Promise<T> {
      let outcome: { value: T } | { error: unknown } | undefined;
      promise.then(
        (value) => {
          outcome = { value };
        },
        (error: unknown) => {
          outcome = { error };
        },
      );
      await timers.until(() => outcome !== undefined);
      if (outcome !== undefined && 'error' in outcome) throw outcome.error;
      return (outcome as { value: T }).value;
    },
    sleep: (ms, signal) => sleepOn(timers, ms, signal),
    pending: () => entries.size,
  };
  return timers;
}
