/**
 * The backends the queue conformance suite runs on, unchanged: the in-process engine (running the
 * queue's scripts checked: every key they touch must come through KEYS), the real
 * redis-server over TCP (ioredis), the real redis-server through the engine's REST front in
 * ENGINE_REDIS_URL mode (the `@upstash/redis` adapter) and a 3-master Redis Cluster of our own
 * (ioredis Cluster; started once per run by test/support/cluster-global-setup.ts). Each test gets
 * its own key prefix.
 */
import { Cluster, Redis } from 'ioredis';
import { inject } from 'vitest';
import { type EngineServer, startEngineServer } from '../../../functions/engine-server.ts';
import { createIoredisClient } from '../../../functions/support/ioredis-client.ts';
import {
  createIoredisClusterClient,
  parseClusterNodes,
} from '../../../functions/support/ioredis-cluster-client.ts';
import { createManualClock, type ManualClock } from '../../../lib/clock.ts';
import { createEngine } from '../../../lib/engine/engine.ts';
import { createKeySpace, type KeySpace, type QueueKeys } from '../../../lib/queue/keys.ts';
import { decodeId } from '../../../lib/queue/partitions/ids.ts';
import { scripts } from '../../../lib/queue/scripts.generated.ts';
import { createQueueService, type QueueServiceOptions } from '../../../lib/queue/service.ts';
import type { QueueService } from '../../../lib/queue/types.ts';
import type { RedisClient, RedisValue } from '../../../lib/redis/client.ts';
import { createEngineClient } from '../../../lib/redis/engine-client.ts';
import { createUpstashClient } from '../../../lib/redis/upstash-client.ts';
import { REDIS_URL, redisAvailable } from '../../support/redis.ts';
import { declaredKeysClient } from './declared-keys.ts';

export interface Harness {
  queue: QueueService;
  /** The partition count new queues get in this run of the suite (its `defaults.partitions`). */
  partitions: number;
  clock: ManualClock;
  keys: KeySpace;
  /** Every script call the service made (EVALSHA and EVAL), with the KEYS it passed. */
  calls: { command: 'evalsha' | 'eval' | 'xread'; name: string; keys: readonly string[] }[];
  /** The recording client the service uses, for wrapping in a test (e.g. to fail one call). */
  client: RedisClient;
  /** The keys of the partition a message id names, and the id inside it (for raw access). */
  at(queue: string, id: string): { keys: QueueKeys; raw: string };
  /** Runs a Lua snippet on the same backend, for setting up foreign data and inspecting keys. */
  raw(source: string, keys: string[], args?: string[]): Promise<RedisValue>;
  /** Another service on the same data (same prefix and clock), e.g. a second worker process. */
  another(options?: Partial<QueueServiceOptions>): QueueService;
  cleanup(): Promise<void>;
}

export interface Backend {
  name: string;
  /** The lane it runs in (vitest.config.ts): the engine in the unit project, servers in conformance. */
  lane: 'engine' | 'servers';
  /** Why it is skipped, or undefined when it runs. */
  skip: string | undefined;
  setup(): Promise<void>;
  teardown(): Promise<void>;
  harness(options?: Partial<QueueServiceOptions>): Harness;
}

/** Records script calls and their KEYS, so tests can assert round trips and cluster slots. */
export function countingClient(
  inner: RedisClient,
  calls: Harness['calls'],
  names: Map<string, string>,
): RedisClient {
  return {
    ...(inner.cluster === undefined ? {} : { cluster: inner.cluster }),
    evalsha(sha, keys, args) {
      calls.push({ command: 'evalsha', name: names.get(sha) ?? sha, keys: [...keys] });
      return inner.evalsha(sha, keys, args);
    },
    eval(source, keys, args) {
      calls.push({ command: 'eval', name: 'source', keys: [...keys] });
      return inner.eval(source, keys, args);
    },
    ...(inner.blockingRead === undefined
      ? {}
      : {
          blockingRead(keys: readonly string[], ids: readonly string[], blockMs: number, options) {
            calls.push({ command: 'xread', name: 'blockingRead', keys: [...keys] });
            return inner.blockingRead?.(keys, ids, blockMs, options) ?? Promise.resolve(false);
          },
        }),
  };
}

function makeHarness(
  client: RedisClient,
  clock: ManualClock,
  options: Partial<QueueServiceOptions>,
): Harness {
  const partitions = options.defaults?.partitions ?? 1;
  const prefix = `qt-${Math.random().toString(36).slice(2, 10)}`;
  const calls: Harness['calls'] = [];
  const names = new Map<string, string>(Object.values(scripts).map((script) => [script.sha, script.name]));
  const counting = countingClient(client, calls, names);
  const build = (extra: Partial<QueueServiceOptions> = {}) =>
    createQueueService({ redis: counting, clock, keyPrefix: prefix, ...options, ...extra });
  const queue = build();
  const keys = createKeySpace(prefix);
  return {
    queue,
    partitions,
    clock,
    keys,
    calls,
    client: counting,
    at(queue, id) {
      const { raw, partition } = decodeId(id);
      return { keys: keys.queue(queue, partition), raw };
    },
    raw: (source, k, args = []) => client.eval(source, k, args),
    another: (extra = {}) => build({ ...extra, defaults: { ...options.defaults, ...extra.defaults } }),
    async cleanup() {
      for (const name of await queue.listQueues()) await queue.deleteQueue(name);
      await client.eval("return redis.call('DEL', KEYS[1], KEYS[2])", [keys.registry, keys.sweepCursor], []);
    },
  };
}

export const backends: Backend[] = [
  {
    name: 'engine (in-process)',
    lane: 'engine',
    skip: undefined,
    setup: async () => {},
    teardown: async () => {},
    harness(options = {}) {
      const clock = createManualClock();
      // The engine lane also checks that every key a script touches came through its KEYS.
      const client = declaredKeysClient(createEngineClient(createEngine({ clock })), Object.values(scripts));
      return makeHarness(client, clock, options);
    },
  },
  (() => {
    let connection: Redis | undefined;
    return {
      name: 'redis over TCP (ioredis)',
      lane: 'servers',
      skip: redisAvailable ? undefined : `no Redis at ${REDIS_URL}`,
      async setup() {
        connection = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
      },
      async teardown() {
        connection?.disconnect();
      },
      harness(options = {}) {
        if (connection === undefined) throw new Error('setup not run');
        return makeHarness(createIoredisClient(connection), createManualClock(), options);
      },
    } satisfies Backend;
  })(),
  (() => {
    let server: EngineServer | undefined;
    let client: RedisClient | undefined;
    return {
      name: 'redis through the REST front (upstash)',
      lane: 'servers',
      skip: redisAvailable ? undefined : `no Redis at ${REDIS_URL}`,
      async setup() {
        server = await startEngineServer({ port: 0, redisUrl: REDIS_URL, token: 'queue-suite' });
        client = createUpstashClient({ url: server.url, token: server.token });
      },
      async teardown() {
        await server?.close();
      },
      harness(options = {}) {
        if (client === undefined) throw new Error('setup not run');
        return makeHarness(client, createManualClock(), options);
      },
    } satisfies Backend;
  })(),
  (() => {
    let cluster: Cluster | undefined;
    // Provided by the conformance project's global setup; absent elsewhere.
    const spec = inject('clusterNodes') ?? '';
    return {
      name: 'redis cluster (3 masters, ioredis Cluster)',
      lane: 'servers',
      skip: spec === '' ? 'no redis-server to start a cluster with' : undefined,
      async setup() {
        cluster = new Cluster(parseClusterNodes(spec), { redisOptions: { maxRetriesPerRequest: 1 } });
      },
      async teardown() {
        cluster?.disconnect();
      },
      harness(options = {}) {
        if (cluster === undefined) throw new Error('setup not run');
        return makeHarness(createIoredisClusterClient(cluster), createManualClock(), options);
      },
    } satisfies Backend;
  })(),
];
