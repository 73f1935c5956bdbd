/**
 * The TCP adapter for Node deployments: the queue's scripts over an ioredis connection. ioredis
 * already prefers EVALSHA for `defineCommand`, but the queue does its own NOSCRIPT fallback, so
 * this adapter stays a plain translation of replies and errors. It cannot cancel a command once
 * written; the deadline wrapper (lib/redis/deadline.ts) stops waiting for it.
 */
import { Redis } from 'ioredis';
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
import { type BlockingPool, createBlockingPool } from './blocking-pool.ts';

/** The TCP client: the seam, plus what tells its blocking-read connections apart. */
export interface IoredisClient extends RedisClient {
  /** CLIENT SETNAME of its blocking-read connections (unique per client), for `CLIENT LIST`. */
  readonly blockingClientName: string;
  /** Its dedicated blocking-read connections (closed with the shared connection). */
  readonly blockingPool: BlockingPool;
}

/**
 * Give it a connection that never writes a command twice: with ioredis' defaults a command whose
 * connection closed before its answer is written again after the reconnect, and Redis may already
 * have run it (test/faults/support/stacks.ts has the reasoning for each option).
 * @example
 * const redis = createIoredisClient(
 *   new Redis(process.env.REDIS_URL, {
 *     maxRetriesPerRequest: 0,
 *     autoResendUnfulfilledCommands: false,
 *   }),
 * );
 */
export function createIoredisClient(connection: Redis): IoredisClient {
  // Blocking reads never run on `connection` (they would stall every other call behind them):
  // each borrows a dedicated connection of a bounded pool (functions/support/blocking-pool.ts).
  const blockingClientName = `esq-blocking-${Math.random().toString(36).slice(2, 10)}`;
  const blockingPool = createBlockingPool(() =>
    connection.duplicate({
      connectionName: blockingClientName,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
    }),
  );
  connection.once('end', () => blockingPool.close());
  // One promise per call on top of ioredis' own (an async wrapper awaiting it cost two more jobs).
  function guard(run: () => Promise<unknown>): Promise<RedisValue> {
    try {
      return (run() as Promise<RedisValue>).then(undefined, rethrow);
    } catch (error) {
      return Promise.reject(translate(error));
    }
  }
  return {
    evalsha: (sha, keys, args) => guard(() => connection.evalsha(sha, keys.length, ...keys, ...args)),
    eval: (source, keys, args) => guard(() => connection.eval(source, keys.length, ...keys, ...args)),
    blockingRead: (keys, ids, blockMs, options) =>
      guard(() => blockingPool.send(blockingReadArgv(keys, ids, blockMs), options?.signal)).then(readArrived),
    blockingClientName,
    blockingPool,
  };
}

/**
 * Connects to one Redis over TCP (`redis://` or `rediss://`, user and password in the URL).
 * Reconnecting after a drop is ioredis' job; a call made meanwhile is bounded by the deadline.
 * @example
 * const { client, close } = connectIoredis(process.env.REDIS_URL);
 */
export function connectIoredis(url: string): { client: IoredisClient; close(): Promise<void> } {
  const connection = new Redis(url, { maxRetriesPerRequest: 1 });
  // Connection errors reach the calls that fail on them; the client's own event is not a crash.
  connection.on('error', () => {});
  const client = createIoredisClient(connection);
  return {
    client,
    close: async () => {
      client.blockingPool.close();
      connection.disconnect();
    },
  };
}

function rethrow(error: unknown): never {
  throw translate(error);
}

function translate(error: unknown): Error {
  // ioredis reports error replies as ReplyError; everything else is the connection failing.
  if (error instanceof Error && error.name === 'ReplyError') {
    if (isAuthFailure(error.message)) return new RedisAuthError(error.message, { cause: error });
    return new RedisReplyError(error.message, { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new RedisUnavailableError(`Redis unavailable: ${message}`, { cause: error });
}
