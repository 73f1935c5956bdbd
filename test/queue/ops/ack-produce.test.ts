/**
 * Conformance, ack-and-produce (lib/queue/ops/ack-produce.ts): the acked ids' results go to the next
 * queue in the same step; retried after a lost answer (at every step of the call), repeated after a
 * lease expiry by another consumer, partly acked, refused with nothing changed, into the same
 * queue, and across cluster slots. On every backend and partition count, on the injected clock.
 */
import { expect, it } from 'vitest';
import { type Attempt, timerSleep, waitUntilNonEmpty } from '../../../lib/api/long-poll.ts';
import { systemClock } from '../../../lib/clock.ts';
import { isQueueError, QueueErrorCode } from '../../../lib/queue/errors.ts';
import { derivedDedupId } from '../../../lib/queue/ops/ack-produce.ts';
import { decodeId } from '../../../lib/queue/partitions/ids.ts';
import type { Message, QueueService } from '../../../lib/queue/types.ts';
import type { WatchPoint } from '../../../lib/queue/watch.ts';
import { type RedisClient, RedisTimeoutError } from '../../../lib/redis/client.ts';
import { keySlot } from '../../../lib/redis/key-slot.ts';
import { onEveryBackend } from '../support/suite.ts';

const VT = 5000;

/** A client whose answer to the `lose`-th script call (from 0) is lost after the call was applied. */
function losing(inner: RedisClient, lose: number): RedisClient {
  let n = 0;
  const after = async <T>(call: Promise<T>): Promise<T> => {
    const answer = await call;
    if (n++ === lose) throw new RedisTimeoutError(1000);
    return answer;
  };
  return {
    ...inner,
    evalsha: (sha, keys, args, options) => after(inner.evalsha(sha, keys, args, options)),
    eval: (source, keys, args, options) => after(inner.eval(source, keys, args, options)),
  };
}

/** Every message of `queue` (all partitions), bodies only, by a fresh group reading from the start. */
async function bodies(queue: QueueService, name: string, group = 'audit'): Promise<unknown[]> {
  await queue.createGroup(name, group, '0').catch(() => undefined);
  const out: unknown[] = [];
  for (;;) {
    const got = await queue.consume(name, group, 'audit', 1000);
    if (got.length === 0) return out;
    out.push(...got.map((m) => m.body));
    await queue.ack(
      name,
      group,
      got.map((m) => m.id),
    );
  }
}

/** A queue name whose partition `p` shares a cluster slot with `queue`'s partition `from`. */
function sameSlotName(queue: string, from: number, p: number): string {
  const tag = (name: string, i: number) => `x:{${i === 0 ? name : `${name}#${i}`}}:stream`;
  const slot = keySlot(tag(queue, from));
  for (let i = 0; ; i++) {
    const name = `t${i}`;
    if (keySlot(tag(name, p)) === slot) return name;
  }
}

onEveryBackend('ack-and-produce', (make) => {
  async function setup(options: Parameters<typeof make>[0] = {}) {
    const harness = make({ defaults: { visibilityTimeoutMs: VT }, ...options });
    const { queue } = harness;
    await queue.createGroup('a', 'g', '0');
    await queue.createGroup('b', 'g', '0');
    return harness;
  }

  it('acks a message and produces its results into the next queue in one step', async () => {
    const { queue } = await setup();
    await queue.produce('a', [{ body: 'in' }]);
    const [m] = await queue.consume('a', 'g', 'c', 1);
    const id = m?.id as string;
    const answer = await queue.ack('a', 'g', [id], {
      consumer: 'c',
      produce: { queue: 'b', messages: [{ body: 'out-1' }, { body: 'out-2', attributes: { k: 'v' } }] },
    });
    expect(answer.acked).toBe(1);
    expect(answer.outcomes).toEqual(['acked']);
    expect(answer.produced).toHaveLength(2);
    expect(answer.produced.every((p) => typeof p === 'string')).toBe(true);
    expect((await queue.pendingSummary('a', 'g')).pending).toBe(0);
    const got = await queue.consume('b', 'g', 'w', 10);
    expect(got.map((x) => x.body).sort()).toEqual(['out-1', 'out-2']);
    expect(got.find((x) => x.body === 'out-2')?.attributes).toEqual({ k: 'v' });
    expect(got.map((x) => x.id).sort()).toEqual([...(answer.produced as string[])].sort());
  });

  it('leaves each result once when the answer is lost at any step and the call is retried', async () => {
    const harness = await setup();
    const { queue, calls, client } = harness;
    // Warm the scripts and this instance's partition counts, and count one call's steps.
    await queue.produce('a', [{ body: 'warm' }]);
    const [warm] = await queue.consume('a', 'g', 'c', 1);
    await queue.ack('a', 'g', [warm?.id as string], {
      consumer: 'c',
      produce: { queue: 'b', messages: [{ body: 'w' }] },
    });
    await queue.produce('a', [{ body: 'warm2' }]);
    const [warm2] = await queue.consume('a', 'g', 'c', 1);
    calls.length = 0;
    await queue.ack('a', 'g', [warm2?.id as string], {
      consumer: 'c',
      produce: { queue: 'b', messages: [{ body: 'w2' }] },
    });
    const steps = calls.length;
    expect(steps).toBeGreaterThanOrEqual(1);
    for (let lose = 0; lose < steps; lose++) {
      await queue.produce('a', [{ body: `in-${lose}` }]);
      const [m] = await queue.consume('a', 'g', 'c', 1);
      const id = m?.id as string;
      const call = (service: QueueService) =>
        service.ack('a', 'g', [id], {
          consumer: 'c',
          produce: { queue: 'b', messages: [{ body: `out-${lose}-0` }, { body: `out-${lose}-1` }] },
        });
      const flaky = harness.another({ redis: losing(client, lose) });
      const lost = await call(flaky).then(
        () => 'answered',
        (error: unknown) => (isQueueError(error, QueueErrorCode.redisUnavailable) ? 'lost' : error),
      );
      expect(lost).toBe('lost');
      const again = await call(queue);
      // Retried: acked now (the lost step came before the ack) or not pending (it was the ack).
      expect(again.outcomes).toHaveLength(1);
      expect((await queue.pendingSummary('a', 'g')).pending).toBe(0);
      // A third repeat changes nothing either.
      const third = await call(queue);
      expect(third.outcomes).toEqual(['not-pending']);
      expect(third.produced).toEqual([null, null]);
    }
    const seen = (await bodies(queue, 'b')).filter((b) => typeof b === 'string' && b.startsWith('out-'));
    const expected = Array.from({ length: steps }, (_, lose) => [`out-${lose}-0`, `out-${lose}-1`]).flat();
    expect([...seen].sort()).toEqual(expected.sort());
  });

  it('produces nothing for a consumer whose lease expired, and once for the consumer that holds it now', async () => {
    const { queue, clock } = await setup();
    await queue.produce('a', [{ body: 'in' }]);
    const [first] = await queue.consume('a', 'g', 'c1', 1);
    clock.advance(VT + 1);
    const [second] = await queue.consume('a', 'g', 'c2', 1);
    expect(second?.id).toBe(first?.id);
    const id = first?.id as string;
    const results = { queue: 'b', messages: [{ body: 'r0' }, { body: 'r1' }] };
    const stale = await queue.ack('a', 'g', [id], { consumer: 'c1', produce: results });
    expect(stale).toEqual({ acked: 0, outcomes: ['held-by-other'], produced: [null, null] });
    expect(await bodies(queue, 'b')).toEqual([]);
    const real = await queue.ack('a', 'g', [id], { consumer: 'c2', produce: results });
    expect(real.outcomes).toEqual(['acked']);
    expect(real.produced.every((p) => p !== null)).toBe(true);
    // The stale consumer repeats: not pending now, nothing more.
    const late = await queue.ack('a', 'g', [id], { consumer: 'c1', produce: results });
    expect(late).toEqual({ acked: 0, outcomes: ['not-pending'], produced: [null, null] });
    expect((await bodies(queue, 'b')).sort()).toEqual(['r0', 'r1']);
  });

  it('does not produce twice what an attempt that died before its ack had produced (derived dedup ids)', async () => {
    const { queue, clock } = await setup();
    await queue.produce('a', [{ body: 'in' }]);
    const [m] = await queue.consume('a', 'g', 'c1', 1);
    const id = m?.id as string;
    // The dead attempt's produce step, as the cross-slot path sends it, then its lease expires.
    const [early] = await queue.produce('b', [
      { body: 'first-try', dedupId: derivedDedupId('a', 'g', id, 0), partitionKey: `ap:a:g:${id}` },
    ]);
    clock.advance(VT + 1);
    await queue.consume('a', 'g', 'c2', 1);
    const answer = await queue.ack('a', 'g', [id], {
      consumer: 'c2',
      produce: { queue: 'b', messages: [{ body: 'second-try' }, { body: 'extra' }] },
    });
    expect(answer.outcomes).toEqual(['acked']);
    expect(answer.produced[0]).toBe(early);
    expect((await bodies(queue, 'b')).sort()).toEqual(['extra', 'first-try']);
  });

  it('produces only the results of the ids it acks when some are held by another consumer or not pending', async () => {
    const { queue, clock } = await setup();
    await queue.produce('a', [{ body: 'x' }, { body: 'y' }, { body: 'z' }]);
    const got = await queue.consume('a', 'g', 'c1', 3);
    const [x, y, z] = got.map((m) => m.id) as [string, string, string];
    clock.advance(VT + 1);
    // c2 takes y over; z is acked by a plain ack.
    await queue.reclaim('a', 'g', 'c2', { minIdleMs: 0, count: 3 });
    await queue.ack('a', 'g', [x, z], { consumer: 'c2' });
    await queue.produce('a', [{ body: 'w' }]);
    const [w] = await queue.consume('a', 'g', 'c1', 1);
    const wid = w?.id as string;
    const answer = await queue.ack('a', 'g', [wid, y, z], {
      consumer: 'c1',
      produce: {
        queue: 'b',
        messages: [
          { body: 'from-w', from: wid },
          { body: 'from-y', from: y },
          { body: 'from-z', from: z },
          { body: 'from-w-2', from: wid },
        ],
      },
    });
    expect(answer.acked).toBe(1);
    expect(answer.outcomes).toEqual(['acked', 'held-by-other', 'not-pending']);
    expect(answer.produced.map((p) => p !== null)).toEqual([true, false, false, true]);
    expect((await bodies(queue, 'b')).sort()).toEqual(['from-w', 'from-w-2']);
  });

  it('refuses a missing target, an unknown group and invalid results, acking nothing', async () => {
    const { queue } = await setup();
    await queue.produce('a', [{ body: 'in' }, { body: 'in2' }]);
    const got = await queue.consume('a', 'g', 'c', 2);
    const [id, other] = got.map((m) => m.id) as [string, string];
    const refused = async (call: Promise<unknown>, code: string) => {
      const error = await call.then(
        () => null,
        (e: unknown) => e,
      );
      expect((error as { code?: string } | null)?.code).toBe(code);
    };
    await refused(
      queue.ack('a', 'g', [id], { consumer: 'c', produce: { queue: 'nowhere', messages: [{ body: 1 }] } }),
      'QUEUE_NOT_FOUND',
    );
    await refused(
      queue.ack('a', 'nogroup', [id], { consumer: 'c', produce: { queue: 'b', messages: [{ body: 1 }] } }),
      'GROUP_NOT_FOUND',
    );
    // Two ids: each result must say which id it is a result of, and name one of them.
    await refused(
      queue.ack('a', 'g', [id, other], { produce: { queue: 'b', messages: [{ body: 1 }] } }),
      'INVALID_ARGUMENT',
    );
    await refused(
      queue.ack('a', 'g', [id], { produce: { queue: 'b', messages: [{ body: 1, from: '1-1' }] } }),
      'INVALID_ARGUMENT',
    );
    await refused(queue.ack('a', 'g', [id], { produce: { queue: 'b', messages: [] } }), 'INVALID_ARGUMENT');
    await refused(
      queue.ack('a', 'g', [id], { produce: { queue: 'b', messages: [{ body: 1, dedupId: 'lone\ud800' }] } }),
      'INVALID_ARGUMENT',
    );
    await refused(
      queue.ack('a', 'g', [id], { produce: { queue: 'b', messages: [{ body: 'x'.repeat(300_000) }] } }),
      'MESSAGE_TOO_LARGE',
    );
    await refused(
      queue.ack('a', 'g', [id], { produce: { queue: 'bad name', messages: [{ body: 1 }] } }),
      'INVALID_ARGUMENT',
    );
    expect((await queue.pendingSummary('a', 'g')).pending).toBe(2);
    expect(await bodies(queue, 'b')).toEqual([]);
  });

  it('produces into the same queue, which the same group then delivers', async () => {
    const { queue } = await setup();
    await queue.produce('a', [{ body: 1 }]);
    const [m] = await queue.consume('a', 'g', 'c', 1);
    const answer = await queue.ack('a', 'g', [m?.id as string], {
      consumer: 'c',
      produce: { queue: 'a', messages: [{ body: 2 }] },
    });
    expect(answer.outcomes).toEqual(['acked']);
    const next = await queue.consume('a', 'g', 'c', 10);
    expect(next.map((x) => x.body)).toEqual([2]);
    expect(next[0]?.id).toBe(answer.produced[0]);
  });

  it("applies the target's rules: delay, group key, and a result's own dedupId as produce does", async () => {
    const { queue, clock } = await setup();
    await queue.produce('a', [{ body: 'in' }]);
    const [m] = await queue.consume('a', 'g', 'c', 1);
    const answer = await queue.ack('a', 'g', [m?.id as string], {
      produce: {
        queue: 'b',
        messages: [
          { body: 'later', delayMs: 1000 },
          { body: 'k1', groupKey: 'k' },
          { body: 'k2', groupKey: 'k' },
          { body: 'own', dedupId: 'own-id' },
        ],
      },
    });
    expect(answer.produced[0]).toMatch(/^delayed-/);
    // A plain produce with the same dedupId is the same message.
    const [again] = await queue.produce('b', [{ body: 'own again', dedupId: 'own-id' }]);
    expect(again).toBe(answer.produced[3]);
    // One of key k at a time.
    const first = await queue.consume('b', 'g', 'w', 10);
    expect(first.map((x) => x.body).sort()).toEqual(['k1', 'own']);
    clock.advance(1000);
    await queue.ack(
      'b',
      'g',
      first.map((x) => x.id),
    );
    const second = await queue.consume('b', 'g', 'w', 10);
    expect(second.map((x) => x.body).sort()).toEqual(['k2', 'later']);
  });

  it('runs as one script where both partitions share a slot, else checks, produces and acks', async () => {
    const harness = await setup();
    const { queue, calls, partitions } = harness;
    const cluster = harness.client.cluster === true;
    await queue.produce('a', [{ body: 'warm' }, { body: 'in' }, { body: 'in2' }]);
    const got = await queue.consume('a', 'g', 'c', 3);
    const [warm, m, m2] = got.map((x) => x.id) as [string, string, string];
    await queue.ack('a', 'g', [warm], { consumer: 'c', produce: { queue: 'b', messages: [{ body: 0 }] } });
    calls.length = 0;
    const answer = await queue.ack('a', 'g', [m], {
      consumer: 'c',
      produce: { queue: 'b', messages: [{ body: 1 }] },
    });
    expect(answer.outcomes).toEqual(['acked']);
    const twoSlots = cluster && keySlot(`{a}`) !== keySlot(`{b}`);
    if (partitions === 1) {
      expect(calls.map((c) => c.name)).toEqual(twoSlots ? ['ackCheck', 'produce', 'ack'] : ['ackProduce']);
    }
    // A target that shares the slot: one script on a cluster too.
    const target = sameSlotName('a', decodeId(m2).partition, 0);
    await queue.configure(target, { partitions: 1 });
    await queue.createGroup(target, 'g', '0');
    await queue.produce(target, [{ body: 'warm' }]);
    calls.length = 0;
    const single = await queue.ack('a', 'g', [m2], {
      consumer: 'c',
      produce: { queue: target, messages: [{ body: 2 }] },
    });
    expect(single.outcomes).toEqual(['acked']);
    // (A master that has not cached the script yet answers NOSCRIPT: an EVAL follows.)
    expect(calls.filter((c) => c.command === 'evalsha').map((c) => c.name)).toEqual(['ackProduce']);
    expect((await bodies(queue, target)).sort()).toEqual([2, 'warm']);
    expect((await bodies(queue, 'b')).sort()).toEqual([0, 1]);
  });

  it('wakes a consumer long-polling the target, as a produce does', async () => {
    const { queue } = make({ clock: systemClock });
    await queue.createGroup('src', 'g', '0');
    await queue.createGroup('dst', 'g', '$');
    await queue.produce('src', [{ body: 'in' }]);
    const [m] = await queue.consume('src', 'g', 'c', 1);
    const sleeps: number[] = [];
    const polling = waitUntilNonEmpty<Message, WatchPoint>(
      async (): Promise<Attempt<Message, WatchPoint>> => {
        const { messages, watch } = await queue.consumeOrWatch('dst', 'g', 'waiter', 1);
        return { items: messages, watch };
      },
      (watch, until, signal) => queue.waitForWork(watch, until, signal),
      {
        waitMs: 5000,
        clock: systemClock,
        sleep: (ms, signal) => {
          sleeps.push(ms);
          return timerSleep(ms, signal);
        },
      },
    );
    await new Promise((resolve) => setTimeout(resolve, 150));
    const acted = performance.now();
    await queue.ack('src', 'g', [m?.id as string], {
      produce: { queue: 'dst', messages: [{ body: 'out' }] },
    });
    const got = await polling;
    expect(got.map((x) => x.body)).toEqual(['out']);
    // Woken by the produce, not by the end of its wait (generous: a loaded machine).
    expect(performance.now() - acted).toBeLessThan(2500);
    expect(sleeps).toEqual([]);
  });
});
