/**
 * The time a worker runs on: a clock to measure with and timers to wait on. The runtime's own by
 * default; a test passes manual ones and advances them, so a heartbeat, a shutdown grace or a
 * drain budget is checked without waiting for it. Web standards only (setTimeout, performance).
 */

/** A clock and timers; the runtime's are `systemTimers`. */
export interface Timers {
  /** Milliseconds on a clock that only moves forward (only differences are read). */
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemTimers: Timers = {
  now: () => performance.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * Waits `ms` on `timers`; an aborted signal ends the wait at once, an already aborted one at the
 * start (it resolves, never rejects).
 */
export function sleepOn(timers: Timers, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal?.aborted === true) return resolve();
    const done = () => {
      timers.clearTimeout(handle);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const handle = timers.setTimeout(done, Math.max(0, ms));
    signal?.addEventListener('abort', done, { once: true });
  });
}
