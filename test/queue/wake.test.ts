/**
 * Issue 18 on every backend: a long poll waits with a blocking read and wakes for each source of
 * deliverable work (produce, nack, redrive, a due delayed message, an expired lease), never later
 * than its waitMs; a client that leaves ends the read; waiters of one group share reads. The
 * service runs on the system clock here (the waits are real, each well under a second).
 */
import { expect, it } from 'vitest';
import { type Attempt, timerSleep, waitUntilNonEmpty } from '../../lib/api/long-poll.ts';
import { systemClock } from '../../lib/clock.ts';
import type { Message, QueueService } from '../../lib/queue/types.ts';
import type { WatchPoint } from '../../lib/queue/watch.ts';
import { type Harness, onEveryBackend } from './support/suite.ts';

/** The route's long poll; `sleeps` counts fallback pauses (none when blocking works). */
function longPoll(
  queue: QueueService,
  consumer: string,
  waitMs: number,
  options: { signal?: AbortSignal; sleeps?: number[] } = {},
): Promise<Message[]> {
  return waitUntilNonEmpty<Message, WatchPoint>(
    async (): Promise<Attempt<Message, WatchPoint>> => {
      const { messages, watch } = await queue.consumeOrWatch('q', 'g', consumer, 1);
      return { items: messages, watch };
    },
    (watch, until, signal) => queue.waitForWork(watch, until, signal),
    {
      waitMs,
      clock: systemClock,
      sleep: (ms, signal) => {
        options.sleeps?.push(ms);
        return timerSleep(ms, signal);
      },
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    },
  );
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts a long poll, runs `act` once it is waiting, and says how long after `act` it answered. */
async function wakeAfter(
  h: Harness,
  act: () => Promise<unknown>,
  options: { waitMs?: number; settleMs?: number } = {},
): Promise<{ messages: Message[]; lateMs: number; sleeps: number[] }> {
  const sleeps: number[] = [];
  const polling = longPoll(h.queue, 'waiter', options.waitMs ?? 5000, { sleeps });
  await pause(options.settleMs ?? 150);
  const acted = performance.now();
  await act();
  const messages = await polling;
  return { messages, lateMs: performance.now() - acted, sleeps };
}

onEveryBackend('waking a waiting consumer (issue 18)', (make) => {
  const setup = async (config: Record<string, number> = {}) => {
    const h = make({ clock: systemClock });
    await h.queue.configure('q', config);
    await h.queue.createGroup('q', 'g', '$');
    return h;
  };

  it('wakes at once on produce, with one consume and one blocking read per partition set', async () => {
    const h = await setup();
    const before = h.calls.length;
    const { messages, lateMs, sleeps } = await wakeAfter(h, () => h.queue.produce('q', [{ body: 'hi' }]));
    expect(messages.map((m) => m.body)).toEqual(['hi']);
    expect(lateMs).toBeLessThan(250);
    expect(sleeps).toEqual([]);
    const made = h.calls.slice(before).filter((c) => c.name === 'consume' || c.command === 'xread');
    // Idle: one consume per partition, one read; after the wake-up the consume that delivers.
    expect(made.filter((c) => c.command === 'xread')).toHaveLength(1);
    expect(made[made.length - 1]?.name).toBe('consume');
  });

  it('wakes on a nack without delay and on a nack with a delay when it is due', async () => {
    const h = await setup();
    await h.queue.produce('q', [{ body: 'a' }]);
    const [held] = await h.queue.consume('q', 'g', 'holder', 1);
    const now = await wakeAfter(h, () => h.queue.nack('q', 'g', [held?.id ?? ''], 0));
    expect(now.messages.map((m) => [m.body, m.deliveries])).toEqual([['a', 2]]);
    expect(now.lateMs).toBeLessThan(250);
    expect(now.sleeps).toEqual([]);
    const later = await wakeAfter(h, () => h.queue.nack('q', 'g', [now.messages[0]?.id ?? ''], 300));
    expect(later.messages.map((m) => m.deliveries)).toEqual([3]);
    expect(later.lateMs).toBeGreaterThanOrEqual(290);
    expect(later.lateMs).toBeLessThan(300 + 200);
  });

  it("wakes when an ack lets the next message of a group key go (the key's release)", async () => {
    const h = await setup();
    await h.queue.produce('q', [
      { body: 'a1', groupKey: 'a' },
      { body: 'a2', groupKey: 'a' },
    ]);
    const [held] = await h.queue.consume('q', 'g', 'holder', 1);
    expect(held?.body).toBe('a1');
    const { messages, lateMs, sleeps } = await wakeAfter(h, () => h.queue.ack('q', 'g', [held?.id ?? '']));
    expect(messages.map((m) => [m.body, m.groupKey])).toEqual([['a2', 'a']]);
    expect(lateMs).toBeLessThan(250);
    expect(sleeps).toEqual([]);
  });

  it('wakes on redrive', async () => {
    const h = await setup({ maxDeliveries: 1 });
    await h.queue.produce('q', [{ body: 'dead' }]);
    const [first] = await h.queue.consume('q', 'g', 'holder', 1);
    await h.queue.nack('q', 'g', [first?.id ?? ''], 0);
    // The next consume dead-letters it (max deliveries reached) and delivers nothing.
    expect(await h.queue.consume('q', 'g', 'holder', 1)).toEqual([]);
    const { messages, lateMs } = await wakeAfter(h, () => h.queue.redrive('q', { all: true }));
    expect(messages.map((m) => [m.body, m.deliveries])).toEqual([['dead', 1]]);
    expect(lateMs).toBeLessThan(250);
  });

  it('wakes on resume of a paused queue and of a paused group, not before', async () => {
    for (const [stop, go] of [
      [(h: Harness) => h.queue.pauseQueue('q'), (h: Harness) => h.queue.resumeQueue('q')],
      [(h: Harness) => h.queue.pauseGroup('q', 'g'), (h: Harness) => h.queue.resumeGroup('q', 'g')],
    ] as const) {
      const h = await setup();
      await stop(h);
      await h.queue.produce('q', [{ body: 'held' }]);
      // Paused: the poll waits although a message is there (the produce landed before it started).
      const { messages, lateMs, sleeps } = await wakeAfter(h, () => go(h), { settleMs: 300 });
      expect(messages.map((m) => m.body)).toEqual(['held']);
      expect(lateMs).toBeLessThan(250);
      expect(sleeps).toEqual([]);
    }
  });

  it('wakes when a delayed message becomes due, produced before or during the wait', async () => {
    const h = await setup();
    // Timed from before the produce: the message is due 400 ms after the produce's clock reading.
    const started = performance.now();
    await h.queue.produce('q', [{ body: 'before', delayMs: 400 }]);
    const early = await longPoll(h.queue, 'waiter', 5000);
    expect(early.map((m) => m.body)).toEqual(['before']);
    expect(performance.now() - started).toBeGreaterThanOrEqual(390);
    expect(performance.now() - started).toBeLessThan(400 + 200);
    const during = await wakeAfter(h, () => h.queue.produce('q', [{ body: 'during', delayMs: 300 }]));
    expect(during.messages.map((m) => m.body)).toEqual(['during']);
    expect(during.lateMs).toBeGreaterThanOrEqual(290);
    expect(during.lateMs).toBeLessThan(300 + 200);
  });

  it('wakes when a lease expires', async () => {
    const h = await setup({ visibilityTimeoutMs: 400 });
    await h.queue.produce('q', [{ body: 'lost' }]);
    await h.queue.consume('q', 'g', 'crashed', 1);
    const started = performance.now();
    const messages = await longPoll(h.queue, 'waiter', 5000);
    expect(messages.map((m) => [m.body, m.deliveries])).toEqual([['lost', 2]]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(350);
    expect(performance.now() - started).toBeLessThan(400 + 200);
  });

  it('answers empty when waitMs has passed, never later, without polling in between', async () => {
    const h = await setup();
    const sleeps: number[] = [];
    const before = h.calls.length;
    const started = performance.now();
    expect(await longPoll(h.queue, 'idle', 400, { sleeps })).toEqual([]);
    const took = performance.now() - started;
    expect(took).toBeGreaterThanOrEqual(390);
    expect(took).toBeLessThan(400 + 150);
    expect(sleeps).toEqual([]);
    const made = h.calls.slice(before);
    expect(made.filter((c) => c.command === 'xread')).toHaveLength(1);
    expect(made.filter((c) => c.name === 'consume')).toHaveLength(h.partitions);
  });

  it('ends the wait at once when the client leaves', async () => {
    const h = await setup();
    const controller = new AbortController();
    const started = performance.now();
    const polling = longPoll(h.queue, 'leaver', 10_000, { signal: controller.signal });
    await pause(100);
    controller.abort();
    expect(await polling).toEqual([]);
    expect(performance.now() - started).toBeLessThan(400);
  });

  it('lets many waiters of one group in one process share one blocking read', async () => {
    const h = await setup();
    const before = h.calls.length;
    const polls = Array.from({ length: 20 }, (_, i) => longPoll(h.queue, `c${i}`, 10_000));
    // Should an assertion below fail, the waiters' later failures are this test's, not unhandled.
    for (const poll of polls) poll.catch(() => {});
    // From the event, not a fixed pause (a loaded machine is slow): every waiter has looked at each
    // partition and the read has begun.
    const first = () => h.calls.slice(before);
    const deadline = performance.now() + 10_000;
    while (
      performance.now() < deadline &&
      (first().filter((c) => c.name === 'consume').length < 20 * h.partitions ||
        !first().some((c) => c.command === 'xread'))
    ) {
      await pause(10);
    }
    expect(first().filter((c) => c.name === 'consume')).toHaveLength(20 * h.partitions);
    const reading = first().filter((c) => c.command === 'xread').length;
    expect(reading).toBe(1);
    await h.queue.produce('q', [{ body: 'one' }]);
    const got = (await Promise.all(polls)).flat();
    expect(got.map((m) => m.body)).toEqual(['one']);
    // A second round right after: the consumers consumed for real moments ago and the last read
    // still lingers, so they all join it: no consume, no new read.
    const second = h.calls.length;
    const again = Array.from({ length: 20 }, (_, i) => longPoll(h.queue, `c${i}`, 300));
    expect((await Promise.all(again)).flat()).toEqual([]);
    const made = h.calls.slice(second);
    expect(made.filter((c) => c.name === 'consume')).toHaveLength(0);
    expect(made.filter((c) => c.command === 'xread').length).toBeLessThanOrEqual(1);
  });
});
