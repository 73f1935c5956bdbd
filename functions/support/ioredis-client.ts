/**
 * The TCP adapter for Node deployments: the queue's scripts over an ioredis connection. ioredis
 * already prefers EVALSHA for `defineCommand`, but the queue does its own NOSCRIPT fallback, so
 * this adapter stays a plain translation of replies and errors. It cannot cancel a command once
 * written; the deadline wrapper (lib/redis/deadline.ts) stops waiting for it.
 */
import type { Writable } from 'node:stream';
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
  const batch = writeBatcher(connection);
  async function guard(run: () => Promise<unknown>): Promise<RedisValue> {
    try {
      return (await run()) as RedisValue;
    } catch (error) {
      throw translate(error);
    }
  }
  return {
    evalsha: (sha, keys, args) => {
      batch();
      return guard(() => connection.evalsha(sha, keys.length, ...keys, ...args));
    },
    eval: (source, keys, args) => {
      batch();
      return guard(() => connection.eval(source, keys.length, ...keys, ...args));
    },
    blockingRead: (keys, ids, blockMs, options) =>
      guard(() => blockingPool.send(blockingReadArgv(keys, ids, blockMs), options?.signal)).then(readArrived),
    blockingClientName,
    blockingPool,
  };
}

/**
 * Gathers the commands of one event-loop turn into one socket write. ioredis writes each command
 * to the socket as it is sent: one write(2) per call, and on loopback the write also runs the
 * receiving side's TCP stack (under load, a quarter of the Node server's CPU per produce was in
 * that write, --cpu-prof). Corking the socket on the first call of a turn and uncorking it in
 * setImmediate (after the turn's I/O callbacks, so calls made for requests that arrived together
 * share it) sends them in one writev. Nothing is reordered, and a call still goes out in the turn
 * it was made. Only while the connection is ready: otherwise ioredis queues calls itself.
 */
function writeBatcher(connection: Redis): () => void {
  let corked = false;
  return () => {
    if (corked || connection.status !== 'ready') return;
    const stream = (connection as unknown as { stream?: Writable }).stream;
    if (stream === undefined || !stream.writable) return;
    corked = true;
    stream.cork();
    setImmediate(() => {
      corked = false;
      stream.uncork();
    });
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

function translate(error: unknown): Error {
  // ioredis reports error replies as ReplyError; everything else is the connection failing.
  if (error instanceof Error && error.name === 'ReplyError') {
    if (isAuthFailure(error.message)) return new RedisAuthError(error.message, { cause: error });
    return new RedisReplyError(error.message, { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new RedisUnavailableError(`Redis unavailable: ${message}`, { cause: error });
}
