/**
 * The narrow seam between the queue and Redis: the queue only ever runs its Lua scripts, so an
 * adapter only has to offer EVALSHA and EVAL. Each adapter (Upstash REST, ioredis over TCP, the
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
