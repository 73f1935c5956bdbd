/**
 * The anchor Worker of the Workers benchmark: bare hono and `@upstash/redis/cloudflare`, one
 * EVALSHA per request (PING for /healthz) against the same REST front as the API's Worker, with the
 * API's routes and JSON shapes and nothing else (no auth, no validation, no budget, no metrics).
 * What a Worker that does the least a queue route can do costs in workerd; the API Worker's CPU
 * per request over the anchor's is what the API's own layers cost there. The scripts are loaded
 * by the benchmark beforehand (SCRIPT LOAD) and their SHA-1s given as bindings.
 */
import { Redis } from '@upstash/redis/cloudflare';
import { Hono } from 'hono';

interface AnchorEnv {
  UPSTASH_REDIS_REST_URL: string;
  UPSTASH_REDIS_REST_TOKEN: string;
  PRODUCE_SHA: string;
  CONSUME_SHA: string;
  ACK_SHA: string;
}

type Entry = [string, string[]];

let redis: Redis | undefined;
const client = (env: AnchorEnv) =>
  (redis ??= new Redis({
    url: env.UPSTASH_REDIS_REST_URL,
    token: env.UPSTASH_REDIS_REST_TOKEN,
    // Exact strings, as the API's adapter reads them.
    automaticDeserialization: false,
  }));

const stream = (queue: string) => `anchor:${queue}`;

const app = new Hono<{ Bindings: AnchorEnv }>();

app.post('/v1/queues/:queue/messages', async (c) => {
  const { messages } = await c.req.json<{ messages: { body: unknown }[] }>();
  const bodies = messages.map((m) => JSON.stringify(m.body));
  const ids = await client(c.env).evalsha(c.env.PRODUCE_SHA, [stream(c.req.param('queue'))], bodies);
  return c.json({ ids }, 201);
});

app.put('/v1/queues/:queue/groups/:group', async (c) => {
  await client(c.env)
    .xgroup(stream(c.req.param('queue')), {
      type: 'CREATE',
      group: c.req.param('group'),
      id: '0',
      options: { MKSTREAM: true },
    })
    .catch(() => undefined);
  return c.json({ created: true }, 201);
});

app.post('/v1/queues/:queue/groups/:group/consume', async (c) => {
  const { consumer, count = 10 } = await c.req.json<{ consumer: string; count?: number }>();
  const reply = (await client(c.env).evalsha(
    c.env.CONSUME_SHA,
    [stream(c.req.param('queue'))],
    [c.req.param('group'), consumer, String(count)],
  )) as [string, Entry[]][] | null;
  const entries = reply?.[0]?.[1] ?? [];
  const messages = entries.map(([id, fields]) => ({
    id,
    body: JSON.parse(fields[1] ?? 'null') as unknown,
    deliveries: 1,
  }));
  return c.json({ messages }, 200);
});

app.post('/v1/queues/:queue/groups/:group/ack', async (c) => {
  const { ids } = await c.req.json<{ ids: string[] }>();
  const acked = await client(c.env).evalsha(
    c.env.ACK_SHA,
    [stream(c.req.param('queue'))],
    [c.req.param('group'), ...ids],
  );
  return c.json({ acked }, 200);
});

app.get('/healthz', async (c) => {
  await client(c.env).ping();
  return c.json({ status: 'ok', redis: 'up' }, 200);
});

export default app;
