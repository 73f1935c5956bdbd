/**
 * A master of a 3-master Redis Cluster killed (SIGKILL) and restarted mid-run, under producers
 * and consumers on a queue spread over 8 partitions (so over every master). The cluster is this
 * file's own (the shared one must not lose a node), with an fsync'd append-only file, as a
 * durable deployment runs. Calls fail while the master is down (REDIS_UNAVAILABLE, the whole
 * cluster refuses while a slot is uncovered) and the workers retry; after the restart nothing
 * acked comes back, nothing produced is lost, and no message is delivered to a second consumer
 * while the first one's lease holds.
 */
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIoredisClusterClient } from '../../functions/support/ioredis-cluster-client.ts';
import { createManualClock } from '../../lib/clock.ts';
import { isQueueError } from '../../lib/queue/errors.ts';
import { createQueueService } from '../../lib/queue/service.ts';
import type { Message, QueueService } from '../../lib/queue/types.ts';
import { withDeadline } from '../../lib/redis/deadline.ts';
import { REQUIRE_REDIS } from '../support/redis.ts';
import { clusterToolsAvailable, startCluster, type TestCluster } from '../support/redis-cluster.ts';

const VT = 60_000;
const MESSAGES = 240;
const CONSUMERS = 3;

/** Retries a call while the cluster is unavailable (what a worker does on a 503). */
async function retry<T>(call: () => Promise<T>, outage: { failures: number }): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (!isQueueError(error, 'REDIS_UNAVAILABLE') || attempt > 400) throw error;
      outage.failures++;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

describe.skipIf(!clusterToolsAvailable() && !REQUIRE_REDIS)(
  'a Redis Cluster master restarted mid-run',
  () => {
    let cluster: TestCluster;
    let connection: Cluster;
    let queue: QueueService;
    const clock = createManualClock();

    beforeAll(async () => {
      cluster = await startCluster({ masters: 3, appendonly: true, nodeTimeoutMs: 1000 });
      connection = new Cluster(
        cluster.nodes.map(({ host, port }) => ({ host, port })),
        { redisOptions: { maxRetriesPerRequest: 1 }, clusterRetryStrategy: () => 100 },
      );
      connection.on('error', () => {});
      queue = createQueueService({
        redis: withDeadline(createIoredisClusterClient(connection), 1000),
        clock,
        defaults: { partitions: 8, visibilityTimeoutMs: VT },
      });
    }, 60_000);

    afterAll(async () => {
      connection?.disconnect();
      await cluster?.stop();
    });

    it('loses nothing acked or produced and never gives one message to two consumers while leased', async () => {
      await queue.createGroup('orders', 'g', '0');
      const outage = { failures: 0 };
      const produced = new Set<string>();
      const acked = new Set<string>();
      const holders = new Map<string, { consumer: string; until: number }>();
      const violations: string[] = [];
      let produceDone = false;
      let killed = false;

      const produce = async () => {
        for (let i = 0; i < MESSAGES; i += 10) {
          // dedupIds make a retried batch that had been applied answer the same ids.
          const batch = Array.from({ length: 10 }, (_, j) => ({ body: i + j, dedupId: `m-${i + j}` }));
          for (const id of await retry(() => queue.produce('orders', batch), outage)) produced.add(id);
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        produceDone = true;
      };

      const take = (consumer: string, messages: Message[]) => {
        const now = clock.now();
        for (const m of messages) {
          if (acked.has(m.id)) violations.push(`${m.id} delivered to ${consumer} after its ack succeeded`);
          const holder = holders.get(m.id);
          if (holder !== undefined && holder.until > now) {
            violations.push(`${m.id} delivered to ${consumer} while ${holder.consumer} held it`);
          }
          holders.set(m.id, { consumer, until: now + VT });
        }
      };

      // The clock stands still while the workers run, so every lease holds throughout; only the
      // final drain lets leases run out (of messages whose consume answer the outage swallowed).
      let idle = 0;
      const work = async (consumer: string) => {
        while (!(produceDone && acked.size >= produced.size) && idle < 100) {
          const got = await retry(() => queue.consume('orders', 'g', consumer, 5), outage);
          take(consumer, got);
          if (got.length > 0) {
            idle = 0;
            const ids = got.map((m) => m.id);
            await retry(() => queue.ack('orders', 'g', ids), outage);
            for (const id of ids) acked.add(id);
          } else {
            if (produceDone) idle++;
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
        }
      };

      const chaos = async () => {
        while (acked.size < MESSAGES / 3) await new Promise((resolve) => setTimeout(resolve, 10));
        await cluster.kill(1);
        killed = true;
        await new Promise((resolve) => setTimeout(resolve, 1500));
        await cluster.restart(1);
      };

      await Promise.all([produce(), chaos(), ...Array.from({ length: CONSUMERS }, (_, i) => work(`c${i}`))]);
      clock.advance(VT);
      for (let i = 0; i < 50 && acked.size < produced.size; i++) {
        const got = await retry(() => queue.consume('orders', 'g', 'drain', 50), outage);
        take('drain', got);
        if (got.length > 0)
          await retry(
            () =>
              queue.ack(
                'orders',
                'g',
                got.map((m) => m.id),
              ),
            outage,
          );
        for (const m of got) acked.add(m.id);
      }

      expect(killed).toBe(true);
      // The outage was felt: calls failed and were retried.
      expect(outage.failures).toBeGreaterThan(0);
      expect(violations).toEqual([]);
      expect(produced.size).toBe(MESSAGES);
      expect(new Set(acked)).toEqual(produced);
      const stats = await retry(() => queue.stats('orders'), outage);
      expect(stats.length).toBe(MESSAGES);
      expect(stats.groups[0]).toMatchObject({ pending: 0, lag: 0 });
    }, 120_000);
  },
);
