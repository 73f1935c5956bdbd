/**
 * The client's fetch on Node (functions/support/node-fetch.ts): the client over it against the
 * real service (calls, the error envelope, a worker), and against plain node:http servers for
 * what fetch's callers rely on: Retry-After, an abort before the answer, the attempt timeout, a
 * refused connection reported as not sent, a body split inside a UTF-8 character, and one kept-alive
 * connection for calls in a row.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeFetch, type NodeFetch } from '../../../functions/support/node-fetch.ts';
import { createQueueClient, isApiError, QueueApiError } from '../../../lib/client/index.ts';
import { startService, type TestService, tokens, uniqueName } from '../../client/support/service.ts';
import { freePort } from '../../runtimes/support/processes.ts';

let service: TestService;
let nodeFetch: NodeFetch;
const servers: http.Server[] = [];

beforeAll(async () => {
  service = await startService();
  nodeFetch = createNodeFetch();
});
afterAll(async () => {
  nodeFetch.close();
  await service.close();
  for (const server of servers) server.close();
});

/** A plain HTTP server on a free port; its URL and how many connections it accepted. */
async function plainServer(handler: http.RequestListener): Promise<{ url: string; connections(): number }> {
  const server = http.createServer(handler);
  servers.push(server);
  let connections = 0;
  server.on('connection', () => {
    connections++;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => connections,
  };
}

const errorOf = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error as QueueApiError,
  );

describe('the client on the Node fetch, against the service', () => {
  it('produces, consumes and acks, and reads the error envelope', async () => {
    const client = service.client({ fetch: nodeFetch.fetch });
    const q = client.queue(uniqueName('nf'));
    await q.configure({ visibilityTimeoutMs: 30_000 });
    const g = q.group('g');
    expect(await g.create({ start: '0' })).toBe(true);
    const ids = await q.produce([{ body: { n: 'ü 🌍' } }, { body: 2, attributes: { k: 'v' } }]);
    const messages = await g.consume({ consumer: 'c', count: 10, waitMs: 0 });
    expect(messages.map((m) => [m.id, m.body])).toEqual([
      [ids[0], { n: 'ü 🌍' }],
      [ids[1], 2],
    ]);
    expect(await g.ack(ids, { consumer: 'c' })).toBe(2);
    const missing = await errorOf(client.queue(uniqueName('none')).stats());
    expect(isApiError(missing, 'QUEUE_NOT_FOUND')).toBe(true);
    expect(missing.status).toBe(404);
    const refused = await errorOf(
      createQueueClient({ url: service.url, token: 'wrong', fetch: nodeFetch.fetch }).queue(q.name).stats(),
    );
    expect(refused.status).toBe(401);
    const produceOnly = service.client({ token: tokens.produce, fetch: nodeFetch.fetch });
    const forbidden = await errorOf(
      produceOnly.queue(q.name).group('g').consume({ consumer: 'c', waitMs: 0 }),
    );
    expect(forbidden.status).toBe(403);
  });

  it('runs a worker of concurrency 4 through every message, each acked once', async () => {
    const client = service.client({ fetch: nodeFetch.fetch });
    const q = client.queue(uniqueName('nfw'));
    await q.configure();
    const g = q.group('g');
    await g.create({ start: '0' });
    const ids = await q.produce(Array.from({ length: 40 }, (_, i) => ({ body: i })));
    const seen: number[] = [];
    const acked: string[] = [];
    let allAcked: () => void = () => {};
    const finished = new Promise<void>((resolve) => {
      allAcked = resolve;
    });
    const worker = g.work(
      async (message) => {
        seen.push(message.body as number);
      },
      {
        concurrency: 4,
        waitMs: 200,
        onEvent: (event) => {
          if (event.type !== 'acked') return;
          acked.push(...event.ids);
          if (acked.length >= ids.length) allAcked();
        },
      },
    );
    await finished;
    await worker.stop();
    expect([...seen].sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    expect([...acked].sort()).toEqual([...ids].sort());
    expect(await g.pending()).toMatchObject({ pending: 0 });
  });
});

describe('the Node fetch, against plain servers', () => {
  it('hands the client Retry-After and the status of an error without an envelope', async () => {
    const server = await plainServer((_request, response) => {
      response.writeHead(503, 'Busy', { 'retry-after': '2', 'content-type': 'text/plain' });
      response.end('try later');
    });
    const client = createQueueClient({ url: server.url, fetch: nodeFetch.fetch, retry: false });
    const error = await errorOf(client.queues());
    expect(error.code).toBe('HTTP_ERROR');
    expect(error.status).toBe(503);
    expect(error.retryAfterMs).toBe(2000);
    expect(error.message).toBe('GET /v1/queues: status 503 Busy');
  });

  it('reads a body that arrives in chunks split inside a character, on one kept-alive connection', async () => {
    const text = JSON.stringify({ queues: [], note: 'ü🌍'.repeat(20_000) });
    const bytes = Buffer.from(text);
    const server = await plainServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': bytes.length });
      // Cut one byte into a multi-byte character.
      const cut = text.indexOf('ü') + 1;
      response.write(bytes.subarray(0, cut));
      setTimeout(() => response.end(bytes.subarray(cut)), 5);
    });
    const { fetch, close } = createNodeFetch();
    try {
      for (let i = 0; i < 3; i++) {
        const response = await fetch(`${server.url}/v1/queues`, { method: 'GET', headers: { accept: 'x' } });
        expect(response.status).toBe(200);
        expect(response.ok).toBe(true);
        expect(response.headers.get('Content-Type')).toBe('application/json');
        expect(response.headers.get('x-none')).toBeNull();
        expect(await response.text()).toBe(text);
      }
      expect(server.connections()).toBe(1);
    } finally {
      close();
    }
  });

  it('sends the method, headers and body as given', async () => {
    let seen: Record<string, string | undefined> = {};
    const server = await plainServer((request, response) => {
      let body = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => {
        body += chunk;
      });
      request.on('end', () => {
        seen = {
          method: request.method,
          url: request.url,
          type: request.headers['content-type'],
          length: request.headers['content-length'],
          body,
        };
        response.end('{}');
      });
    });
    const body = JSON.stringify({ messages: [{ body: 'ü' }] });
    const response = await nodeFetch.fetch(`${server.url}/v1/queues/a%20b/messages?x=1`, {
      method: 'POST',
      headers: new Headers({ 'content-type': 'application/json' }),
      body,
    });
    expect(await response.text()).toBe('{}');
    expect(seen).toEqual({
      method: 'POST',
      url: '/v1/queues/a%20b/messages?x=1',
      type: 'application/json',
      length: String(Buffer.byteLength(body)),
      body,
    });
  });

  it('gives up on an answer that does not come: the caller aborts, or the attempt times out', async () => {
    const server = await plainServer(() => {
      // Never answers.
    });
    const client = createQueueClient({
      url: server.url,
      fetch: nodeFetch.fetch,
      retry: false,
      timeoutMs: 100,
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('caller left')), 20);
    const aborted = await errorOf(client.queues({ signal: controller.signal }));
    expect(aborted.code).toBe('ABORTED');
    expect(aborted.mayHaveBeenApplied).toBe(true);
    const timedOut = await errorOf(client.queues());
    expect(timedOut.code).toBe('TIMEOUT');
    expect(timedOut.message).toBe('GET /v1/queues: no answer within 100 ms');
    // An already aborted signal fails before anything is sent.
    await expect(
      nodeFetch.fetch(`${server.url}/x`, { method: 'GET', signal: AbortSignal.abort(new Error('gone')) }),
    ).rejects.toThrow('gone');
  });

  it('reports a refused connection as not sent', async () => {
    const port = await freePort();
    const client = createQueueClient({
      url: `http://127.0.0.1:${port}`,
      fetch: nodeFetch.fetch,
      retry: false,
    });
    const error = await errorOf(client.queues());
    expect(error).toBeInstanceOf(QueueApiError);
    expect(error.code).toBe('NETWORK_ERROR');
    expect(error.mayHaveBeenApplied).toBe(false);
    expect(error.message).toContain('connection refused');
  });
});
