/**
 * The objects made for every Redis call (the deadline's options) and every request (its budget)
 * keep their getters on a shared prototype. An object literal with a getter makes a new closure
 * per object, and V8 then gives each object a hidden class of its own, which keeps the call's or
 * request's whole object graph alive past every young-generation GC (BENCHMARKS.md "api": 180 MB
 * promoted in 20 s of 1,000 requests/s, and GC pauses that set the p99).
 */
import { describe, expect, it } from 'vitest';
import { type RequestBudget, withinBudget } from '../../lib/api/request-budget.ts';
import { type CallOptions, type RedisClient, RedisTimeoutError } from '../../lib/redis/client.ts';
import { withDeadline } from '../../lib/redis/deadline.ts';

function capturingClient(seen: CallOptions[], answer: () => Promise<string>): RedisClient {
  return {
    evalsha: (_sha, _keys, _args, options) => {
      if (options !== undefined) seen.push(options);
      return answer();
    },
    eval: (_source, _keys, _args, options) => {
      if (options !== undefined) seen.push(options);
      return answer();
    },
  };
}

describe('per-call objects', () => {
  it("the deadline's call options: no own accessor, one prototype, and the signal still aborts at the deadline", async () => {
    const seen: CallOptions[] = [];
    const redis = withDeadline(
      capturingClient(seen, () => Promise.resolve('OK')),
      1000,
    );
    await redis.evalsha('sha', [], []);
    await redis.eval('return 1', [], []);
    const [first, second] = seen;
    expect(first).toBeDefined();
    expect(Object.getOwnPropertyDescriptor(first, 'signal')).toBeUndefined();
    expect(Object.getPrototypeOf(first)).toBe(Object.getPrototypeOf(second));
    expect(first?.timeoutMs).toBe(1000);
    expect(first?.signal?.aborted).toBe(false);

    const stalled: CallOptions[] = [];
    const slow = withDeadline(
      capturingClient(stalled, () => new Promise(() => {})),
      20,
    );
    await expect(slow.evalsha('sha', [], [])).rejects.toBeInstanceOf(RedisTimeoutError);
    expect(stalled[0]?.signal?.aborted).toBe(true);
    expect(stalled[0]?.signal?.reason).toBeInstanceOf(RedisTimeoutError);
  });

  it("a request's budget: no own accessor, one prototype, and it still runs out", async () => {
    const budgets: RequestBudget[] = [];
    for (let i = 0; i < 2; i++) {
      await withinBudget(
        1000,
        () => undefined,
        async (budget) => {
          budgets.push(budget);
        },
      );
    }
    const [first, second] = budgets;
    expect(Object.getOwnPropertyDescriptor(first, 'signal')).toBeUndefined();
    expect(Object.getOwnPropertyDescriptor(first, 'spent')).toBeUndefined();
    expect(Object.getPrototypeOf(first)).toBe(Object.getPrototypeOf(second));
    expect(first?.spent).toBeUndefined();

    let spentBudget: RequestBudget | undefined;
    const outcome = withinBudget(
      20,
      () => undefined,
      (budget) => {
        spentBudget = budget;
        return new Promise(() => {});
      },
    );
    await expect(outcome).rejects.toMatchObject({ code: 'REDIS_UNAVAILABLE', details: { budgetMs: 20 } });
    expect(spentBudget?.spent?.code).toBe('REDIS_UNAVAILABLE');
    expect(spentBudget?.signal.aborted).toBe(true);
  });
});
