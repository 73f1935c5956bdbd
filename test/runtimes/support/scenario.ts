/**
 * The scenario every runtime runs against the engine's REST front: produce → consume → ack, then
 * a poison message that the sweep (however the runtime triggers it) moves to the DLQ.
 */
import { expect } from 'vitest';
import { api } from './processes.ts';

export async function produceConsumeAck(base: string, token: string, queue: string): Promise<void> {
  const produced = await api(base, token, 'POST', `/v1/queues/${queue}/messages`, {
    messages: [{ body: { n: 1 } }, { body: 'two', attributes: { kind: 'text' } }],
  });
  expect(produced.status).toBe(201);
  expect(produced.json.ids).toHaveLength(2);
  const group = await api(base, token, 'PUT', `/v1/queues/${queue}/groups/workers`, { start: '0' });
  expect(group.status).toBe(201);
  const consumed = await api(base, token, 'POST', `/v1/queues/${queue}/groups/workers/consume`, {
    consumer: 'w1',
    count: 10,
    waitMs: 1000,
  });
  expect(consumed.status).toBe(200);
  expect(consumed.json.messages.map((m: { id: string }) => m.id)).toEqual(produced.json.ids);
  expect(consumed.json.messages.map((m: { body: unknown }) => m.body)).toEqual([{ n: 1 }, 'two']);
  expect(consumed.json.messages[1].attributes).toEqual({ kind: 'text' });
  expect(consumed.json.messages[0].deliveries).toBe(1);
  const acked = await api(base, token, 'POST', `/v1/queues/${queue}/groups/workers/ack`, {
    ids: produced.json.ids,
  });
  expect(acked.json).toEqual({ acked: 2 });
  const pending = await api(base, token, 'GET', `/v1/queues/${queue}/groups/workers/pending`);
  expect(pending.json.pending).toBe(0);
}

/** Leaves one delivered, never-acked message past its 1 ms visibility with max deliveries 1. */
export async function plantPoison(base: string, token: string, queue: string): Promise<string> {
  const config = await api(base, token, 'PUT', `/v1/queues/${queue}`, {
    maxDeliveries: 1,
    visibilityTimeoutMs: 1,
  });
  expect(config.status).toBe(200);
  const produced = await api(base, token, 'POST', `/v1/queues/${queue}/messages`, {
    messages: [{ body: { poison: true } }],
  });
  const id = produced.json.ids[0] as string;
  await api(base, token, 'PUT', `/v1/queues/${queue}/groups/workers`, { start: '0' });
  const consumed = await api(base, token, 'POST', `/v1/queues/${queue}/groups/workers/consume`, {
    consumer: 'w1',
  });
  expect(consumed.json.messages.map((m: { id: string }) => m.id)).toEqual([id]);
  // The runtime under test runs on the real clock: let the 1 ms lease visibly expire.
  await new Promise((resolve) => setTimeout(resolve, 20));
  return id;
}

export async function expectDeadLettered(
  base: string,
  token: string,
  queue: string,
  id: string,
): Promise<void> {
  const dlq = await api(base, token, 'GET', `/v1/queues/${queue}/dlq`);
  expect(dlq.status).toBe(200);
  expect(dlq.json.deadLetters).toHaveLength(1);
  expect(dlq.json.deadLetters[0]).toMatchObject({
    deadLetteredFrom: id,
    group: 'workers',
    deliveries: 1,
    body: { poison: true },
  });
  const pending = await api(base, token, 'GET', `/v1/queues/${queue}/groups/workers/pending`);
  expect(pending.json.pending).toBe(0);
}
