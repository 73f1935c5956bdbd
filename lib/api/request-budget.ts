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
 * The budget of one request. A class rather than an object literal with getters, for the reason
 * lib/redis/deadline.ts gives: a literal's getters are new closures each request, which keeps
 * every request's objects alive past the young-generation GC.
 */
class Budget implements RequestBudget {
  private readonly started = Date.now();
  private total: number;
  private settled = false;
  private timer: ReturnType<typeof setTimeout>;
  private expiry: AbortController | undefined;
  private joined: AbortSignal | undefined;
  private failure: QueueError | undefined;
  private readonly clientSignal: () => AbortSignal | undefined;
  private readonly onSpent: (error: QueueError) => void;

  constructor(
    budgetMs: number,
    clientSignal: () => AbortSignal | undefined,
    onSpent: (error: QueueError) => void,
  ) {
    this.total = budgetMs;
    this.clientSignal = clientSignal;
    this.onSpent = onSpent;
    this.timer = setTimeout(() => this.expire(), budgetMs);
  }

  get spent(): QueueError | undefined {
    return this.failure;
  }

  get signal(): AbortSignal {
    if (this.joined === undefined) {
      this.expiry = new AbortController();
      if (this.failure !== undefined) this.expiry.abort(this.failure);
      const client = this.clientSignal();
      this.joined = client === undefined ? this.expiry.signal : AbortSignal.any([client, this.expiry.signal]);
    }
    return this.joined;
  }

  extend(ms: number): void {
    // A consume without waitMs extends by 0: no new timer for the same deadline.
    if (ms === 0 || this.settled) return;
    this.total += ms;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.expire(), Math.max(0, this.started + this.total - Date.now()));
  }

  /** Whether the work's outcome still counts (the budget did not run out first); stops the timer. */
  finish(): boolean {
    if (this.settled) return false;
    this.settled = true;
    clearTimeout(this.timer);
    return true;
  }

  private expire(): void {
    if (this.settled) return;
    this.settled = true;
    this.failure = new QueueError(
      QueueErrorCode.redisUnavailable,
      `The request did not finish within its ${this.total} ms budget; what it changed may or may not have been applied`,
      { budgetMs: this.total },
    );
    this.expiry?.abort(this.failure);
    this.onSpent(this.failure);
  }
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
    const budget = new Budget(budgetMs, clientSignal, reject);
    work(budget).then(
      () => {
        if (budget.finish()) resolve();
      },
      (error: unknown) => {
        if (budget.finish()) reject(error);
      },
    );
  });
}
