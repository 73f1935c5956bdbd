/**
 * A request's total time budget. Every request starts with REQUEST_TIMEOUT_MS; a route that is
 * asked to wait (a consume's waitMs, a sweep's timeBudgetMs) extends it by that much. Past it the
 * answer is 503 with Retry-After, whatever the handler is still doing: the handler's signal aborts
 * so it stops waiting, and anything it already sent to Redis may still be applied. One timer and
 * one promise per request; the abort signal is made only when a handler asks for it.
 */
import { QueueError, QueueErrorCode } from '../queue/errors.ts';

export interface RequestBudget {
  /** Aborts when the budget is spent or the client went away. */
  readonly signal: AbortSignal;
  /**
   * The budget's REDIS_UNAVAILABLE error once it ran out, else undefined. Unlike `signal`, asking
   * makes nothing: the signal joins the client's (on Node an AbortController made on demand,
   * ~8 us) and the budget's with AbortSignal.any, together 3-4% of a consume's CPU in the Node
   * server (--cpu-prof), which a consume that does not wait has no use for.
   */
  readonly spent: QueueError | undefined;
  /** Moves the end of the budget `ms` later (a long poll's wait, a sweep's own time budget). */
  extend(ms: number): void;
}

/**
 * Runs `work` within `budgetMs`; rejects with REDIS_UNAVAILABLE once the budget is spent, leaving
 * `work` to settle on its own (its outcome is then ignored: nobody is waiting for it any more).
 * `clientSignal` is asked for only when the handler wants the budget's signal.
 * @example await withinBudget(10_000, () => request.signal, (budget) => next())
 */
export function withinBudget(
  budgetMs: number,
  clientSignal: () => AbortSignal | undefined,
  work: (budget: RequestBudget) => Promise<void>,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const started = Date.now();
    let total = budgetMs;
    let settled = false;
    let expiry: AbortController | undefined;
    let signal: AbortSignal | undefined;
    let spent: QueueError | undefined;
    const expire = () => {
      if (settled) return;
      settled = true;
      spent = new QueueError(
        QueueErrorCode.redisUnavailable,
        `The request did not finish within its ${total} ms budget; what it changed may or may not have been applied`,
        { budgetMs: total },
      );
      expiry?.abort(spent);
      reject(spent);
    };
    let timer = setTimeout(expire, budgetMs);
    const budget: RequestBudget = {
      get spent() {
        return spent;
      },
      get signal() {
        if (signal === undefined) {
          expiry = new AbortController();
          if (spent !== undefined) expiry.abort(spent);
          const client = clientSignal();
          signal = client === undefined ? expiry.signal : AbortSignal.any([client, expiry.signal]);
        }
        return signal;
      },
      extend(ms) {
        // A consume without waitMs extends by 0: no new timer for the same deadline.
        if (ms === 0 || settled) return;
        total += ms;
        clearTimeout(timer);
        timer = setTimeout(expire, Math.max(0, started + total - Date.now()));
      },
    };
    work(budget).then(
      () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve();
      },
      (error: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
