/**
 * The HTTP adapter for Upstash (and for the engine's Upstash-compatible REST front), built on
 * `@upstash/redis` with automatic deserialisation off so bodies and ids arrive as exact strings,
 * on a requester of our own (rest-requester.ts) over a transport: `fetch` by default (Workers,
 * Deno), keep-alive sockets on Node (functions/support/socket-transport.ts). Script calls
 * made in the same tick share one `/pipeline` request (the requester batches them). A call's abort
 * signal (its deadline, see deadline.ts) reaches the request that carries it: a call aborted
 * before its request leaves is not sent, a request is cancelled once every call it carries has
 * given up, and the caller stops waiting at once.
 */
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
import { createRestRequester, fetchTransport, type RestTransport } from './rest-requester.ts';
import { redisOn } from './upstash-redis.ts';

export interface UpstashClientOptions {
  url: string;
  token: string;
  /** How requests travel; `fetch` unless given (Node passes its sockets' transport). */
  transport?: RestTransport;
}

/**
 * @example
 * const redis = createUpstashClient({ url: env.UPSTASH_REDIS_REST_URL, token: env.UPSTASH_REDIS_REST_TOKEN });
 */
export function createUpstashClient(options: UpstashClientOptions): RedisClient {
  const { url, token } = options;
  const transport = options.transport ?? fetchTransport;
  // A command hands its request to the requester before its call returns: `current` holds the
  // call's signal for exactly that moment.
  let current: AbortSignal | undefined;
  const signalFor = () => current;
  const configured = { automaticDeserialization: false, enableAutoPipelining: false } as const;
  const redis = redisOn(createRestRequester({ url, token, transport, signalFor, batch: true }), configured);
  // A blocking read holds its HTTP request until data or timeout: it must never share a request
  // with other commands, so it goes through a requester that sends each command on its own (its
  // deadline is the block time plus a margin, see deadline.ts).
  const direct = redisOn(createRestRequester({ url, token, transport, signalFor }), configured);

  /** Runs one command with its caller's signal; one whose signal has aborted is not sent. */
  function call(run: () => Promise<unknown>, callOptions: CallOptions | undefined): Promise<RedisValue> {
    const signal = callOptions?.signal;
    if (signal?.aborted === true) return Promise.reject(translate(signal.reason, signal));
    current = signal;
    let pending: Promise<unknown>;
    try {
      pending = run();
    } catch (error) {
      return Promise.reject(translate(error, signal));
    } finally {
      current = undefined;
    }
    if (signal === undefined) {
      return pending.then(
        (value) => value as RedisValue,
        (error: unknown) => {
          throw translate(error, undefined);
        },
      );
    }
    // The caller stops waiting as soon as it gives up, whatever the request is still doing.
    return new Promise<RedisValue>((resolve, reject) => {
      const giveUp = () => reject(translate(signal.reason, signal));
      signal.addEventListener('abort', giveUp, { once: true });
      pending.then(
        (value) => {
          signal.removeEventListener('abort', giveUp);
          resolve(value as RedisValue);
        },
        (error: unknown) => {
          signal.removeEventListener('abort', giveUp);
          reject(translate(error, signal));
        },
      );
    });
  }

  return {
    evalsha: (sha, keys, args, callOptions) =>
      call(() => redis.evalsha(sha, [...keys], [...args]), callOptions),
    eval: (source, keys, args, callOptions) =>
      call(() => redis.eval(source, [...keys], [...args]), callOptions),
    blockingRead: (keys, ids, blockMs, callOptions) =>
      call(
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
