/**
 * The Redis Cluster adapter for Node deployments: the queue's scripts through an ioredis
 * `Cluster`. ioredis sends EVALSHA and EVAL to the master of the slot of the call's first key
 * (every key of one call shares a hash tag, so one slot), follows MOVED and ASK redirections,
 * refreshes the slot map after a failover and reconnects; a script without keys (ping) goes to
 * any node. A NOSCRIPT from a node that has not cached a script yet (a new or restarted master)
 * falls back to EVAL on that same node (lib/redis/run-script.ts), which caches it there.
 */
import { Cluster } from 'ioredis';
import {
  isAuthFailure,
  RedisAuthError,
  type RedisClient,
  RedisReplyError,
  RedisUnavailableError,
  type RedisValue,
} from '../../lib/redis/client.ts';

/** Parses `host:port,host:port,…` (REDIS_CLUSTER_NODES); throws naming the variable, never a value. */
export function parseClusterNodes(
  spec: string,
  variable = 'REDIS_CLUSTER_NODES',
): { host: string; port: number }[] {
  const nodes = spec
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part) => {
      const match = /^(\[[^\]]+\]|[^:\s]+):(\d{1,5})$/.exec(part);
      const port = Number(match?.[2]);
      if (match === null || !Number.isInteger(port) || port < 1 || port > 65_535) {
        throw new Error(`${variable} must be a comma-separated list of host:port`);
      }
      return { host: (match[1] as string).replace(/^\[|\]$/g, ''), port };
    });
  if (nodes.length === 0) throw new Error(`${variable} must name at least one host:port`);
  return nodes;
}

/**
 * @example
 * const redis = createIoredisClusterClient(new Cluster(parseClusterNodes(process.env.REDIS_CLUSTER_NODES)));
 */
export function createIoredisClusterClient(cluster: Cluster): RedisClient {
  async function guard(run: () => Promise<unknown>): Promise<RedisValue> {
    try {
      return (await run()) as RedisValue;
    } catch (error) {
      throw translate(error);
    }
  }
  return {
    evalsha: (sha, keys, args) => guard(() => cluster.evalsha(sha, keys.length, ...keys, ...args)),
    eval: (source, keys, args) => guard(() => cluster.eval(source, keys.length, ...keys, ...args)),
  };
}

/**
 * Connects to a Redis Cluster through any of its nodes; ioredis discovers the rest.
 * @example
 * const { client, close } = connectIoredisCluster(parseClusterNodes(env.REDIS_CLUSTER_NODES));
 */
export function connectIoredisCluster(
  nodes: readonly { host: string; port: number }[],
  options: { password?: string } = {},
): { client: RedisClient; close(): Promise<void> } {
  const cluster = new Cluster([...nodes], {
    redisOptions: {
      maxRetriesPerRequest: 1,
      ...(options.password === undefined ? {} : { password: options.password }),
    },
  });
  cluster.on('error', () => {});
  return {
    client: createIoredisClusterClient(cluster),
    close: async () => {
      cluster.disconnect();
    },
  };
}

function translate(error: unknown): Error {
  // Error replies (NOSCRIPT, CLUSTERDOWN, TRYAGAIN, …) are ReplyErrors; anything else — no node
  // reachable, too many redirections, a connection closed mid-call — is the cluster failing.
  if (error instanceof Error && error.name === 'ReplyError') {
    if (isAuthFailure(error.message)) return new RedisAuthError(error.message, { cause: error });
    return new RedisReplyError(error.message, { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new RedisUnavailableError(`Redis Cluster unavailable: ${message}`, { cause: error });
}
