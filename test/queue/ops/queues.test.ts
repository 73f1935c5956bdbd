/**
 * Conformance, the queues family (lib/queue/ops/queues.ts): stats, registering, configuring,
 * listing and deleting queues, and the deployment's defaults.
 */
import { expect, it } from 'vitest';
import { onEveryBackend } from '../support/suite.ts';

onEveryBackend('queues', (make) => {
  it('reports stats in one call', async () => {
    const { queue, clock, partitions } = make();
    await queue.createGroup('q', 'g', '0');
    await queue.produce('q', [{ body: 1 }, { body: 2 }, { body: 3 }, { body: 'd', delayMs: 5000 }]);
    clock.advance(2000);
    const got = await queue.consume('q', 'g', 'c', 1);
    clock.advance(500);
    const stats = await queue.stats('q');
    expect(stats).toEqual({
      name: 'q',
      partitions,
      paused: false,
      length: 3,
      delayed: 1,
      deadLetters: 0,
      groups: [
        {
          name: 'g',
          paused: false,
          pending: 1,
          lag: 2,
          consumers: 1,
          oldestPendingAgeMs: 2500,
          lastDeliveredId: got[0]?.id,
          keyedWaiting: 0,
          waitingKeys: 0,
          oldestWaitingKey: null,
        },
      ],
    });
    await expect(queue.stats('nope').catch((e) => e.code)).resolves.toBe('QUEUE_NOT_FOUND');
  });

  it('registers, configures, lists and deletes queues', async () => {
    const { queue, partitions } = make();
    expect(await queue.getConfig('q')).toBeNull();
    await queue.produce('q', [{ body: 1 }]);
    expect(await queue.getConfig('q')).toEqual({
      visibilityTimeoutMs: 30_000,
      maxDeliveries: 5,
      dedupWindowMs: 300_000,
      retentionMs: 0,
      consumerIdleMs: 3_600_000,
      partitions,
      maxInFlightPerConsumer: 1000,
      maxInFlightPerKey: 1,
      retryBackoff: 'none',
      retryDelayMs: 1000,
      retryMaxDelayMs: 3_600_000,
      messageTtlMs: 0,
    });
    const updated = await queue.configure('other', { maxDeliveries: 9 });
    expect(updated.maxDeliveries).toBe(9);
    expect((await queue.getConfig('other'))?.maxDeliveries).toBe(9);
    expect(await queue.listQueues()).toEqual(['other', 'q']);
    await queue.createGroup('q', 'g', '0');
    await queue.consume('q', 'g', 'c', 1);
    expect(await queue.deleteQueue('q')).toBe(true);
    expect(await queue.deleteQueue('q')).toBe(false);
    expect(await queue.listQueues()).toEqual(['other']);
    await expect(queue.stats('q').catch((e) => e.code)).resolves.toBe('QUEUE_NOT_FOUND');
  });

  it('uses configured defaults for queues that did not override them', async () => {
    const { another } = make();
    const queue = another({ defaults: { maxDeliveries: 3 } });
    await queue.produce('q', [{ body: 1 }]);
    expect((await queue.getConfig('q'))?.maxDeliveries).toBe(3);
  });
});
