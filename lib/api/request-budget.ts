/**
 * A request's total time budget. Every request starts with REQUEST_TIMEOUT_MS; a route that is
 * asked to wait (a consume's waitMs, a sweep's timeBudgetMs) extends it by that much. Past it the
 * answer is 503 with Retry-After, whatever the handler is still doing: the handler's signal aborts
 * so it stops waiting, and anything it already sent to Redis may still be applied. One timer (the
 * body's time bound shares it) and one promise per request; the abort signal is made only when a
 * handler asks for it.
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

/** What `Budget.lateAfter` resolves to when its time is up (no body text can be it). */
export const LATE: unique symbol = Symbol('late');

/**
 * The budget of one request. A class rather than an object literal with getters, for the reason
 * lib/redis/deadline.ts gives: a literal's getters are new closures each request, which keeps
 * every request's objects alive past the young-generation GC.
 *
 * One timer per request, set once: a deadline that moves later (`extend`) leaves it as it is,
 * and when it fires before the deadline it is set again for the rest. The body's time bound
 * (`lateAfter`) shares it. In a Worker each setTimeout and clearTimeout cost about 0.9% and 0.6%
 * of a consume's CPU (inspector profile under workerd), and a consume set three and cleared three
 * (the budget's, its extension by the body's bound, the body's own).
 */
class Budget implements RequestBudget {
  private readonly started = Date.now();
  private total: number;
  private settled = false;
  private timer: ReturnType<typeof setTimeout>;
  /** When the timer fires (ms since the epoch). */
  private alarmAt: number;
  private expiry: AbortController | undefined;
  private joined: AbortSignal | undefined;
  private failure: QueueError | undefined;
  /** The body's time bound, while a body is being read. */
  private bodyDeadline = Number.POSITIVE_INFINITY;
  private onBodyLate: ((late: typeof LATE) => void) | undefined;
  private readonly clientSignal: () => AbortSignal | undefined;
  private readonly onSpent: (error: QueueError) => void;
  private readonly alarm = () => this.ring();

  constructor(
    budgetMs: number,
    clientSignal: () => AbortSignal | undefined,
    onSpent: (error: QueueError) => void,
  ) {
    this.total = budgetMs;
    this.clientSignal = clientSignal;
    this.onSpent = onSpent;
    this.alarmAt = this.started + budgetMs;
    this.timer = setTimeout(this.alarm, budgetMs);
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
    if (ms === 0 || this.settled) return;
    this.total += ms;
    // A later end leaves the timer as it is: when it fires before the end, it is set for the rest.
    const end = this.started + this.total;
    if (end < this.alarmAt) this.arm(end);
  }

  /**
   * Resolves LATE `ms` from now, on the budget's own timer, unless `cancel` is called first (a
   * request reads one body at a time); undefined once the budget is over.
   */
  lateAfter(ms: number): { late: Promise<typeof LATE>; cancel: () => void } | undefined {
    // A budget already over has no timer left to share.
    if (this.settled) return undefined;
    const late = new Promise<typeof LATE>((resolve) => {
      this.onBodyLate = resolve;
    });
    this.bodyDeadline = Date.now() + ms;
    if (this.bodyDeadline < this.alarmAt) this.arm(this.bodyDeadline);
    return { late, cancel: () => this.endBody() };
  }

  /** Whether the work's outcome still counts (the budget did not run out first); stops the timer. */
  finish(): boolean {
    if (this.settled) return false;
    this.settled = true;
    clearTimeout(this.timer);
    return true;
  }

  private endBody(): void {
    this.bodyDeadline = Number.POSITIVE_INFINITY;
    this.onBodyLate = undefined;
  }

  private arm(at: number): void {
    clearTimeout(this.timer);
    this.alarmAt = at;
    this.timer = setTimeout(this.alarm, Math.max(0, at - Date.now()));
  }

  private ring(): void {
    const now = Date.now();
    if (now >= this.bodyDeadline) {
      const late = this.onBodyLate;
      this.endBody();
      late?.(LATE);
    }
    if (this.settled) return;
    const end = this.started + this.total;
    if (now >= end) {
      this.expire();
      return;
    }
    this.alarmAt = Math.min(end, this.bodyDeadline);
    this.timer = setTimeout(this.alarm, this.alarmAt - now);
  }

  private expire(): void {
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

/** The body's time bound on `budget`'s timer when it is this module's budget, else undefined. */
export function lateOnBudget(
  budget: RequestBudget | undefined,
  ms: number,
): { late: Promise<typeof LATE>; cancel: () => void } | undefined {
  return budget instanceof Budget ? budget.lateAfter(ms) : undefined;
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
