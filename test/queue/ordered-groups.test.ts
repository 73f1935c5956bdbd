/**
 * Conformance: ordered message groups (produce's groupKey) on every backend, with the injected
 * clock. Within one consumer group a key has at most maxInFlightPerKey messages in flight, in
 * produce order; a redelivery of the key's head goes first; keys take turns; dead-lettering the
 * head releases the key and a redrive joins the key's tail.
 */
import { expect, it } from 'vitest';
import { partitionOf } from '../../lib/queue/partitions/ids.ts';
import type { Message, QueueService } from '../../lib/queue/types.ts';
import { onEveryBackend } from './support/suite.ts';

const VT = 5000;

const bodies = (messages: readonly Message[]) => messages.map((m) => m.body);

/**
 * `n` group keys that share a partition of a queue of `partitions` (keys take turns within a
 * partition; consume visits partitions in a rotating order, see docs/queue-design.md).
 */
function neighbours(n: number, partitions: number): string[] {
  const home = partitionOf('k0', partitions);
  const out: string[] = [];
  for (let i = 0; out.length < n; i++) {
    if (partitionOf(`k${i}`, partitions) === home) out.push(`k${i}`);
  }
  return out;
}

/** Group g of queue q with key a's a1 in flight and a2 waiting behind it; answers a1's id. */
async function a1InFlight(queue: QueueService): Promise<string> {
  await queue.createGroup('q', 'g', '0');
  const [a1] = (await queue.produce('q', [
    { body: 'a1', groupKey: 'a' },
    { body: 'a2', groupKey: 'a' },
  ])) as [string];
  expect(bodies(await queue.consume('q', 'g', 'c', 10))).toEqual(['a1']);
  return a1;
}

onEveryBackend('ordered message groups', (make) => {
  it('delivers one message of a key at a time, in produce order, and the next once it is acked', async () => {
    const { queue } = make();
    await queue.createGroup('q', 'g', '0');
    const ids = await queue.produce('q', [
      { body: 'a1', groupKey: 'a' },
      { body: 'a2', groupKey: 'a' },
      { body: 'b1', groupKey: 'b' },
      { body: 'a3', groupKey: 'a' },
      { body: 'free' },
    ]);
    const first = await queue.consume('q', 'g', 'c1', 10);
    expect(bodies(first).sort()).toEqual(['a1', 'b1', 'free']);
    expect(first.find((m) => m.body === 'a1')).toMatchObject({ id: ids[0], groupKey: 'a', deliveries: 1 });
    expect(first.find((m) => m.body === 'free')?.groupKey).toBeUndefined();
    // a2 waits behind a1 for every consumer of the group.
    expect(await queue.consume('q', 'g', 'c2', 10)).toEqual([]);
    expect(await queue.ack('q', 'g', [ids[0] as string])).toBe(1);
    expect(bodies(await queue.consume('q', 'g', 'c2', 10))).toEqual(['a2']);
    expect(await queue.consume('q', 'g', 'c2', 10)).toEqual([]);
    await queue.ack('q', 'g', [ids[1] as string, ids[2] as string]);
    expect(bodies(await queue.consume('q', 'g', 'c1', 10))).toEqual(['a3']);
  });

  it('keeps each consumer group on its own: a key busy in one group is free in another', async () => {
    const { queue } = make();
    await queue.createGroup('q', 'one', '0');
    await queue.createGroup('q', 'two', '0');
    await queue.produce('q', [
      { body: 'a1', groupKey: 'a' },
      { body: 'a2', groupKey: 'a' },
    ]);
    const one = await queue.consume('q', 'one', 'c', 10);
    expect(bodies(one)).toEqual(['a1']);
    await queue.ack('q', 'one', [one[0]?.id as string]);
    expect(bodies(await queue.consume('q', 'one', 'c', 10))).toEqual(['a2']);
    // Group two has not delivered anything yet: its a1 comes first.
    expect(bodies(await queue.consume('q', 'two', 'c', 10))).toEqual(['a1']);
  });

  it("redelivers the key's head (nack, lease expiry) before the key's later messages", async () => {
    const { queue, clock } = make({ defaults: { visibilityTimeoutMs: VT, maxDeliveries: 10 } });
    await queue.createGroup('q', 'g', '0');
    const [a1] = await queue.produce('q', [
      { body: 'a1', groupKey: 'a' },
      { body: 'a2', groupKey: 'a' },
    ]);
    await queue.consume('q', 'g', 'c1', 10);
    expect(await queue.nack('q', 'g', [a1 as string], 0)).toBe(1);
    const again = await queue.consume('q', 'g', 'c2', 10);
    expect(again.map((m) => [m.body, m.deliveries])).toEqual([['a1', 2]]);
    clock.advance(VT);
    const third = await queue.consume('q', 'g', 'c3', 10);
    expect(third.map((m) => [m.body, m.deliveries])).toEqual([['a1', 3]]);
    await queue.ack('q', 'g', [a1 as string]);
    expect((await queue.consume('q', 'g', 'c3', 10)).map((m) => [m.body, m.deliveries])).toEqual([['a2', 1]]);
  });

  it("releases the key when its head is dead-lettered, and a redrive joins the key's tail", async () => {
    const { queue, clock } = make({ defaults: { visibilityTimeoutMs: VT, maxDeliveries: 1 } });
    await queue.createGroup('q', 'g', '0');
    const [a1, a2, a3] = await queue.produce('q', [
      { body: 'a1', groupKey: 'a' },
      { body: 'a2', groupKey: 'a' },
      { body: 'a3', groupKey: 'a' },
    ]);
    expect(bodies(await queue.consume('q', 'g', 'c', 10))).toEqual(['a1']);
    clock.advance(VT);
    // a1 reached max deliveries: dead-lettered in this consume, which then delivers a2.
    expect(bodies(await queue.consume('q', 'g', 'c', 10))).toEqual(['a2']);
    const { deadLetters } = await queue.listDeadLetters('q', {});
    expect(deadLetters.map((d) => [d.deadLetteredFrom, d.groupKey, d.reason])).toEqual([
      [a1, 'a', 'maxDeliveries'],
    ]);
    expect(await queue.redrive('q', { ids: [deadLetters[0]?.id as string] })).toBe(1);
    await queue.ack('q', 'g', [a2 as string]);
    expect(bodies(await queue.consume('q', 'g', 'c', 10))).toEqual(['a3']);
    await queue.ack('q', 'g', [a3 as string]);
    const redriven = await queue.consume('q', 'g', 'c', 10);
    expect(redriven.map((m) => [m.body, m.groupKey, m.deliveries])).toEqual([['a1', 'a', 1]]);
    expect(redriven[0]?.id).not.toBe(a1);
  });

  it('dead-letters an expired message instead of delivering it, and the key goes on', async () => {
    const { queue, clock } = make();
    await queue.createGroup('q', 'g', '0');
    const [a1] = await queue.produce('q', [
      { body: 'a1', groupKey: 'a' },
      { body: 'a2', groupKey: 'a', ttlMs: 1000 },
      { body: 'a3', groupKey: 'a' },
    ]);
    expect(bodies(await queue.consume('q', 'g', 'c', 10))).toEqual(['a1']);
    clock.advance(1000);
    await queue.ack('q', 'g', [a1 as string]);
    expect(bodies(await queue.consume('q', 'g', 'c', 10))).toEqual(['a3']);
    const { deadLetters } = await queue.listDeadLetters('q', {});
    expect(deadLetters.map((d) => [d.body, d.reason])).toEqual([['a2', 'expired']]);
  });

  it('hands out up to maxInFlightPerKey messages of a key, in order, one per turn', async () => {
    const { queue, partitions } = make();
    const [a, b] = neighbours(2, partitions) as [string, string];
    await queue.configure('q', { maxInFlightPerKey: 2 });
    await queue.createGroup('q', 'g', '0');
    const ids = await queue.produce('q', [
      { body: 'a1', groupKey: a },
      { body: 'a2', groupKey: a },
      { body: 'a3', groupKey: a },
      { body: 'b1', groupKey: b },
    ]);
    const got = await queue.consume('q', 'g', 'c', 10);
    expect(bodies(got)).toEqual(['a1', 'b1', 'a2']);
    expect(await queue.consume('q', 'g', 'c', 10)).toEqual([]);
    // Either in-flight message finishing makes room for a3.
    await queue.ack('q', 'g', [ids[1] as string]);
    expect(bodies(await queue.consume('q', 'g', 'c', 10))).toEqual(['a3']);
  });

  it('delivers a delayed grouped message in its key once it is due, behind what the key holds then', async () => {
    const { queue, clock } = make();
    await queue.createGroup('q', 'g', '0');
    await queue.produce('q', [
      { body: 'late', groupKey: 'a', delayMs: 1000 },
      { body: 'a1', groupKey: 'a' },
    ]);
    const [a1] = await queue.consume('q', 'g', 'c', 10);
    expect(a1?.body).toBe('a1');
    clock.advance(1000);
    expect(await queue.consume('q', 'g', 'c', 10)).toEqual([]);
    await queue.ack('q', 'g', [a1?.id as string]);
    const late = await queue.consume('q', 'g', 'c', 10);
    expect(late.map((m) => [m.body, m.groupKey])).toEqual([['late', 'a']]);
  });

  it('serves keys in turns: a busy key delays a key with one message by at most a turn', async () => {
    const { queue, partitions } = make();
    const [a, b] = neighbours(2, partitions) as [string, string];
    await queue.createGroup('q', 'g', '0');
    await queue.configure('q', { maxInFlightPerKey: 100 });
    await queue.produce(
      'q',
      Array.from({ length: 50 }, (_, i) => ({ body: `a${i}`, groupKey: a })),
    );
    await queue.produce('q', [{ body: 'b0', groupKey: b }]);
    // b0 goes in the first consume, beside a's first messages in order.
    const got = bodies(await queue.consume('q', 'g', 'c', 3));
    expect(got.filter((body) => body !== 'b0')).toEqual(['a0', 'a1']);
    expect(got).toContain('b0');
  });

  it('leaves a message of an idle key in the stream (reserved), and keeps its key in order around it', async () => {
    const { queue } = make();
    await queue.createGroup('q', 'g', '0');
    const [a1] = (await queue.produce('q', [{ body: 'a1', groupKey: 'a' }])) as [string];
    // Reserved, unread: waiting to the group; an ack of it changes nothing; the sweep keeps it.
    expect((await queue.getMessage('q', a1))?.groups).toEqual([{ group: 'g', state: 'waiting' }]);
    expect(await queue.ack('q', 'g', [a1])).toBe(0);
    await queue.sweep();
    // A busy key's message behind it: both go into the key's line, a1 first.
    const [a2] = (await queue.produce('q', [{ body: 'a2', groupKey: 'a' }])) as [string];
    expect((await queue.getMessage('q', a2))?.groups).toEqual([
      { group: 'g', state: 'blocked', blockedBy: a1 },
    ]);
    const first = await queue.consume('q', 'g', 'c', 10);
    expect(first.map((m) => [m.body, m.deliveries])).toEqual([['a1', 1]]);
    // While a1 is in flight, a3 is not reserved: it waits, though nothing else of its key does.
    await queue.ack('q', 'g', [a1]);
    expect(bodies(await queue.consume('q', 'g', 'c', 10))).toEqual(['a2']);
    const [a3] = (await queue.produce('q', [{ body: 'a3', groupKey: 'a' }])) as [string];
    expect(await queue.consume('q', 'g', 'c', 10)).toEqual([]);
    await queue.ack('q', 'g', [a2 as string]);
    expect((await queue.consume('q', 'g', 'c', 10)).map((m) => m.id)).toEqual([a3]);
  });

  it('refuses a partitionKey beside a groupKey, and routes a key to one partition', async () => {
    const { queue, partitions } = make();
    for (const partitionKey of ['b', 'a']) {
      await expect(
        queue.produce('q', [{ body: 1, groupKey: 'a', partitionKey }]).catch((e) => e.code),
      ).resolves.toBe('INVALID_ARGUMENT');
    }
    expect(await queue.getConfig('q')).toBeNull();
    await expect(queue.produce('q', [{ body: 1, groupKey: '' }]).catch((e) => e.code)).resolves.toBe(
      'INVALID_ARGUMENT',
    );
    await expect(
      queue.produce('q', [{ body: 1, groupKey: 'x'.repeat(129) }]).catch((e) => e.code),
    ).resolves.toBe('INVALID_ARGUMENT');
    const ids = await queue.produce('q', [
      { body: 1, groupKey: 'k' },
      { body: 2, groupKey: 'k' },
      { body: 3, partitionKey: 'k' },
    ]);
    const suffix = (id: string) => id.split('-')[2] ?? '0';
    expect(new Set(ids.map((id) => suffix(id))).size).toBe(1);
    if (partitions === 1) expect(ids.every((id) => id.split('-').length === 2)).toBe(true);
  });
});

onEveryBackend('ordered message groups: lookup, stats and housekeeping', (make) => {
  it("answers a lookup of a grouped message: the next of its key waiting, a later one blocked behind the key's head", async () => {
    const { queue } = make();
    await queue.createGroup('q', 'g', '0');
    const [a1, a2, a3] = (await queue.produce('q', [
      { body: 'a1', groupKey: 'a' },
      { body: 'a2', groupKey: 'a' },
      { body: 'a3', groupKey: 'a' },
    ])) as [string, string, string];
    const state = async (id: string) => (await queue.getMessage('q', id))?.groups;
    expect(await state(a1)).toEqual([{ group: 'g', state: 'waiting' }]);
    expect(await state(a2)).toEqual([{ group: 'g', state: 'blocked', blockedBy: a1 }]);
    expect((await queue.getMessage('q', a2))?.groupKey).toBe('a');
    await queue.consume('q', 'g', 'c', 10);
    expect(await state(a1)).toMatchObject([{ group: 'g', state: 'pending', consumer: 'c', deliveries: 1 }]);
    expect(await state(a3)).toEqual([{ group: 'g', state: 'blocked', blockedBy: a1 }]);
    await queue.ack('q', 'g', [a1]);
    expect(await state(a1)).toEqual([{ group: 'g', state: 'acked' }]);
    expect(await state(a2)).toEqual([{ group: 'g', state: 'waiting' }]);
    expect(await state(a3)).toEqual([{ group: 'g', state: 'blocked', blockedBy: a2 }]);
  });

  it('reports the waiting grouped messages, the keys they wait in and the oldest key', async () => {
    const { queue, clock, partitions } = make();
    const [a, b] = neighbours(2, partitions) as [string, string];
    await queue.createGroup('q', 'g', '0');
    const [, a2] = await queue.produce('q', [
      { body: 'a1', groupKey: a },
      { body: 'a2', groupKey: a },
    ]);
    clock.advance(1000);
    await queue.produce('q', [
      { body: 'b1', groupKey: b },
      { body: 'b2', groupKey: b },
      { body: 'b3', groupKey: b },
      { body: 'free' },
    ]);
    let [group] = (await queue.stats('q')).groups;
    expect(group).toMatchObject({ keyedWaiting: 5, waitingKeys: 2, lag: 1, pending: 0 });
    expect(group?.oldestWaitingKey?.groupKey).toBe(a);
    expect(bodies(await queue.consume('q', 'g', 'c', 10)).sort()).toEqual(['a1', 'b1', 'free']);
    clock.advance(500);
    [group] = (await queue.stats('q')).groups;
    expect(group).toMatchObject({
      keyedWaiting: 3,
      waitingKeys: 2,
      lag: 0,
      pending: 3,
      oldestWaitingKey: { groupKey: a, id: a2, ageMs: 1500 },
    });
    await queue.deleteGroup('q', 'g');
    await queue.createGroup('q', 'g', '$');
    [group] = (await queue.stats('q')).groups;
    expect(group).toMatchObject({ keyedWaiting: 0, waitingKeys: 0, oldestWaitingKey: null });
  });

  it('never trims a waiting grouped message, though the group has moved past it', async () => {
    const { queue, clock } = make();
    await queue.createGroup('q', 'g', '0');
    const [a1] = await queue.produce('q', [{ body: 'a1', groupKey: 'a' }]);
    // The trim keeps everything from the oldest waiting message's millisecond on: a later one.
    clock.advance(10);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await queue.produce('q', [
      { body: 'a2', groupKey: 'a' },
      { body: 'a3', groupKey: 'a' },
    ]);
    await queue.consume('q', 'g', 'c', 10);
    await queue.ack('q', 'g', [a1 as string]);
    // Nothing is pending and the group's last-delivered id is a3: only a1 may go.
    expect((await queue.sweep()).trimmed).toBe(1);
    const [a2] = await queue.consume('q', 'g', 'c', 10);
    expect(a2?.body).toBe('a2');
    await queue.ack('q', 'g', [a2?.id as string]);
    expect(bodies(await queue.consume('q', 'g', 'c', 10))).toEqual(['a3']);
  });

  it('takes a busy key’s backlog aside for a group created on it, so the keys behind it get their turns', async () => {
    const { queue } = make();
    await queue.produce(
      'q',
      Array.from({ length: 1000 }, (_, i) => ({ body: `a${i}`, groupKey: 'a' })),
    );
    await queue.produce(
      'q',
      Array.from({ length: 500 }, (_, i) => ({ body: `a${1000 + i}`, groupKey: 'a' })),
    );
    await queue.produce('q', [{ body: 'b0', groupKey: 'b' }]);
    await queue.createGroup('q', 'read', '0');
    await queue.createGroup('q', 'swept', '0');
    // Consume reads past the backlog a bounded share at a time, setting a's messages aside.
    const got: unknown[] = [];
    for (let i = 0; i < 3 && !got.includes('b0'); i++) {
      got.push(...bodies(await queue.consume('q', 'read', 'c', 10)));
    }
    expect(got.sort()).toEqual(['a0', 'b0']);
    // The sweep takes the whole backlog into the key lines.
    await queue.sweep();
    expect(bodies(await queue.consume('q', 'swept', 'c', 10)).sort()).toEqual(['a0', 'b0']);
    const [swept] = (await queue.stats('q')).groups.filter((g) => g.name === 'swept');
    expect(swept).toMatchObject({ keyedWaiting: 1499, waitingKeys: 1, lag: 0, pending: 2 });
  });

  it('skips a waiting message whose entry was deleted behind its back', async () => {
    const { queue, at, raw } = make();
    await queue.createGroup('q', 'g', '0');
    const [a1, a2] = (await queue.produce('q', [
      { body: 'a1', groupKey: 'a' },
      { body: 'a2', groupKey: 'a' },
      { body: 'a3', groupKey: 'a' },
    ])) as [string, string];
    await queue.consume('q', 'g', 'c', 10);
    const { keys, raw: rawId } = at('q', a2);
    expect(await raw("return redis.call('XDEL', KEYS[1], ARGV[1])", [keys.stream], [rawId])).toBe(1);
    await queue.ack('q', 'g', [a1]);
    expect(bodies(await queue.consume('q', 'g', 'c', 10))).toEqual(['a3']);
    expect((await queue.stats('q')).groups[0]).toMatchObject({ keyedWaiting: 0, waitingKeys: 0 });
  });

  it('lets the sweep release a key whose in-flight message was acked by a client that keeps no key lines', async () => {
    const { queue, at, raw } = make();
    const a1 = await a1InFlight(queue);
    // What the previous release's ack did: XACK and the lease, nothing of the key's line.
    const { keys, raw: rawId } = at('q', a1);
    await raw(
      "redis.call('XACK', KEYS[1], 'g', ARGV[1]); return redis.call('ZREM', KEYS[2], ARGV[1])",
      [keys.stream, keys.group('g').lease],
      [rawId],
    );
    expect(await queue.consume('q', 'g', 'c', 10)).toEqual([]);
    await queue.sweep();
    expect(bodies(await queue.consume('q', 'g', 'c', 10))).toEqual(['a2']);
  });

  it('starts a group re-created behind its back with empty key lines', async () => {
    const { queue, at, raw } = make();
    const a1 = await a1InFlight(queue);
    const { keys } = at('q', a1);
    await raw("return redis.call('XGROUP', 'DESTROY', KEYS[1], ARGV[1])", [keys.stream], ['g']);
    await queue.createGroup('q', 'g', '0');
    expect(bodies(await queue.consume('q', 'g', 'c', 10))).toEqual(['a1']);
  });

  it('leaves no key lines behind when the group or the queue is deleted', async () => {
    const { queue, at, raw } = make();
    const a1 = await a1InFlight(queue);
    const { keys } = at('q', a1);
    const { turns, heads, keyState } = keys.group('g');
    const lines = [turns, heads, keyState];
    const count = () => raw("return redis.call('EXISTS', KEYS[1], KEYS[2], KEYS[3])", lines);
    expect(await count()).toBe(2);
    await queue.deleteGroup('q', 'g');
    expect(await count()).toBe(0);
    await queue.createGroup('q', 'g', '0');
    await queue.consume('q', 'g', 'c', 10);
    expect(await count()).toBe(2);
    await queue.deleteQueue('q');
    expect(await count()).toBe(0);
  });

  it('does not let grouped messages starve messages without a key, nor the other way round', async () => {
    const { queue, partitions } = make();
    const keys = neighbours(10, partitions);
    await queue.createGroup('q', 'g', '0');
    // Three of each key: they wait in their keys' lines and take turns.
    await queue.produce(
      'q',
      keys.flatMap((key) =>
        [1, 2, 3].map((n) => ({ body: 'grouped', groupKey: key, attributes: { n: `${n}` } })),
      ),
    );
    await queue.produce(
      'q',
      keys.map((key) => ({ body: 'free', partitionKey: key })),
    );
    for (let i = 0; i < 5; i++) {
      const got = await queue.consume('q', 'g', 'c', 2);
      expect(bodies(got).sort()).toEqual(['free', 'grouped']);
      await queue.ack(
        'q',
        'g',
        got.map((m) => m.id),
      );
    }
  });
});

onEveryBackend(
  'ordered message groups: fairness',
  (make) => {
    it('delivers the first message of each of 100 keys within the first 2 × 101 deliveries, behind a key with 5,000', async () => {
      const { queue } = make();
      await queue.createGroup('q', 'g', '0');
      for (let i = 0; i < 5000; i += 1000) {
        await queue.produce(
          'q',
          Array.from({ length: 1000 }, (_, j) => ({ body: { key: 'busy', n: i + j }, groupKey: 'busy' })),
        );
      }
      const keys = Array.from({ length: 100 }, (_, i) => `key-${i}`);
      for (let n = 0; n < 5; n++) {
        await queue.produce(
          'q',
          keys.map((key) => ({ body: { key, n }, groupKey: key })),
        );
      }
      const firsts = new Map<string, number>();
      let deliveries = 0;
      for (let round = 0; deliveries < 2 * 101; round++) {
        const got = await queue.consume('q', 'g', `c${round % 4}`, 10);
        expect(got.length).toBeGreaterThan(0);
        for (const message of got) {
          deliveries++;
          const { key } = message.body as { key: string };
          if (!firsts.has(key)) firsts.set(key, deliveries);
        }
        await queue.ack(
          'q',
          'g',
          got.map((m) => m.id),
        );
      }
      for (const key of keys) expect(firsts.get(key), key).toBeLessThanOrEqual(2 * 101);
    });
  },
  { partitions: [1, 8] },
);
