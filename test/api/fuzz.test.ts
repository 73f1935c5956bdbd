/**
 * Property-based fuzzing of bodies, params, query strings and headers: whatever arrives, the API
 * never answers 5xx, every failure is the envelope, and a rejected call changes nothing.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createHarness, type Harness, type Reply, tokens } from './support/harness.ts';

const bodyRoutes: [string, string][] = [
  ['PUT', '/v1/queues/q'],
  ['POST', '/v1/queues/q/messages'],
  ['PUT', '/v1/queues/q/groups/g2'],
  ['POST', '/v1/queues/q/groups/g/consume'],
  ['POST', '/v1/queues/q/groups/g/ack'],
  ['POST', '/v1/queues/q/groups/g/nack'],
  ['POST', '/v1/queues/q/groups/g/extend'],
  ['POST', '/v1/queues/q/groups/g/reclaim'],
  ['POST', '/v1/queues/q/dlq/redrive'],
  ['POST', '/v1/sweep'],
];

const allRoutes: [string, string][] = [
  ...bodyRoutes,
  ['GET', '/v1/queues/{q}'],
  ['DELETE', '/v1/queues/{q}'],
  ['GET', '/v1/queues/{q}/messages'],
  ['DELETE', '/v1/queues/{q}/groups/{g}'],
  ['GET', '/v1/queues/{q}/groups/{g}/pending'],
  ['GET', '/v1/queues/{q}/dlq'],
  ['DELETE', '/v1/queues/{q}/dlq'],
];

async function seeded(): Promise<Harness> {
  const h = await createHarness();
  await h.call('POST', '/v1/queues/q/messages', { body: { messages: [{ body: 'seed' }, { body: 2 }] } });
  await h.call('PUT', '/v1/queues/q/groups/g', { body: { start: '0' } });
  await h.call('POST', '/v1/queues/q/groups/g/consume', { body: { consumer: 'c', count: 1 } });
  return h;
}

function checkReply(res: Reply): void {
  expect(res.status).toBeLessThan(500);
  if (res.status >= 400) {
    expect(res.json).toMatchObject({ error: { code: expect.any(String), message: expect.any(String) } });
    expect(Object.keys(res.json)).toEqual(['error']);
  }
}

/** Values shaped like the real fields, so the fuzzer reaches past the first check. */
const nearMiss = fc.oneof(
  fc.jsonValue(),
  fc.constantFrom('0', '$', '1-1', '-', '+', '(1-0', 'c', '', '1e3', '-1', '99999999999999999999999-0'),
  fc.integer({ min: -2, max: 25_000 }),
  fc.double(),
  fc.array(fc.constantFrom('1700000000000-0', '1-1', 'x', 1, null), { maxLength: 3 }),
);
const fieldNames = fc.constantFrom(
  'messages',
  'body',
  'ids',
  'consumer',
  'count',
  'waitMs',
  'delayMs',
  'start',
  'minIdleMs',
  'cursor',
  'all',
  'visibilityTimeoutMs',
  'maxDeliveries',
  'budget',
  'attributes',
  'dedupId',
  '__proto__',
  'constructor',
);
const shapedBody = fc.oneof(
  fc.dictionary(fieldNames, nearMiss, { maxKeys: 4 }),
  fc.record({ messages: fc.array(fc.dictionary(fieldNames, nearMiss, { maxKeys: 4 }), { maxLength: 3 }) }),
);
const rawBody = fc.oneof(
  shapedBody.map((value) => JSON.stringify(value)),
  fc.jsonValue().map((value) => JSON.stringify(value)),
  fc.string(),
  fc.constantFrom('{', '[]', 'null', '{"messages":[{"body":1}', '\u0000', '{"a":1}{"b":2}'),
);

/** Bodies that are valid or nearly so, per route, so calls reach the queue and the scripts. */
const name = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9._-]{1,100}$/),
  fc.constantFrom('c', 'w-1', 'a'.repeat(100)),
);
const u64 = fc.oneof(
  fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
  fc.constantFrom(0n, 1n, 2n ** 64n - 1n, 2n ** 64n, 10n ** 20n - 1n),
);
const streamId = fc.oneof(
  fc.tuple(u64, u64).map(([ms, seq]) => `${ms}-${seq}`),
  fc.constantFrom('0-0', '0-1', '1700000000000-0'),
);
const ids = fc.array(streamId, { minLength: 1, maxLength: 4 });
const ms = fc.oneof(
  fc.integer({ min: 0, max: 100_000 }),
  fc.constantFrom(0, 1, 2 ** 31, 365 * 86_400_000, 2 ** 53 - 1),
);
const bodyFor: Record<string, fc.Arbitrary<unknown>> = {
  'PUT /v1/queues/q': fc.record(
    {
      visibilityTimeoutMs: ms,
      maxDeliveries: fc.integer({ min: 0, max: 1001 }),
      dedupWindowMs: ms,
      retentionMs: ms,
      consumerIdleMs: ms,
      maxInFlightPerConsumer: fc.integer({ min: 0, max: 100_001 }),
    },
    { requiredKeys: [] },
  ),
  'POST /v1/queues/q/messages': fc.record({
    messages: fc.array(
      fc.record(
        {
          body: fc.jsonValue(),
          attributes: fc.dictionary(fc.string({ maxLength: 10 }), fc.string({ maxLength: 20 }), {
            maxKeys: 3,
          }),
          delayMs: ms,
          dedupId: fc.string({ minLength: 1, maxLength: 20 }),
        },
        { requiredKeys: ['body'] },
      ),
      { minLength: 1, maxLength: 3 },
    ),
  }),
  'PUT /v1/queues/q/groups/g2': fc.record({ start: fc.oneof(fc.constantFrom('0', '$'), streamId) }),
  'POST /v1/queues/q/groups/g/consume': fc.record(
    { consumer: name, count: fc.integer({ min: 1, max: 1000 }), waitMs: fc.integer({ min: 0, max: 300 }) },
    { requiredKeys: ['consumer'] },
  ),
  'POST /v1/queues/q/groups/g/ack': fc.record({ ids }),
  'POST /v1/queues/q/groups/g/nack': fc.record({ ids, delayMs: ms }, { requiredKeys: ['ids'] }),
  'POST /v1/queues/q/groups/g/extend': fc.record({ consumer: name, ids }),
  'POST /v1/queues/q/groups/g/reclaim': fc.record(
    { consumer: name, minIdleMs: ms, count: fc.integer({ min: 1, max: 1000 }), cursor: streamId },
    { requiredKeys: ['consumer', 'minIdleMs'] },
  ),
  'POST /v1/queues/q/dlq/redrive': fc.oneof(fc.constant({ all: true }), fc.record({ ids })),
  'POST /v1/sweep': fc.record(
    { budget: fc.integer({ min: 1, max: 1000 }), timeBudgetMs: fc.integer({ min: 1, max: 1000 }) },
    { requiredKeys: [] },
  ),
};
const validishCall = fc
  .constantFrom(...bodyRoutes)
  .chain(([method, path]) =>
    bodyFor[`${method} ${path}`]!.map((body) => [method, path, JSON.stringify(body)] as const),
  );

describe('fuzzing', () => {
  it('answers any JSON-ish body without a 5xx, in the envelope, changing nothing when it rejects', async () => {
    const h = await seeded();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...bodyRoutes), rawBody, async ([method, path], body) => {
        const before = h.snapshot();
        const res = await h.call(method, path, { body });
        checkReply(res);
        if (res.status >= 400) expect(h.snapshot()).toBe(before);
      }),
      { numRuns: 400 },
    );
  });

  it('answers any path parameter and query string without a 5xx', async () => {
    const h = await seeded();
    const segment = fc.oneof(
      fc.string({ maxLength: 120 }),
      fc.string({ unit: 'grapheme', maxLength: 20 }),
      fc.constantFrom('q', 'g', '..', '.', '%', '%2F', 'a'.repeat(101), 'ok-name_1.2'),
    );
    const query = fc.dictionary(
      fc.constantFrom('start', 'end', 'count', 'cursor', 'consumer', 'minIdleMs', 'x'),
      fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('-', '+', '10', '0', '1000', '1001', '(1-1')),
      { maxKeys: 4 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...allRoutes),
        segment,
        segment,
        query,
        async ([method, template], q, g, qs) => {
          const path = template.replace('{q}', encodeURIComponent(q)).replace('{g}', encodeURIComponent(g));
          const search = new URLSearchParams(qs).toString();
          const before = h.snapshot();
          const res = await h.call(method, search === '' ? path : `${path}?${search}`);
          checkReply(res);
          if (res.status >= 400) expect(h.snapshot()).toBe(before);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('answers any authorization and content-type header without a 5xx', async () => {
    const h = await seeded();
    const headerValue = fc.string({ maxLength: 60 }).filter((s) => /^[\t\x20-\x7e]*$/.test(s));
    const authorization = fc.oneof(
      headerValue,
      headerValue.map((s) => `Bearer ${s}`),
      fc.constantFrom(
        `Bearer ${tokens.admin}`,
        `bearer   ${tokens.consume}`,
        `Bearer ${tokens.admin} extra`,
        'Bearer',
      ),
    );
    const contentType = fc.oneof(
      headerValue,
      fc.constantFrom(
        'application/json',
        'application/json; charset=utf-8',
        'text/plain',
        'application/vnd.x+json',
      ),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...bodyRoutes),
        authorization,
        contentType,
        shapedBody,
        async ([method, path], auth, type, body) => {
          const before = h.snapshot();
          const res = await h.call(method, path, {
            token: null,
            body: JSON.stringify(body),
            headers: { authorization: auth, 'content-type': type },
          });
          checkReply(res);
          if (res.status >= 400) expect(h.snapshot()).toBe(before);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('answers mostly valid bodies without a 5xx, reaching the scripts', async () => {
    const h = await createHarness();
    const send = (method: string, path: string, body: string) => h.call(method, path, { body });
    const statuses = new Map<number, number>();
    await send('POST', '/v1/queues/q/messages', JSON.stringify({ messages: [{ body: 'seed' }] }));
    await send('PUT', '/v1/queues/q/groups/g', JSON.stringify({ start: '0' }));
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          { weight: 4, arbitrary: validishCall },
          {
            weight: 1,
            arbitrary: fc
              .tuple(fc.constantFrom(...bodyRoutes), rawBody)
              .map(([[m, p], b]) => [m, p, b] as const),
          },
        ),
        async ([method, path, body]) => {
          const res = await send(method, path, body);
          if (res.status >= 500) throw new Error(`${method} ${path} ${body} → ${res.status} ${res.text}`);
          checkReply(res);
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        },
      ),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 300) },
    );
    // The generators must reach the queue, not only the validator.
    expect((statuses.get(200) ?? 0) + (statuses.get(201) ?? 0)).toBeGreaterThan(60);
  });
});
