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

describe('fuzzing', () => {
  it('answers any JSON-ish body without a 5xx, in the envelope, changing nothing when it rejects', async () => {
    const h = await seeded();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...bodyRoutes), rawBody, async ([method, path], body) => {
        const before = h.queue.snapshot();
        const res = await h.call(method, path, { body });
        checkReply(res);
        if (res.status >= 400) expect(h.queue.snapshot()).toBe(before);
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
          const before = h.queue.snapshot();
          const res = await h.call(method, search === '' ? path : `${path}?${search}`);
          checkReply(res);
          if (res.status >= 400) expect(h.queue.snapshot()).toBe(before);
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
          const before = h.queue.snapshot();
          const res = await h.call(method, path, {
            token: null,
            body: JSON.stringify(body),
            headers: { authorization: auth, 'content-type': type },
          });
          checkReply(res);
          if (res.status >= 400) expect(h.queue.snapshot()).toBe(before);
        },
      ),
      { numRuns: 400 },
    );
  });
});
