/**
 * The Redis Cluster adapter for Node deployments: the queue's scripts through an ioredis
 * `Cluster`. ioredis sends EVALSHA and EVAL to the master of the slot of the call's first key
 * (every key of one call shares a hash tag, so one slot), follows MOVED and ASK redirections,
 * refreshes the slot map after a failover and reconnects; a script without keys (ping) goes to
 * any node. A NOSCRIPT from a node that has not cached a script yet (a new or restarted master)
 * falls back to EVAL on that same node (lib/redis/run-script.ts), which caches it there.
 */
import { Cluster, Redis } from 'ioredis';
import {
  blockingReadArgv,
  isAuthFailure,
  RedisAuthError,
  type RedisClient,
  RedisReplyError,
  RedisUnavailableError,
  type RedisValue,
  readArrived,
} from '../../lib/redis/client.ts';
import { keySlot } from '../../lib/redis/key-slot.ts';
import { type BlockingPool, createBlockingPool } from './blocking-pool.ts';

export { crc16, keySlot } from '../../lib/redis/key-slot.ts';

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
export function createIoredisClusterClient(
  cluster: Cluster,
): RedisClient & { readonly blockingClientName: string; closeBlocking(): void } {
  // Blocking reads run on dedicated connections to the master of their slot, a bounded pool per
  // master (functions/support/blocking-pool.ts), never on the cluster's shared connections.
  const blockingClientName = `esq-blocking-${Math.random().toString(36).slice(2, 10)}`;
  const pools = new Map<string, BlockingPool>();
  const poolFor = (slot: number): BlockingPool => {
    const node = cluster.slots[slot]?.[0];
    if (node === undefined) throw new Error(`no master known for slot ${slot}`);
    let pool = pools.get(node);
    if (pool === undefined) {
      const at = node.lastIndexOf(':');
      const redisOptions = cluster.options.redisOptions ?? {};
      pool = createBlockingPool(
        () =>
          new Redis({
            ...redisOptions,
            host: node.slice(0, at),
            port: Number(node.slice(at + 1)),
            connectionName: blockingClientName,
            maxRetriesPerRequest: 0,
            autoResendUnfulfilledCommands: false,
          }),
        { max: 8 },
      );
      pools.set(node, pool);
    }
    return pool;
  };
  const closeBlocking = () => {
    for (const pool of pools.values()) pool.close();
    pools.clear();
  };
  cluster.once('end', closeBlocking);

  /**
   * Keys of different slots cannot share one XREAD: one read per slot, in parallel; the first to
   * see an entry ends the others (closing their connections, which unblocks them on the server).
   * A MOVED/ASK answer (the slot moved meanwhile) counts as a wake-up: the poll consumes again.
   */
  async function blockingRead(
    keys: readonly string[],
    ids: readonly string[],
    blockMs: number,
    signal: AbortSignal | undefined,
  ): Promise<boolean> {
    const bySlot = new Map<number, { keys: string[]; ids: string[] }>();
    keys.forEach((key, i) => {
      const slot = keySlot(key);
      const entry = bySlot.get(slot) ?? { keys: [], ids: [] };
      entry.keys.push(key);
      entry.ids.push(ids[i] as string);
      bySlot.set(slot, entry);
    });
    const all = new AbortController();
    const stop = () => all.abort(signal?.reason);
    if (signal?.aborted === true) stop();
    else signal?.addEventListener('abort', stop, { once: true });
    try {
      const reads = [...bySlot].map(async ([slot, part]) => {
        try {
          const reply = await poolFor(slot).send(blockingReadArgv(part.keys, part.ids, blockMs), all.signal);
          return readArrived(reply);
        } catch (error) {
          if (error instanceof Error && error.name === 'ReplyError' && /^(MOVED|ASK)\b/.test(error.message)) {
            return true;
          }
          throw error;
        }
      });
      const arrived = await new Promise<boolean>((resolve, reject) => {
        let left = reads.length;
        for (const read of reads) {
          read.then((hit) => {
            if (hit) resolve(true);
            else if (--left === 0) resolve(false);
          }, reject);
        }
      });
      return arrived;
    } finally {
      signal?.removeEventListener('abort', stop);
      // Reads still blocked (another slot answered first) end now.
      all.abort(new DOMException('Another slot answered', 'AbortError'));
    }
  }

  async function guard<T = RedisValue>(run: () => Promise<unknown>): Promise<T> {
    try {
      return (await run()) as T;
    } catch (error) {
      throw translate(error);
    }
  }
  return {
    evalsha: (sha, keys, args) => guard(() => cluster.evalsha(sha, keys.length, ...keys, ...args)),
    eval: (source, keys, args) => guard(() => cluster.eval(source, keys.length, ...keys, ...args)),
    blockingRead: (keys, ids, blockMs, options) =>
      guard<boolean>(() => blockingRead(keys, ids, blockMs, options?.signal)),
    cluster: true,
    blockingClientName,
    closeBlocking,
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
  const client = createIoredisClusterClient(cluster);
  return {
    client,
    close: async () => {
      client.closeBlocking();
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
