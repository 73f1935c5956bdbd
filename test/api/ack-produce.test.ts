/**
 * Ack-and-produce over HTTP (`POST .../ack` with `produce`): the answer's outcomes and produced ids,
 * the refusals (a missing target 404, invalid results 400, a consume-only token 403) with nothing
 * acked, and the scopes it needs.
 */
import { beforeEach, expect, it } from 'vitest';
import { createHarness, type Harness, tokens } from './support/harness.ts';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
  await h.queue.createGroup('in', 'g', '0');
  await h.queue.createGroup('out', 'g', '0');
});

async function delivered(count = 1): Promise<string[]> {
  await h.queue.produce(
    'in',
    Array.from({ length: count }, (_, i) => ({ body: i })),
  );
  return (await h.queue.consume('in', 'g', 'c', count)).map((m) => m.id);
}

it('acks and answers each outcome and each result id', async () => {
  const [id] = await delivered();
  const res = await h.call('POST', '/v1/queues/in/groups/g/ack', {
    body: { ids: [id], consumer: 'c', produce: { queue: 'out', messages: [{ body: 'a' }, { body: 'b' }] } },
  });
  expect(res.status).toBe(200);
  expect(res.json.acked).toBe(1);
  expect(res.json.outcomes).toEqual(['acked']);
  const got = await h.queue.consume('out', 'g', 'w', 10);
  expect(res.json.produced).toEqual(got.map((m) => m.id));
  expect(got.map((m) => m.body)).toEqual(['a', 'b']);
  // Repeated: not pending, nothing produced.
  const again = await h.call('POST', '/v1/queues/in/groups/g/ack', {
    body: { ids: [id], consumer: 'c', produce: { queue: 'out', messages: [{ body: 'a' }, { body: 'b' }] } },
  });
  expect(again.json).toEqual({ acked: 0, outcomes: ['not-pending'], produced: [null, null] });
  // A plain ack keeps its answer.
  const plain = await h.call('POST', '/v1/queues/in/groups/g/ack', { body: { ids: [id] } });
  expect(plain.json).toEqual({ acked: 0 });
});

it('refuses a missing target, results without a from, and a consume-only token, acking nothing', async () => {
  const [a, b] = await delivered(2);
  const missing = await h.call('POST', '/v1/queues/in/groups/g/ack', {
    body: { ids: [a], produce: { queue: 'nowhere', messages: [{ body: 1 }] } },
  });
  expect(missing.status).toBe(404);
  expect(missing.json.error.code).toBe('QUEUE_NOT_FOUND');
  expect(missing.json.error.message).toContain('nowhere');
  const unnamed = await h.call('POST', '/v1/queues/in/groups/g/ack', {
    body: { ids: [a, b], produce: { queue: 'out', messages: [{ body: 1 }] } },
  });
  expect(unnamed.status).toBe(400);
  const stranger = await h.call('POST', '/v1/queues/in/groups/g/ack', {
    body: { ids: [a], produce: { queue: 'out', messages: [{ body: 1, from: b }] } },
  });
  expect(stranger.status).toBe(400);
  const both = await h.call('POST', '/v1/queues/in/groups/g/ack', {
    body: { ids: [a], produce: { queue: 'out', messages: [{ body: 1, groupKey: 'k', partitionKey: 'k' }] } },
  });
  expect(both.status).toBe(400);
  const consumeOnly = await h.call('POST', '/v1/queues/in/groups/g/ack', {
    token: tokens.consume,
    body: { ids: [a], produce: { queue: 'out', messages: [{ body: 1 }] } },
  });
  expect(consumeOnly.status).toBe(403);
  expect((await h.queue.pendingSummary('in', 'g')).pending).toBe(2);
  expect(await h.queue.consume('out', 'g', 'w', 10)).toEqual([]);
  // The consume token still acks alone.
  const plain = await h.call('POST', '/v1/queues/in/groups/g/ack', {
    token: tokens.consume,
    body: { ids: [a] },
  });
  expect(plain.json).toEqual({ acked: 1 });
});
