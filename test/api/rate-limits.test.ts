/**
 * Rate limits over HTTP (issue 29): rateLimit and keyRateLimit through PUT /v1/queues/:queue,
 * refused with 400 and nothing changed when malformed, cleared with null, and shown per group in
 * the stats and in /metrics.
 */
import { beforeEach, expect, it } from 'vitest';
import { createHarness, type Harness, tokens } from './support/harness.ts';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});

it('sets, answers and clears rateLimit and keyRateLimit with PUT', async () => {
  const res = await h.call('PUT', '/v1/queues/paced', {
    body: { rateLimit: { max: 10, periodMs: 1000 }, keyRateLimit: { max: 2, periodMs: 60_000 } },
  });
  expect(res.status).toBe(200);
  expect(res.json).toMatchObject({
    rateLimit: { max: 10, periodMs: 1000 },
    keyRateLimit: { max: 2, periodMs: 60_000 },
  });
  const read = await h.call('GET', '/v1/queues/paced/config', { token: tokens.consume });
  expect(read.json).toMatchObject({ rateLimit: { max: 10, periodMs: 1000 } });
  const cleared = await h.call('PUT', '/v1/queues/paced', { body: { rateLimit: null } });
  expect(cleared.json).toMatchObject({ rateLimit: null, keyRateLimit: { max: 2, periodMs: 60_000 } });
  const fresh = await h.call('PUT', '/v1/queues/plain', { body: {} });
  expect(fresh.json).toMatchObject({ rateLimit: null, keyRateLimit: null });
});

it('refuses a malformed limit with 400 INVALID_ARGUMENT naming the field, changing nothing', async () => {
  await h.call('PUT', '/v1/queues/paced', { body: { rateLimit: { max: 5, periodMs: 1000 } } });
  const bad: [unknown, string][] = [
    [{ max: 0, periodMs: 1000 }, 'rateLimit.max'],
    [{ max: 2.5, periodMs: 1000 }, 'rateLimit.max'],
    [{ max: 1, periodMs: 0 }, 'rateLimit.periodMs'],
    [{ max: 1, periodMs: 86_400_001 }, 'rateLimit.periodMs'],
    [{ max: 1 }, 'rateLimit.periodMs'],
    [{ max: 1, periodMs: 1000, burst: 3 }, 'rateLimit'],
    ['5/1000', 'rateLimit'],
  ];
  for (const [value, path] of bad) {
    const res = await h.call('PUT', '/v1/queues/paced', { body: { maxDeliveries: 9, rateLimit: value } });
    expect(res.status, JSON.stringify(value)).toBe(400);
    expect(res.json.error.code).toBe('INVALID_ARGUMENT');
    const paths = res.json.error.details.issues.map((i: { path: string[] }) => i.path.join('.'));
    expect(paths, JSON.stringify(value)).toContain(path);
  }
  expect(await h.queue.getConfig('paced')).toMatchObject({
    maxDeliveries: 5,
    rateLimit: { max: 5, periodMs: 1000 },
  });
});

it('shows each group’s window use and throttling in the stats and in /metrics', async () => {
  await h.call('PUT', '/v1/queues/paced', { body: { rateLimit: { max: 2, periodMs: 60_000 } } });
  await h.call('PUT', '/v1/queues/paced/groups/w', { body: { start: '0' } });
  await h.call('POST', '/v1/queues/paced/messages', {
    body: { messages: [{ body: 1 }, { body: 2 }, { body: 3 }] },
  });
  const consumed = await h.call('POST', '/v1/queues/paced/groups/w/consume', {
    token: tokens.consume,
    body: { consumer: 'c', count: 10 },
  });
  expect(consumed.json.messages).toHaveLength(2);
  const stats = await h.call('GET', '/v1/queues/paced', { token: tokens.consume });
  expect(stats.json.groups[0]).toMatchObject({
    name: 'w',
    rateLimitUsed: 2,
    rateLimitThrottled: true,
    throttledKeys: 0,
  });
  const metrics = await h.call('GET', '/metrics', { token: tokens.consume });
  expect(metrics.text).toContain('queue_group_rate_limit_used{queue="paced",group="w"} 2');
  expect(metrics.text).toContain('queue_group_rate_limit_throttled{queue="paced",group="w"} 1');
  expect(metrics.text).toContain('queue_group_throttled_keys{queue="paced",group="w"} 0');
});
