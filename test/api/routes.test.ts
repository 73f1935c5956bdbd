/** Every endpoint's success path through `app.request`, on the real queue over the engine. */
import { beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, tokens } from './support/harness.ts';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});

async function produce(queue: string, bodies: unknown[]): Promise<string[]> {
  const res = await h.call('POST', `/v1/queues/${queue}/messages`, {
    body: { messages: bodies.map((body) => ({ body })) },
  });
  expect(res.status).toBe(201);
  return res.json.ids;
}

async function group(queue: string, name: string, start = '0'): Promise<void> {
  const res = await h.call('PUT', `/v1/queues/${queue}/groups/${name}`, { body: { start } });
  expect(res.status).toBe(201);
}

describe('queues', () => {
  it('creates a queue with PUT and answers with the merged config', async () => {
    const res = await h.call('PUT', '/v1/queues/orders', {
      body: { visibilityTimeoutMs: 5000, maxDeliveries: 3 },
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ visibilityTimeoutMs: 5000, maxDeliveries: 3, dedupWindowMs: 300_000 });
    expect(await h.queue.getConfig('orders')).toMatchObject({ visibilityTimeoutMs: 5000 });
  });

  it('reads a queue config with a consume token, without registering a missing queue', async () => {
    await h.call('PUT', '/v1/queues/paced', { body: { visibilityTimeoutMs: 7000 } });
    const res = await h.call('GET', '/v1/queues/paced/config', { token: tokens.consume });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ ...(await h.queue.getConfig('paced')), visibilityTimeoutMs: 7000 });
    const missing = await h.call('GET', '/v1/queues/nowhere/config', { token: tokens.consume });
    expect(missing.status).toBe(404);
    expect(missing.json.error.code).toBe('QUEUE_NOT_FOUND');
    expect(await h.queue.listQueues()).toEqual(['paced']);
  });

  it('lists queues with their stats and shows one queue', async () => {
    await produce('a.q', [1, 2]);
    await produce('b_q', [3]);
    const list = await h.call('GET', '/v1/queues');
    expect(list.status).toBe(200);
    expect(list.json.queues.map((q: { name: string; length: number }) => [q.name, q.length])).toEqual([
      ['a.q', 2],
      ['b_q', 1],
    ]);
    expect(list.json.nextCursor).toBeNull();
    const one = await h.call('GET', '/v1/queues/a.q');
    expect(one.status).toBe(200);
    expect(one.json).toEqual({
      name: 'a.q',
      partitions: 1,
      paused: false,
      length: 2,
      delayed: 0,
      deadLetters: 0,
      groups: [],
    });
  });

  it('pages the queue list by name with an opaque cursor', async () => {
    const names = ['q-e', 'q-a', 'q-d', 'q-b', 'q-c'];
    for (const name of names) await h.queue.produce(name, [{ body: 1 }]);
    const seen: string[][] = [];
    let cursor: string | null = null;
    do {
      const page = await h.call('GET', `/v1/queues?limit=2${cursor === null ? '' : `&cursor=${cursor}`}`);
      expect(page.status).toBe(200);
      seen.push(page.json.queues.map((q: { name: string }) => q.name));
      cursor = page.json.nextCursor;
    } while (cursor !== null);
    expect(seen).toEqual([['q-a', 'q-b'], ['q-c', 'q-d'], ['q-e']]);
    for (const bad of ['limit=0', 'limit=1001', 'cursor=***', `cursor=${btoa('a b')}`]) {
      const res = await h.call('GET', `/v1/queues?${bad}`);
      expect(res.status).toBe(400);
      expect(res.json.error.code).toBe('INVALID_ARGUMENT');
    }
  });

  it('lists more queues than one page holds page by page, and /metrics says it covers only the first 1000', async () => {
    for (let i = 0; i < 1001; i++) await h.queue.configure(`q${String(i).padStart(4, '0')}`, {});
    const first = await h.call('GET', '/v1/queues');
    expect(first.json.queues).toHaveLength(1000);
    expect(first.json.queues[999].name).toBe('q0999');
    const second = await h.call('GET', `/v1/queues?cursor=${first.json.nextCursor}`);
    expect(second.json.queues.map((q: { name: string }) => q.name)).toEqual(['q1000']);
    expect(second.json.nextCursor).toBeNull();
    const metrics = await h.call('GET', '/metrics');
    expect(metrics.text).toContain('# queue gauges cover the first 1000 of 1001 queues by name');
    expect(metrics.text).toContain('queue_length{queue="q0999"} 0');
    expect(metrics.text).not.toContain('queue="q1000"');
  }, 60_000);

  it('deletes a queue, then 404s on the second delete', async () => {
    await produce('gone', [1]);
    expect((await h.call('DELETE', '/v1/queues/gone')).json).toEqual({ deleted: true });
    const again = await h.call('DELETE', '/v1/queues/gone');
    expect(again.status).toBe(404);
    expect(again.json.error.code).toBe('QUEUE_NOT_FOUND');
    expect(await h.queue.listQueues()).toEqual([]);
  });
});

describe('messages', () => {
  it('produces a batch and answers 201 with the ids in input order', async () => {
    const res = await h.call('POST', '/v1/queues/orders/messages', {
      body: {
        messages: [
          { body: { n: 1 }, attributes: { tenant: 'acme' } },
          { body: 'two', delayMs: 0, dedupId: 'd-2' },
          { body: null },
        ],
      },
    });
    expect(res.status).toBe(201);
    expect(res.json.ids).toHaveLength(3);
    const browsed = await h.call('GET', '/v1/queues/orders/messages?start=-&end=%2B&count=10');
    expect(browsed.status).toBe(200);
    expect(browsed.json.messages.map((m: { id: string }) => m.id)).toEqual(res.json.ids);
    expect(browsed.json.messages.map((m: { body: unknown }) => m.body)).toEqual([{ n: 1 }, 'two', null]);
    expect(browsed.json.messages[0].attributes).toEqual({ tenant: 'acme' });
  });

  it('limits a browse to count', async () => {
    await produce('orders', [1, 2, 3]);
    const res = await h.call('GET', '/v1/queues/orders/messages?count=2');
    expect(res.json.messages.map((m: { body: number }) => m.body)).toEqual([1, 2]);
  });

  it('cancels a message with a produce token: 200 twice, then 404 for an unknown id and 403 for consume', async () => {
    const ids = await produce('orders', ['a', 'b']);
    await group('orders', 'workers');
    const path = `/v1/queues/orders/messages/${ids[0]}`;
    const first = await h.call('DELETE', path, { token: tokens.produce });
    expect(first.status).toBe(200);
    expect(first.json).toEqual({ id: ids[0], alreadyCancelled: false, inFlight: 0 });
    const again = await h.call('DELETE', path, { token: tokens.produce });
    expect(again.status).toBe(200);
    expect(again.json).toEqual({ id: ids[0], alreadyCancelled: true, inFlight: 0 });
    const lookup = await h.call('GET', path);
    expect(lookup.json).toMatchObject({
      id: ids[0],
      state: 'cancelled',
      body: 'a',
      cancelledAt: h.clock.now(),
    });
    const consumed = await h.call('POST', '/v1/queues/orders/groups/workers/consume', {
      body: { consumer: 'w1', count: 10 },
    });
    expect(consumed.json.messages.map((m: { body: string }) => m.body)).toEqual(['b']);
    const unknown = await h.call('DELETE', '/v1/queues/orders/messages/1-1', { token: tokens.produce });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.code).toBe('MESSAGE_NOT_FOUND');
    const bad = await h.call('DELETE', '/v1/queues/orders/messages/nope', { token: tokens.produce });
    expect(bad.status).toBe(400);
    const refused = await h.call('DELETE', `/v1/queues/orders/messages/${ids[1]}`, { token: tokens.consume });
    expect(refused.status).toBe(403);
  });
});

describe('groups', () => {
  it('answers 201 when it creates a group and 200 when it already existed', async () => {
    await produce('orders', [1]);
    const first = await h.call('PUT', '/v1/queues/orders/groups/workers', { body: { start: '0' } });
    expect(first.status).toBe(201);
    expect(first.json).toEqual({ queue: 'orders', group: 'workers', created: true });
    const second = await h.call('PUT', '/v1/queues/orders/groups/workers', { body: { start: '$' } });
    expect(second.status).toBe(200);
    expect(second.json.created).toBe(false);
  });

  it('deletes a group and 404s on an unknown one with a hint', async () => {
    await produce('orders', [1]);
    await group('orders', 'workers');
    expect((await h.call('DELETE', '/v1/queues/orders/groups/workers')).json).toEqual({ deleted: true });
    const again = await h.call('DELETE', '/v1/queues/orders/groups/workers');
    expect(again.status).toBe(404);
    expect(again.json.error.details.hint).toContain('PUT /v1/queues/orders/groups/workers');
  });
});

describe('deliveries', () => {
  it('consumes, acks, and reports the ack count', async () => {
    const ids = await produce('orders', ['a', 'b', 'c']);
    await group('orders', 'workers');
    const consumed = await h.call('POST', '/v1/queues/orders/groups/workers/consume', {
      token: tokens.consume,
      body: { consumer: 'w1', count: 2 },
    });
    expect(consumed.status).toBe(200);
    expect(
      consumed.json.messages.map((m: { id: string; deliveries: number }) => [m.id, m.deliveries]),
    ).toEqual([
      [ids[0], 1],
      [ids[1], 1],
    ]);
    const acked = await h.call('POST', '/v1/queues/orders/groups/workers/ack', {
      token: tokens.consume,
      body: { ids: [ids[0], ids[1], ids[2]] },
    });
    expect(acked.json).toEqual({ acked: 2 });
  });

  it('keeps a groupKey in order: one message of a key at a time, blocked ones shown by lookup and stats', async () => {
    await group('orders', 'workers');
    const produced = await h.call('POST', '/v1/queues/orders/messages', {
      body: {
        messages: [
          { body: 'a1', groupKey: 'a' },
          { body: 'a2', groupKey: 'a' },
        ],
      },
    });
    expect(produced.status).toBe(201);
    const [a1, a2] = produced.json.ids as [string, string];
    const both = await h.call('POST', '/v1/queues/orders/messages', {
      body: { messages: [{ body: 'x', groupKey: 'a', partitionKey: 'a' }] },
    });
    expect(both.status).toBe(400);
    expect(both.json.error.code).toBe('INVALID_ARGUMENT');
    const consume = () =>
      h.call('POST', '/v1/queues/orders/groups/workers/consume', {
        token: tokens.consume,
        body: { consumer: 'w1', count: 10 },
      });
    const first = await consume();
    expect(first.json.messages.map((m: { body: string; groupKey: string }) => [m.body, m.groupKey])).toEqual([
      ['a1', 'a'],
    ]);
    expect((await consume()).json.messages).toEqual([]);
    const lookup = await h.call('GET', `/v1/queues/orders/messages/${a2}`);
    expect(lookup.json).toMatchObject({
      groupKey: 'a',
      groups: [{ group: 'workers', state: 'blocked', blockedBy: a1 }],
    });
    const stats = await h.call('GET', '/v1/queues/orders', { token: tokens.consume });
    expect(stats.json.groups[0]).toMatchObject({
      keyedWaiting: 1,
      waitingKeys: 1,
      oldestWaitingKey: { groupKey: 'a', id: a2 },
    });
    const metrics = await h.call('GET', '/metrics', { token: tokens.consume });
    expect(metrics.text).toContain('queue_group_keyed_waiting{queue="orders",group="workers"} 1');
    await h.call('POST', '/v1/queues/orders/groups/workers/ack', {
      token: tokens.consume,
      body: { ids: [a1] },
    });
    expect((await consume()).json.messages.map((m: { id: string }) => m.id)).toEqual([a2]);
  });

  it('defaults count to 10', async () => {
    await produce(
      'orders',
      Array.from({ length: 12 }, (_, i) => i),
    );
    await group('orders', 'workers');
    const consumed = await h.call('POST', '/v1/queues/orders/groups/workers/consume', {
      body: { consumer: 'w1' },
    });
    expect(consumed.json.messages).toHaveLength(10);
  });

  it('nacks, extends and reclaims', async () => {
    const ids = await produce('orders', ['a', 'b']);
    await group('orders', 'workers');
    await h.call('POST', '/v1/queues/orders/groups/workers/consume', { body: { consumer: 'w1', count: 2 } });
    const nacked = await h.call('POST', '/v1/queues/orders/groups/workers/nack', {
      body: { ids: [ids[0], '1-1'], delayMs: 1000 },
    });
    expect(nacked.json).toEqual({ requeued: 1 });
    const extended = await h.call('POST', '/v1/queues/orders/groups/workers/extend', {
      body: { consumer: 'w2', ids: [ids[1]] },
    });
    expect(extended.json).toEqual({ extended: [], lost: [ids[1]], cancelled: [] });
    const mine = await h.call('POST', '/v1/queues/orders/groups/workers/extend', {
      body: { consumer: 'w1', ids: [ids[1]] },
    });
    expect(mine.json).toEqual({ extended: [ids[1]], lost: [], cancelled: [] });
    h.clock.advance(60_000);
    const reclaimed = await h.call('POST', '/v1/queues/orders/groups/workers/reclaim', {
      body: { consumer: 'w3', minIdleMs: 50_000, count: 10, cursor: '0-0' },
    });
    expect(reclaimed.status).toBe(200);
    expect(reclaimed.json.cursor).toBe('0-0');
    expect(reclaimed.json.deleted).toEqual([]);
    expect(reclaimed.json.messages.map((m: { id: string }) => m.id).sort()).toEqual([...ids].sort());
  });

  it('acks and nacks with a consumer only what that consumer holds', async () => {
    await h.call('PUT', '/v1/queues/orders', { body: { visibilityTimeoutMs: 1000 } });
    const [id] = await produce('orders', ['a']);
    await group('orders', 'workers');
    await h.call('POST', '/v1/queues/orders/groups/workers/consume', { body: { consumer: 'w1' } });
    h.clock.advance(1000);
    const taken = await h.call('POST', '/v1/queues/orders/groups/workers/consume', {
      body: { consumer: 'w2' },
    });
    expect(taken.json.messages.map((m: { id: string }) => m.id)).toEqual([id]);
    // w1's lease ended and w2 holds it: w1's late nack and ack change nothing.
    const stale = await h.call('POST', '/v1/queues/orders/groups/workers/nack', {
      body: { ids: [id], delayMs: 0, consumer: 'w1' },
    });
    expect(stale.json).toEqual({ requeued: 0 });
    const staleAck = await h.call('POST', '/v1/queues/orders/groups/workers/ack', {
      body: { ids: [id], consumer: 'w1' },
    });
    expect(staleAck.json).toEqual({ acked: 0 });
    const none = await h.call('POST', '/v1/queues/orders/groups/workers/consume', {
      body: { consumer: 'w3' },
    });
    expect(none.json.messages).toEqual([]);
    const bad = await h.call('POST', '/v1/queues/orders/groups/workers/ack', {
      body: { ids: [id], consumer: 'no spaces' },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.error.details.issues[0].path).toEqual(['consumer']);
    const acked = await h.call('POST', '/v1/queues/orders/groups/workers/ack', {
      body: { ids: [id], consumer: 'w2' },
    });
    expect(acked.json).toEqual({ acked: 1 });
  });

  it('answers the pending summary without a range and the entries with one', async () => {
    const ids = await produce('orders', ['a', 'b']);
    await group('orders', 'workers');
    await h.call('POST', '/v1/queues/orders/groups/workers/consume', { body: { consumer: 'w1', count: 2 } });
    h.clock.advance(700);
    const summary = await h.call('GET', '/v1/queues/orders/groups/workers/pending', {
      token: tokens.consume,
    });
    expect(summary.json).toEqual({
      pending: 2,
      minId: ids[0],
      maxId: ids[1],
      consumers: [{ name: 'w1', pending: 2 }],
    });
    const range = await h.call('GET', '/v1/queues/orders/groups/workers/pending?start=-&end=%2B&count=1');
    expect(range.json).toEqual({
      entries: [
        {
          id: ids[0],
          consumer: 'w1',
          idleMs: 700,
          deliveries: 1,
          state: 'leased',
          eligibleAt: h.clock.now() - 700 + 30_000,
        },
      ],
    });
    const filtered = await h.call('GET', '/v1/queues/orders/groups/workers/pending?consumer=nobody');
    expect(filtered.json).toEqual({ entries: [] });
    const idle = await h.call('GET', '/v1/queues/orders/groups/workers/pending?minIdleMs=701');
    expect(idle.json).toEqual({ entries: [] });
  });
});

describe('dead letters and sweep', () => {
  async function poison(): Promise<string> {
    await h.call('PUT', '/v1/queues/orders', { body: { maxDeliveries: 1, visibilityTimeoutMs: 1000 } });
    const [id] = await produce('orders', [{ poison: true }]);
    await group('orders', 'workers');
    await h.call('POST', '/v1/queues/orders/groups/workers/consume', { body: { consumer: 'w1' } });
    h.clock.advance(1000);
    return id!;
  }

  it('sweeps a poison message into the DLQ and lists it', async () => {
    const id = await poison();
    const sweep = await h.call('POST', '/v1/sweep', { body: { budget: 100, timeBudgetMs: 1000 } });
    expect(sweep.status).toBe(200);
    expect(sweep.json).toMatchObject({ deadLettered: 1, complete: true });
    const list = await h.call('GET', '/v1/queues/orders/dlq?count=10');
    expect(list.status).toBe(200);
    expect(list.json.cursor).toBeNull();
    expect(list.json.deadLetters).toHaveLength(1);
    expect(list.json.deadLetters[0]).toMatchObject({
      deadLetteredFrom: id,
      group: 'workers',
      deliveries: 1,
      body: { poison: true },
    });
  });

  it('runs the sweep on a bare POST with no body', async () => {
    const res = await h.call('POST', '/v1/sweep');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      scheduled: 0,
      catchUps: 0,
      deadLettered: 0,
      promoted: 0,
      deletedReferences: 0,
      consumersRemoved: 0,
      trimmed: 0,
      deletedQueues: 0,
      complete: true,
    });
  });

  it('redrives by id and by all, and purges', async () => {
    await poison();
    await h.call('POST', '/v1/sweep');
    const [dead] = (await h.call('GET', '/v1/queues/orders/dlq')).json.deadLetters;
    const byId = await h.call('POST', '/v1/queues/orders/dlq/redrive', { body: { ids: [dead.id] } });
    expect(byId.json).toEqual({ redriven: 1 });
    // The sweep trimmed the original once every group had acked it (dead-lettering acks), so the
    // stream holds the redriven copy alone, as a new message.
    expect((await h.call('GET', '/v1/queues/orders')).json.length).toBe(1);
    const [back] = (await h.call('GET', '/v1/queues/orders/messages')).json.messages;
    expect(back).toMatchObject({ body: { poison: true } });
    expect(back.id).not.toBe(dead.deadLetteredFrom);
    const all = await h.call('POST', '/v1/queues/orders/dlq/redrive', { body: { all: true } });
    expect(all.json).toEqual({ redriven: 0 });
    const purged = await h.call('DELETE', '/v1/queues/orders/dlq');
    expect(purged.json).toEqual({ purged: 0 });
  });
});

describe('operations', () => {
  it('answers /healthz without a token while Redis answers', async () => {
    const res = await h.call('GET', '/healthz', { token: null });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ status: 'ok', redis: 'up' });
  });

  it('serves Prometheus text with queue and group gauges', async () => {
    await produce('orders', [1, 2, 3]);
    await group('orders', 'workers');
    await h.call('POST', '/v1/queues/orders/groups/workers/consume', { body: { consumer: 'w1', count: 1 } });
    h.clock.advance(2500);
    const res = await h.call('GET', '/metrics', { token: tokens.consume });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const lines = res.text.split('\n');
    expect(lines).toContain('queue_length{queue="orders"} 3');
    expect(lines).toContain('queue_dead_letters{queue="orders"} 0');
    expect(lines).toContain('queue_group_pending{queue="orders",group="workers"} 1');
    expect(lines).toContain('queue_group_lag{queue="orders",group="workers"} 2');
    expect(lines).toContain('queue_group_oldest_pending_age_seconds{queue="orders",group="workers"} 2.5');
    expect(lines).toContain('# TYPE queue_group_pending gauge');
    expect(lines).toContain(
      'http_requests_total{method="POST",route="/v1/queues/:queue/messages",status="201"} 1',
    );
  });

  it('echoes a sane incoming request id and makes one up otherwise', async () => {
    const given = await h.call('GET', '/healthz', { token: null, headers: { 'x-request-id': 'abc-123' } });
    expect(given.headers.get('x-request-id')).toBe('abc-123');
    const made = await h.call('GET', '/healthz', {
      token: null,
      headers: { 'x-request-id': 'bad id\u00e9' },
    });
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});
