/**
 * The HTTP adapter for Upstash (and for the engine's Upstash-compatible REST front), built on
 * `@upstash/redis` with automatic deserialisation off so bodies and ids arrive as exact strings.
 * A call's abort signal (its deadline, see deadline.ts) reaches the fetch, so a stalled request
 * is cancelled rather than left open.
 */
// The fetch-based build runs unchanged on Workers, Deno and Node 20.
import { Redis } from '@upstash/redis/cloudflare';
import {
  blockingReadArgv,
  type CallOptions,
  isAuthFailure,
  RedisAuthError,
  type RedisClient,
  RedisReplyError,
  RedisUnavailableError,
  type RedisValue,
  readArrived,
} from './client.ts';

export interface UpstashClientOptions {
  url: string;
  token: string;
}

/**
 * @example
 * const redis = createUpstashClient({ url: env.UPSTASH_REDIS_REST_URL, token: env.UPSTASH_REDIS_REST_TOKEN });
 */
export function createUpstashClient(options: UpstashClientOptions): RedisClient {
  // @upstash/redis asks for the signal (a function) synchronously when a command starts its
  // request, before the first await: the call below sets it just around that moment. A plain
  // signal would be worse: on abort the library answers the abort reason as a successful reply.
  let current: AbortSignal | undefined;
  const connect = (enableAutoPipelining: boolean) =>
    new Redis({
      enableAutoPipelining,
      url: options.url,
      token: options.token,
      automaticDeserialization: false,
      // Network failures surface at once as REDIS_UNAVAILABLE; the caller decides about retries.
      // Not `retry: false`: @upstash/redis 1.39 still sends a failed request once more then, and a
      // request whose answer was lost (Redis ran it) must never run twice behind the caller's back.
      retry: { retries: 0 },
      // A fresh never-aborting signal otherwise: workerd ties each I/O object to the request that
      // made it, so one signal cannot serve every call.
      signal: () => current ?? new AbortController().signal,
    });
  const redis = connect(true);
  // A blocking read holds its HTTP request until data or timeout: it must never share an
  // auto-pipelined request with other commands, so it goes through a client that sends each
  // command on its own request (its deadline is the block time plus a margin, see deadline.ts).
  const direct = connect(false);

  function guard(run: () => Promise<unknown>, callOptions: CallOptions | undefined): Promise<RedisValue> {
    current = callOptions?.signal;
    let pending: Promise<unknown>;
    try {
      pending = run();
    } finally {
      current = undefined;
    }
    return pending.then(
      (value) => value as RedisValue,
      (error: unknown) => {
        throw translate(error, callOptions?.signal);
      },
    );
  }

  return {
    evalsha: (sha, keys, args, callOptions) =>
      guard(() => redis.evalsha(sha, [...keys], [...args]), callOptions),
    eval: (source, keys, args, callOptions) =>
      guard(() => redis.eval(source, [...keys], [...args]), callOptions),
    blockingRead: (keys, ids, blockMs, callOptions) =>
      guard(
        () => direct.exec(blockingReadArgv(keys, ids, blockMs) as [string, ...string[]]),
        callOptions,
      ).then(readArrived),
  };
}

/** Upstash errors carry the Redis error text followed by `, command was: ...`. */
function translate(error: unknown, signal: AbortSignal | undefined): Error {
  if (signal?.aborted === true && signal.reason instanceof Error) return signal.reason;
  if (error instanceof Error && error.name === 'UpstashError') {
    const text = error.message.replace(/, command was: [\s\S]*$/, '');
    if (isAuthFailure(text)) return new RedisAuthError(text, { cause: error });
    // The engine's REST front (and its forwarding to a real Redis) answers a backend it could not
    // reach this way: the endpoint failed, Redis gave no reply.
    if (/^ERR backend failure\b/.test(text)) return new RedisUnavailableError(text, { cause: error });
    return new RedisReplyError(text, { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new RedisUnavailableError(`Redis REST endpoint unavailable: ${message}`, { cause: error });
}
