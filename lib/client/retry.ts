/**
 * When the client tries a call again: exponential backoff with full jitter, at least what
 * `Retry-After` asks for, a bounded number of attempts and a total deadline. The decision of
 * which failures qualify is the caller's (`QueueApiError.retryable`); this file only paces.
 */
import { ClientErrorCode, QueueApiError } from './errors.ts';
import { sleepOn, systemTimers } from './timers.ts';

export interface RetryPolicy {
  /** Attempts in all, the first included; 1 turns retries off. */
  attempts: number;
  /** The backoff's first ceiling; the n-th retry waits a random time up to baseMs · 2^(n-1). */
  baseMs: number;
  /** The largest ceiling of a backoff wait (a longer Retry-After is still honoured). */
  maxMs: number;
  /** No retry starts later than this long after the first attempt did. */
  deadlineMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 5, baseMs: 100, maxMs: 5000, deadlineMs: 30_000 };

/** Retries off: one attempt. */
export const NO_RETRY: RetryPolicy = { attempts: 1, baseMs: 0, maxMs: 0, deadlineMs: 0 };

/** A policy from the client's `retry` option: `false` is one attempt, a partial one fills in defaults. */
export function resolveRetryPolicy(option: Partial<RetryPolicy> | false | undefined): RetryPolicy {
  if (option === false) return NO_RETRY;
  return { ...DEFAULT_RETRY, ...option };
}

/**
 * The wait before retry number `retry` (1 for the first): full jitter, a uniform random time up
 * to the exponential ceiling, so many clients that failed together do not come back together;
 * never shorter than the server's `Retry-After`.
 * @example backoffMs(DEFAULT_RETRY, 3, 1000) // 1000: the ceiling is 400 ms, but Retry-After asked for 1 s
 */
export function backoffMs(
  policy: RetryPolicy,
  retry: number,
  retryAfterMs?: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** (retry - 1));
  const jittered = Math.floor(random() * ceiling);
  return Math.max(jittered, retryAfterMs ?? 0);
}

export interface RetryRun {
  policy: RetryPolicy;
  signal?: AbortSignal;
  now?: () => number;
  random?: () => number;
  /** Told before each wait: the failure, the retry about to come (1-based) and the wait. */
  onRetry?: (error: QueueApiError, retry: number, waitMs: number) => void;
  /** Asked before each retry the policy allows; false rethrows the failure at once. */
  shouldRetry?: (error: QueueApiError) => boolean;
}

/**
 * Runs `attempt(n)` until it succeeds, fails with an error that is not `retryable`, runs out of
 * attempts, or the next wait would end past the deadline; then rethrows the last failure. An
 * abort during a wait ends it with an ABORTED error (the last failure as its cause).
 */
export async function withRetry<T>(attempt: (n: number) => Promise<T>, run: RetryRun): Promise<T> {
  const now = run.now ?? Date.now;
  const started = now();
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (error) {
      if (!(error instanceof QueueApiError) || !error.retryable || n >= run.policy.attempts) throw error;
      if (run.shouldRetry !== undefined && !run.shouldRetry(error)) throw error;
      const wait = backoffMs(run.policy, n, error.retryAfterMs, run.random);
      if (now() + wait - started > run.policy.deadlineMs) throw error;
      run.onRetry?.(error, n, wait);
      await sleepOn(systemTimers, wait, run.signal);
      if (run.signal?.aborted === true) {
        throw new QueueApiError({
          code: ClientErrorCode.aborted,
          message: `${error.method} ${error.path} aborted while waiting to retry: ${error.message}`,
          status: 0,
          transient: false,
          mayHaveBeenApplied: error.mayHaveBeenApplied,
          retryable: false,
          attempts: n,
          method: error.method,
          path: error.path,
          cause: error,
        });
      }
    }
  }
}
