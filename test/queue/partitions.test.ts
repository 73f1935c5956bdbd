/**
 * Conformance: partitioned queues on every backend. A queue written by the release before
 * partitions keeps working unchanged; partitionKey routing and per-key order; even spread; fair
 * consumption; growing a live queue under load loses nothing and delivers nothing twice; groups
 * on partitions added later; shrinking refused; config copied to every partition.
 */
import { expect, it } from 'vitest';
import { isQueueError } from '../../lib/queue/errors.ts';
import { type KeyScope, scriptKeys } from '../../lib/queue/keys.ts';
import { decodeId } from '../../lib/queue/partitions/ids.ts';
import { encodeParams } from '../../lib/queue/script-binding.ts';
import { scripts } from '../../lib/queue/scripts.generated.ts';
import type { QueueService } from '../../lib/queue/types.ts';
import type { RedisClient, RedisValue } from '../../lib/redis/client.ts';
import { previousRelease } from './fixtures/previous-release-scripts.ts';
import { type Harness, onEveryBackend } from './support/suite.ts';

const VT = 1000;

/**
 * Runs one of the previous release's scripts on what `scope` names, its KEYS picked by the names
 * its header gives them (the same names today), with its named arguments.
 */
function oldScript(
  h: Harness,
  name: keyof typeof previousRelease,
  scope: KeyScope,
  args: Record<string, unknown>,
): Promise<RedisValue> {
  const script = previousRelease[name];
  return h.raw(script.source, scriptKeys(h.keys, script.keys, scope), encodeParams(script.args, args));
}

function partitionOfId(id: string): number {
  return decodeId(id).partition;
}

onEveryBackend(
  'partitions',
  (make) => {
    it('reads and serves a queue written by the release before partitions, keys and ids unchanged', async () => {
      // New queues get 8 partitions here; the old queue must stay the 1-partition queue it is.
      const h = make();
      const { queue, clock, keys } = h;
      const defaults = {
        visibilityTimeoutMs: VT,
        maxDeliveries: 5,
        dedupWindowMs: 300_000,
        retentionMs: 0,
        consumerIdleMs: 3_600_000,
        maxInFlightPerConsumer: 1000,
      };
      // What the previous release did: configure, register, create a group, produce (one with a
      // dedupId), consume one message and leave it pending.
      const orders = { queue: 'orders' };
      await oldScript(h, 'configure', orders, { queue: 'orders', patch: { maxDeliveries: 7 } });
      await oldScript(h, 'registryAdd', {}, { queue: 'orders' });
      await oldScript(h, 'queueMark', orders, {});
      await oldScript(h, 'groupCreate', orders, { queue: 'orders', group: 'g', start: '0' });
      const produced = (await oldScript(
        h,
        'produce',
        { queue: 'orders', dedup: ['d-1'] },
        {
          queue: 'orders',
          now: clock.now(),
          config: defaults,
          messages: [
            { body: '"first"', attributes: '', delayMs: 0, dedupKey: 1 },
            { body: '"second"', attributes: '{"a":"b"}', delayMs: 0, dedupKey: 0 },
            { body: '"third"', attributes: '', delayMs: 0, dedupKey: 0 },
          ],
        },
      )) as string[];
      const oldIds = produced.slice(2);
      const consumed = (await oldScript(
        h,
        'consume',
        { queue: 'orders', group: 'g' },
        { group: 'g', consumer: 'old-worker', count: 1, now: clock.now(), config: defaults },
      )) as [string, number, [string, number, string[]]];
      expect(consumed[2][0]).toBe(oldIds[0]);

      // The current code reads it as the queue it was: one partition, the keys and ids it had.
      expect(await queue.listQueues()).toEqual(['orders']);
      expect(await queue.getConfig('orders')).toMatchObject({ maxDeliveries: 7, partitions: 1 });
      expect(await queue.stats('orders')).toMatchObject({
        partitions: 1,
        length: 3,
        groups: [{ name: 'g', pending: 1, lag: 2, consumers: 1, lastDeliveredId: oldIds[0] }],
      });
      // The dedupId the old release stored still answers the first id.
      expect(await queue.produce('orders', [{ body: 'first', dedupId: 'd-1' }])).toEqual([oldIds[0]]);
      const rest = await queue.consume('orders', 'g', 'new-worker', 10);
      expect(rest.map((m) => [m.id, m.body, m.attributes])).toEqual([
        [oldIds[1], 'second', { a: 'b' }],
        [oldIds[2], 'third', {}],
      ]);
      // The message the old release leased comes back once its lease (in its lease index) expires.
      clock.advance(VT);
      const again = await queue.consume('orders', 'g', 'new-worker', 10);
      expect(again.map((m) => [m.id, m.deliveries])).toEqual([[oldIds[0], 2]]);
      expect(await queue.ack('orders', 'g', oldIds as string[])).toBe(3);
      // Growing it keeps partition 0 where it was and adds {orders#1}, … beside it.
      expect((await queue.configure('orders', { partitions: 3 })).partitions).toBe(3);
      const grown = await queue.produce(
        'orders',
        [1, 2, 3, 4, 5, 6].map((n) => ({ body: n, partitionKey: `k${n}` })),
      );
      const got = await queue.consume('orders', 'g', 'new-worker', 10);
      expect(got.map((m) => m.id).sort()).toEqual([...grown].sort());
      expect(new Set(grown.map(partitionOfId)).size).toBeGreaterThan(1);
      expect(await h.raw("return redis.call('EXISTS', KEYS[1])", [keys.queue('orders', 2).config])).toBe(1);
      expect(keys.queue('orders', 2).config).toBe(
        `${keys.queue('orders').config.split('{')[0]}{orders#2}:config`,
      );
    });

    it('keeps a partitionKey in one partition, in order, and spreads unkeyed calls evenly', async () => {
      const { queue } = make({ random: () => 0 });
      await queue.createGroup('q', 'g', '0');
      const byKey = new Map<string, string[]>();
      for (let round = 0; round < 5; round++) {
        const messages = Array.from({ length: 12 }, (_, i) => ({
          body: { key: `key-${i}`, round },
          partitionKey: `key-${i}`,
        }));
        const ids = await queue.produce('q', messages);
        ids.forEach((id, i) => {
          const list = byKey.get(`key-${i}`) ?? [];
          list.push(id);
          byKey.set(`key-${i}`, list);
        });
      }
      for (const ids of byKey.values()) expect(new Set(ids.map(partitionOfId)).size).toBe(1);
      expect(new Set([...byKey.values()].map((ids) => partitionOfId(ids[0] as string))).size).toBeGreaterThan(
        1,
      );
      // Delivered per key in the order produced.
      const delivered = await queue.consume('q', 'g', 'c', 1000);
      expect(delivered).toHaveLength(60);
      for (const [key, ids] of byKey) {
        expect(delivered.filter((m) => (m.body as { key: string }).key === key).map((m) => m.id)).toEqual(
          ids,
        );
      }
      // A lookup by id (browse or pending from the id to the id) finds that message alone, in
      // whichever partition it is, although other partitions may hold the same Redis id.
      for (const ids of [...byKey.values()].slice(0, 4)) {
        const id = ids[2] as string;
        expect((await queue.browse('q', { start: id, end: id })).map((m) => m.id)).toEqual([id]);
        const pending = await queue.pendingRange('q', 'g', { start: id, end: id, count: 10 });
        expect(pending.map((e) => e.id)).toEqual([id]);
      }
      // Unkeyed calls rotate over the partitions: 16 calls, 2 per partition.
      const counts = new Map<number, number>();
      for (let i = 0; i < 16; i++) {
        const [id] = await queue.produce('q', [{ body: i }]);
        const p = partitionOfId(id as string);
        counts.set(p, (counts.get(p) ?? 0) + 1);
      }
      expect([...counts.values()]).toEqual(Array(8).fill(2));
    });

    it('serves every partition in turn, so none starves while another has a backlog', async () => {
      const { queue } = make();
      await queue.createGroup('q', 'g', '0');
      // A deep backlog in one partition and one message in each of the others.
      await queue.produce(
        'q',
        Array.from({ length: 200 }, (_, i) => ({ body: i, partitionKey: 'hot' })),
      );
      for (let n = 0; n < 64; n++) await queue.produce('q', [{ body: `k${n}`, partitionKey: `k${n}` }]);
      const served = new Set<number>();
      for (let i = 0; i < 8; i++) {
        const got = await queue.consume('q', 'g', 'c', 1);
        served.add(partitionOfId(got[0]?.id as string));
      }
      expect(served.size).toBe(8);
    });

    it('grows a live queue under load without losing or doubling a message', async () => {
      const { queue, clock, another } = make({ defaults: { partitions: 2, visibilityTimeoutMs: VT } });
      // Separate instances: each has its own idea of the partition count, learned as it goes.
      const producers = [another(), another()];
      const consumers = [another(), another(), another()];
      const admin = another();
      await queue.createGroup('q', 'g', '0');
      const BATCHES = 24;
      const produced = new Set<string>();
      const acked = new Map<string, number>();
      const holders = new Map<string, { consumer: string; until: number }>();
      let producersDone = 0;
      let n = 0;
      // Every task yields to the event loop between calls (the in-process engine answers in
      // microtasks), so producing, consuming and growing interleave on every backend.
      const tick = () => new Promise((resolve) => setTimeout(resolve, 0));
      const produce = async (p: QueueService) => {
        for (let i = 0; i < BATCHES; i++) {
          const batch = Array.from({ length: 5 }, () => {
            n++;
            return n % 3 === 0 ? { body: n, partitionKey: `k${n % 7}` } : { body: n };
          });
          for (const id of await p.produce('q', batch)) produced.add(id);
          await tick();
        }
        producersDone++;
      };
      const consumeOnce = async (c: QueueService, name: string) => {
        const got = await c.consume('q', 'g', name, 7);
        const now = clock.now();
        for (const m of got) {
          const holder = holders.get(m.id);
          if (holder !== undefined && holder.until > now) {
            throw new Error(`${m.id} delivered to ${name} while ${holder.consumer} held it`);
          }
          holders.set(m.id, { consumer: name, until: now + VT });
        }
        if (got.length > 0) {
          const ids = got.map((m) => m.id);
          expect(await c.ack('q', 'g', ids)).toBe(ids.length);
          for (const id of ids) acked.set(id, (acked.get(id) ?? 0) + 1);
        }
      };
      const consume = async (c: QueueService, name: string) => {
        while (producersDone < producers.length) {
          await consumeOnce(c, name);
          await tick();
        }
      };
      const grow = async () => {
        for (const [size, after] of [
          [3, 20],
          [5, 80],
          [8, 150],
        ] as const) {
          while (produced.size < after) await tick();
          expect((await admin.configure('q', { partitions: size })).partitions).toBe(size);
        }
      };
      await Promise.all([...producers.map(produce), ...consumers.map((c, i) => consume(c, `c${i}`)), grow()]);
      // Drain what is left, from every consumer instance in turn.
      for (let i = 0; i < 100 && acked.size < produced.size; i++) {
        await consumeOnce(consumers[i % consumers.length] as QueueService, `c${i % consumers.length}`);
      }
      expect(produced.size).toBe(producers.length * BATCHES * 5);
      expect([...acked.values()].every((times) => times === 1)).toBe(true);
      expect(new Set(acked.keys())).toEqual(produced);
      expect((await queue.stats('q')).partitions).toBe(8);
      expect(new Set([...produced].map(partitionOfId)).size).toBeGreaterThan(4);
      const stats = await queue.stats('q');
      expect(stats.groups[0]).toMatchObject({ pending: 0, lag: 0 });
    });

    it("gives partitions added later the queue's groups: a '$' group gets every message produced after it", async () => {
      const { queue } = make({ defaults: { partitions: 2 } });
      await queue.produce('q', [{ body: 'before-a' }, { body: 'before-b', partitionKey: 'x' }]);
      await queue.createGroup('q', 'new-only', '$');
      await queue.createGroup('q', 'all', '0');
      await queue.produce('q', [{ body: 'after-1' }]);
      await queue.configure('q', { partitions: 6 });
      const later = await queue.produce(
        'q',
        Array.from({ length: 12 }, (_, i) => ({ body: `after-grow-${i}`, partitionKey: `p${i}` })),
      );
      expect(later.some((id) => partitionOfId(id) >= 2)).toBe(true);
      const fresh = await queue.consume('q', 'new-only', 'c', 100);
      expect(fresh.map((m) => m.body).sort()).toEqual(
        ['after-1', ...Array.from({ length: 12 }, (_, i) => `after-grow-${i}`)].sort(),
      );
      const all = await queue.consume('q', 'all', 'c', 100);
      expect(all).toHaveLength(15);
      // A group created after growing exists on every partition.
      await queue.createGroup('q', 'late', '0');
      expect((await queue.consume('q', 'late', 'c', 100)).length).toBe(15);
    });

    it('keeps groups and messages whole when groups change, or producers learn the count, mid-growth', async () => {
      const { queue, client, another, raw, keys } = make({ defaults: { partitions: 2 } });
      await queue.createGroup('q', 'kept', '0');
      await queue.createGroup('q', 'doomed', '0');
      const producer = another();
      const early: string[] = [];
      // Just before partition 0 raises its count: the new partitions exist and the old copies
      // already say 6. Another instance creates a group, deletes one, and produces by key.
      const racing: RedisClient = {
        async evalsha(sha, keys, args) {
          if (sha === scripts.partitionsGrow.sha) {
            await queue.createGroup('q', 'added', '0');
            await queue.deleteGroup('q', 'doomed');
            early.push(
              ...(await producer.produce(
                'q',
                Array.from({ length: 24 }, (_, i) => ({ body: i, partitionKey: `early-${i}` })),
              )),
            );
          }
          return client.evalsha(sha, keys, args);
        },
        eval: (source, keys, args) => client.eval(source, keys, args),
      };
      expect((await another({ redis: racing }).configure('q', { partitions: 6 })).partitions).toBe(6);
      // The producer learned 6 from a copy and used the new partitions before partition 0 said so.
      expect(early.some((id) => partitionOfId(id) >= 2)).toBe(true);
      const fresh = another();
      for (const group of ['kept', 'added']) {
        const got = await fresh.consume('q', group, 'c', 100);
        expect(got.map((m) => m.id).sort()).toEqual([...early].sort());
      }
      await expect(fresh.consume('q', 'doomed', 'c', 100)).rejects.toSatisfy((e) =>
        isQueueError(e, 'GROUP_NOT_FOUND'),
      );
      expect((await fresh.stats('q')).groups.map((g) => g.name).sort()).toEqual(['added', 'kept']);
      // On every partition, new ones included: exactly the groups partition 0 has.
      for (let p = 0; p < 6; p++) {
        const names = await raw(
          "local out = {} for _, g in ipairs(redis.call('XINFO', 'GROUPS', KEYS[1])) do out[#out + 1] = g[2] end return out",
          [keys.queue('q', p).stream],
        );
        expect((names as string[]).sort(), `partition ${p}`).toEqual(['added', 'kept']);
      }
    });

    it('refuses to shrink with CONFLICT and changes nothing', async () => {
      const { queue } = make();
      await queue.configure('q', { partitions: 4, maxDeliveries: 3 });
      await expect(queue.configure('q', { partitions: 2, maxDeliveries: 9 })).rejects.toMatchObject({
        code: 'CONFLICT',
        message: 'partitions can only grow: the queue has 4 partitions',
      });
      expect(await queue.getConfig('q')).toMatchObject({ partitions: 4, maxDeliveries: 3 });
      expect((await queue.configure('q', { partitions: 4 })).partitions).toBe(4);
    });

    it('applies a config change on every partition', async () => {
      const { queue, clock } = make();
      await queue.createGroup('q', 'g', '0');
      await queue.configure('q', { visibilityTimeoutMs: 60_000 });
      const ids = await queue.produce(
        'q',
        Array.from({ length: 16 }, (_, i) => ({ body: i, partitionKey: `k${i}` })),
      );
      expect(new Set(ids.map(partitionOfId)).size).toBeGreaterThan(3);
      expect(await queue.consume('q', 'g', 'a', 100)).toHaveLength(16);
      clock.advance(30_000);
      // Not taken back at the default 30 s on any partition: the 60 s lease holds everywhere.
      expect(await queue.consume('q', 'g', 'b', 100)).toEqual([]);
      clock.advance(30_000);
      expect(await queue.consume('q', 'g', 'b', 100)).toHaveLength(16);
    });
  },
  { partitions: [8] },
);
