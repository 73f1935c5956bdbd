/**
 * The REST front's backend for a real Redis over TCP (ENGINE_REDIS_URL): a drop-in for Upstash's
 * Docker-based local server. The only file that imports ioredis for the front.
 *
 * One shared connection carries ordinary commands and transactions: ioredis writes a whole
 * MULTI … EXEC batch to the socket in one synchronous step, so concurrent transactions never
 * interleave ("MULTI calls can not be nested" cannot happen). Blocking commands each borrow a
 * connection of their own, so a parked XREAD BLOCK never stalls anyone else.
 */
import { Redis, ReplyError } from 'ioredis';
import { RedisError, type Reply } from '../../lib/engine/reply.ts';
import type { Backend, CallOptions } from '../../lib/rest-front/backend.ts';

export interface RedisForwardBackend extends Backend {
  /**
   * CLIENT SETNAME of the connections blocking calls use, unique per backend, so `CLIENT LIST`
   * tells them apart (`rest-front-<id>-blocking`; the shared one is `rest-front-<id>-shared`).
   */
  readonly blockingClientName: string;
  /** Closes every connection; blocked calls still waiting are rejected. */
  close(): Promise<void>;
}

/** Commands that would change the shared connection's state for every other request. */
const CONNECTION_STATE = new Set([
  'AUTH',
  'DISCARD',
  'EXEC',
  'HELLO',
  'MONITOR',
  'MULTI',
  'PSUBSCRIBE',
  'PSYNC',
  'PUNSUBSCRIBE',
  'QUIT',
  'READONLY',
  'READWRITE',
  'RESET',
  'SELECT',
  'SSUBSCRIBE',
  'SUBSCRIBE',
  'SUNSUBSCRIBE',
  'SYNC',
  'UNSUBSCRIBE',
  'UNWATCH',
  'WATCH',
]);
const CONNECTION_STATE_CLIENT = new Set(['REPLY', 'TRACKING', 'CACHING', 'NO-EVICT', 'NO-TOUCH']);

const ALWAYS_BLOCKING = new Set([
  'BLMOVE',
  'BLMPOP',
  'BLPOP',
  'BRPOP',
  'BRPOPLPUSH',
  'BZMPOP',
  'BZPOPMAX',
  'BZPOPMIN',
  'WAIT',
  'WAITAOF',
]);

/** Idle blocking connections kept for reuse; more are opened on demand and closed after use. */
const MAX_IDLE_BLOCKING = 4;

/**
 * @example
 * const backend = createRedisForwardBackend('redis://127.0.0.1:6379');
 * const app = createRestFront({ backend, token: 'dev-token' });
 */
export function createRedisForwardBackend(url: string): RedisForwardBackend {
  const id = `rest-front-${crypto.randomUUID().slice(0, 8)}`;
  const blockingClientName = `${id}-blocking`;
  const main = connect(url, `${id}-shared`);
  const idle: Redis[] = [];
  const borrowed = new Set<Redis>();
  let closed = false;

  async function callBlocking(name: string, args: string[], signal: AbortSignal | undefined): Promise<Reply> {
    signal?.throwIfAborted();
    const connection = idle.pop() ?? connect(url, blockingClientName);
    borrowed.add(connection);
    // The HTTP client left: closing the connection makes Redis unblock it without delivering
    // anything (nothing lands in a PEL for a reader that is gone), and the call rejects.
    const drop = (): void => connection.disconnect();
    signal?.addEventListener('abort', drop, { once: true });
    try {
      return await send(connection, name, args);
    } finally {
      signal?.removeEventListener('abort', drop);
      borrowed.delete(connection);
      if (!closed && signal?.aborted !== true && idle.length < MAX_IDLE_BLOCKING) idle.push(connection);
      else connection.disconnect();
    }
  }

  return {
    blockingClientName,
    call(argv, options?: CallOptions) {
      const name = (argv[0] ?? '').toUpperCase();
      const args = argv.slice(1);
      const refusal = refuse(name, args);
      if (refusal !== undefined) return Promise.resolve(refusal);
      return isBlocking(name, args) ? callBlocking(name, args, options?.signal) : send(main, name, args);
    },
    async exec(commands) {
      // Redis refuses these inside MULTI at queue time, which aborts the whole transaction.
      if (commands.some((argv) => refuse((argv[0] ?? '').toUpperCase(), argv.slice(1)) !== undefined)) {
        return new RedisError('EXECABORT Transaction discarded because of previous errors.');
      }
      const transaction = main.multi();
      for (const argv of commands) transaction.call((argv[0] ?? '').toUpperCase(), ...argv.slice(1));
      let results: [Error | null, unknown][] | null;
      try {
        results = await transaction.exec();
      } catch (error) {
        if (isReplyError(error)) return new RedisError(error.message);
        throw error;
      }
      if (results === null) throw new Error('EXEC answered nil although nothing was watched');
      return results.map(([error, value]) =>
        error === null ? toReply(value) : new RedisError(error.message),
      );
    },
    async close() {
      closed = true;
      for (const connection of [...idle, ...borrowed]) connection.disconnect();
      idle.length = 0;
      await main.quit().catch(() => main.disconnect());
    },
  };
}

function connect(url: string, connectionName: string): Redis {
  const connection = new Redis(url, {
    // A command written on a connection that closes before its answer is rejected right then and
    // never written again after the reconnect: Redis may have run it (the answer is what got
    // lost), and ioredis' default resend would run it twice. Without maxRetriesPerRequest 0 such
    // a command is kept over the first reconnect and then dropped unsettled: a request that hangs.
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    connectionName,
  });
  // Connection errors surface on the pending commands (as 500s); without a listener ioredis would
  // also print every reconnect attempt as an unhandled error.
  connection.on('error', () => {});
  return connection;
}

async function send(connection: Redis, name: string, args: string[]): Promise<Reply> {
  try {
    // Upper-case names on purpose: ioredis keys its reply transformers (HGETALL → object) on the
    // lower-case name, and the front must see Redis' raw reply.
    return toReply(await connection.call(name, ...args));
  } catch (error) {
    if (isReplyError(error)) return new RedisError(error.message);
    throw error;
  }
}

function refuse(name: string, args: string[]): RedisError | undefined {
  const clientState = name === 'CLIENT' && CONNECTION_STATE_CLIENT.has((args[0] ?? '').toUpperCase());
  if (!CONNECTION_STATE.has(name) && !clientState) return undefined;
  return new RedisError(
    `ERR '${name.toLowerCase()}' changes connection state and is not available over REST` +
      (name === 'MULTI' || name === 'EXEC' ? ': use POST /multi-exec' : ''),
  );
}

function isBlocking(name: string, args: string[]): boolean {
  if (ALWAYS_BLOCKING.has(name)) return true;
  if (name !== 'XREAD' && name !== 'XREADGROUP') return false;
  for (const arg of args) {
    const token = arg.toUpperCase();
    if (token === 'STREAMS') return false;
    if (token === 'BLOCK') return true;
  }
  return false;
}

/** Redis answered with an error reply (as opposed to a connection failure). */
function isReplyError(error: unknown): error is Error {
  // ioredis declares ReplyError loosely, so `instanceof` alone does not narrow the type.
  return error instanceof ReplyError && error instanceof Error;
}

/** ioredis (RESP2, utf8 replies) → engine Reply. */
function toReply(value: unknown): Reply {
  if (value === null || typeof value === 'string' || typeof value === 'number') return value;
  if (Array.isArray(value)) return value.map(toReply);
  if (value instanceof Error) return new RedisError(value.message);
  throw new TypeError(`unexpected reply from Redis: ${String(value)}`);
}
