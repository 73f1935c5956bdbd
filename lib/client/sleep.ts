/**
 * Timers the client waits on, built on setTimeout only (so they run in Workers, Deno, browsers
 * and Node alike): a sleep that an AbortSignal ends early.
 */

/** Resolves after `ms`, or at once when `signal` aborts (already aborted: immediately). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal?.aborted === true) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, ms));
    signal?.addEventListener('abort', done, { once: true });
  });
}
