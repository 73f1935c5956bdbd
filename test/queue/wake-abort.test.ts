/**
 * Issue 18 on real Redis: a long poll's blocking read runs on a connection of its own (never the
 * shared one), and a client that leaves ends it on the server: counted with CLIENT LIST before
 * and after, no blocked client is left behind — over TCP (ioredis), through the REST front
 * (@upstash/redis, ENGINE_REDIS_URL mode) and on a 3-master cluster. The service is wrapped in
 * the production deadline (lib/redis/deadline.ts).
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createIoredisClient } from '../../functions/support/ioredis-client.ts';
import {
  createIoredisClusterClient,
  parseClusterNodes,
} from '../../functions/support/ioredis-cluster-client.ts';
import {
  createRedisForwardBackend,
  type RedisForwardBackend,
} from '../../functions/support/redis-forward-backend.ts';
import { waitUntilNonEmpty } from '../../lib/api/long-poll.ts';
import { systemClock } from '../../lib/clock.ts';
import { createQueueService } from '../../lib/queue/service.ts';
import type { Message, QueueService } from '../../lib/queue/types.ts';
import type { WatchPoint } from '../../lib/queue/watch.ts';
import type { RedisClient } from '../../lib/redis/client.ts';
import { withDeadline } from '../../lib/redis/deadline.ts';
import { createUpstashClient } from '../../lib/redis/upstash-client.ts';
import { REDIS_URL, redisAvailable } from '../support/redis.ts';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function longPoll(queue: QueueService, waitMs: number, signal?: AbortSignal): Promise<Message[]> {
  return waitUntilNonEmpty<Message, WatchPoint>(
    async () => {
      const { messages, watch } = await queue.consumeOrWatch('q', 'g', 'c', 1);
      return { items: messages, watch };
    },
    (watch, until, s) => queue.waitForWork(watch, until, s),
    {
      waitMs,
      clock: systemClock,
      sleep: () => Promise.reject(new Error('polled instead of blocking')),
      ...(signal === undefined ? {} : { signal }),
    },
  );
}

/** Blocked clients named `name` in CLIENT LIST answers. */
function blocked(lists: string[], name: string): number {
  return lists
    .flatMap((list) => list.split('\n'))
    .filter((line) => line.includes(` name=${name} `) && /\bflags=b\b/.test(line)).length;
}

/** Polls until `count()` equals `want` (a new connection takes a moment on a loaded machine). */
async function settle(count: () => Promise<number>, want: number): Promise<number> {
  const deadline = Date.now() + 5000;
  let seen = await count();
  while (seen !== want && Date.now() < deadline) {
    await pause(20);
    seen = await count();
  }
  return seen;
}

/** The scenario every real backend runs: wait, see one blocked client, leave, see none. */
async function abortLeavesNoBlockedClient(redis: RedisClient, count: () => Promise<number>): Promise<void> {
  const prefix = `wake-abort-${Math.random().toString(36).slice(2, 10)}`;
  const queue = createQueueService({
    redis: withDeadline(redis, 2000),
    clock: systemClock,
    keyPrefix: prefix,
  });
  try {
    await queue.createGroup('q', 'g', '$');
    expect(await count()).toBe(0);
    const controller = new AbortController();
    const started = performance.now();
    const polling = longPoll(queue, 20_000, controller.signal);
    expect(await settle(count, 1)).toBe(1);
    controller.abort();
    expect(await polling).toEqual([]);
    expect(performance.now() - started).toBeLessThan(5000);
    expect(await settle(count, 0)).toBe(0);
    // Still usable afterwards: a new wait blocks again and wakes on produce.
    const again = longPoll(queue, 5000);
    expect(await settle(count, 1)).toBe(1);
    await queue.produce('q', [{ body: 'after' }]);
    expect((await again).map((m) => m.body)).toEqual(['after']);
    expect(await settle(count, 0)).toBe(0);
  } finally {
    await queue.deleteQueue('q');
  }
}

describe.skipIf(!redisAvailable)('a client that leaves ends its blocking read on Redis (issue 18)', () => {
  let admin: Redis;
  beforeAll(() => {
    admin = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  });
  afterAll(() => admin.disconnect());

  it('over TCP: on a dedicated connection, closed on abort', async () => {
    const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    const client = createIoredisClient(connection);
    try {
      await abortLeavesNoBlockedClient(client, async () =>
        blocked([(await admin.call('CLIENT', 'LIST')) as string], client.blockingClientName),
      );
      // The shared connection never blocked: it is not among the named blocking ones.
      expect(client.blockingPool.size).toBeLessThanOrEqual(2);
    } finally {
      connection.disconnect();
    }
  });

  it('through the REST front: the aborted request ends the forwarded read', async () => {
    const { createRestFront } = await import('../../lib/rest-front/app.ts');
    const backend: RedisForwardBackend = createRedisForwardBackend(REDIS_URL);
    const app = createRestFront({ backend, token: 'wake-abort' });
    const server = await new Promise<{ close(): void; port: number }>((resolve) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (address: AddressInfo) =>
        resolve({ close: () => s.close(), port: address.port }),
      );
    });
    try {
      const client = createUpstashClient({ url: `http://127.0.0.1:${server.port}`, token: 'wake-abort' });
      await abortLeavesNoBlockedClient(client, async () =>
        blocked([(await admin.call('CLIENT', 'LIST')) as string], backend.blockingClientName),
      );
    } finally {
      server.close();
      await backend.close();
    }
  });
});

const spec = inject('clusterNodes');
describe.skipIf(spec === '')('a client that leaves ends its blocking reads on a cluster (issue 18)', () => {
  it('on dedicated connections to each slot master, closed on abort', async () => {
    const cluster = new Cluster(parseClusterNodes(spec), { redisOptions: { maxRetriesPerRequest: 1 } });
    const client = createIoredisClusterClient(cluster);
    try {
      await abortLeavesNoBlockedClient(client, async () => {
        const lists = await Promise.all(
          cluster.nodes('master').map(async (node) => (await node.call('CLIENT', 'LIST')) as string),
        );
        return blocked(lists, client.blockingClientName);
      });
    } finally {
      client.closeBlocking();
      cluster.disconnect();
    }
  });
});
