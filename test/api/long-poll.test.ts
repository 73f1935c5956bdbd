/** consume with waitMs: a bounded long poll with backoff, on the manual clock (no real waiting). */
import { describe, expect, it } from 'vitest';
import { pollUntilNonEmpty } from '../../lib/api/long-poll.ts';
import { createManualClock } from '../../lib/clock.ts';
import { createHarness } from './support/harness.ts';

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
    const original = h.queue.consume.bind(h.queue);
    let polls = 0;
    h.queue.consume = async (...args) => {
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
