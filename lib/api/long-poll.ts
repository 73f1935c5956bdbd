/**
 * The bounded long poll behind `consume` with `waitMs`. Upstash's REST API has no blocking reads,
 * so the call polls with exponential backoff until something arrives, the time is up, or the
 * client disconnects. Backoff keeps an idle poll from burning the database's command quota.
 */
import type { Clock } from '../clock.ts';
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

/**
 * Calls `attempt` until it returns a non-empty list or `waitMs` has passed; at least once.
 * @example await pollUntilNonEmpty(() => queue.consume(q, g, c, 10), { waitMs: 5000, clock, sleep })
 */
export async function pollUntilNonEmpty<T>(attempt: () => Promise<T[]>, options: PollOptions): Promise<T[]> {
  const { waitMs, clock, sleep, signal } = options;
  const maxDelay = options.maxDelayMs ?? 1000;
  let delay = options.initialDelayMs ?? 50;
  const deadline = clock.now() + waitMs;
  for (;;) {
    const items = await attempt();
    const remaining = deadline - clock.now();
    if (items.length > 0 || remaining <= 0 || signal?.aborted === true) return items;
    await sleep(Math.min(delay, remaining), signal);
    delay = Math.min(delay * 2, maxDelay);
  }
}

/** The real sleep, on timers; aborting resolves it at once. */
export const timerSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted === true) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
