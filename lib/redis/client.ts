/**
 * The narrow seam between the queue and Redis: the queue's operations only ever run its Lua
 * scripts, so an adapter offers EVALSHA and EVAL; a long poll also waits with one blocking stream
 * read (`blockingRead`, never inside a script, never on a connection other calls share). Each adapter (Upstash REST, ioredis over TCP, the
 * in-process engine) is one file and the only file that imports its client library.
 */

/** A Redis reply as the scripts return it: bulk strings, integers, nil and nested arrays. */
export type RedisValue = string | number | null | RedisValue[];

export interface CallOptions {
  /** Aborting gives the call up: the adapter stops waiting (and cancels the request if it can). */
  signal?: AbortSignal;
  /** A deadline for this call instead of the client's default (a blocking read needs longer). */
  timeoutMs?: number;
}

/** What the queue needs from a Redis connection. */
export interface RedisClient {
  /** Runs a cached script; rejects with a `RedisReplyError` starting with `NOSCRIPT` when not cached. */
  evalsha(
    sha: string,
    keys: readonly string[],
    args: readonly string[],
    options?: CallOptions,
  ): Promise<RedisValue>;
  /** Runs a script from source (and caches it for later EVALSHA calls). */
  eval(
    source: string,
    keys: readonly string[],
    args: readonly string[],
    options?: CallOptions,
  ): Promise<RedisValue>;
  /**
   * True for a Redis Cluster: the keys of one script call must then share a slot. Absent or false:
   * one Redis (or a front that runs a script over any keys), where a call may touch two queues.
   */
  readonly cluster?: boolean;
  /**
   * `XREAD COUNT 1 BLOCK blockMs STREAMS ...keys ...ids`: waits until one of the streams has an
   * entry past its id (true) or `blockMs` passed (false). The keys may lie in different cluster
   * slots (a cluster adapter reads each slot on its own connection). Aborting `options.signal`
   * ends the wait on the server too (no blocked client is left behind). Optional: without it the
   * long poll falls back to polling.
   */
  blockingRead?(
    keys: readonly string[],
    ids: readonly string[],
    blockMs: number,
    options?: CallOptions,
  ): Promise<boolean>;
}

/** The argv of the blocking read every adapter sends. */
export function blockingReadArgv(keys: readonly string[], ids: readonly string[], blockMs: number): string[] {
  return [
    'XREAD',
    'COUNT',
    '1',
    'BLOCK',
    String(Math.max(1, Math.ceil(blockMs))),
    'STREAMS',
    ...keys,
    ...ids,
  ];
}

/** True when an XREAD reply carries an entry (nil, an empty array or a RESP3 empty map: none). */
export function readArrived(reply: unknown): boolean {
  if (reply === null || reply === undefined) return false;
  if (Array.isArray(reply)) return reply.length > 0;
  if (typeof reply === 'object') return Object.keys(reply).length > 0;
  return false;
}

/** Redis answered with an error reply; `message` is its full text, e.g. `NOSCRIPT No matching ...`. */
export class RedisReplyError extends Error {
  override name = 'RedisReplyError';
}

/** Redis could not be reached or the connection failed mid-call; the call may be retried. */
export class RedisUnavailableError extends Error {
  override name = 'RedisUnavailableError';
}

/**
 * Redis did not answer within the call's deadline. Whatever the call was doing may still have
 * been applied (the request left; only the answer is missing).
 */
export class RedisTimeoutError extends RedisUnavailableError {
  override name = 'RedisTimeoutError';

  constructor(readonly timeoutMs: number) {
    super(`Redis did not answer within ${timeoutMs} ms`);
  }
}

/** Redis refused the credentials (a wrong Upstash token, a wrong password): retrying cannot help. */
export class RedisAuthError extends Error {
  override name = 'RedisAuthError';
}

/** True for the NOSCRIPT reply of an EVALSHA whose script is not in the server's cache. */
export function isNoScript(error: unknown): boolean {
  return error instanceof RedisReplyError && /\bNOSCRIPT\b/.test(error.message);
}

/** Reply texts that mean the credentials were refused (Redis' own and Upstash's REST answer). */
export function isAuthFailure(text: string): boolean {
  return /^(WRONGPASS|NOAUTH|NOPERM|Unauthorized)\b/i.test(text);
}
