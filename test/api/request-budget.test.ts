/**
 * The request budget's one timer: it runs out at its end however often that end moved, the body's
 * time bound rings on the same timer, and a request that finishes in time sets one timer and
 * clears it, whatever it extended.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LATE, lateOnBudget, type RequestBudget, withinBudget } from '../../lib/api/request-budget.ts';

/** Runs a budget whose work never settles; `spentAt` is when (fake ms) it ran out. */
function stalled(budgetMs: number, use: (budget: RequestBudget) => void) {
  const started = Date.now();
  const outcome: { spentAt?: number; error?: unknown } = {};
  withinBudget(
    budgetMs,
    () => undefined,
    (budget) => {
      use(budget);
      return new Promise(() => {});
    },
  ).catch((error: unknown) => {
    outcome.spentAt = Date.now() - started;
    outcome.error = error;
  });
  return outcome;
}

describe('request budget', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_700_000_000_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs out at its end after being extended, and says the whole budget', async () => {
    let budget: RequestBudget | undefined;
    const outcome = stalled(100, (b) => {
      budget = b;
      b.extend(50);
    });
    await vi.advanceTimersByTimeAsync(120);
    budget?.extend(30);
    await vi.advanceTimersByTimeAsync(59);
    expect(outcome.spentAt).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(outcome.spentAt).toBe(180);
    expect(outcome.error).toMatchObject({ code: 'REDIS_UNAVAILABLE', details: { budgetMs: 180 } });
    expect(budget?.signal.aborted).toBe(true);
  });

  it('runs out earlier when shortened', async () => {
    const outcome = stalled(100, (b) => b.extend(-40));
    await vi.advanceTimersByTimeAsync(59);
    expect(outcome.spentAt).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(outcome.spentAt).toBe(60);
  });

  it("rings the body's bound on its own time, before the budget's end or after it was first due", async () => {
    for (const [budgetMs, bodyMs] of [
      [100, 30],
      [30, 100],
    ] as const) {
      let lateAt: number | undefined;
      const started = Date.now();
      const outcome = stalled(budgetMs, (b) => {
        const bound = lateOnBudget(b, bodyMs);
        b.extend(bodyMs);
        void bound?.late.then((value) => {
          expect(value).toBe(LATE);
          lateAt = Date.now() - started;
        });
      });
      await vi.advanceTimersByTimeAsync(bodyMs - 1);
      expect(lateAt).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      expect(lateAt).toBe(bodyMs);
      expect(outcome.spentAt).toBeUndefined();
      await vi.advanceTimersByTimeAsync(budgetMs);
      expect(outcome.spentAt).toBe(budgetMs + bodyMs);
    }
  });

  it("does not ring the body's bound once cancelled", async () => {
    let late = false;
    stalled(100, (b) => {
      const bound = lateOnBudget(b, 10);
      void bound?.late.then(() => {
        late = true;
      });
      bound?.cancel();
    });
    await vi.advanceTimersByTimeAsync(50);
    expect(late).toBe(false);
  });

  it('sets one timer and clears it for a request that reads its body, extends and finishes in time', async () => {
    const set = vi.spyOn(globalThis, 'setTimeout');
    const cleared = vi.spyOn(globalThis, 'clearTimeout');
    await withinBudget(
      10_000,
      () => undefined,
      async (budget) => {
        const bound = lateOnBudget(budget, 10_000);
        budget.extend(10_000);
        await Promise.resolve();
        bound?.cancel();
        budget.extend(0);
        budget.extend(5_000);
      },
    );
    expect(set).toHaveBeenCalledTimes(1);
    expect(cleared).toHaveBeenCalledTimes(1);
  });
});
