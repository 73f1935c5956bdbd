/** /openapi.json and /docs come from the same zod schemas that validate requests. */
import { describe, expect, it } from 'vitest';
import { createHarness } from './support/harness.ts';

describe('OpenAPI document', () => {
  it('lists every route with its method and the bearer scheme', async () => {
    const h = await createHarness();
    const res = await h.call('GET', '/openapi.json', { token: null });
    expect(res.status).toBe(200);
    const doc = res.json;
    expect(doc.openapi).toBe('3.0.3');
    const operations = Object.entries(doc.paths as Record<string, object>).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual(
      [
        'PUT /v1/queues/{queue}',
        'GET /v1/queues',
        'GET /v1/queues/{queue}',
        'GET /v1/queues/{queue}/config',
        'DELETE /v1/queues/{queue}',
        'POST /v1/queues/{queue}/messages',
        'GET /v1/queues/{queue}/messages',
        'GET /v1/queues/{queue}/messages/{id}',
        'DELETE /v1/queues/{queue}/messages/{id}',
        'PUT /v1/queues/{queue}/groups/{group}',
        'DELETE /v1/queues/{queue}/groups/{group}',
        'POST /v1/queues/{queue}/groups/{group}/consume',
        'POST /v1/queues/{queue}/groups/{group}/ack',
        'POST /v1/queues/{queue}/groups/{group}/nack',
        'POST /v1/queues/{queue}/groups/{group}/extend',
        'POST /v1/queues/{queue}/groups/{group}/reclaim',
        'GET /v1/queues/{queue}/groups/{group}/pending',
        'GET /v1/queues/{queue}/dlq',
        'POST /v1/queues/{queue}/dlq/redrive',
        'DELETE /v1/queues/{queue}/dlq',
        'POST /v1/queues/{queue}/pause',
        'POST /v1/queues/{queue}/resume',
        'PUT /v1/queues/{queue}/schedules/{name}',
        'GET /v1/queues/{queue}/schedules',
        'DELETE /v1/queues/{queue}/schedules/{name}',
        'POST /v1/queues/{queue}/groups/{group}/pause',
        'POST /v1/queues/{queue}/groups/{group}/resume',
        'POST /v1/sweep',
        'GET /healthz',
        'GET /metrics',
      ].sort(),
    );
    expect(doc.components.securitySchemes.bearerAuth).toEqual({ type: 'http', scheme: 'bearer' });
  });

  it('describes the consume body with the limits the validator enforces', async () => {
    const h = await createHarness();
    const doc = (await h.call('GET', '/openapi.json', { token: null })).json;
    const consume = doc.components.schemas.ConsumeRequest;
    expect(consume.properties.count).toMatchObject({ minimum: 1, maximum: 1000, default: 10 });
    expect(consume.properties.waitMs).toMatchObject({ minimum: 0, maximum: 20000, default: 0 });
    expect(consume.required).toEqual(['consumer']);
    const produce = doc.paths['/v1/queues/{queue}/messages'].post;
    expect(produce.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/ProduceRequest',
    });
    // Exactly the statuses produce can answer: it creates a missing queue, so never 404.
    expect(Object.keys(produce.responses).sort()).toEqual([
      '201',
      '400',
      '401',
      '403',
      '408',
      '409',
      '413',
      '415',
      '500',
      '503',
    ]);
    expect(produce.operationId).toBe('produceMessages');
    expect(Object.keys(produce.responses['503'].headers).sort()).toEqual(['Retry-After', 'X-Request-Id']);
    expect(Object.keys(produce.responses['401'].headers).sort()).toEqual([
      'WWW-Authenticate',
      'X-Request-Id',
    ]);
    const consumeOp = doc.paths['/v1/queues/{queue}/groups/{group}/consume'].post;
    expect(Object.keys(consumeOp.responses)).toContain('404');
    expect(doc.components.schemas.Error.properties.error.required).toEqual(['code', 'message']);
  });

  it('names every operation with a stable operationId', async () => {
    const h = await createHarness();
    const doc = (await h.call('GET', '/openapi.json', { token: null })).json;
    const ids = Object.entries(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap(
      ([path, methods]) =>
        Object.entries(methods).map(([method, op]) => `${method.toUpperCase()} ${path} ${op.operationId}`),
    );
    expect(ids.sort()).toEqual(
      [
        'PUT /v1/queues/{queue} configureQueue',
        'GET /v1/queues listQueues',
        'GET /v1/queues/{queue} getQueueStats',
        'GET /v1/queues/{queue}/config getQueueConfig',
        'DELETE /v1/queues/{queue} deleteQueue',
        'POST /v1/queues/{queue}/messages produceMessages',
        'GET /v1/queues/{queue}/messages browseMessages',
        'GET /v1/queues/{queue}/messages/{id} getMessage',
        'DELETE /v1/queues/{queue}/messages/{id} cancelMessage',
        'PUT /v1/queues/{queue}/groups/{group} createGroup',
        'DELETE /v1/queues/{queue}/groups/{group} deleteGroup',
        'POST /v1/queues/{queue}/groups/{group}/consume consumeMessages',
        'POST /v1/queues/{queue}/groups/{group}/ack ackMessages',
        'POST /v1/queues/{queue}/groups/{group}/nack nackMessages',
        'POST /v1/queues/{queue}/groups/{group}/extend extendLeases',
        'POST /v1/queues/{queue}/groups/{group}/reclaim reclaimMessages',
        'GET /v1/queues/{queue}/groups/{group}/pending getPending',
        'GET /v1/queues/{queue}/dlq listDeadLetters',
        'POST /v1/queues/{queue}/dlq/redrive redriveDeadLetters',
        'DELETE /v1/queues/{queue}/dlq purgeDeadLetters',
        'POST /v1/queues/{queue}/pause pauseQueue',
        'PUT /v1/queues/{queue}/schedules/{name} createSchedule',
        'GET /v1/queues/{queue}/schedules listSchedules',
        'DELETE /v1/queues/{queue}/schedules/{name} deleteSchedule',
        'POST /v1/queues/{queue}/resume resumeQueue',
        'POST /v1/queues/{queue}/groups/{group}/pause pauseGroup',
        'POST /v1/queues/{queue}/groups/{group}/resume resumeGroup',
        'POST /v1/sweep runSweep',
        'GET /healthz getHealth',
        'GET /metrics getMetrics',
      ].sort(),
    );
  });

  it('renders /docs as HTML from the document', async () => {
    const h = await createHarness();
    const res = await h.call('GET', '/docs', { token: null });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.text).toContain('<code>POST /v1/queues/{queue}/groups/{group}/consume</code>');
    expect(res.text).toContain('href="/openapi.json"');
  });

  it('renders request and answer schemas on /docs, references spelled out, never a bare $ref', async () => {
    const h = await createHarness();
    const html = (await h.call('GET', '/docs', { token: null })).text;
    expect(html).not.toContain('$ref');
    const consume = html.slice(html.indexOf('<section id="consumeMessages">'));
    const section = consume.slice(0, consume.indexOf('</section>'));
    const text = section.replace(/<[^>]+>/g, '').replaceAll('&quot;', '"');
    // The request body, with the bounds the validator enforces.
    expect(text).toContain('Request body');
    expect(text).toMatch(/ConsumeRequest \{\n\s+consumer: string \(matching \//);
    expect(text).toContain('count?: integer 1..1000 = 10;');
    expect(text).toContain('waitMs?: integer 0..20000 = 0;');
    // The answer, its nested schema spelled out.
    expect(text).toContain('200 Delivered messages');
    expect(text).toMatch(/messages: \(Message \{\n\s+id: string;/);
    expect(text).toContain('deliveries: integer;');
    // Refusals listed once each, with the envelope linked.
    for (const status of ['400', '401', '403', '404', '408', '409', '413', '415', '500', '503']) {
      expect(text).toContain(`${status} `);
    }
    expect(section).toContain('href="#schema-Error"');
    // Every component has its own entry to link to.
    expect(html).toContain('<section id="schema-MessageList"><h3>MessageList</h3>');
    expect(html.replace(/<[^>]+>/g, '')).toMatch(
      /Every refusal is the error envelope: \{\n\s+error: \{\n\s+code: string/,
    );
  });
});
