/**
 * The hardening findings, one block each, on the real service: deadlines toward Redis, nesting
 * and undecodable entries, ids at the edge of the range, refused credentials, an empty sweep
 * body, a `__proto__` attribute, methods that are not routed, and what pending says about a
 * nacked message. (Secrets in config errors: auth.test.ts and the runtime tests.)
 */
import { describe, expect, it } from 'vitest';
import { startEngineServer } from '../../functions/engine-server.ts';
import { buildService } from '../../lib/api/bootstrap.ts';
import { readSettings } from '../../lib/api/settings.ts';
import { createEngine } from '../../lib/engine/engine.ts';
import type { RedisClient } from '../../lib/redis/client.ts';
import { createEngineClient } from '../../lib/redis/engine-client.ts';
import { createUpstashClient } from '../../lib/redis/upstash-client.ts';
import { createHarness } from './support/harness.ts';

const admin = { authorization: 'Bearer hard-admin-token-01', 'content-type': 'application/json' };

interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests index into response JSON and assert on the values
  json: any;
  headers: Headers;
  ms: number;
}

type App = { request: (path: string, init: RequestInit) => Response | Promise<Response> };

async function request(app: App, method: string, path: string, body?: unknown): Promise<Answer> {
  const started = Date.now();
  const res = await app.request(path, {
    method,
    headers: admin,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: await res.json(), headers: res.headers, ms: Date.now() - started };
}

/** A seam that never answers (a stalled front), or answers after `delayMs`. */
function slowSeam(inner: RedisClient, delayMs: number): RedisClient {
  const later = <T>(run: () => Promise<T>) =>
    new Promise<T>((resolve, reject) => {
      setTimeout(() => run().then(resolve, reject), delayMs);
    });
  return {
    evalsha: (sha, keys, args) => later(() => inner.evalsha(sha, keys, args)),
    eval: (source, keys, args) => later(() => inner.eval(source, keys, args)),
  };
}

async function serviceOn(redis: RedisClient, env: Record<string, string> = {}) {
  return buildService({
    redis,
    settings: readSettings({ API_TOKENS: 'admin:hard-admin-token-01', ...env }, 'production'),
  });
}

describe('a deadline on every Redis call and a budget on every request (finding 2)', () => {
  it('answers 503 with Retry-After within the deadline when Redis stalls', async () => {
    const stalled: RedisClient = { evalsha: () => new Promise(() => {}), eval: () => new Promise(() => {}) };
    const { app } = await serviceOn(stalled, { REDIS_TIMEOUT_MS: '200', REQUEST_TIMEOUT_MS: '2000' });
    const produce = await request(app, 'POST', '/v1/queues/q/messages', { messages: [{ body: 1 }] });
    expect(produce.status).toBe(503);
    expect(produce.headers.get('retry-after')).toBe('1');
    expect(produce.json.error?.code).toBe('REDIS_UNAVAILABLE');
    expect(produce.json.error?.message).toMatch(
      /within 200 ms; the operation may or may not have been applied/,
    );
    expect(produce.ms).toBeLessThan(1500);
    const health = await request(app, 'GET', '/healthz');
    expect(health.status).toBe(503);
    expect(health.ms).toBeLessThan(1500);
  });

  it('bounds a long poll by waitMs plus the deadline when Redis stalls midway', async () => {
    const engine = createEngine();
    const healthy = createEngineClient(engine);
    let stall = false;
    const seam: RedisClient = {
      evalsha: (sha, keys, args, options) =>
        stall ? new Promise(() => {}) : healthy.evalsha(sha, keys, args, options),
      eval: (source, keys, args, options) =>
        stall ? new Promise(() => {}) : healthy.eval(source, keys, args, options),
    };
    const { app } = await serviceOn(seam, { REDIS_TIMEOUT_MS: '200', REQUEST_TIMEOUT_MS: '5000' });
    await request(app, 'PUT', '/v1/queues/q/groups/g', { start: '$' });
    setTimeout(() => {
      stall = true;
    }, 300);
    const consume = await request(app, 'POST', '/v1/queues/q/groups/g/consume', {
      consumer: 'c',
      waitMs: 1000,
    });
    expect(consume.status).toBe(503);
    expect(consume.ms).toBeLessThan(1000 + 200 + 1000);
  });

  it('answers a long poll at waitMs when its blocking read stalls, and the read deadline ends it (issue 18)', async () => {
    const healthy = createEngineClient(createEngine());
    const reads: { blockMs: number; signal: AbortSignal | undefined; at: number; abortedAt?: number }[] = [];
    const seam: RedisClient = {
      evalsha: (sha, keys, args, options) => healthy.evalsha(sha, keys, args, options),
      eval: (source, keys, args, options) => healthy.eval(source, keys, args, options),
      // Never answers: only an abort (the deadline of block + REDIS_TIMEOUT_MS) ends it.
      blockingRead: (_keys, _ids, blockMs, options) => {
        const read: (typeof reads)[number] = { blockMs, signal: options?.signal, at: performance.now() };
        reads.push(read);
        options?.signal?.addEventListener('abort', () => {
          read.abortedAt = performance.now();
        });
        return new Promise(() => {});
      },
    };
    const { app } = await serviceOn(seam, { REDIS_TIMEOUT_MS: '200', REQUEST_TIMEOUT_MS: '5000' });
    await request(app, 'PUT', '/v1/queues/q/groups/g', { start: '$' });
    const consume = await request(app, 'POST', '/v1/queues/q/groups/g/consume', {
      consumer: 'c',
      waitMs: 500,
    });
    expect(consume.status).toBe(200);
    expect(consume.json.messages).toEqual([]);
    expect(consume.ms).toBeLessThan(500 + 300);
    expect(reads).toHaveLength(1);
    // The read outlasts waitMs by the watch's linger (1.5 s, for the next poll to join) ...
    const read = reads[0] as (typeof reads)[number];
    expect(read.blockMs).toBeLessThanOrEqual(500 + 1500);
    // ... and its deadline, the block time plus REDIS_TIMEOUT_MS, ends it.
    while (read.abortedAt === undefined && performance.now() - read.at < 4000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(read.signal?.aborted).toBe(true);
    expect((read.abortedAt ?? 0) - read.at).toBeGreaterThanOrEqual(read.blockMs + 200 - 20);
    expect((read.abortedAt ?? 0) - read.at).toBeLessThan(read.blockMs + 200 + 300);
  });

  it('answers 503 once the request budget is spent, though each call is under the deadline', async () => {
    // GET /v1/queues reads the registry, then every queue's stats: two calls in a row.
    const engine = createEngine();
    const settings = { REDIS_TIMEOUT_MS: '3000', REQUEST_TIMEOUT_MS: '1000' };
    const fast = await serviceOn(slowSeam(createEngineClient(engine), 20), settings);
    for (const name of ['a', 'b']) await fast.queue.configure(name, {});
    const within = await request(fast.app, 'GET', '/v1/queues');
    expect(within.status).toBe(200);
    expect(within.json.queues).toHaveLength(2);
    // 700 ms per call is well under the call deadline, but two in a row overrun the budget.
    const slow = await serviceOn(slowSeam(createEngineClient(engine), 700), settings);
    const over = await request(slow.app, 'GET', '/v1/queues');
    expect(over.status).toBe(503);
    expect(over.headers.get('retry-after')).toBe('1');
    expect(over.json.error.message).toMatch(/did not finish within its 1000 ms budget/);
    expect(over.ms).toBeLessThan(1900);
  });
});

describe('nesting and undecodable entries (finding 3)', () => {
  const nested = (depth: number): unknown => {
    let value: unknown = 'leaf';
    for (let i = 0; i < depth; i++) value = [value];
    return value;
  };

  it('refuses a body nested deeper than 100 levels with 400, and takes 100', async () => {
    const h = await createHarness();
    // Written as text: Node's own JSON.stringify cannot serialise 5,000 levels.
    const deep = await h.call('POST', '/v1/queues/q/messages', {
      body: `{"messages":[{"body":${'['.repeat(5000)}1${']'.repeat(5000)}}]}`,
    });
    expect(deep.status).toBe(400);
    expect(deep.json.error.code).toBe('INVALID_ARGUMENT');
    expect(deep.json.error.message).toMatch(/nests deeper than at most 100 levels/);
    // 'leaf' inside 100 arrays is 100 levels; one more is refused.
    const limit = await h.call('POST', '/v1/queues/q/messages', {
      body: { messages: [{ body: nested(100) }] },
    });
    expect(limit.status).toBe(201);
    const over = await h.call('POST', '/v1/queues/q/messages', {
      body: { messages: [{ body: nested(101) }] },
    });
    expect(over.status).toBe(400);
  });

  it('delivers entries other clients wrote (deep, not JSON, odd attributes) raw, and the rest of the batch as usual', async () => {
    const h = await createHarness();
    await h.call('PUT', '/v1/queues/q/groups/g', { body: { start: '0' } });
    const stream = 'q:{q}:stream';
    const deepText = `${'['.repeat(5000)}1${']'.repeat(5000)}`;
    await h.engine.call(['XADD', stream, '*', 'body', deepText, 'enqueuedAt', '1']);
    await h.engine.call(['XADD', stream, '*', 'body', '{not json', 'enqueuedAt', '1']);
    await h.engine.call(['XADD', stream, '*', 'body', '1', 'attributes', '[1,2]', 'enqueuedAt', '1']);
    await h.engine.call(['XADD', stream, '*', '__proto__', 'x', 'blob', '\u0000\uffff']);
    await h.call('POST', '/v1/queues/q/messages', { body: { messages: [{ body: { ok: true } }] } });
    const consumed = await h.call('POST', '/v1/queues/q/groups/g/consume', {
      body: { consumer: 'c', count: 10 },
    });
    expect(consumed.status).toBe(200);
    const messages = consumed.json.messages as { body: unknown; fields?: Record<string, string> }[];
    expect(messages).toHaveLength(5);
    expect(messages[0]).toMatchObject({ body: null, fields: { body: deepText, enqueuedAt: '1' } });
    expect(messages[1]).toMatchObject({ body: null, fields: { body: '{not json' } });
    expect(messages[2]).toMatchObject({ body: null, fields: { attributes: '[1,2]' } });
    expect(Object.keys(messages[3]?.fields ?? {})).toEqual(['__proto__', 'blob']);
    expect(messages[4]).toMatchObject({ body: { ok: true }, attributes: {} });
    const browse = await h.call('GET', '/v1/queues/q/messages');
    expect(browse.status).toBe(200);
    expect(browse.json.messages).toHaveLength(5);
    const stats = await h.call('GET', '/v1/queues/q');
    expect(stats.json.groups[0].pending).toBe(5);
  });

  it('gives back what a long poll leased when its client has gone, instead of holding it', async () => {
    const gone = new AbortController();
    let first = true;
    const h = await createHarness({
      // The client leaves while the poll sleeps, and a message arrives at the same moment: the
      // next poll leases it for nobody.
      sleep: async (ms) => {
        if (first) {
          first = false;
          await h.queue.produce('q', [{ body: 'late' }]);
          gone.abort();
        }
        h.clock.advance(ms);
      },
    });
    await h.call('PUT', '/v1/queues/q/groups/g', { body: { start: '$' } });
    const res = await h.app.request('/v1/queues/q/groups/g/consume', {
      method: 'POST',
      headers: { authorization: 'Bearer admin-secret-1', 'content-type': 'application/json' },
      body: JSON.stringify({ consumer: 'leaver', waitMs: 5000 }),
      signal: gone.signal,
    });
    expect(await res.json()).toEqual({ messages: [] });
    const [entry] = (await h.call('GET', '/v1/queues/q/groups/g/pending?count=10')).json.entries;
    expect(entry).toMatchObject({ consumer: 'leaver', state: 'retrying', eligibleAt: h.clock.now() });
    const other = await h.call('POST', '/v1/queues/q/groups/g/consume', { body: { consumer: 'stayer' } });
    expect(other.json.messages).toMatchObject([{ body: 'late', deliveries: 2 }]);
  });
});

describe('ids at the edge of the range (finding 4)', () => {
  it('answers an empty page for an exclusive start at the largest id or an exclusive end at 0-0', async () => {
    const h = await createHarness();
    await h.call('POST', '/v1/queues/q/messages', { body: { messages: [{ body: 1 }] } });
    await h.call('PUT', '/v1/queues/q/groups/g', { body: { start: '0' } });
    await h.call('POST', '/v1/queues/q/groups/g/consume', { body: { consumer: 'c' } });
    const max = '18446744073709551615-18446744073709551615';
    for (const query of [`start=(${max}`, 'end=(0-0']) {
      const browse = await h.call('GET', `/v1/queues/q/messages?${query}`);
      expect(browse.status).toBe(200);
      expect(browse.json).toEqual({ messages: [] });
      const pending = await h.call('GET', `/v1/queues/q/groups/g/pending?${query}`);
      expect(pending.status).toBe(200);
      expect(pending.json).toEqual({ entries: [] });
    }
    // A DLQ cursor past the largest id of the partitions before its own (found by the contract run).
    for (const cursor of [max, `${max}-1`, `${max}-255`]) {
      const dlq = await h.call('GET', `/v1/queues/q/dlq?cursor=${cursor}`);
      expect(dlq.status).toBe(200);
      expect(dlq.json).toEqual({ deadLetters: [], cursor: null });
    }
    const missing = await h.call('GET', '/v1/queues/nope/messages?end=(0-0');
    expect(missing.status).toBe(404);
    const beyond = await h.call('GET', '/v1/queues/q/messages?start=(18446744073709551616-0');
    expect(beyond.status).toBe(400);
  });
});

describe('refused credentials (finding 5)', () => {
  it('answers REDIS_AUTH_FAILED (500, no Retry-After) on calls and on /healthz for a wrong Upstash token', async () => {
    const front = await startEngineServer({ port: 0, token: 'the-right-token' });
    try {
      const { app } = await serviceOn(createUpstashClient({ url: front.url, token: 'a-wrong-token' }));
      const produce = await request(app, 'POST', '/v1/queues/q/messages', { messages: [{ body: 1 }] });
      expect(produce.status).toBe(500);
      expect(produce.headers.get('retry-after')).toBeNull();
      expect(produce.json.error?.code).toBe('REDIS_AUTH_FAILED');
      const health = await request(app, 'GET', '/healthz');
      expect(health.status).toBe(500);
      expect(health.json.error?.code).toBe('REDIS_AUTH_FAILED');
    } finally {
      await front.close();
    }
  });
});

describe('an empty sweep body (finding 6)', () => {
  it('runs the sweep for an empty body sent as JSON', async () => {
    const h = await createHarness();
    for (const body of ['', '  ']) {
      const res = await h.call('POST', '/v1/sweep', {
        body,
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ complete: true });
    }
    const malformed = await h.call('POST', '/v1/sweep', {
      body: '{',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
  });
});

describe('a __proto__ attribute (finding 7)', () => {
  it('refuses it with 400 naming it, and changes nothing', async () => {
    const h = await createHarness();
    const before = h.snapshot();
    const res = await h.call('POST', '/v1/queues/q/messages', {
      body: '{"messages":[{"body":{"__proto__":1},"attributes":{"__proto__":"x","a":"b"}}]}',
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.json.error.details)).toContain('attribute name __proto__ is reserved');
    expect(h.snapshot()).toBe(before);
    await expect(
      h.queue.produce('q', [{ body: 1, attributes: JSON.parse('{"__proto__":"x"}') }]),
    ).rejects.toThrow(/attribute name __proto__ is reserved/);
    // In a body it is plain data and stays.
    const kept = await h.call('POST', '/v1/queues/q/messages', {
      body: '{"messages":[{"body":{"__proto__":1}}]}',
    });
    expect(kept.status).toBe(201);
    const [message] = (await h.call('GET', '/v1/queues/q/messages')).json.messages;
    expect(Object.keys(message.body)).toEqual(['__proto__']);
  });
});

describe('routing and wording (finding 10)', () => {
  it('answers 405 with Allow for a method not routed on an existing path', async () => {
    const h = await createHarness();
    const res = await h.call('PATCH', '/v1/queues/q');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('DELETE, GET, HEAD, PUT');
    expect(res.json.error).toMatchObject({
      code: 'METHOD_NOT_ALLOWED',
      details: { allow: ['DELETE', 'GET', 'HEAD', 'PUT'] },
    });
    const consume = await h.call('GET', '/v1/queues/q/groups/g/consume');
    expect(consume.status).toBe(405);
    expect(consume.headers.get('allow')).toBe('POST');
    expect((await h.call('GET', '/v1/nothing')).status).toBe(404);
  });

  it('names the queue and the group in not-found answers, and a missing queue as a missing queue', async () => {
    const h = await createHarness();
    await h.call('PUT', '/v1/queues/q', { body: {} });
    const group = await h.call('POST', '/v1/queues/q/groups/nope/consume', { body: { consumer: 'c' } });
    expect(group.status).toBe(404);
    expect(group.json.error).toMatchObject({
      code: 'GROUP_NOT_FOUND',
      message: 'Group "nope" of queue "q" does not exist',
    });
    const queue = await h.call('POST', '/v1/queues/absent/groups/g/consume', { body: { consumer: 'c' } });
    expect(queue.json.error).toMatchObject({
      code: 'QUEUE_NOT_FOUND',
      message: 'Queue "absent" does not exist',
    });
    const stats = await h.call('GET', '/v1/queues/absent');
    expect(stats.json.error.message).toBe('Queue "absent" does not exist');
  });

  it('shows a nacked message as retrying until its retry time, not as held by an idle consumer', async () => {
    const h = await createHarness();
    await h.call('POST', '/v1/queues/q/messages', { body: { messages: [{ body: 1 }] } });
    await h.call('PUT', '/v1/queues/q/groups/g', { body: { start: '0' } });
    const [message] = (await h.call('POST', '/v1/queues/q/groups/g/consume', { body: { consumer: 'c' } }))
      .json.messages;
    const leased = (await h.call('GET', '/v1/queues/q/groups/g/pending?count=10')).json.entries[0];
    expect(leased).toMatchObject({ id: message.id, state: 'leased', eligibleAt: h.clock.now() + 30_000 });
    await h.call('POST', '/v1/queues/q/groups/g/nack', { body: { ids: [message.id], delayMs: 60_000 } });
    h.clock.advance(45_000);
    const retrying = (await h.call('GET', '/v1/queues/q/groups/g/pending?count=10')).json.entries[0];
    expect(retrying).toMatchObject({ id: message.id, state: 'retrying', eligibleAt: h.clock.now() + 15_000 });
  });
});
