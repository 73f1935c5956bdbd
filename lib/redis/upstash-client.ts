/**
 * The HTTP adapter for Upstash (and for the engine's Upstash-compatible REST front), built on
 * `@upstash/redis` with automatic deserialisation off so bodies and ids arrive as exact strings.
 */
// The fetch-based build runs unchanged on Workers, Deno and Node 20.
import { Redis } from '@upstash/redis/cloudflare';
import { type RedisClient, RedisReplyError, RedisUnavailableError, type RedisValue } from './client.ts';

export interface UpstashClientOptions {
  url: string;
  token: string;
}

/**
 * @example
 * const redis = createUpstashClient({ url: env.UPSTASH_REDIS_REST_URL, token: env.UPSTASH_REDIS_REST_TOKEN });
 */
export function createUpstashClient(options: UpstashClientOptions): RedisClient {
  const redis = new Redis({
    url: options.url,
    token: options.token,
    automaticDeserialization: false,
    // Network failures surface at once as REDIS_UNAVAILABLE; the caller decides about retries.
    retry: false,
  });

  async function guard(run: () => Promise<unknown>): Promise<RedisValue> {
    try {
      return (await run()) as RedisValue;
    } catch (error) {
      throw translate(error);
    }
  }

  return {
    evalsha: (sha, keys, args) => guard(() => redis.evalsha(sha, [...keys], [...args])),
    eval: (source, keys, args) => guard(() => redis.eval(source, [...keys], [...args])),
  };
}

/** Upstash errors carry the Redis error text followed by `, command was: ...`. */
function translate(error: unknown): Error {
  if (error instanceof Error && error.name === 'UpstashError') {
    const text = error.message.replace(/, command was: [\s\S]*$/, '');
    if (/^(WRONGPASS|Unauthorized)/i.test(text)) return new RedisUnavailableError(text, { cause: error });
    return new RedisReplyError(text, { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new RedisUnavailableError(`Redis REST endpoint unavailable: ${message}`, { cause: error });
}
