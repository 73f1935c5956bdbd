/**
 * Each adapter turns a Redis that does not answer into REDIS_UNAVAILABLE, and error replies into
 * REDIS_ERROR; the REST adapter on each of its transports (fetch, sockets, undici).
 */
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createIoredisClient } from '../../functions/support/ioredis-client.ts';
import { createManualClock } from '../../lib/clock.ts';
import { createEngine } from '../../lib/engine/engine.ts';
import { isQueueError } from '../../lib/queue/errors.ts';
import { createQueueService } from '../../lib/queue/service.ts';
import { RedisReplyError } from '../../lib/redis/client.ts';
import { createEngineClient } from '../../lib/redis/engine-client.ts';
import { createUpstashClient } from '../../lib/redis/upstash-client.ts';
import { transportKinds } from '../support/transports.ts';

/** A port nothing listens on: bind, note it, close. */
let deadPort = 0;
beforeAll(async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  deadPort = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const connections: Redis[] = [];
afterAll(() => {
  for (const connection of connections) connection.disconnect();
});

for (const kind of transportKinds) {
  it(`reports REDIS_UNAVAILABLE when the REST endpoint does not answer (${kind.name})`, async () => {
    const url = `http://127.0.0.1:${deadPort}`;
    const { transport, close } = kind.open(url);
    const queue = createQueueService({
      redis: createUpstashClient({ url, token: 't', transport }),
      clock: createManualClock(),
    });
    try {
      await expect(queue.stats('q')).rejects.toSatisfy((e) => isQueueError(e, 'REDIS_UNAVAILABLE'));
    } finally {
      await close();
    }
  });
}

it('reports REDIS_UNAVAILABLE when the TCP connection cannot be made', async () => {
  const connection = new Redis({
    port: deadPort,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  connection.on('error', () => {});
  connections.push(connection);
  const queue = createQueueService({ redis: createIoredisClient(connection), clock: createManualClock() });
  await expect(queue.produce('q', [{ body: 1 }])).rejects.toSatisfy((e) =>
    isQueueError(e, 'REDIS_UNAVAILABLE'),
  );
});

it('passes Redis error replies through the engine adapter as RedisReplyError', async () => {
  const client = createEngineClient(createEngine());
  await expect(client.evalsha('0'.repeat(40), [], [])).rejects.toBeInstanceOf(RedisReplyError);
  await expect(client.evalsha('0'.repeat(40), [], [])).rejects.toThrow(/NOSCRIPT|unknown command/);
});
