/**
 * The fused routes (lib/api/fused-routes.ts) against zod-openapi's own chain: the same app built
 * twice on two equal harnesses, one with each, answers every request of the same sequence alike
 * (status, headers, body; the request id aside), and leaves the same keyspace.
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import type { Harness, Reply } from './support/harness.ts';

type HarnessModule = typeof import('./support/harness.ts');

/** The harness module, its app built with zod-openapi's chain instead of fused routes. */
async function chainedHarnessModule(): Promise<HarnessModule> {
  vi.resetModules();
  vi.doMock('../../lib/api/fused-routes.ts', async (importOriginal) => ({
    ...(await importOriginal<typeof import('../../lib/api/fused-routes.ts')>()),
    FusedOpenAPIHono: OpenAPIHono,
  }));
  try {
    return await import('./support/harness.ts');
  } finally {
    vi.doUnmock('../../lib/api/fused-routes.ts');
    vi.resetModules();
  }
}

async function pair(): Promise<{ fused: Harness; chained: Harness; tokens: HarnessModule['tokens'] }> {
  const chainedModule = await chainedHarnessModule();
  const fusedModule = await import('./support/harness.ts');
  return {
    fused: await fusedModule.createHarness(),
    chained: await chainedModule.createHarness(),
    tokens: fusedModule.tokens,
  };
}

/** A reply with its request id (random per request) replaced by a placeholder. */
function comparable(reply: Reply): unknown {
  const id = reply.headers.get('x-request-id') ?? '';
  const headers = [...reply.headers].filter(([name]) => name !== 'x-request-id');
  return { status: reply.status, headers, text: id === '' ? reply.text : reply.text.replaceAll(id, '<id>') };
}

const routes: [string, string][] = [
  ['PUT', '/v1/queues/q'],
  ['GET', '/v1/queues/q'],
  ['GET', '/v1/queues/q/config'],
  ['GET', '/v1/queues'],
  ['POST', '/v1/queues/q/messages'],
  ['GET', '/v1/queues/q/messages'],
  ['GET', '/v1/queues/q/messages/1-0'],
  ['DELETE', '/v1/queues/q/messages/1-0'],
  ['PUT', '/v1/queues/q/groups/g'],
  ['DELETE', '/v1/queues/q/groups/g2'],
  ['POST', '/v1/queues/q/groups/g/consume'],
  ['POST', '/v1/queues/q/groups/g/ack'],
  ['POST', '/v1/queues/q/groups/g/nack'],
  ['POST', '/v1/queues/q/groups/g/extend'],
  ['POST', '/v1/queues/q/groups/g/reclaim'],
  ['GET', '/v1/queues/q/groups/g/pending'],
  ['POST', '/v1/queues/q/dlq/redrive'],
  ['GET', '/v1/queues/q/dlq'],
  ['POST', '/v1/queues/q/pause'],
  ['POST', '/v1/queues/q/resume'],
  ['POST', '/v1/sweep'],
  ['GET', '/healthz'],
  ['GET', '/metrics'],
];

const contentTypes = [
  undefined,
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/vnd.api+json',
  'text/plain',
  '',
];

const bodies = [
  undefined,
  '',
  '{}',
  '\uFEFF{}',
  'null',
  '[]',
  '{',
  '{"consumer":"c","count":2}',
  '{"messages":[{"body":{"n":1}}]}',
  '{"messages":[{"body":1,"groupKey":"k","dedupId":"d"}]}',
  '{"ids":["1-0"]}',
  '{"start":"0"}',
  '{"consumer":"c","minIdleMs":0}',
  '{"all":true}',
  '{"budget":5}',
  '{"unknown":1}',
];

describe('fused routes', () => {
  it('answer every route, content type and body as zod-openapi chain does, with the same effects', async () => {
    const { fused, chained, tokens } = await pair();
    const scopes = [tokens.admin, tokens.consume, tokens.produce, null];
    const same = async (method: string, path: string, options: Parameters<Harness['call']>[2]) => {
      const a = await fused.call(method, path, options);
      const b = await chained.call(method, path, options);
      expect(comparable(a), `${method} ${path} ${JSON.stringify(options)}`).toEqual(comparable(b));
    };
    await same('POST', '/v1/queues/q/messages', { body: { messages: [{ body: 1 }, { body: 2 }] } });
    for (const [method, path] of routes) {
      for (const contentType of contentTypes) {
        for (const body of method === 'GET' ? [undefined] : bodies) {
          const headers: Record<string, string> =
            contentType === undefined ? {} : { 'content-type': contentType };
          await same(method, path, { body, headers });
        }
      }
      for (const token of scopes)
        await same(method, path, { token, body: method === 'GET' ? undefined : '{}' });
    }
    expect(fused.snapshot()).toBe(chained.snapshot());
  }, 120_000);

  it('answer any path, query and body alike', async () => {
    const { fused, chained } = await pair();
    const segment = fc.oneof(
      fc.constantFrom('q', 'g', '%', '%2F', '..', 'a'.repeat(101), '1-0', 'delayed-1'),
      fc.string({ maxLength: 12 }),
    );
    const query = fc.dictionary(
      fc.constantFrom('start', 'end', 'count', 'cursor', 'consumer', 'minIdleMs', 'limit'),
      fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('-', '+', '10', '0', '1001', '1-0')),
      { maxKeys: 3 },
    );
    const body = fc.oneof(
      fc.constant(undefined),
      fc.constantFrom(...bodies),
      fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value)),
      fc.string({ maxLength: 20 }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        segment,
        segment,
        query,
        body,
        fc.constantFrom(...contentTypes),
        async ([method, template], q, g, qs, text, contentType) => {
          const path = template
            .replace('/queues/q', `/queues/${encodeURIComponent(q)}`)
            .replace('/groups/g', `/groups/${encodeURIComponent(g)}`);
          const search = new URLSearchParams(qs).toString();
          const url = search === '' ? path : `${path}?${search}`;
          const headers: Record<string, string> =
            contentType === undefined ? {} : { 'content-type': contentType };
          const options = { body: method === 'GET' ? undefined : text, headers };
          const a = await fused.call(method, url, options);
          const b = await chained.call(method, url, options);
          expect(comparable(a)).toEqual(comparable(b));
        },
      ),
      { numRuns: 300 },
    );
    expect(fused.snapshot()).toBe(chained.snapshot());
  }, 60_000);
});
