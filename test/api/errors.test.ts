/** Every error code the API answers with, each in the one envelope. */
import { describe, expect, it } from 'vitest';
import { RedisReplyError, RedisUnavailableError } from '../../lib/redis/client.ts';
import { createHarness, tokens } from './support/harness.ts';

function expectEnvelope(json: unknown, code: string): void {
  expect(json).toMatchObject({ error: { code, message: expect.any(String) } });
  expect(Object.keys((json as { error: object }).error).sort()).toEqual(
    expect.arrayContaining(['code', 'message']),
  );
}

describe('400 validation', () => {
  it('lists the zod issues with their paths in details', async () => {
    const h = await createHarness();
    const res = await h.call('POST', '/v1/queues/orders/messages', {
      body: { messages: [{ body: 1, delayMs: -5 }, { attributes: { a: 1 } }] },
    });
    expect(res.status).toBe(400);
    expectEnvelope(res.json, 'INVALID_ARGUMENT');
    const paths = res.json.error.details.issues.map((i: { path: string[] }) => i.path.join('.'));
    expect(paths).toEqual(
      expect.arrayContaining(['messages.0.delayMs', 'messages.1.body', 'messages.1.attributes.a']),
    );
    expect(h.calls).toEqual([]);
  });

  it('refuses a lone surrogate in a string that becomes a Redis key or field, naming the field', async () => {
    const h = await createHarness();
    const cases: [string, string, unknown, string][] = [
      [
        'POST',
        '/v1/queues/orders/messages',
        { messages: [{ body: 1, dedupId: '\ud800' }] },
        'messages.0.dedupId',
      ],
      [
        'POST',
        '/v1/queues/orders/messages',
        { messages: [{ body: 1, groupKey: '\udfff' }] },
        'messages.0.groupKey',
      ],
      [
        'POST',
        '/v1/queues/orders/messages',
        { messages: [{ body: 1, attributes: { k: 'a\udbff' } }] },
        'messages.0.attributes.k',
      ],
      [
        'PUT',
        '/v1/queues/orders/schedules/nightly',
        { cron: '* * * * *', message: { body: 1, dedupId: 'x\udc00' } },
        'message.dedupId',
      ],
    ];
    for (const [method, path, body, field] of cases) {
      const res = await h.call(method, path, { body });
      expect(res.status).toBe(400);
      expectEnvelope(res.json, 'INVALID_ARGUMENT');
      const issues = res.json.error.details.issues as { path: string[]; message: string }[];
      expect(issues.map((i) => i.path.join('.'))).toContain(field);
      expect(issues.map((i) => i.message).join(' ')).toContain('well-formed Unicode');
    }
    expect(h.calls).toEqual([]);
    // A lone surrogate in a body is kept: JSON escapes it.
    const ok = await h.call('POST', '/v1/queues/orders/messages', {
      body: { messages: [{ body: '\ud800' }] },
    });
    expect(ok.status).toBe(201);
  });

  it('rejects an invalid queue name in the path', async () => {
    const h = await createHarness();
    const res = await h.call('PUT', `/v1/queues/${'x'.repeat(101)}`, { body: {} });
    expect(res.status).toBe(400);
    expect(res.json.error.details.issues[0].path).toEqual(['queue']);
  });

  it('rejects malformed JSON as 400, not 500', async () => {
    const h = await createHarness();
    const res = await h.call('POST', '/v1/queues/orders/messages', { body: '{"messages": [' });
    expect(res.status).toBe(400);
    expectEnvelope(res.json, 'INVALID_ARGUMENT');
  });

  it('rejects a missing body on a route that needs one', async () => {
    const h = await createHarness();
    const res = await h.call('POST', '/v1/queues/orders/groups/g/ack');
    expect(res.status).toBe(400);
    expectEnvelope(res.json, 'INVALID_ARGUMENT');
  });

  it('rejects unknown fields, bad ids, out-of-range counts and query numbers', async () => {
    const h = await createHarness();
    const cases: [string, string, unknown][] = [
      ['PUT', '/v1/queues/q', { visibilityTimeout: 5 }],
      ['POST', '/v1/queues/q/groups/g/ack', { ids: ['not-an-id'] }],
      ['POST', '/v1/queues/q/groups/g/ack', { ids: [] }],
      ['POST', '/v1/queues/q/groups/g/consume', { consumer: 'c', count: 1001 }],
      ['POST', '/v1/queues/q/groups/g/consume', { consumer: 'c', waitMs: 20_001 }],
      ['POST', '/v1/queues/q/groups/g/consume', { consumer: 'bad name' }],
      ['POST', '/v1/queues/q/groups/g/consume', { consumer: 'c', attemptId: '' }],
      ['POST', '/v1/queues/q/groups/g/consume', { consumer: 'c', attemptId: 'has space' }],
      ['POST', '/v1/queues/q/groups/g/consume', { consumer: 'c', attemptId: 'a'.repeat(129) }],
      ['POST', '/v1/queues/q/groups/g/consume', { consumer: 'c', attemptId: '\ud800' }],
      ['POST', '/v1/queues/q/groups/g/consume', { consumer: 'c', leaseMs: -1 }],
      ['POST', '/v1/queues/q/groups/g/consume', { consumer: 'c', leaseMs: 43_200_001 }],
      ['POST', '/v1/queues/q/groups/g/consume', { consumer: 'c', maxBytes: 0 }],
      ['POST', '/v1/queues/q/groups/g/consume', { consumer: 'c', maxBytes: 33_554_433 }],
      ['PUT', '/v1/queues/q/groups/g', { start: 'latest' }],
      ['POST', '/v1/queues/q/dlq/redrive', { all: false }],
      ['GET', '/v1/queues/q/messages?count=0', undefined],
      ['GET', '/v1/queues/q/messages?count=1e3', undefined],
      ['GET', '/v1/queues/q/groups/g/pending?minIdleMs=-1', undefined],
      ['GET', '/v1/queues/q/dlq?cursor=abc', undefined],
      ['POST', '/v1/sweep', { budget: 0 }],
    ];
    for (const [method, path, body] of cases) {
      const res = await h.call(method, path, { body });
      expect([method, path, res.status]).toEqual([method, path, 400]);
      expectEnvelope(res.json, 'INVALID_ARGUMENT');
    }
    expect(h.calls).toEqual([]);
  });
});

describe('401, 403', () => {
  it('answers 401 with WWW-Authenticate when the token is missing or unknown', async () => {
    const h = await createHarness();
    for (const token of [null, 'nope']) {
      const res = await h.call('GET', '/v1/queues', { token });
      expect(res.status).toBe(401);
      expectEnvelope(res.json, 'UNAUTHORIZED');
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
    }
    const malformed = await h.call('GET', '/v1/queues', {
      token: null,
      headers: { authorization: 'Basic abc' },
    });
    expect(malformed.status).toBe(401);
  });

  it('answers 403 naming the scope the route needs', async () => {
    const h = await createHarness();
    const res = await h.call('POST', '/v1/sweep', { token: tokens.consume });
    expect(res.status).toBe(403);
    expectEnvelope(res.json, 'FORBIDDEN');
    expect(res.json.error.details).toEqual({ required: 'admin' });
    expect(h.calls).toEqual([]);
  });
});

describe('404', () => {
  it('hints how to create an unknown group', async () => {
    const h = await createHarness();
    await h.call('POST', '/v1/queues/orders/messages', { body: { messages: [{ body: 1 }] } });
    const res = await h.call('POST', '/v1/queues/orders/groups/workers/consume', { body: { consumer: 'c' } });
    expect(res.status).toBe(404);
    expectEnvelope(res.json, 'GROUP_NOT_FOUND');
    expect(res.json.error.details.hint).toBe(
      'Create the group with PUT /v1/queues/orders/groups/workers and a body such as {"start":"0"}',
    );
  });

  it('hints how to create an unknown queue', async () => {
    const h = await createHarness();
    const res = await h.call('GET', '/v1/queues/missing');
    expect(res.status).toBe(404);
    expectEnvelope(res.json, 'QUEUE_NOT_FOUND');
    expect(res.json.error.details.hint).toContain('PUT /v1/queues/missing');
  });

  it('answers an unknown route in the envelope', async () => {
    const h = await createHarness();
    const res = await h.call('GET', '/v1/nothing-here');
    expect(res.status).toBe(404);
    expectEnvelope(res.json, 'NOT_FOUND');
    const root = await h.call('GET', '/nowhere', { token: null });
    expect(root.status).toBe(404);
    expectEnvelope(root.json, 'NOT_FOUND');
  });
});

describe('409, 503, 500 from the queue', () => {
  it('answers CONFLICT (409) when a key of the queue holds another type', async () => {
    const h = await createHarness();
    await h.engine.call(['SET', 'q:{orders}:stream', 'written by someone else']);
    const res = await h.call('POST', '/v1/queues/orders/messages', { body: { messages: [{ body: 1 }] } });
    expect(res.status).toBe(409);
    expect(res.json).toEqual({
      error: {
        code: 'CONFLICT',
        message:
          'A key of this queue holds a value of another type (written by something other than this queue)',
      },
    });
  });

  it('maps REDIS_UNAVAILABLE to 503 with Retry-After', async () => {
    const h = await createHarness();
    h.failNext(new RedisUnavailableError('timeout'));
    const res = await h.call('GET', '/v1/queues');
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expectEnvelope(res.json, 'REDIS_UNAVAILABLE');
  });

  it('answers /healthz 503 with Retry-After when Redis does not answer', async () => {
    const h = await createHarness();
    h.setHealthy(false);
    const res = await h.call('GET', '/healthz', { token: null });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expectEnvelope(res.json, 'REDIS_UNAVAILABLE');
  });

  it('answers MESSAGE_TOO_LARGE (413) for a message over the limit', async () => {
    const h = await createHarness({ limits: { maxMessageBytes: 10 } });
    const res = await h.call('POST', '/v1/queues/orders/messages', {
      body: { messages: [{ body: 'x'.repeat(20) }] },
    });
    expect(res.status).toBe(413);
    expectEnvelope(res.json, 'MESSAGE_TOO_LARGE');
  });

  it('logs an unexpected error with the request id and answers 500 without internals', async () => {
    const h = await createHarness();
    h.queue.listQueues = () =>
      Promise.reject(new TypeError('cannot read properties of undefined (secret internals)'));
    const res = await h.call('GET', '/v1/queues', { headers: { 'x-request-id': 'req-42' } });
    expect(res.status).toBe(500);
    expect(res.json).toEqual({
      error: { code: 'INTERNAL', message: 'Internal error', details: { requestId: 'req-42' } },
    });
    expect(res.text).not.toContain('secret');
    expect(h.logged).toHaveLength(1);
    expect(h.logged[0]).toMatchObject({
      level: 'error',
      context: { requestId: 'req-42', path: '/v1/queues' },
    });
  });

  it('answers REDIS_ERROR as 500 and logs it', async () => {
    const h = await createHarness();
    h.failNext(new RedisReplyError("ERR unexpected, args 'secret-body'"));
    const res = await h.call('GET', '/v1/queues');
    expect(res.status).toBe(500);
    expect(res.json.error).toMatchObject({
      code: 'REDIS_ERROR',
      message: 'Redis answered with an unexpected error',
    });
    expect(res.text).not.toContain('secret-body');
    expect(h.logged[0]?.context.requestId).toBe(res.headers.get('x-request-id'));
  });
});

describe('413, 415', () => {
  it('rejects a request body over the limit before the queue sees it', async () => {
    const h = await createHarness({ limits: { maxRequestBytes: 1000 } });
    const res = await h.call('POST', '/v1/queues/orders/messages', {
      body: { messages: [{ body: 'x'.repeat(2000) }] },
    });
    expect(res.status).toBe(413);
    expect(res.json).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE', details: { limit: 1000 } } });
    expect(h.calls).toEqual([]);
  });

  it('rejects a whole batch when one message is over the per-message limit', async () => {
    const h = await createHarness({ limits: { maxMessageBytes: 100 } });
    const res = await h.call('POST', '/v1/queues/orders/messages', {
      body: { messages: [{ body: 'small' }, { body: 'y'.repeat(200) }] },
    });
    expect(res.status).toBe(413);
    expect(res.json.error.details).toEqual({ index: 1, bytes: 202, limit: 100 });
    expect(h.calls).toEqual([]);
  });

  it('uses 256 KiB per message and 1 MiB per request by default', async () => {
    const h = await createHarness();
    const justOver = await h.call('POST', '/v1/queues/q/messages', {
      body: { messages: [{ body: 'z'.repeat(256 * 1024) }] },
    });
    expect(justOver.status).toBe(413);
    expect(justOver.json.error.details.limit).toBe(256 * 1024);
    const fits = await h.call('POST', '/v1/queues/q/messages', {
      body: { messages: [{ body: 'z'.repeat(256 * 1024 - 2) }] },
    });
    expect(fits.status).toBe(201);
    const tooMany = await h.call('POST', '/v1/queues/q/messages', {
      body: { messages: Array.from({ length: 5 }, () => ({ body: 'z'.repeat(250 * 1024) })) },
    });
    expect(tooMany.status).toBe(413);
    expect(tooMany.json.error.details.limit).toBe(1024 * 1024);
  });

  it('answers 415 for a body that is not JSON', async () => {
    const h = await createHarness();
    const res = await h.call('POST', '/v1/queues/orders/messages', {
      body: 'messages=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(415);
    expectEnvelope(res.json, 'UNSUPPORTED_MEDIA_TYPE');
  });
});
