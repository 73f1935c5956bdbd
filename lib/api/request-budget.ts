/**
 * A request's total time budget. Every request starts with REQUEST_TIMEOUT_MS; a route that is
 * asked to wait (a consume's waitMs, a sweep's timeBudgetMs) extends it by that much. Past it the
 * answer is 503 with Retry-After, whatever the handler is still doing: the handler's signal aborts
 * so it stops waiting, and anything it already sent to Redis may still be applied.
 */
import { QueueError, QueueErrorCode } from '../queue/errors.ts';

export interface RequestBudget {
  /** Aborts when the budget is spent or the client went away. */
  readonly signal: AbortSignal;
  /** Moves the end of the budget `ms` later (a long poll's wait, a sweep's own time budget). */
  extend(ms: number): void;
}

/**
 * Runs `work` within `budgetMs`; rejects with REDIS_UNAVAILABLE once the budget is spent, leaving
 * `work` to settle on its own (its rejection is swallowed: nobody is waiting for it any more).
 * @example await withinBudget(10_000, request.signal, (budget) => next())
 */
export async function withinBudget(
  budgetMs: number,
  clientSignal: AbortSignal | undefined,
  work: (budget: RequestBudget) => Promise<void>,
): Promise<void> {
  const expiry = new AbortController();
  // Made on first use: only a long poll asks for it, and AbortSignal.any is not free.
  let signal: AbortSignal | undefined;
  let total = budgetMs;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let reject: (error: Error) => void = () => {};
  const expired = new Promise<never>((_, rejectExpired) => {
    reject = rejectExpired;
  });
  const started = Date.now();
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(
      () => {
        const error = new QueueError(
          QueueErrorCode.redisUnavailable,
          `The request did not finish within its ${total} ms budget; what it changed may or may not have been applied`,
          { budgetMs: total },
        );
        expiry.abort(error);
        reject(error);
      },
      Math.max(0, started + total - Date.now()),
    );
  };
  arm();
  const running = work({
    get signal() {
      signal ??= clientSignal === undefined ? expiry.signal : AbortSignal.any([clientSignal, expiry.signal]);
      return signal;
    },
    extend(ms) {
      total += ms;
      arm();
    },
  });
  running.catch(() => undefined);
  try {
    await Promise.race([running, expired]);
  } finally {
    clearTimeout(timer);
  }
}
