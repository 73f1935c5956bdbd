/**
 * consume with waitMs: a bounded long poll that waits by blocking at the consume's watch point
 * (issue 18), and falls back to polling with backoff without one; the logic on the manual clock
 * (no real waiting), the route on the engine's real blocking read (short real waits).
 */
import { describe, expect, it } from 'vitest';
import { pollUntilNonEmpty, timerSleep, waitUntilNonEmpty } from '../../lib/api/long-poll.ts';
import { createManualClock } from '../../lib/clock.ts';
import type { WaitOutcome } from '../../lib/queue/watch.ts';
import { createHarness, tokens } from './support/harness.ts';

describe('waitUntilNonEmpty', () => {
  const never = async () => {
    throw new Error('must not sleep');
  };

  it('waits once at the watch point until the deadline, then answers without another attempt', async () => {
    const clock = createManualClock();
    const waits: { watch: string; until: number }[] = [];
    let attempts = 0;
    const start = clock.now();
    const result = await waitUntilNonEmpty(
      async () => ({ items: [] as string[], watch: `point-${++attempts}` }),
      async (watch, until): Promise<WaitOutcome> => {
        waits.push({ watch, until });
        clock.advance(until - clock.now());
        return 'timeout';
      },
      { waitMs: 20_000, clock, sleep: never },
    );
    expect(result).toEqual([]);
    expect(attempts).toBe(1);
    expect(waits).toEqual([{ watch: 'point-1', until: start + 20_000 }]);
  });

  it('attempts again when woken or due, and returns what the next attempt gets', async () => {
    const clock = createManualClock();
    const outcomes: WaitOutcome[] = ['due', 'woken'];
    let attempts = 0;
    const result = await waitUntilNonEmpty(
      async () => (++attempts === 3 ? { items: ['m'], watch: null } : { items: [], watch: attempts }),
      async () => {
        clock.advance(10);
        return outcomes.shift() ?? 'timeout';
      },
      { waitMs: 5000, clock, sleep: never },
    );
    expect(result).toEqual(['m']);
    expect(attempts).toBe(3);
    expect(clock.now() - 1_700_000_000_000).toBe(20);
  });

  it('falls back to the backoff pause when the wait is unsupported or there is no watch point', async () => {
    const clock = createManualClock();
    const pauses: number[] = [];
    let attempts = 0;
    await waitUntilNonEmpty(
      async () => ({ items: [], watch: ++attempts % 2 === 0 ? null : 'point' }),
      async () => 'unsupported' as const,
      {
        waitMs: 400,
        clock,
        sleep: async (ms) => {
          pauses.push(ms);
          clock.advance(ms);
        },
      },
    );
    expect(pauses).toEqual([50, 100, 200, 50]);
    expect(attempts).toBe(5);
  });

  it('does not wait when the client has gone away', async () => {
    const clock = createManualClock();
    const controller = new AbortController();
    controller.abort();
    let waited = false;
    await waitUntilNonEmpty(
      async () => ({ items: [], watch: 'point' }),
      async () => {
        waited = true;
        return 'timeout' as const;
      },
      { waitMs: 10_000, clock, sleep: never, signal: controller.signal },
    );
    expect(waited).toBe(false);
  });
});

describe('pollUntilNonEmpty', () => {
  it('backs off 50, 100, 200 ... up to 1000 ms and stops when the time is up', async () => {
    const clock = createManualClock();
    const pauses: number[] = [];
    let attempts = 0;
    const result = await pollUntilNonEmpty(
      async () => {
        attempts += 1;
        return [];
      },
      {
        waitMs: 3000,
        clock,
        sleep: async (ms) => {
          pauses.push(ms);
          clock.advance(ms);
        },
      },
    );
    expect(result).toEqual([]);
    expect(pauses).toEqual([50, 100, 200, 400, 800, 1000, 450]);
    expect(pauses.reduce((a, b) => a + b, 0)).toBe(3000);
    expect(attempts).toBe(8);
  });

  it('returns as soon as an attempt yields something', async () => {
    const clock = createManualClock();
    let attempts = 0;
    const result = await pollUntilNonEmpty(async () => (++attempts === 3 ? ['m'] : []), {
      waitMs: 20_000,
      clock,
      sleep: async (ms) => clock.advance(ms),
    });
    expect(result).toEqual(['m']);
    expect(attempts).toBe(3);
    expect(clock.now() - 1_700_000_000_000).toBe(150);
  });

  it('tries exactly once with waitMs 0', async () => {
    const clock = createManualClock();
    let attempts = 0;
    await pollUntilNonEmpty(
      async () => {
        attempts += 1;
        return [];
      },
      {
        waitMs: 0,
        clock,
        sleep: async () => {
          throw new Error('must not sleep');
        },
      },
    );
    expect(attempts).toBe(1);
  });

  it('stops polling when the client has gone away', async () => {
    const clock = createManualClock();
    const controller = new AbortController();
    let attempts = 0;
    await pollUntilNonEmpty(
      async () => {
        attempts += 1;
        return [];
      },
      {
        waitMs: 10_000,
        clock,
        signal: controller.signal,
        sleep: async (ms) => {
          clock.advance(ms);
          controller.abort();
        },
      },
    );
    expect(attempts).toBe(2);
  });
});

describe('POST consume with waitMs', () => {
  it('delivers a message produced while the call is waiting', async () => {
    const h = await createHarness();
    await h.call('PUT', '/v1/queues/q', { body: {} });
    await h.call('PUT', '/v1/queues/q/groups/g', { body: { start: '$' } });
    // Before the third poll another client produces: two empty polls, pauses of 50 and 100 ms.
    const original = h.queue.consumeOrWatch.bind(h.queue);
    let polls = 0;
    h.queue.consumeOrWatch = async (...args) => {
      if (++polls === 3) await h.queue.produce('q', [{ body: 'late' }]);
      return original(...args);
    };
    const started = h.clock.now();
    const res = await h.call('POST', '/v1/queues/q/groups/g/consume', {
      body: { consumer: 'c', waitMs: 5000 },
    });
    expect(res.status).toBe(200);
    expect(res.json.messages.map((m: { body: unknown }) => m.body)).toEqual(['late']);
    expect(h.clock.now() - started).toBe(150);
    expect(polls).toBe(3);
  });

  it('answers an empty list once waitMs has passed', async () => {
    const h = await createHarness();
    await h.call('PUT', '/v1/queues/q', { body: {} });
    await h.call('PUT', '/v1/queues/q/groups/g', { body: { start: '$' } });
    const started = h.clock.now();
    const res = await h.call('POST', '/v1/queues/q/groups/g/consume', {
      body: { consumer: 'c', waitMs: 1500 },
    });
    expect(res.json).toEqual({ messages: [] });
    expect(h.clock.now() - started).toBe(1500);
  });
});

describe('POST consume with waitMs, waiting by blocking (issue 18)', () => {
  const setup = async () => {
    // Real timers: the waits are real (a few hundred ms); the calls show it never polled.
    const h = await createHarness({ blocking: true, sleep: timerSleep });
    await h.call('PUT', '/v1/queues/q', { body: {} });
    await h.call('PUT', '/v1/queues/q/groups/g', { body: { start: '$' } });
    h.calls.length = 0;
    return h;
  };

  it('costs one consume and one blocking read when nothing comes, and answers at waitMs', async () => {
    const h = await setup();
    const started = performance.now();
    const res = await h.call('POST', '/v1/queues/q/groups/g/consume', {
      body: { consumer: 'c', waitMs: 300 },
    });
    const took = performance.now() - started;
    expect(res.json).toEqual({ messages: [] });
    // (the first run of each script also loads it: an EVAL after the NOSCRIPT, not counted here)
    expect(h.calls.filter((c) => c !== 'eval')).toEqual(['consume', 'xread']);
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(300 + 150);
  });

  it('wakes on a message produced while it waits: consume, read, consume', async () => {
    const h = await setup();
    const polling = h.call('POST', '/v1/queues/q/groups/g/consume', {
      body: { consumer: 'c', waitMs: 5000 },
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const produced = performance.now();
    await h.queue.produce('q', [{ body: 'late' }]);
    const res = await polling;
    expect(performance.now() - produced).toBeLessThan(250);
    expect(res.json.messages.map((m: { body: unknown }) => m.body)).toEqual(['late']);
    expect(h.calls.filter((c) => c !== 'eval')).toEqual(['consume', 'xread', 'produce', 'consume']);
  });

  it('ends the blocking read when the client disconnects', async () => {
    const h = await setup();
    const controller = new AbortController();
    const started = performance.now();
    const answer = h.app.request('/v1/queues/q/groups/g/consume', {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ consumer: 'c', waitMs: 10_000 }),
      signal: controller.signal,
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    controller.abort();
    await Promise.resolve(answer).catch(() => undefined);
    expect(performance.now() - started).toBeLessThan(1000);
    // The engine no longer holds a waiter: a produce now is not handed to anyone.
    await h.queue.produce('q', [{ body: 'after' }]);
    expect((await h.queue.consume('q', 'g', 'other', 10)).map((m) => m.body)).toEqual(['after']);
  });

  it('times the due time and the deadline with the injected sleep (the manual clock), not real time', async () => {
    const h = await createHarness({ blocking: true });
    await h.call('PUT', '/v1/queues/q', { body: {} });
    await h.call('PUT', '/v1/queues/q/groups/g', { body: { start: '$' } });
    await h.queue.produce('q', [{ body: 'later', delayMs: 300 }]);
    const real = performance.now();
    const started = h.clock.now();
    const res = await h.call('POST', '/v1/queues/q/groups/g/consume', {
      body: { consumer: 'c', waitMs: 5000 },
    });
    expect(res.json.messages.map((m: { body: unknown }) => m.body)).toEqual(['later']);
    expect(h.clock.now() - started).toBe(300);
    const empty = await h.call('POST', '/v1/queues/q/groups/g/consume', {
      body: { consumer: 'c', waitMs: 1500 },
    });
    expect(empty.json).toEqual({ messages: [] });
    expect(h.clock.now() - started).toBe(300 + 1500);
    expect(performance.now() - real).toBeLessThan(1000);
  });
});
