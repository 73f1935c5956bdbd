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
          rateLimitUsed: 0,
          rateLimitThrottled: false,
          throttledKeys: 0,
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
      rateLimit: null,
      keyRateLimit: null,
      deadLetterQueue: '',
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

  it('keeps metadata with the config: attributes and tags set and removed, created and modified times', async () => {
    const { queue, clock, partitions } = make();
    const createdAt = clock.now();
    const made = await queue.createQueue(
      'meta',
      { maxDeliveries: 7 },
      { meta: { attributes: { DelaySeconds: '5' }, tags: { team: 'a', 'cost:centre': 'x y' } } },
    );
    expect(made).toEqual({
      created: true,
      config: expect.objectContaining({ maxDeliveries: 7, partitions }),
      meta: {
        attributes: { DelaySeconds: '5' },
        tags: { team: 'a', 'cost:centre': 'x y' },
        createdAt,
        lastModifiedAt: createdAt,
      },
    });
    clock.advance(5000);
    // Tags do not count as a modification; an attribute or a config field does.
    await queue.configure('meta', {}, { meta: { tags: { team: null, env: 'prod' } } });
    expect((await queue.describeQueue('meta'))?.meta).toEqual({
      attributes: { DelaySeconds: '5' },
      tags: { 'cost:centre': 'x y', env: 'prod' },
      createdAt,
      lastModifiedAt: createdAt,
    });
    clock.advance(1000);
    await queue.configure('meta', {}, { meta: { attributes: { DelaySeconds: null, Policy: '{}' } } });
    const described = await queue.describeQueue('meta');
    expect(described?.meta).toEqual({
      attributes: { Policy: '{}' },
      tags: { 'cost:centre': 'x y', env: 'prod' },
      createdAt,
      lastModifiedAt: createdAt + 6000,
    });
    expect(described?.config).toEqual(await queue.getConfig('meta'));
    clock.advance(1000);
    await queue.configure('meta', { visibilityTimeoutMs: 2000 });
    expect((await queue.describeQueue('meta'))?.meta.lastModifiedAt).toBe(createdAt + 7000);
    // Setting what is already there changes nothing.
    clock.advance(1000);
    await queue.configure('meta', {}, { meta: { attributes: { Policy: '{}' } } });
    expect((await queue.describeQueue('meta'))?.meta.lastModifiedAt).toBe(createdAt + 7000);
    // The native config answer carries no metadata.
    expect(Object.keys((await queue.getConfig('meta')) ?? {})).not.toContain('attributes');
    await queue.deleteQueue('meta');
    expect(await queue.describeQueue('meta')).toBeNull();
    const again = await queue.createQueue('meta', {}, {});
    expect(again.meta).toEqual({
      attributes: {},
      tags: {},
      createdAt: clock.now(),
      lastModifiedAt: clock.now(),
    });
  });

  it('creates only a missing queue with createQueue, answering an existing one unchanged', async () => {
    const { queue } = make();
    await queue.produce('native', [{ body: 1 }]);
    const before = await queue.getConfig('native');
    const existing = await queue.createQueue(
      'native',
      { maxDeliveries: 2 },
      { meta: { attributes: { DelaySeconds: '9' }, tags: { t: 'v' } } },
    );
    expect(existing.created).toBe(false);
    expect(existing.config).toEqual(before);
    expect(existing.meta.attributes).toEqual({});
    expect(existing.meta.tags).toEqual({});
    // A queue made before createdAt was kept: its record's creation time (Redis or engine TIME).
    expect(existing.meta.createdAt).toBeGreaterThan(0);
    expect(existing.meta.lastModifiedAt).toBe(existing.meta.createdAt);
    const racing = await Promise.all([1, 2, 3].map((n) => queue.createQueue('race', { maxDeliveries: n })));
    expect(racing.filter((r) => r.created)).toHaveLength(1);
    const winner = racing.find((r) => r.created)?.config.maxDeliveries;
    expect((await queue.getConfig('race'))?.maxDeliveries).toBe(winner);
    expect(await queue.listQueues()).toEqual(['native', 'race']);
  });

  it('refuses malformed metadata and changes nothing', async () => {
    const { queue } = make();
    for (const meta of [
      { attributes: { '': 'x' } },
      { attributes: { a: 5 } },
      { tags: 'x' },
      { other: {} },
      { tags: { k: 'v'.repeat(65_537) } },
    ]) {
      const error = await queue.configure('m', {}, { meta: meta as never }).catch((e) => e);
      expect(error.code).toBe('INVALID_ARGUMENT');
    }
    expect(await queue.getConfig('m')).toBeNull();
  });
});
