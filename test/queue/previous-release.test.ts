/**
 * Data is a contract: a queue written by the last landed release (7c8ae99, before ordered message
 * groups) with that release's own scripts, verbatim in test/queue/fixtures/release-7c8ae99-scripts.ts
 * — its leases, held counts, a nack, a dedup key, a delayed message with a TTL — is served by the
 * current code with nothing lost, nothing delivered twice and nothing changed. Then a rolling
 * upgrade: an instance of that release acks a grouped message (the sweep releases its key) and
 * consumes a reserved one (delivered once, its key released by the current ack).
 */
import { expect, it } from 'vitest';
import { storedDefaults } from '../../lib/queue/config.ts';
import { DEFAULT_CONFIG } from '../../lib/queue/rules.ts';
import { createScriptRunner } from '../../lib/queue/script-runner.ts';
import { release7c8ae99 as release } from './fixtures/release-7c8ae99-scripts.ts';
import { releaseEcdb9b1 as previous } from './fixtures/release-ecdb9b1-scripts.ts';
import { onEveryBackend } from './support/suite.ts';

const config = storedDefaults(DEFAULT_CONFIG);
const message = (body: unknown, extra: { attributes?: string; delayMs?: number; ttlMs?: number } = {}) => ({
  body: JSON.stringify(body),
  attributes: extra.attributes ?? '',
  delayMs: extra.delayMs ?? 0,
  ttlMs: extra.ttlMs ?? 0,
  dedupKey: 0,
});

/**
 * What that release's scripts are called on: the runner picks their KEYS by the names in their
 * headers, the same names the keys have today.
 */
const onGroup = { queue: 'q', group: 'g' };

onEveryBackend(
  'data written by the previous release (7c8ae99)',
  (make) => {
    it('serves its queue: leases, held counts, a nack, a dedup key and a delayed message, each delivered once', async () => {
      const { queue, clock, keys, client } = make();
      const old = createScriptRunner(client, keys);
      await old(release.groupCreate, onGroup, { start: '0', create: 1 });
      const { ids } = (await old(
        release.produce,
        { queue: 'q', dedup: ['first'] },
        {
          now: clock.now(),
          config,
          create: 1,
          known: 1,
          keyed: 0,
          messages: [
            { ...message(1), dedupKey: 1 },
            message(2, { attributes: '{"a":"b"}' }),
            message(3),
            message(4),
            message(5, { delayMs: 1000, ttlMs: 60_000 }),
            message(6, { ttlMs: 60_000 }),
          ],
        },
      )) as { ids: string[] };
      const held = (await old(release.consume, onGroup, {
        consumer: 'old',
        count: 3,
        now: clock.now(),
        config,
      })) as { messages: { id: string }[] };
      expect(held.messages.map((m) => m.id)).toEqual(ids.slice(0, 3));
      await old(release.nack, onGroup, { now: clock.now(), delayMs: 0, config, ids: [ids[1] as string] });

      // The current code: the queue as that release left it.
      const stats = await queue.stats('q');
      expect(stats).toMatchObject({ length: 5, delayed: 1, deadLetters: 0 });
      expect(stats.groups[0]).toMatchObject({ pending: 3, lag: 2, keyedWaiting: 0, waitingKeys: 0 });
      expect(await queue.produce('q', [{ body: 1, dedupId: 'first' }])).toEqual([ids[0]]);
      const seen = new Map<unknown, number[]>();
      const take = async (consumer: string) => {
        const got = await queue.consume('q', 'g', consumer, 10);
        for (const m of got) seen.set(m.body, [...(seen.get(m.body) ?? []), m.deliveries]);
        if (got.length > 0)
          await queue.ack(
            'q',
            'g',
            got.map((m) => m.id),
          );
        return got;
      };
      // The nacked one (its second delivery) and the two never delivered.
      expect((await take('new')).map((m) => [m.body, m.deliveries]).sort()).toEqual([
        [2, 2],
        [4, 1],
        [6, 1],
      ]);
      clock.advance(1000);
      const [late] = await take('new');
      expect(late).toMatchObject({ body: 5, deliveries: 1 });
      // The old consumer's other two come back once their leases (30 s) run out.
      clock.advance(30_000);
      expect((await take('new')).map((m) => [m.body, m.deliveries]).sort()).toEqual([
        [1, 2],
        [3, 2],
      ]);
      expect([...seen.keys()].sort()).toEqual([1, 2, 3, 4, 5, 6]);
      expect([...seen.values()].every((deliveries) => deliveries.length === 1)).toBe(true);
      expect(await queue.pendingSummary('q', 'g')).toMatchObject({ pending: 0, consumers: [] });
      expect((await queue.stats('q')).groups[0]).toMatchObject({ pending: 0, lag: 0 });
      expect((await queue.listDeadLetters('q', {})).deadLetters).toEqual([]);
    });

    it('acks its leased messages with ack-and-produce into a queue it wrote, each result once', async () => {
      const { queue, clock, keys, client } = make();
      const old = createScriptRunner(client, keys);
      await old(release.groupCreate, onGroup, { start: '0', create: 1 });
      await old(release.groupCreate, { queue: 'next', group: 'g' }, { start: '0', create: 1 });
      await old(
        release.produce,
        { queue: 'q', dedup: [] },
        { now: clock.now(), config, create: 1, known: 1, keyed: 0, messages: [message(1), message(2)] },
      );
      const held = (await old(release.consume, onGroup, {
        consumer: 'old',
        count: 2,
        now: clock.now(),
        config,
      })) as { messages: { id: string }[] };
      const [a, b] = held.messages.map((m) => m.id) as [string, string];
      // The current code acks what the old release leased, as its holder, with results for `next`.
      const answer = await queue.ack('q', 'g', [a, b], {
        consumer: 'old',
        produce: {
          queue: 'next',
          messages: [
            { body: 'from 1', from: a },
            { body: 'from 2', from: b },
          ],
        },
      });
      expect(answer.outcomes).toEqual(['acked', 'acked']);
      const again = await queue.ack('q', 'g', [a, b], {
        consumer: 'old',
        produce: {
          queue: 'next',
          messages: [
            { body: 'from 1', from: a },
            { body: 'from 2', from: b },
          ],
        },
      });
      expect(again.produced).toEqual([null, null]);
      expect(await queue.pendingSummary('q', 'g')).toMatchObject({ pending: 0, consumers: [] });
      const results = await queue.consume('next', 'g', 'new', 10);
      expect(results.map((m) => m.body)).toEqual(['from 1', 'from 2']);
    });

    it('reads the config record it wrote: no metadata, its creation time, and takes metadata after', async () => {
      const { queue, clock, keys, client } = make();
      const old = createScriptRunner(client, keys);
      await old(release.groupCreate, onGroup, { start: '0', create: 1 });
      const described = await queue.describeQueue('q');
      expect(described?.config).toEqual(await queue.getConfig('q'));
      expect(described?.meta).toMatchObject({ attributes: {}, tags: {} });
      // That release kept no createdAt: the record's epoch (the backend's TIME at creation) stands in.
      expect(described?.meta.createdAt).toBeGreaterThan(1_600_000_000_000);
      expect(described?.meta.lastModifiedAt).toBe(described?.meta.createdAt);
      clock.advance(1000);
      await queue.configure(
        'q',
        { maxDeliveries: 4 },
        { meta: { attributes: { A: '1' }, tags: { t: 'v' } } },
      );
      expect(await queue.describeQueue('q')).toEqual({
        config: expect.objectContaining({ maxDeliveries: 4 }),
        meta: {
          attributes: { A: '1' },
          tags: { t: 'v' },
          createdAt: described?.meta.createdAt,
          lastModifiedAt: clock.now(),
        },
      });
      // The old produce still serves the queue with metadata in its record.
      await old(
        release.produce,
        { queue: 'q', dedup: [] },
        { now: clock.now(), config, create: 1, known: 1, keyed: 0, messages: [message('m')] },
      );
      expect((await queue.consume('q', 'g', 'c', 10)).map((m) => m.body)).toEqual(['m']);
    });

    it('reads its config record, which has no rate limit fields, as no limits, then takes one', async () => {
      const { queue, clock, keys, client } = make();
      const old = createScriptRunner(client, keys);
      await old(release.groupCreate, onGroup, { start: '0', create: 1 });
      await old(
        release.produce,
        { queue: 'q', dedup: [] },
        {
          now: clock.now(),
          config,
          create: 1,
          known: 1,
          keyed: 0,
          messages: [1, 2, 3, 4, 5].map((n) => message(n)),
        },
      );
      expect(await queue.getConfig('q')).toMatchObject({
        rateLimit: null,
        keyRateLimit: null,
        partitions: 1,
      });
      const first = await queue.consume('q', 'g', 'c', 3);
      expect(first.map((m) => m.body)).toEqual([1, 2, 3]);
      await queue.ack(
        'q',
        'g',
        first.map((m) => m.id),
      );
      expect((await queue.stats('q')).groups[0]).toMatchObject({
        rateLimitUsed: 0,
        rateLimitThrottled: false,
        throttledKeys: 0,
      });
      await queue.configure('q', { rateLimit: { max: 1, periodMs: 60_000 } });
      clock.set(clock.now() - (clock.now() % 60_000) + 60_000);
      const [fourth] = await queue.consume('q', 'g', 'c', 10);
      expect(fourth?.body).toBe(4);
      expect(await queue.consume('q', 'g', 'c', 10)).toEqual([]);
      await queue.ack('q', 'g', [fourth?.id as string]);
      clock.advance(60_000);
      expect((await queue.consume('q', 'g', 'c', 10)).map((m) => m.body)).toEqual([5]);
    });

    it('keeps grouped messages whole while an instance of that release acks and consumes beside the current code', async () => {
      const { queue, keys, client, clock } = make();
      const old = createScriptRunner(client, keys);
      await queue.createGroup('q', 'g', '0');
      const [a1] = (await queue.produce('q', [
        { body: 'a1', groupKey: 'a' },
        { body: 'a2', groupKey: 'a' },
      ])) as [string];
      expect((await queue.consume('q', 'g', 'new', 10)).map((m) => m.body)).toEqual(['a1']);
      // That release's ack releases no key: a2 waits until the sweep sees a1 is no longer pending.
      const acked = (await old(release.ack, onGroup, { ids: [a1] })) as { acked: number };
      expect(acked.acked).toBe(1);
      expect(await queue.consume('q', 'g', 'new', 10)).toEqual([]);
      await queue.sweep();
      const [a2] = await queue.consume('q', 'g', 'new', 10);
      expect(a2?.body).toBe('a2');
      await queue.ack('q', 'g', [a2?.id as string]);
      // A message of an idle key stays in the stream, reserved: that release's consume delivers it.
      const [b1] = (await queue.produce('q', [{ body: 'b1', groupKey: 'b' }])) as [string];
      const got = (await old(release.consume, onGroup, {
        consumer: 'old',
        count: 10,
        now: clock.now(),
        config,
      })) as { messages: { id: string }[] };
      expect(got.messages.map((m) => m.id)).toEqual([b1]);
      // The current ack releases its key: b's next message goes.
      expect(await queue.ack('q', 'g', [b1])).toBe(1);
      const [b2] = (await queue.produce('q', [{ body: 'b2', groupKey: 'b' }])) as [string];
      expect((await queue.consume('q', 'g', 'new', 10)).map((m) => m.id)).toEqual([b2]);
      expect((await queue.stats('q')).groups[0]).toMatchObject({ pending: 1, lag: 0, keyedWaiting: 0 });
    });
  },
  // That release's scripts name partition 0's keys: the queue it wrote has one partition.
  { partitions: [1] },
);

/**
 * A rolling upgrade from the release before issue 27's fourth phase (ecdb9b1): its consume, ack and
 * nack scripts (verbatim, test/queue/fixtures/release-ecdb9b1-scripts.ts) and the current ones act
 * on one group in turns. The current scripts keep a consumer's held count in the script and write
 * it once at the end (one HSET) where that release went HINCRBY by HINCRBY: each side must read
 * what the other left, so maxInFlightPerConsumer caps the consumer exactly and nothing is lost.
 */
onEveryBackend(
  'a group acted on by the previous release (ecdb9b1) and the current code in turns',
  (make) => {
    it('keeps one held count per consumer across both, and a nack by that release redelivers once', async () => {
      const { queue, keys, client, clock } = make();
      const old = createScriptRunner(client, keys);
      const scope = { queue: 'q', partition: 0, group: 'g' };
      const oldConsume = async (consumer: string, count: number) =>
        (
          (await old(previous.consume, scope, {
            consumer,
            count,
            now: clock.now(),
            leaseMs: 30_000,
            maxBytes: 1_000_000,
            answered: 0,
            config,
            partition: 0,
          })) as { messages: { id: string }[] }
        ).messages.map((m) => m.id);
      const oldAck = async (consumer: string, ids: string[]) =>
        ((await old(previous.ack, scope, { consumer, outcomes: 1, ids })) as { acked: number }).acked;
      const newConsume = async (consumer: string, count: number) =>
        (await queue.consume('q', 'g', consumer, count)).map((m) => ({ id: m.id, deliveries: m.deliveries }));

      await queue.configure('q', { maxInFlightPerConsumer: 5 });
      await queue.createGroup('q', 'g', '0');
      const ids = await queue.produce(
        'q',
        Array.from({ length: 12 }, (_, i) => ({ body: i })),
      );

      const first = await oldConsume('c', 3);
      expect(first).toEqual(ids.slice(0, 3));
      // The current consume reads the held count that release wrote: 2 more, up to the cap of 5.
      const second = await newConsume('c', 10);
      expect(second.map((m) => m.id)).toEqual(ids.slice(3, 5));
      // That release's ack lowers the count the current consume then reads.
      expect(await oldAck('c', [first[0] as string])).toBe(1);
      expect((await newConsume('c', 10)).map((m) => m.id)).toEqual([ids[5]]);
      // The current ack lowers it (one HSET), and that release's consume reads what it left: 2 held.
      expect(await queue.ack('q', 'g', [first[1] as string, ...second.map((m) => m.id)])).toBe(3);
      const third = await oldConsume('c', 10);
      expect(third).toEqual(ids.slice(6, 9));
      expect(await newConsume('c', 10)).toEqual([]);

      // That release's nack gives one back: another consumer gets it once more, with the rest.
      const requeued = (await old(previous.nack, scope, {
        consumer: 'c',
        now: clock.now(),
        delayMs: 0,
        config,
        ids: [third[0] as string],
      })) as { requeued: number };
      expect(requeued.requeued).toBe(1);
      const fourth = await newConsume('d', 10);
      expect(fourth).toEqual([
        { id: third[0], deliveries: 2 },
        { id: ids[9], deliveries: 1 },
        { id: ids[10], deliveries: 1 },
        { id: ids[11], deliveries: 1 },
      ]);
      // c holds first[2], ids[5], third[1], third[2]; d holds the four it took. All acked, none left.
      const held = [first[2], ids[5], third[1], third[2]] as string[];
      expect(await oldAck('c', held.slice(0, 2))).toBe(2);
      expect(await queue.ack('q', 'g', [...held.slice(2), ...fourth.map((m) => m.id)])).toBe(6);
      expect(await queue.pendingSummary('q', 'g')).toMatchObject({ pending: 0 });
      expect((await queue.stats('q')).groups[0]).toMatchObject({ pending: 0, lag: 0 });
      // Both consumers can take their full cap again: no count was left behind.
      const more = await queue.produce(
        'q',
        Array.from({ length: 10 }, (_, i) => ({ body: 100 + i })),
      );
      expect(await oldConsume('c', 10)).toEqual(more.slice(0, 5));
      expect((await newConsume('d', 10)).map((m) => m.id)).toEqual(more.slice(5, 10));
    });
  },
  // That release's scripts are called here with partition 0's keys: one partition.
  { partitions: [1] },
);
