/**
 * The narrow seam between the queue and Redis: the queue only ever runs its Lua scripts, so an
 * adapter only has to offer EVALSHA and EVAL. Each adapter (Upstash REST, ioredis over TCP, the
 * in-process engine) is one file and the only file that imports its client library.
 */

/** A Redis reply as the scripts return it: bulk strings, integers, nil and nested arrays. */
export type RedisValue = string | number | null | RedisValue[];

/** What the queue needs from a Redis connection. */
export interface RedisClient {
  /** Runs a cached script; rejects with a `RedisReplyError` starting with `NOSCRIPT` when not cached. */
  evalsha(sha: string, keys: readonly string[], args: readonly string[]): Promise<RedisValue>;
  /** Runs a script from source (and caches it for later EVALSHA calls). */
  eval(source: string, keys: readonly string[], args: readonly string[]): Promise<RedisValue>;
}

/** Redis answered with an error reply; `message` is its full text, e.g. `NOSCRIPT No matching ...`. */
export class RedisReplyError extends Error {
  override name = 'RedisReplyError';
}

/** Redis could not be reached or the connection failed mid-call; the call may be retried. */
export class RedisUnavailableError extends Error {
  override name = 'RedisUnavailableError';
}

/** True for the NOSCRIPT reply of an EVALSHA whose script is not in the server's cache. */
export function isNoScript(error: unknown): boolean {
  return error instanceof RedisReplyError && /\bNOSCRIPT\b/.test(error.message);
}
