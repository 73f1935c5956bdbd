/**
 * The real service stacks the fault suite breaks, each with the fault proxy on its only path to
 * Redis: the API (buildService, as the entry points wire it) on the Upstash REST adapter through
 * the proxy to the REST front (over the in-memory engine, or forwarding to the real Redis), and on
 * the ioredis TCP adapter through the proxy to the real redis-server. Each REST stack runs on each
 * of the adapter's transports (fetch, Node's sockets as Node uses them, undici's pool). Small deadlines keep the
 * suite fast: REDIS_TIMEOUT_MS 500, REQUEST_TIMEOUT_MS 1500 (with 300 ms, a call that normally
 * takes 5-60 ms sometimes missed its deadline on two loaded shared cores).
 */
import { Redis } from 'ioredis';
import { type EngineServer, startEngineServer } from '../../../functions/engine-server.ts';
import { createIoredisClient } from '../../../functions/support/ioredis-client.ts';
import { buildService } from '../../../lib/api/bootstrap.ts';
import type { ApiApp } from '../../../lib/api/context.ts';
import { readSettings } from '../../../lib/api/settings.ts';
import type { RedisClient } from '../../../lib/redis/client.ts';
import { createUpstashClient } from '../../../lib/redis/upstash-client.ts';
import { type FaultProxy, startFaultProxy } from '../../support/fault-proxy.ts';
import { REDIS_URL, redisAvailable } from '../../support/redis.ts';
import { type TransportKind, transportKinds } from '../../support/transports.ts';

export const REDIS_TIMEOUT_MS = 500;
export const REQUEST_TIMEOUT_MS = 1500;
const TOKEN = 'fault-admin-token-0001';

/** A response read whole, with how long it took. */
export interface Timed {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests index into response JSON and assert on the values
  json: any;
  headers: Headers;
  ms: number;
}

export interface FaultStack {
  /** The proxy between the service's Redis adapter and what stands for Redis. */
  readonly proxy: FaultProxy;
  readonly app: ApiApp;
  /** What the service logged as unexpected (a 500 would be logged here). */
  readonly logged: { message: string; context: Record<string, unknown> }[];
  /** Sends `body` as JSON with the admin token and times the answer. */
  call(method: string, path: string, body?: unknown): Promise<Timed>;
  close(): Promise<void>;
}

export interface StackKind {
  readonly name: string;
  /** Which stack this is, whatever the transport: the test file that runs it picks by this. */
  readonly stack: 'rest-engine' | 'rest-redis' | 'tcp-redis' | 'behind-front';
  /** Why the stack cannot run here, or undefined. */
  readonly skip: string | undefined;
  start(): Promise<FaultStack>;
}

const noRedis = redisAvailable ? undefined : `no Redis at ${REDIS_URL}`;

function uniquePrefix(): string {
  return `fault-${crypto.randomUUID().slice(0, 8)}`;
}

/** Deletes every key under the prefix on the shared Redis (SCAN, never FLUSHDB). */
async function deleteKeys(prefix: string): Promise<void> {
  const direct = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await direct.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await direct.del(...keys);
    } while (cursor !== '0');
  } finally {
    direct.disconnect();
  }
}

async function assemble(
  redis: RedisClient,
  proxy: FaultProxy,
  prefix: string,
  closeBackend: () => Promise<void>,
): Promise<FaultStack> {
  const logged: FaultStack['logged'] = [];
  const record = (message: string, context: Record<string, unknown>) => logged.push({ message, context });
  const { app } = await buildService({
    redis,
    settings: readSettings(
      {
        API_TOKENS: `admin:${TOKEN}`,
        REDIS_TIMEOUT_MS: String(REDIS_TIMEOUT_MS),
        REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
        QUEUE_KEY_PREFIX: prefix,
      },
      'production',
    ),
    logger: { error: record, warn: record },
  });
  return {
    proxy,
    app,
    logged,
    async call(method, path, body) {
      const started = performance.now();
      const response = await app.request(path, {
        method,
        headers: {
          authorization: `Bearer ${TOKEN}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return {
        status: response.status,
        json: text.startsWith('{') ? JSON.parse(text) : text,
        headers: response.headers,
        ms: performance.now() - started,
      };
    },
    async close() {
      await proxy.close();
      await closeBackend();
    },
  };
}

/** The Upstash REST adapter → proxy → the REST front (in-memory engine, or forwarding to Redis). */
function restStack(redisUrl: string | undefined, kind: TransportKind): () => Promise<FaultStack> {
  return async () => {
    const prefix = uniquePrefix();
    const front: EngineServer = await startEngineServer({
      port: 0,
      token: 'fault-front',
      ...(redisUrl === undefined ? {} : { redisUrl }),
    });
    const proxy = await startFaultProxy({ target: { port: Number(new URL(front.url).port) } });
    const url = `http://${proxy.host}:${proxy.port}`;
    const { transport, close } = kind.open(url);
    const redis = createUpstashClient({ url, token: front.token, transport });
    return assemble(redis, proxy, prefix, async () => {
      await close();
      await front.close();
      if (redisUrl !== undefined) await deleteKeys(prefix);
    });
  };
}

/**
 * ioredis → proxy → redis-server. The options make every failure surface at once as a rejection,
 * and never run a command twice:
 * - maxRetriesPerRequest 0: when the connection closes, the commands written on it that have no
 *   answer yet are rejected right then (with 1, ioredis keeps them over the first reconnect).
 * - autoResendUnfulfilledCommands false: such a command is never written again after a reconnect.
 *   Redis may already have run it (its answer was what got lost); running it again would apply it
 *   twice behind the caller's back, after the caller was already told "may or may not".
 * - enableOfflineQueue false: while disconnected a command is rejected at once instead of waiting
 *   for a connection (the deadline would end it anyway, later, as a timeout).
 * - enableReadyCheck false: no INFO round trip before each (re)connection is used; a Redis still
 *   loading answers LOADING, which the queue already maps to REDIS_UNAVAILABLE.
 * - retryStrategy: reconnect within half a second once Redis is back (the default backs off to 2 s).
 * A command that is written and never answered (a stall) is not cancelled by ioredis; the
 * service's deadline stops waiting for it.
 */
async function tcpStack(): Promise<FaultStack> {
  const prefix = uniquePrefix();
  const target = new URL(REDIS_URL);
  const proxy = await startFaultProxy({
    target: { host: target.hostname, port: Number(target.port || 6379) },
  });
  const connection = new Redis({
    host: proxy.host,
    port: proxy.port,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    enableOfflineQueue: false,
    enableReadyCheck: false,
    retryStrategy: (times) => Math.min(times * 50, 500),
  });
  // Connection errors are expected here; the commands' rejections carry them.
  connection.on('error', () => {});
  await connection.connect();
  return assemble(createIoredisClient(connection), proxy, prefix, async () => {
    connection.disconnect();
    await deleteKeys(prefix);
  });
}

/**
 * The Upstash REST adapter → the REST front → proxy → redis-server: Redis failing behind the
 * front, so the faults hit the front's own ioredis connections.
 */
const behindFrontStack = (kind: TransportKind) => async (): Promise<FaultStack> => {
  const prefix = uniquePrefix();
  const target = new URL(REDIS_URL);
  const proxy = await startFaultProxy({
    target: { host: target.hostname, port: Number(target.port || 6379) },
  });
  const proxied = new URL(REDIS_URL);
  proxied.hostname = proxy.host;
  proxied.port = String(proxy.port);
  const front = await startEngineServer({ port: 0, token: 'fault-front', redisUrl: proxied.toString() });
  const { transport, close } = kind.open(front.url);
  const redis = createUpstashClient({ url: front.url, token: front.token, transport });
  return assemble(redis, proxy, prefix, async () => {
    await close();
    await front.close();
    await deleteKeys(prefix);
  });
};

export const stackKinds: readonly StackKind[] = [
  ...transportKinds.flatMap((kind): StackKind[] => [
    {
      name: `Upstash REST (${kind.name}) → REST front (in-memory engine)`,
      stack: 'rest-engine',
      skip: undefined,
      start: restStack(undefined, kind),
    },
    {
      name: `Upstash REST (${kind.name}) → REST front → Redis 7`,
      stack: 'rest-redis',
      skip: noRedis,
      start: restStack(REDIS_URL, kind),
    },
    {
      name: `Upstash REST (${kind.name}) → REST front → (faults) → Redis 7`,
      stack: 'behind-front',
      skip: noRedis,
      start: behindFrontStack(kind),
    },
  ]),
  { name: 'ioredis TCP → Redis 7', stack: 'tcp-redis', skip: noRedis, start: tcpStack },
];

/** The stack kinds a fault test file runs: one per transport for the REST stacks. */
export function stacksOf(stack: StackKind['stack']): StackKind[] {
  return stackKinds.filter((kind) => kind.stack === stack);
}
