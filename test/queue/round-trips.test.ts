/**
 * Conformance: every operation is one Redis round trip once its script is cached and its queue
 * registered; registering a new queue costs two more calls, once.
 */
import { expect, it } from 'vitest';
import { onEveryBackend } from './support/suite.ts';

onEveryBackend(
  'round trips',
  (make) => {
    it('runs each operation as a single EVALSHA in the steady state', async () => {
      const { queue, calls, clock } = make();
      const warm = async () => {
        await queue.configure('q', { visibilityTimeoutMs: 1000 });
        await queue.createGroup('q', 'g', '0');
        const ids = await queue.produce('q', [{ body: 1 }, { body: 2 }, { body: 3, delayMs: 10 }]);
        const got = await queue.consume('q', 'g', 'c', 10);
        // A receive attempt, its replay, and a consume with its own lease and byte bound.
        await queue.consume('q', 'g', 'c2', 1, { attemptId: 'attempt', leaseMs: 5000, maxBytes: 1024 });
        await queue.consume('q', 'g', 'c2', 1, { attemptId: 'attempt', leaseMs: 5000, maxBytes: 1024 });
        await queue.extend('q', 'g', 'c', [got[0]?.id as string]);
        await queue.nack('q', 'g', [got[1]?.id as string], 0);
        await queue.ack('q', 'g', [ids[0] as string]);
        // The holder-checked forms: the check and the action in the same script.
        await queue.nack('q', 'g', [got[1]?.id as string], 0, { consumer: 'c' });
        await queue.ack('q', 'g', [got[0]?.id as string], { consumer: 'c', outcomes: true });
        // Ack-and-produce where both partitions share a slot: the ack and the produce in one script.
        await queue.ack('q', 'g', [got[0]?.id as string], {
          consumer: 'c',
          produce: { queue: 'q', messages: [{ body: 'result' }, { body: 'result 2', delayMs: 10 }] },
        });
        await queue.extend('q', 'g', 'c', [got[1]?.id as string], { leaseMs: 0 });
        await queue.reclaim('q', 'g', 'c', { minIdleMs: 0 });
        await queue.pendingSummary('q', 'g');
        await queue.pendingRange('q', 'g', { start: '-', end: '+', count: 10 });
        await queue.browse('q', {});
        await queue.stats('q');
        await queue.getConfig('q');
        await queue.listQueues();
        await queue.listDeadLetters('q', {});
        await queue.redrive('q', { ids: ['1-1'] });
        await queue.purgeDeadLetters('q');
        await queue.purge('q', 'g');
        await queue.describeQueue('q');
        await queue.produce('q', [{ body: 4 }], { mustExist: true });
        await queue.cancelMessage('q', ids[1] as string);
        clock.advance(2000);
      };
      await warm();
      calls.length = 0;
      await warm();
      expect(calls.map((c) => c.command)).toEqual(Array(27).fill('evalsha'));
      await queue.sweep();
      calls.length = 0;
      await queue.sweep();
      // The registry and cursor, then per queue its group names and its sweep step, then the cursor.
      expect(calls.map((c) => `${c.command} ${c.name}`)).toEqual([
        'evalsha queues',
        'evalsha groups',
        'evalsha sweepQueue',
        'evalsha sweepFinish',
      ]);
    });

    it('registers a new queue with two extra calls on its first produce only', async () => {
      const { queue, calls } = make();
      // Cache every script involved (a fresh engine has none), on another queue.
      await queue.produce('warm', [{ body: 0 }]);
      await queue.configure('warm', {});
      await queue.describeQueue('warm');
      await queue.createGroup('warm', 'g', '0');
      calls.length = 0;
      await queue.produce('q', [{ body: 1 }]);
      expect(calls.map((c) => `${c.command} ${c.name}`)).toEqual([
        'evalsha produce',
        'evalsha registryAdd',
        'evalsha queueMark',
      ]);
      calls.length = 0;
      await queue.produce('q', [{ body: 2 }]);
      await queue.configure('q', { maxDeliveries: 3 });
      await queue.createGroup('q', 'g', '0');
      expect(calls.map((c) => `${c.command} ${c.name}`)).toEqual([
        'evalsha produce',
        'evalsha configure',
        'evalsha groupCreate',
      ]);
      expect(await queue.listQueues()).toEqual(['q', 'warm']);
      // Metadata goes with the config: one call to write it, one to read it, one to create only if missing.
      calls.length = 0;
      await queue.configure(
        'q',
        { maxDeliveries: 4 },
        { meta: { attributes: { a: '1' }, tags: { t: '2' } } },
      );
      await queue.describeQueue('q');
      await queue.createQueue('q', { maxDeliveries: 5 }, { meta: { tags: { t: '3' } } });
      expect(calls.map((c) => `${c.command} ${c.name}`)).toEqual([
        'evalsha configure',
        'evalsha configGet',
        'evalsha configure',
      ]);
    });

    it('deletes a queue with its group names, its keys, then its registry entry', async () => {
      const { queue, calls } = make();
      await queue.createGroup('q', 'g', '0');
      await queue.deleteQueue('q');
      await queue.createGroup('q', 'g', '0');
      calls.length = 0;
      expect(await queue.deleteQueue('q')).toBe(true);
      expect(calls.map((c) => `${c.command} ${c.name}`)).toEqual([
        'evalsha groups',
        'evalsha queueDelete',
        'evalsha registryRemove',
        'evalsha queueUnmark',
      ]);
      expect(await queue.listQueues()).toEqual([]);
    });
  },
  { partitions: [1] },
);

/**
 * On a partitioned queue an operation costs one round trip per partition it touches: a consume
 * that finds enough in the first partition it tries touches only that one, ids route straight to
 * their partitions, and calls over the whole queue touch each partition once.
 */
onEveryBackend(
  'round trips over partitions',
  (make) => {
    it('touches one partition per call where one suffices, and each partition once for the whole queue', async () => {
      // Rotation starts at partition 0 for produce and consume alike, so they meet: the n-th
      // unkeyed produce lands where the n-th consume starts.
      const { queue, calls, clock } = make({ defaults: { partitions: 8 }, random: () => 0 });
      await queue.createGroup('q', 'g', '0');
      // Cache every script involved on every partition (a cluster caches scripts per master), and
      // this instance's partition count: eight produces and consumes, one per partition.
      const warmed: string[] = [];
      for (let p = 0; p < 8; p++) warmed.push(...(await queue.produce('q', [{ body: p }])));
      for (let p = 0; p < 8; p++) await queue.consume('q', 'g', 'c', 1);
      const warm = warmed[0];
      await queue.extend('q', 'g', 'c', [warm as string]);
      await queue.nack('q', 'g', [warm as string], 60_000);
      await queue.ack('q', 'g', [warm as string]);
      await queue.stats('q');
      await queue.pendingSummary('q', 'g');
      calls.length = 0;
      const ids = await queue.produce('q', [{ body: 1 }, { body: 2 }, { body: 3 }]);
      expect(calls.map((c) => c.name)).toEqual(['produce']);
      calls.length = 0;
      const got = await queue.consume('q', 'g', 'c', 3);
      expect(got.map((m) => m.id)).toEqual(ids);
      expect(calls.map((c) => c.name)).toEqual(['consume']);
      // A consume that finds nothing tries each partition once.
      calls.length = 0;
      expect(await queue.consume('q', 'g', 'c', 3)).toEqual([]);
      expect(calls.map((c) => c.name)).toEqual(Array(8).fill('consume'));
      // Ids of one partition: one call each for ack, nack and extend.
      calls.length = 0;
      await queue.extend('q', 'g', 'c', [ids[0] as string]);
      await queue.nack('q', 'g', [ids[1] as string], 0);
      await queue.ack('q', 'g', [ids[2] as string]);
      await queue.extend('q', 'g', 'c', [ids[0] as string], { leaseMs: 10 });
      await queue.nack('q', 'g', [ids[1] as string], 0, { consumer: 'c' });
      await queue.ack('q', 'g', [ids[0] as string], { consumer: 'c', outcomes: true });
      expect(calls.map((c) => c.name)).toEqual(['extend', 'nack', 'ack', 'extend', 'nack', 'ack']);
      // The whole queue: each of the 8 partitions once.
      calls.length = 0;
      await queue.stats('q');
      expect(calls.map((c) => c.name)).toEqual(Array(8).fill('stats'));
      calls.length = 0;
      await queue.pendingSummary('q', 'g');
      expect(calls.map((c) => c.name)).toEqual(Array(8).fill('pendingSummary'));
      clock.advance(1);
    });

    it('creates a new partitioned queue with its partitions before registering it', async () => {
      const { queue, calls } = make({ defaults: { partitions: 4 } });
      await queue.produce('warm', [{ body: 0 }]);
      calls.length = 0;
      await queue.produce('q', [{ body: 1 }]);
      expect(calls.map((c) => c.name)).toEqual([
        'produce',
        'registryAdd',
        'configGet',
        'groups',
        'partitionSync',
        'partitionSync',
        'partitionSync',
        'queueMark',
      ]);
      calls.length = 0;
      await queue.produce('q', [{ body: 2, partitionKey: 'k' }]);
      expect(calls.map((c) => c.name)).toEqual(['produce']);
    });
  },
  { partitions: [8] },
);
