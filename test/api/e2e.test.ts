/**
 * The API end to end through the real queue service on every backend the queue's conformance
 * suite runs on (the engine, redis-server over TCP, the REST front to redis-server, a 3-master
 * Redis Cluster), on queues of 1 and of 8 partitions, with the harness's manual clock for the
 * service and the app: every route against the real scripts, time advanced instead of waited.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../../lib/api/app.ts';
import { createTokenSet } from '../../lib/api/auth.ts';
import type { ManualClock } from '../../lib/clock.ts';
import { onEveryBackend } from '../queue/support/suite.ts';

const token = 'e2e-admin';

onEveryBackend('API end to end', (make) => {
  let clock: ManualClock;
  let start: number;
  let app: ReturnType<typeof createApp>;

  beforeEach(async () => {
    const { queue, clock: harnessClock } = make();
    clock = harnessClock;
    start = clock.now();
    app = createApp({
      queue,
      tokens: await createTokenSet(`admin:${token}`),
      health: () => queue.ping().then(() => true),
      clock,
      sleep: async (ms) => clock.advance(ms),
    });
  });

  // biome-ignore lint/suspicious/noExplicitAny: tests index into response JSON and assert on the values
  async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
    const res = await app.request(path, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, json: text.startsWith('{') ? JSON.parse(text) : text };
  }

  async function setup(queue: string, config: object, bodies: unknown[]): Promise<string[]> {
    expect((await call('PUT', `/v1/queues/${queue}`, config)).status).toBe(200);
    let ids: string[] = [];
    if (bodies.length > 0) {
      const produced = await call('POST', `/v1/queues/${queue}/messages`, {
        messages: bodies.map((body) => ({ body })),
      });
      expect(produced.status).toBe(201);
      ids = produced.json.ids;
    }
    expect((await call('PUT', `/v1/queues/${queue}/groups/g`, { start: '0' })).status).toBe(201);
    return ids;
  }

  describe('API on the real queue service', () => {
    it('answers /healthz through a script round trip', async () => {
      const res = await app.request('/healthz');
      expect(res.status).toBe(200);
    });

    it('produces, browses, consumes, acks, and reports stats and metrics', async () => {
      const ids = await setup('orders', { visibilityTimeoutMs: 10_000 }, [{ sku: 1 }, 'two', [3]]);
      const browsed = await call('GET', '/v1/queues/orders/messages?count=2');
      expect(browsed.json.messages.map((m: { body: unknown }) => m.body)).toEqual([{ sku: 1 }, 'two']);
      const again = await call('PUT', '/v1/queues/orders/groups/g', { start: '$' });
      expect([again.status, again.json.created]).toEqual([200, false]);

      const consumed = await call('POST', '/v1/queues/orders/groups/g/consume', { consumer: 'w1', count: 2 });
      expect(
        consumed.json.messages.map((m: { id: string; deliveries: number }) => [m.id, m.deliveries]),
      ).toEqual([
        [ids[0], 1],
        [ids[1], 1],
      ]);
      expect(consumed.json.messages[0].enqueuedAt).toBe(start);
      clock.advance(1500);
      const stats = await call('GET', '/v1/queues/orders');
      expect(stats.json).toMatchObject({ name: 'orders', length: 3, deadLetters: 0 });
      expect(stats.json.groups[0]).toMatchObject({
        name: 'g',
        pending: 2,
        lag: 1,
        consumers: 1,
        oldestPendingAgeMs: 1500,
      });
      const metrics = await call('GET', '/metrics');
      expect(metrics.json).toContain('queue_group_pending{queue="orders",group="g"} 2');
      expect(metrics.json).toContain('queue_group_oldest_pending_age_seconds{queue="orders",group="g"} 1.5');

      expect((await call('POST', '/v1/queues/orders/groups/g/ack', { ids: [ids[0], ids[0]] })).json).toEqual({
        acked: 1,
      });
      const summary = await call('GET', '/v1/queues/orders/groups/g/pending');
      expect(summary.json).toEqual({
        pending: 1,
        minId: ids[1],
        maxId: ids[1],
        consumers: [{ name: 'w1', pending: 1 }],
      });
      const list = await call('GET', '/v1/queues');
      expect(list.json.queues.map((q: { name: string }) => q.name)).toEqual(['orders']);
    });

    it('long-polls until a message produced meanwhile can be delivered', async () => {
      await setup('late', {}, []);
      await call('POST', '/v1/queues/late/messages', { messages: [{ body: 'soon', delayMs: 300 }] });
      const started = clock.now();
      const res = await call('POST', '/v1/queues/late/groups/g/consume', { consumer: 'w', waitMs: 5000 });
      expect(res.json.messages.map((m: { body: unknown }) => m.body)).toEqual(['soon']);
      expect(clock.now() - started).toBeGreaterThanOrEqual(300);
      expect(clock.now() - started).toBeLessThan(5000);
    });

    it('nacks with a delay, extends, reclaims, and shows pending entries', async () => {
      const ids = await setup('work', { visibilityTimeoutMs: 10_000 }, ['a', 'b']);
      await call('POST', '/v1/queues/work/groups/g/consume', { consumer: 'w1', count: 2 });
      expect(
        (await call('POST', '/v1/queues/work/groups/g/nack', { ids: [ids[0]], delayMs: 2000 })).json,
      ).toEqual({
        requeued: 1,
      });
      const early = await call('POST', '/v1/queues/work/groups/g/consume', { consumer: 'w2' });
      expect(early.json.messages).toEqual([]);
      clock.advance(2000);
      const redelivered = await call('POST', '/v1/queues/work/groups/g/consume', { consumer: 'w2' });
      expect(
        redelivered.json.messages.map((m: { body: unknown; deliveries: number }) => [m.body, m.deliveries]),
      ).toEqual([['a', 2]]);
      const extended = await call('POST', '/v1/queues/work/groups/g/extend', {
        consumer: 'w1',
        ids: [ids[0], ids[1]],
      });
      expect(extended.json).toEqual({ extended: [ids[1]], lost: [ids[0]], cancelled: [] });
      clock.advance(5000);
      const range = await call('GET', '/v1/queues/work/groups/g/pending?start=-&end=%2B&count=10');
      // Both leases run 10 s from the redelivery and the extension, 2 s in.
      const leasedUntil = clock.now() - 5000 + 10_000;
      expect(range.json.entries).toEqual([
        { id: ids[0], consumer: 'w2', idleMs: 5000, deliveries: 2, state: 'leased', eligibleAt: leasedUntil },
        { id: ids[1], consumer: 'w1', idleMs: 5000, deliveries: 1, state: 'leased', eligibleAt: leasedUntil },
      ]);
      const reclaimed = await call('POST', '/v1/queues/work/groups/g/reclaim', {
        consumer: 'w3',
        minIdleMs: 4000,
      });
      expect(reclaimed.json.cursor).toBe('0-0');
      expect(reclaimed.json.messages.map((m: { id: string }) => m.id)).toEqual(ids);
    });

    it('dead-letters a poison message on sweep, then redrives and purges', async () => {
      const [id] = await setup('poison', { visibilityTimeoutMs: 1000, maxDeliveries: 1 }, [{ bad: true }]);
      await call('POST', '/v1/queues/poison/groups/g/consume', { consumer: 'w1' });
      clock.advance(1000);
      const sweep = await call('POST', '/v1/sweep', {});
      expect(sweep.status).toBe(200);
      expect(sweep.json.deadLettered).toBe(1);
      const dlq = await call('GET', '/v1/queues/poison/dlq');
      expect(dlq.json.deadLetters).toHaveLength(1);
      expect(dlq.json.deadLetters[0]).toMatchObject({
        deadLetteredFrom: id,
        group: 'g',
        deliveries: 1,
        body: { bad: true },
      });
      expect((await call('POST', '/v1/queues/poison/dlq/redrive', { all: true })).json).toEqual({
        redriven: 1,
      });
      // The sweep trimmed the acked original (retention 0); the redriven copy is a new entry.
      const browsed = await call('GET', '/v1/queues/poison/messages');
      expect(browsed.json.messages.map((m: { body: unknown }) => m.body)).toEqual([{ bad: true }]);
      expect(browsed.json.messages[0].id).not.toBe(id);
      expect((await call('GET', '/v1/queues/poison')).json).toMatchObject({ deadLetters: 0 });
      expect((await call('DELETE', '/v1/queues/poison/dlq')).json).toEqual({ purged: 0 });
    });

    it('grows a queue over more partitions and refuses to shrink it with 409', async () => {
      await setup('spread', {}, ['a']);
      const grown = await call('PUT', '/v1/queues/spread', { partitions: 12 });
      expect([grown.status, grown.json.partitions]).toEqual([200, 12]);
      const shrink = await call('PUT', '/v1/queues/spread', { partitions: 4 });
      expect(shrink.status).toBe(409);
      expect(shrink.json.error).toMatchObject({
        code: 'CONFLICT',
        message: 'partitions can only grow: the queue has 12 partitions',
      });
      const ids = (
        await call('POST', '/v1/queues/spread/messages', {
          messages: Array.from({ length: 24 }, (_, i) => ({ body: i, partitionKey: `k${i}` })),
        })
      ).json.ids as string[];
      expect(ids.some((id) => id.split('-').length === 3)).toBe(true);
      const consumed = await call('POST', '/v1/queues/spread/groups/g/consume', {
        consumer: 'w',
        count: 100,
      });
      expect(consumed.json.messages).toHaveLength(25);
      const acked = await call('POST', '/v1/queues/spread/groups/g/ack', {
        ids: consumed.json.messages.map((m: { id: string }) => m.id),
      });
      expect(acked.json).toEqual({ acked: 25 });
      expect((await call('GET', '/v1/queues/spread')).json).toMatchObject({ partitions: 12, length: 25 });
    });

    it('answers 404 with a hint for a group that does not exist, and deletes groups and queues', async () => {
      await setup('gone', {}, ['x']);
      const missing = await call('POST', '/v1/queues/gone/groups/nope/consume', { consumer: 'w' });
      expect(missing.status).toBe(404);
      expect(missing.json.error.code).toBe('GROUP_NOT_FOUND');
      expect(missing.json.error.details.hint).toContain('PUT /v1/queues/gone/groups/nope');
      expect((await call('DELETE', '/v1/queues/gone/groups/g')).status).toBe(200);
      expect((await call('DELETE', '/v1/queues/gone/groups/g')).status).toBe(404);
      expect((await call('DELETE', '/v1/queues/gone')).status).toBe(200);
      expect((await call('DELETE', '/v1/queues/gone')).status).toBe(404);
    });
  });
});
