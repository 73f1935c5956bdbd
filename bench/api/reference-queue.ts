/**
 * The do-nothing queue the API benchmark compares with: the same routes and JSON shapes on bare
 * hono and @hono/node-server, messages kept in an array, no auth, no validation, no Redis. What a
 * route costs here is what the framework and the HTTP stack cost; the API's ratio to it is what
 * the queue's own layers cost on top. Given `roundTrip`, every route first awaits it once (one
 * trivial Redis call): the floor of any API that makes one Redis call per request.
 */
import { Hono } from 'hono';

interface Stored {
  id: string;
  body: unknown;
  attributes: Record<string, string>;
  enqueuedAt: number;
}

export function createReferenceQueue(roundTrip?: () => Promise<unknown>): Hono {
  const app = new Hono();
  if (roundTrip !== undefined) {
    app.use('*', async (_c, next) => {
      await roundTrip();
      await next();
    });
  }
  // A queue in an array read from `head` on: taking from the front is O(1), as in a real queue
  // (an Array#splice at 0 moves every waiting message and made this reference slower than the API).
  let waiting: Stored[] = [];
  let head = 0;
  let seq = 0;
  app.post('/v1/queues/:queue/messages', async (c) => {
    const { messages } = await c.req.json<{
      messages: { body: unknown; attributes?: Record<string, string> }[];
    }>();
    const now = Date.now();
    const ids = messages.map((m) => {
      const id = `${now}-${seq++}`;
      waiting.push({ id, body: m.body, attributes: m.attributes ?? {}, enqueuedAt: now });
      return id;
    });
    return c.json({ ids }, 201);
  });
  app.post('/v1/queues/:queue/groups/:group/consume', async (c) => {
    const { count = 10 } = await c.req.json<{ consumer: string; count?: number }>();
    const taken = waiting.slice(head, head + count);
    head += taken.length;
    if (head > 4096 && head * 2 > waiting.length) {
      waiting = waiting.slice(head);
      head = 0;
    }
    const messages = taken.map((m) => ({ ...m, deliveries: 1 }));
    return c.json({ messages }, 200);
  });
  app.post('/v1/queues/:queue/groups/:group/ack', async (c) => {
    const { ids } = await c.req.json<{ ids: string[] }>();
    return c.json({ acked: ids.length }, 200);
  });
  app.get('/healthz', (c) => c.json({ status: 'ok', redis: 'up' }, 200));
  return app;
}
