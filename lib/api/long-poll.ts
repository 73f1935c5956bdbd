/**
 * The bounded long poll behind `consume` with `waitMs`. A consume that finds nothing answers a
 * watch point (lib/queue/watch.ts); the poll then waits with a blocking read of the streams past
 * it, bounded by the time left and by when something it holds becomes due, and consumes again
 * when it wakes. An idle 20 s poll costs two Redis commands: the consume and the blocking read.
 * Without a watch point (a consumer at its in-flight cap) or a backend that cannot block, it
 * polls with exponential backoff as before, until something arrives, the time is up, or the
 * client disconnects.
 */
import { type Clock, sleepFor } from '../clock.ts';
import type { WaitOutcome } from '../queue/watch.ts';
import type { Sleep } from './context.ts';

export interface PollOptions {
  waitMs: number;
  clock: Clock;
  sleep: Sleep;
  signal?: AbortSignal;
  /** First pause between empty polls; doubles up to `maxDelayMs`. */
  initialDelayMs?: number;
  maxDelayMs?: number;
}

/** One attempt: what it got and, when nothing, where to wait (null: poll with backoff). */
export interface Attempt<T, W> {
  items: T[];
  watch: W | null;
}

/**
 * Calls `attempt` until it returns a non-empty list or `waitMs` has passed; at least once. Between
 * attempts it waits with `wait` at the attempt's watch point (until the deadline, service clock);
 * 'timeout' ends the poll without another attempt (nothing arrived), 'woken' and 'due' attempt
 * again, 'unsupported' falls back to the backoff pause.
 * @example await waitUntilNonEmpty(() => queue.consumeOrWatch(q, g, c, 10), queue.waitForWork, options)
 */
export async function waitUntilNonEmpty<T, W>(
  attempt: () => Promise<Attempt<T, W>>,
  wait: (watch: W, until: number, signal?: AbortSignal) => Promise<WaitOutcome>,
  options: PollOptions,
): Promise<T[]> {
  const { waitMs, clock, sleep, signal } = options;
  const maxDelay = options.maxDelayMs ?? 1000;
  const initial = options.initialDelayMs ?? 50;
  let delay = initial;
  const deadline = clock.now() + waitMs;
  for (;;) {
    const { items, watch } = await attempt();
    const remaining = deadline - clock.now();
    if (items.length > 0 || remaining <= 0 || signal?.aborted === true) return items;
    if (watch !== null) {
      const outcome = await wait(watch, deadline, signal);
      if (outcome === 'timeout') return items;
      if (outcome !== 'unsupported') {
        delay = initial;
        continue;
      }
    }
    await sleep(Math.min(delay, remaining), signal);
    delay = Math.min(delay * 2, maxDelay);
  }
}

/**
 * The backoff poll alone: `attempt` never offers a watch point.
 * @example await pollUntilNonEmpty(() => queue.consume(q, g, c, 10), { waitMs: 5000, clock, sleep })
 */
export function pollUntilNonEmpty<T>(attempt: () => Promise<T[]>, options: PollOptions): Promise<T[]> {
  return waitUntilNonEmpty(
    async () => ({ items: await attempt(), watch: null }),
    async () => 'unsupported' as const,
    options,
  );
}

/** The real sleep, on timers; aborting resolves it at once. */
export const timerSleep: Sleep = sleepFor;
