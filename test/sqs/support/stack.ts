/**
 * The SQS suites' service: `npm start`'s server (startApiServer) on a free port with SQS_CREDENTIALS
 * (one key per scope), on the in-process engine or on the real Redis over TCP (under a key prefix of
 * its own, deleted afterwards with SCAN, never FLUSHDB), and real AWS SDK clients for it.
 */
import { SQSClient, type SQSClientConfig } from '@aws-sdk/client-sqs';
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { type ApiServer, startApiServer } from '../../../functions/node.ts';
import { REDIS_URL, REQUIRE_REDIS, redisAvailable } from '../../support/redis.ts';

export const keys = {
  admin: { accessKeyId: 'AKIDADMIN', secretAccessKey: 'admin/Secret+Key' },
  produce: { accessKeyId: 'AKIDPRODUCE', secretAccessKey: 'produce-secret' },
  consume: { accessKeyId: 'AKIDCONSUME', secretAccessKey: 'consume-secret' },
} as const;

export const REGION = 'us-east-1';
export const ACCOUNT = '000000000000';

export interface Backend {
  name: 'engine' | 'redis';
  /** Why it cannot run here, or undefined. */
  skip: string | undefined;
}

export const backends: Backend[] = [
  { name: 'engine', skip: undefined },
  {
    name: 'redis',
    skip: redisAvailable || REQUIRE_REDIS ? undefined : `no Redis at ${REDIS_URL}`,
  },
];

export interface SqsStack {
  server: ApiServer;
  url: string;
  /** The endpoint SDKs are given. */
  endpoint: string;
  /** A client with the admin key (or `key`), the SDK's MD5 checks on. */
  client(key?: keyof typeof keys, config?: Partial<SQSClientConfig>): SQSClient;
  close(): Promise<void>;
}

async function deleteKeys(prefix: string): Promise<void> {
  const direct = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, found] = await direct.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      cursor = next;
      if (found.length > 0) await direct.del(...found);
    } while (cursor !== '0');
  } finally {
    direct.disconnect();
  }
}

export async function startSqsStack(
  backend: Backend['name'],
  env: Record<string, string> = {},
): Promise<SqsStack> {
  const prefix = `sqs-test-${crypto.randomUUID().slice(0, 8)}`;
  const server = await startApiServer({
    port: 0,
    env: {
      API_TOKENS: 'admin:sqs-suite-token',
      SQS_CREDENTIALS: Object.entries(keys)
        .map(([scope, key]) => `${key.accessKeyId}:${key.secretAccessKey}:${scope}`)
        .join(','),
      ...(backend === 'redis' ? { REDIS_URL, QUEUE_KEY_PREFIX: prefix } : {}),
      ...env,
    },
    sweepIntervalMs: 0,
  });
  const clients: SQSClient[] = [];
  return {
    server,
    url: server.url,
    endpoint: `${server.url}/sqs`,
    client(key = 'admin', config = {}) {
      const client = new SQSClient({
        endpoint: `${server.url}/sqs`,
        region: REGION,
        credentials: keys[key],
        ...config,
      });
      clients.push(client);
      return client;
    },
    async close() {
      for (const client of clients) client.destroy();
      await server.close();
      if (backend === 'redis') await deleteKeys(prefix);
    },
  };
}

/**
 * A stack for the tests of one `describe` on `backend`: started before them (unless the backend is
 * skipped), closed after.
 */
export function useSqsStack(backend: Backend, env: Record<string, string> = {}): () => SqsStack {
  let stack: SqsStack | undefined;
  beforeAll(async () => {
    if (backend.skip === undefined) stack = await startSqsStack(backend.name, env);
  });
  afterAll(async () => {
    await stack?.close();
  });
  return () => {
    if (stack === undefined) throw new Error(`no SQS stack on ${backend.name}`);
    return stack;
  };
}

/** A queue name no other test uses. */
export function uniqueQueue(prefix: string, fifo = false): string {
  return `${prefix}-${Math.random().toString(36).slice(2, 10)}${fifo ? '.fifo' : ''}`;
}
