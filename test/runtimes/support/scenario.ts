/**
 * The scenarios every runtime runs against the engine's REST front: produce → consume → ack; a
 * poison message that the sweep (however the runtime triggers it) moves to the DLQ; and entries
 * that other clients wrote, which must never break a read.
 */
import { Redis } from '@upstash/redis';
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

/**
 * Entries another client wrote straight into the queue's stream (through the engine's REST front
 * that the runtime under test also uses): nested 5,000 levels, not JSON, attributes that are not
 * strings, binary. None may break consume, browse, the DLQ list or stats, and a good message in
 * the same batch is delivered as usual. A body nested past 100 levels is refused with 400.
 */
export async function expectPoisonProof(
  base: string,
  token: string,
  queue: string,
  redis: { url: string; token: string },
): Promise<void> {
  const deep = await fetch(`${base}/v1/queues/${queue}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: `{"messages":[{"body":${'['.repeat(5000)}1${']'.repeat(5000)}}]}`,
  });
  expect(deep.status).toBe(400);
  expect(((await deep.json()) as { error: { code: string } }).error.code).toBe('INVALID_ARGUMENT');
  // Each delivery is the last (max 1) and expires at once, so the sweep dead-letters them all.
  await api(base, token, 'PUT', `/v1/queues/${queue}`, { maxDeliveries: 1, visibilityTimeoutMs: 1 });
  const group = await api(base, token, 'PUT', `/v1/queues/${queue}/groups/workers`, { start: '0' });
  expect(group.status).toBe(201);
  const raw = new Redis({ url: redis.url, token: redis.token });
  const stream = `q:{${queue}}:stream`;
  const deepText = `${'['.repeat(5000)}1${']'.repeat(5000)}`;
  await raw.xadd(stream, '*', { body: deepText, enqueuedAt: '1' });
  await raw.xadd(stream, '*', { body: '{not json', enqueuedAt: '1' });
  await raw.xadd(stream, '*', { body: '1', attributes: '{"a":1}', enqueuedAt: '1' });
  await raw.xadd(stream, '*', { blob: '\u0000\u0001\u00ff' });
  const good = await api(base, token, 'POST', `/v1/queues/${queue}/messages`, {
    messages: [{ body: 'good' }],
  });
  expect(good.status).toBe(201);
  const consumed = await api(base, token, 'POST', `/v1/queues/${queue}/groups/workers/consume`, {
    consumer: 'w1',
    count: 10,
  });
  expect(consumed.status).toBe(200);
  const messages = consumed.json.messages as { body: unknown; fields?: Record<string, string> }[];
  expect(messages.map((m) => m.body)).toEqual([null, null, null, null, 'good']);
  expect(messages[0]?.fields?.body).toBe(deepText);
  for (const path of [`/v1/queues/${queue}/messages`, `/v1/queues/${queue}`, `/v1/queues/${queue}/dlq`]) {
    expect((await api(base, token, 'GET', path)).status).toBe(200);
  }
  // Dead-lettered as they are, they list too.
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect((await api(base, token, 'POST', '/v1/sweep', {})).status).toBe(200);
  const dlq = await api(base, token, 'GET', `/v1/queues/${queue}/dlq`);
  expect(dlq.status).toBe(200);
  expect(dlq.json.deadLetters).toHaveLength(5);
}

/**
 * The dashboard as this runtime serves it, without a token: the page (HTML with the policy that
 * confines it) and each asset the page names, with its type and cache header.
 */
export async function expectDashboardServed(base: string): Promise<void> {
  const page = await fetch(`${base}/dashboard`, { signal: AbortSignal.timeout(15_000) });
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toMatch(/^text\/html; charset=utf-8$/i);
  expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
  const html = await page.text();
  const assets = [...html.matchAll(/(?:src|href)="(dashboard\/assets\/[^"]+)"/g)].map((m) => m[1] as string);
  expect(assets.map((asset) => asset.replace(/-[0-9a-f]{16}\./, '-<hash>.'))).toEqual([
    'dashboard/assets/icon-<hash>.svg',
    'dashboard/assets/dashboard-<hash>.css',
    'dashboard/assets/dashboard-<hash>.js',
  ]);
  const types: Record<string, RegExp> = {
    svg: /^image\/svg\+xml$/,
    css: /^text\/css; charset=utf-8$/,
    js: /^text\/javascript; charset=utf-8$/,
  };
  for (const asset of assets) {
    const res = await fetch(`${base}/${asset}`, { signal: AbortSignal.timeout(15_000) });
    expect(res.status, asset).toBe(200);
    expect(res.headers.get('content-type')).toMatch(types[asset.split('.').pop() as string] as RegExp);
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await res.text()).length).toBeGreaterThan(100);
  }
}
