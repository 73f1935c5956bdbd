/**
 * The worker runtime against the real service: the concurrency bound, batched acks, the heartbeat
 * keeping a long handler's lease, retry delays on a throw, a lost lease aborting the handler (and
 * no ack), the graceful stop (finish, ack, give back the unstarted, hold nothing), the shutdown
 * grace, the stop signal, and errors that end the worker without an unhandled rejection.
 *
 * Time-driven behaviour runs on a manual clock shared by the worker (its `timers`) and the service
 * (leases, long polls), the service in-process: a test advances the clock instead of sleeping, so
 * a 1.5 s handler or a 200 ms grace costs no real time and holds on a loaded machine. The adaptive
 * batch size, which measures real round trips, runs against the service over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  isApiError,
  LeaseLostError,
  type Message,
  MessageCancelledError,
  type MessageInput,
  type QueueConfig,
  ShutdownError,
  type WorkerEvent,
} from '../../lib/client/index.ts';
import { retryDelayFor } from '../../lib/client/retry-delay.ts';
import { type ManualService, startManualService } from './support/manual-service.ts';
import { startService, type TestService, uniqueName } from './support/service.ts';

let service: TestService;
let manual: ManualService;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  service = await startService();
  manual = await startManualService();
});
afterAll(async () => {
  await service.close();
  process.off('unhandledRejection', onUnhandled);
  expect(unhandled).toEqual([]);
});

/** Advances the manual clock until `check` holds. */
const until = (check: () => boolean | Promise<boolean>) => manual.timers.until(check);
/** A wait on the manual clock (inside handlers). */
const pause = (ms: number) => manual.timers.sleep(ms);

/** Advances the manual clock until `promise` settles; its value, or its error thrown. */
const settled = <T>(promise: Promise<T>) => manual.timers.run(promise);

async function setup(
  prefix: string,
  bodies: MessageInput['body'][],
  config: { visibilityTimeoutMs?: number } = {},
) {
  const q = manual.client.queue(uniqueName(prefix));
  await q.configure(config);
  const ids = bodies.length === 0 ? [] : await q.produce(bodies.map((body) => ({ body })));
  const g = q.group('g');
  await g.create({ start: '0' });
  return { q, g, ids };
}

const timers = () => manual.timers;

describe('running handlers', () => {
  it('runs at most `concurrency` handlers at once, each message once, and acks them in batches', async () => {
    const { g, ids } = await setup(
      'concurrency',
      Array.from({ length: 60 }, (_, i) => i),
    );
    let running = 0;
    let most = 0;
    const handled: string[] = [];
    const acks: string[][] = [];
    const worker = g.work(
      async (message) => {
        running++;
        most = Math.max(most, running);
        await pause(5);
        handled.push(message.id);
        running--;
      },
      {
        concurrency: 5,
        waitMs: 100,
        timers: timers(),
        onEvent: (e) => e.type === 'acked' && acks.push(e.ids),
      },
    );
    await until(() => acks.flat().length === 60);
    await settled(worker.stop());
    expect(most).toBe(5);
    expect(handled.sort()).toEqual([...ids].sort());
    expect(acks.flat().sort()).toEqual([...ids].sort());
    expect(acks.length).toBeLessThan(60);
    expect(await g.pending()).toMatchObject({ pending: 0 });
    expect(worker.stats()).toMatchObject({ succeeded: 60, acked: 60, failed: 0, held: 0, running: 0 });
  });

  it('acks messages that finish a few ms apart together within ackLingerMs, one each with 0', async () => {
    const runWith = async (ackLingerMs: number) => {
      const { g, ids } = await setup(`linger-${ackLingerMs}`, [1, 2, 3, 4, 5]);
      const acks: string[][] = [];
      const worker = g.work(() => pause(5), {
        ackLingerMs,
        waitMs: 100,
        timers: timers(),
        onEvent: (e) => e.type === 'acked' && acks.push(e.ids),
      });
      await manual.timers.until(() => acks.flat().length === 5, { stepMs: 1 });
      await settled(worker.stop());
      expect(acks.flat()).toEqual(ids);
      expect(await g.pending()).toMatchObject({ pending: 0 });
      return acks.map((batch) => batch.length);
    };
    // One handler at a time, each 5 ms: all five finish within 30 ms of the first.
    expect(await runWith(30)).toEqual([5]);
    expect(await runWith(0)).toEqual([1, 1, 1, 1, 1]);
  });

  it('consumes pollLingerMs after a short answer, so messages produced meanwhile share a consume', async () => {
    const runWith = async (pollLingerMs: number) => {
      const { q, g } = await setup(`poll-linger-${pollLingerMs}`, []);
      const fetched: { at: number; count: number }[] = [];
      let handled = 0;
      const worker = g.work(
        () => {
          handled++;
        },
        {
          pollLingerMs,
          waitMs: 1000,
          timers: timers(),
          onEvent: (e) =>
            e.type === 'fetched' &&
            e.ids.length > 0 &&
            fetched.push({ at: manual.harness.clock.now(), count: e.ids.length }),
        },
      );
      await q.produce([{ body: 0 }]);
      await until(() => handled === 1);
      // The clock stands still: produced after the answer of 1 (the worker asked for 10).
      for (const body of [1, 2, 3, 4]) await q.produce([{ body }]);
      await manual.timers.until(() => handled === 5, { stepMs: 1 });
      await settled(worker.stop());
      expect(await g.pending()).toMatchObject({ pending: 0 });
      const [first, second] = fetched as [{ at: number }, { at: number; count: number }];
      return { counts: fetched.map((f) => f.count), gapMs: second.at - first.at };
    };
    // The next consume goes 20 ms after the answer of 1 and finds the four; without the linger it
    // goes at once, finds nothing and its long poll answers when the four arrive (the in-process
    // service here polls with a 50 ms backoff).
    expect(await runWith(20)).toEqual({ counts: [1, 4], gapMs: 20 });
    expect((await runWith(0)).gapMs).not.toBe(20);
  });

  it('consumes again at once after an answer that brought nothing or a full batch', async () => {
    const { q, g } = await setup(
      'poll-linger-full',
      Array.from({ length: 10 }, (_, i) => i),
    );
    const consumedAt: number[] = [];
    let handled = 0;
    const worker = g.work(
      () => {
        handled++;
      },
      {
        batch: 10,
        pollLingerMs: 60_000,
        waitMs: 100,
        timers: timers(),
        onEvent: (e) => e.type === 'fetched' && consumedAt.push(manual.harness.clock.now()),
      },
    );
    await until(() => handled === 10);
    // The full batch of 10 was followed at once by a poll, which times out empty after 100 ms and
    // polls again: a linger of a minute never started.
    await until(() => consumedAt.length >= 3);
    await q.produce([{ body: 'late' }]);
    await until(() => handled === 11);
    await settled(worker.stop());
    const first = consumedAt[0] as number;
    expect((consumedAt[2] as number) - first).toBeLessThan(1000);
  });

  it('sends a lingering ack at once when stopped', async () => {
    const { g, ids } = await setup('linger-stop', ['only']);
    const acks: string[][] = [];
    let handled = false;
    const worker = g.work(
      () => {
        handled = true;
      },
      {
        ackLingerMs: 60_000,
        waitMs: 100,
        timers: timers(),
        onEvent: (e) => e.type === 'acked' && acks.push(e.ids),
      },
    );
    await until(() => handled);
    await manual.timers.advance(200);
    expect(acks).toEqual([]);
    const stopAsked = manual.harness.clock.now();
    await settled(worker.stop());
    expect(manual.harness.clock.now() - stopAsked).toBeLessThan(1000);
    expect(acks).toEqual([ids]);
    expect(await g.pending()).toMatchObject({ pending: 0 });
  });

  it('keeps the lease of a handler that runs 2.5x the visibility timeout: no other consumer gets it', async () => {
    const { g, ids } = await setup('heartbeat', ['long'], { visibilityTimeoutMs: 600 });
    const seen: Message[] = [];
    const events: WorkerEvent[] = [];
    const worker = g.work(
      async (message) => {
        seen.push(message);
        await pause(1500);
      },
      { onEvent: (e) => events.push(e), waitMs: 100, timers: timers() },
    );
    await until(() => seen.length === 1);
    const started = manual.harness.clock.now();
    // Another consumer keeps asking the whole time the handler runs.
    const rival: Message[] = [];
    let asked = 0;
    const rivalry = (async () => {
      while (!events.some((e) => e.type === 'acked')) {
        rival.push(...(await g.consume({ consumer: 'rival', count: 10 })));
        asked++;
        await pause(50);
      }
    })();
    await settled(rivalry);
    expect(manual.harness.clock.now() - started).toBeGreaterThanOrEqual(1500);
    await settled(worker.stop());
    expect(asked).toBeGreaterThanOrEqual(25);
    expect(rival).toEqual([]);
    expect(events.filter((e) => e.type === 'fetched' && e.ids.length > 0)).toHaveLength(1);
    expect(seen.map((m) => [m.id, m.deliveries])).toEqual([[ids[0], 1]]);
    expect(events.find((e) => e.type === 'ready')).toMatchObject({
      visibilityTimeoutMs: 600,
      heartbeatMs: 200,
    });
    expect(events.filter((e) => e.type === 'extended').length).toBeGreaterThanOrEqual(7);
    expect(events.find((e) => e.type === 'succeeded')).toMatchObject({ durationMs: 1500 });
    expect(await g.pending()).toMatchObject({ pending: 0 });
  });

  it('lets a lease lapse when it does not renew it: the control for the test above', async () => {
    // The same handler on a worker told the visibility timeout is 10 minutes, so its heartbeat
    // comes far too late: the lease lapses at 600 ms and the message is delivered again.
    const { g, ids } = await setup('no-heartbeat', ['long'], { visibilityTimeoutMs: 600 });
    const worker = g.work(() => pause(1500), { waitMs: 100, timers: timers(), visibilityTimeoutMs: 600_000 });
    await until(() => worker.stats().started === 1);
    expect(await g.pending({})).toMatchObject([{ id: ids[0], deliveries: 1 }]);
    await manual.timers.advance(800);
    expect(await g.pending({})).toMatchObject([{ id: ids[0], deliveries: 2 }]);
    await settled(worker.stop());
  });

  it('nacks a throw with the delay the error names, else with 0, and reports it to onError', async () => {
    const { g, ids } = await setup('throws', ['later', 'again']);
    const errors: { message: string; during: string; id?: string }[] = [];
    const deliveries: [unknown, number][] = [];
    const worker = g.work(
      (message) => {
        deliveries.push([message.body, message.deliveries]);
        if (message.body === 'later') throw Object.assign(new Error('busy'), { delayMs: 60_000 });
        if (message.deliveries === 1) throw new Error('flaky');
      },
      {
        concurrency: 2,
        waitMs: 100,
        timers: timers(),
        onError: (error, context) =>
          errors.push({
            message: (error as Error).message,
            during: context.during,
            ...(context.message === undefined ? {} : { id: context.message.id }),
          }),
      },
    );
    await until(() => worker.stats().acked === 1);
    await settled(worker.stop());
    expect(deliveries.sort()).toEqual([
      ['again', 1],
      ['again', 2],
      ['later', 1],
    ]);
    expect(errors.sort((a, b) => a.message.localeCompare(b.message))).toEqual([
      { message: 'busy', during: 'handler', id: ids[0] },
      { message: 'flaky', during: 'handler', id: ids[1] },
    ]);
    const [entry] = await g.pending({});
    expect(entry).toMatchObject({ id: ids[0], state: 'retrying' });
    expect(entry!.eligibleAt).toBeGreaterThan(manual.harness.clock.now() + 55_000);
  });

  it('aborts the handler’s signal when its lease is lost, and neither acks nor nacks the message', async () => {
    const { g, ids } = await setup('lost', ['taken'], { visibilityTimeoutMs: 600 });
    let reason: unknown;
    let extendAfterLoss: boolean | undefined;
    const worker = g.work(
      async (_message, { signal, extend }) => {
        expect(await extend()).toBe(true);
        await new Promise<void>((resolve) =>
          signal.addEventListener('abort', () => resolve(), { once: true }),
        );
        reason = signal.reason;
        extendAfterLoss = await extend();
      },
      { waitMs: 100, timers: timers() },
    );
    await until(() => worker.stats().started === 1);
    // Another consumer takes it over, as it could after a missed heartbeat.
    const taken = await g.reclaim({ consumer: 'thief', minIdleMs: 0 });
    expect(taken.messages.map((m) => m.id)).toEqual(ids);
    // The next heartbeat (a third of the visibility timeout) learns it is lost.
    await until(() => reason !== undefined);
    await settled(worker.stop());
    expect(reason).toBeInstanceOf(LeaseLostError);
    expect(extendAfterLoss).toBe(false);
    expect(worker.stats()).toMatchObject({ lost: 1, acked: 0, nacked: 0, succeeded: 0 });
    expect(await g.pending({})).toMatchObject([{ id: ids[0], consumer: 'thief', state: 'leased' }]);
  });

  it('aborts the handler’s signal when its message is cancelled, and acks it when the handler returns', async () => {
    const { q, g, ids } = await setup('cancelled', ['doomed'], { visibilityTimeoutMs: 600 });
    let reason: unknown;
    const events: WorkerEvent[] = [];
    const worker = g.work(
      async (_message, { signal }) => {
        await new Promise<void>((resolve) =>
          signal.addEventListener('abort', () => resolve(), { once: true }),
        );
        reason = signal.reason;
        throw signal.reason;
      },
      { waitMs: 100, timers: timers(), onEvent: (event) => events.push(event) },
    );
    await until(() => worker.stats().started === 1);
    expect(await q.cancelMessage(ids[0] as string)).toEqual({
      id: ids[0],
      alreadyCancelled: false,
      inFlight: 1,
    });
    // The next heartbeat (a third of the visibility timeout) learns it was cancelled.
    await until(() => reason !== undefined);
    await until(() => worker.stats().acked === 1);
    await settled(worker.stop());
    expect(reason).toBeInstanceOf(MessageCancelledError);
    expect(events.filter((e) => e.type === 'cancelled')).toEqual([{ type: 'cancelled', ids }]);
    expect(worker.stats()).toMatchObject({ cancelled: 1, acked: 1, nacked: 0, failed: 0, lost: 0 });
    expect(await g.pending({})).toEqual([]);
    expect((await q.message(ids[0] as string)).state).toBe('cancelled');
  });

  it('nacks at once when the retryDelayMs function itself throws', async () => {
    const { g, ids } = await setup('delay-throws', ['x']);
    const during: string[] = [];
    const deliveries: number[] = [];
    const worker = g.work(
      (message) => {
        deliveries.push(message.deliveries);
        if (message.deliveries === 1) throw new Error('first');
      },
      {
        waitMs: 100,
        timers: timers(),
        retryDelayMs: () => {
          throw new Error('bad hook');
        },
        onError: (_error, context) => void during.push(context.during),
      },
    );
    await until(() => worker.stats().acked === 1);
    await settled(worker.stop());
    expect(deliveries).toEqual([1, 2]);
    expect(during.sort()).toEqual(['handler', 'hook']);
    expect(await g.pending()).toMatchObject({ pending: 0 });
    expect(ids).toHaveLength(1);
  });

  it('carries on when its hooks throw, and reports that', async () => {
    const { g } = await setup('hooks', [1, 2, 3]);
    const during: string[] = [];
    const worker = g.work(() => undefined, {
      waitMs: 100,
      timers: timers(),
      onEvent: () => {
        throw new Error('hook bug');
      },
      onError: (_error, context) => {
        during.push(context.during);
      },
    });
    await until(() => worker.stats().acked === 3);
    await settled(worker.stop());
    expect(during.length).toBeGreaterThan(0);
    expect(new Set(during)).toEqual(new Set(['hook']));
  });
});

describe('stopping', () => {
  it('finishes and acks running handlers, gives back what it fetched but did not start, and holds nothing after', async () => {
    const { g, ids } = await setup(
      'stop',
      Array.from({ length: 20 }, (_, i) => i),
    );
    const finished: string[] = [];
    const worker = g.work(
      async (message) => {
        await pause(300);
        finished.push(message.id);
      },
      { concurrency: 2, batch: 10, waitMs: 100, timers: timers() },
    );
    await until(() => worker.stats().running === 2 && worker.stats().held >= 10);
    const held = worker.stats().held;
    const stopAsked = manual.harness.clock.now();
    await settled(worker.stop());
    // It waited for the running handlers (300 ms), not for a lease or the grace.
    expect(manual.harness.clock.now() - stopAsked).toBeLessThan(400);
    const stats = worker.stats();
    expect(finished).toHaveLength(2);
    expect(stats).toMatchObject({ succeeded: 2, acked: 2, returned: held - 2, running: 0, held: 0 });
    const mine = await g.pending({ consumer: worker.consumer, count: 1000 });
    expect(mine).toHaveLength(held - 2);
    const now = manual.harness.clock.now();
    for (const entry of mine) {
      expect(entry.state).toBe('retrying');
      expect(entry.eligibleAt).toBeLessThanOrEqual(now);
    }
    // Nothing waits for a lease to expire: another consumer gets all 18 at once.
    const rest = await g.consume({ consumer: 'next', count: 100 });
    expect(rest.map((m) => m.id).sort()).toEqual(ids.filter((id) => !finished.includes(id)).sort());
  });

  it('aborts and nacks a handler that outruns the shutdown grace, when the grace is over', async () => {
    const { g, ids } = await setup('grace', ['slow']);
    let reason: unknown;
    let abortedAt: number | undefined;
    const events: WorkerEvent[] = [];
    const worker = g.work(
      async (_message, { signal }) => {
        await new Promise<void>((resolve) =>
          signal.addEventListener('abort', () => resolve(), { once: true }),
        );
        reason = signal.reason;
        abortedAt = manual.harness.clock.now();
      },
      { shutdownGraceMs: 200, waitMs: 100, timers: timers(), onEvent: (e) => events.push(e) },
    );
    await until(() => worker.stats().running === 1);
    const stopAsked = manual.harness.clock.now();
    await settled(worker.stop());
    expect(reason).toBeInstanceOf(ShutdownError);
    expect(abortedAt! - stopAsked).toBeGreaterThanOrEqual(200);
    expect(abortedAt! - stopAsked).toBeLessThan(300);
    expect(events).toContainEqual({ type: 'nacked', ids, delayMs: 0, reason: 'abandoned' });
    const [entry] = await g.pending({ consumer: worker.consumer });
    expect(entry).toMatchObject({ id: ids[0], state: 'retrying' });
    expect(worker.stats()).toMatchObject({ acked: 0, held: 0 });
  });

  it('stops when its signal aborts, and `done` resolves', async () => {
    const { g, q } = await setup('signal', []);
    const controller = new AbortController();
    const handled: unknown[] = [];
    const worker = g.work((message) => void handled.push(message.body), {
      signal: controller.signal,
      waitMs: 5000,
      timers: timers(),
    });
    await q.produce([{ body: 'one' }]);
    await until(() => worker.stats().acked === 1);
    controller.abort();
    await expect(settled(worker.done)).resolves.toBeUndefined();
    expect(handled).toEqual(['one']);
  });

  it('gives back what its consumer holds leased from a poll the stop cut short', async () => {
    const { g, ids } = await setup('orphan', ['stray']);
    const [id] = ids;
    // Leased to another consumer first: a produce while the worker waits would wake its poll
    // (issue 18), which would then receive the message itself.
    expect((await g.consume({ consumer: 'other' })).map((m) => m.id)).toEqual([id]);
    const events: WorkerEvent[] = [];
    const worker = g.work(() => undefined, {
      waitMs: 10_000,
      timers: timers(),
      onEvent: (e) => events.push(e),
    });
    await until(() => events.some((e) => e.type === 'ready'));
    await manual.timers.advance(100);
    // The worker's poll is waiting; a lease under its consumer name that it never received is
    // what an answer lost between the service and an aborted poll leaves behind. Taking it over
    // (XCLAIM) makes one without waking anyone.
    const stray = await g.reclaim({ consumer: worker.consumer, minIdleMs: 0 });
    expect(stray.messages.map((m) => m.id)).toEqual([id]);
    await settled(worker.stop());
    expect(events).toContainEqual({ type: 'nacked', ids: [id], delayMs: 0, reason: 'orphaned' });
    expect(await g.pending({ consumer: worker.consumer })).toMatchObject([{ id, state: 'retrying' }]);
  });
});

describe('errors that end the worker', () => {
  it('rejects `done` with GROUP_NOT_FOUND for a group that does not exist, and nothing goes unhandled', async () => {
    const q = manual.client.queue(uniqueName('nogroup'));
    await q.configure();
    const stopped: WorkerEvent[] = [];
    const worker = q.group('ghost').work(() => undefined, {
      timers: timers(),
      onEvent: (e) => e.type === 'stopped' && stopped.push(e),
      onError: () => undefined,
    });
    // Left unawaited while it fails: no unhandled rejection (checked after all tests).
    await until(() => stopped.length === 1);
    await manual.timers.advance(50);
    const error = await worker.done.catch((e: unknown) => e);
    expect(isApiError(error, 'GROUP_NOT_FOUND')).toBe(true);
    await expect(worker.stop()).resolves.toBeUndefined();
  });

  it('rejects `done` with QUEUE_NOT_FOUND when the queue config cannot be read', async () => {
    const worker = manual.client
      .queue(uniqueName('noqueue'))
      .group('g')
      .work(() => undefined, { timers: timers() });
    const error = await settled(worker.done).catch((e: unknown) => e);
    expect(isApiError(error, 'QUEUE_NOT_FOUND')).toBe(true);
  });

  it('refuses options out of range at once', async () => {
    const g = manual.client.queue('any').group('g');
    expect(() => g.work(() => undefined, { concurrency: 0 })).toThrow(RangeError);
    expect(() => g.work(() => undefined, { batch: 1001 })).toThrow('batch must be an integer from 1 to 1000');
    expect(() => g.work(() => undefined, { waitMs: 20_001 })).toThrow(RangeError);
  });
});

describe('over HTTP on real time', () => {
  const realPause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('asks for larger batches when handlers are quick, and stays at max(concurrency, 10) when they are slow', async () => {
    // The batch adapts to measured round trips and handler times: real ones, over real HTTP.
    const sizes = async (handlerMs: number, count: number) => {
      const q = service.client().queue(uniqueName(`adaptive-${handlerMs}`));
      await q.produce(Array.from({ length: count }, (_, i) => ({ body: i })));
      const g = q.group('g');
      await g.create({ start: '0' });
      const fetched: number[] = [];
      const worker = g.work(() => (handlerMs === 0 ? undefined : realPause(handlerMs)), {
        waitMs: 100,
        onEvent: (e) => e.type === 'fetched' && e.ids.length > 0 && fetched.push(e.ids.length),
      });
      const deadline = Date.now() + 20_000;
      while (worker.stats().acked < count) {
        if (Date.now() > deadline) throw new Error(`acked ${worker.stats().acked} of ${count}`);
        await realPause(10);
      }
      await worker.stop();
      return fetched;
    };
    const quick = await sizes(0, 400);
    expect(Math.max(...quick)).toBeGreaterThan(10);
    expect(Math.max(...quick)).toBeLessThanOrEqual(100);
    const slow = await sizes(40, 30);
    expect(Math.max(...slow)).toBeLessThanOrEqual(10);
  });
});

describe('retry delays', () => {
  const message: Message = { id: '1-0', body: null, attributes: {}, deliveries: 2, enqueuedAt: 0 };
  // A config from a service before retry backoff (no retryBackoff field).
  const config = {
    visibilityTimeoutMs: 30_000,
    maxDeliveries: 5,
    dedupWindowMs: 0,
    retentionMs: 0,
    consumerIdleMs: 1,
    partitions: 1,
    maxInFlightPerConsumer: 1,
  } as unknown as QueueConfig;

  it('takes the error’s own delay first, then the option, then the queue’s, else 0', () => {
    const named = Object.assign(new Error('x'), { retryAfterMs: 1500 });
    expect(retryDelayFor(named, message, 10, config)).toBe(1500);
    expect(retryDelayFor(Object.assign(new Error('x'), { delayMs: 700 }), message, 10, config)).toBe(700);
    expect(retryDelayFor(new Error('x'), message, 10, config)).toBe(10);
    expect(retryDelayFor(new Error('x'), message, (m) => m.deliveries * 1000, config)).toBe(2000);
    // A service that names a per-queue retry delay in the config is honoured as it is.
    const withDelay = { ...config, retryDelayMs: 250 };
    expect(retryDelayFor(new Error('x'), message, () => undefined, withDelay)).toBe(250);
    expect(retryDelayFor('not an error', message, undefined, config)).toBe(0);
    expect(retryDelayFor(Object.assign(new Error('x'), { delayMs: -5 }), message, undefined, config)).toBe(0);
  });

  it('leaves the delay to the queue’s retry backoff when the service has one and nothing else names a delay', () => {
    const current = {
      ...config,
      retryBackoff: 'exponential',
      retryDelayMs: 250,
      retryMaxDelayMs: 1000,
    } as QueueConfig;
    expect(retryDelayFor(new Error('x'), message, undefined, current)).toBeUndefined();
    expect(retryDelayFor(new Error('x'), message, () => undefined, current)).toBeUndefined();
    expect(retryDelayFor(new Error('x'), message, 10, current)).toBe(10);
    expect(retryDelayFor(Object.assign(new Error('x'), { delayMs: 700 }), message, undefined, current)).toBe(
      700,
    );
  });
});
