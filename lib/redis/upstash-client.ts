/**
 * The HTTP adapter for Upstash (and for the engine's Upstash-compatible REST front), built on
 * `@upstash/redis` with automatic deserialisation off so bodies and ids arrive as exact strings,
 * on a requester of our own (rest-requester.ts) over a transport: `fetch` by default (Workers,
 * Deno), undici's connection pool on Node (functions/support/undici-transport.ts). A call's abort
 * signal (its deadline, see deadline.ts) reaches the request that carries it: a call aborted
 * before its request leaves is not sent, and a request is cancelled once every call it carries
 * has given up.
 */
import type { UpstashRequest } from '@upstash/redis';
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
  /** How requests travel; `fetch` unless given (Node passes undici's pool). */
  transport?: RestTransport;
}

/** How many calls a request carries: a `/pipeline` request one per command. */
function callsIn(request: UpstashRequest): number {
  return request.path?.[0] === 'pipeline' && Array.isArray(request.body) ? request.body.length : 1;
}

/**
 * A signal that aborts once every one of `signals` has; none when a call has no signal of its own
 * (someone still waits for the answer, whatever the others do).
 */
function whenAllAbort(signals: readonly (AbortSignal | undefined)[]): AbortSignal | undefined {
  if (signals.length === 1) return signals[0];
  if (signals.length === 0 || signals.includes(undefined)) return undefined;
  const all = new AbortController();
  let left = signals.length;
  for (const signal of signals as AbortSignal[]) {
    const gone = () => {
      if (--left === 0) all.abort(signal.reason);
    };
    if (signal.aborted) gone();
    else signal.addEventListener('abort', gone, { once: true });
  }
  return all.signal;
}

/**
 * @example
 * const redis = createUpstashClient({ url: env.UPSTASH_REDIS_REST_URL, token: env.UPSTASH_REDIS_REST_TOKEN });
 */
export function createUpstashClient(options: UpstashClientOptions): RedisClient {
  const { url, token } = options;
  const transport = options.transport ?? fetchTransport;
  // The auto-pipelining client sends the calls of one tick as one /pipeline request two
  // microtasks after the first, in call order (a new request past 1,000). `queued` holds the
  // signals of the calls handed to it whose request has not left yet, in that order; each request
  // takes as many as it carries.
  const queued: (AbortSignal | undefined)[] = [];
  const redis = redisOn(
    createRestRequester({
      url,
      token,
      transport,
      signalFor: (request) => whenAllAbort(queued.splice(0, callsIn(request))),
    }),
    { automaticDeserialization: false, enableAutoPipelining: true },
  );
  // A blocking read holds its HTTP request until data or timeout: it must never share an
  // auto-pipelined request with other commands, so it goes through a client that sends each
  // command on its own request, synchronously, while `current` holds its signal (its deadline is
  // the block time plus a margin, see deadline.ts).
  let current: AbortSignal | undefined;
  const direct = redisOn(createRestRequester({ url, token, transport, signalFor: () => current }), {
    automaticDeserialization: false,
    enableAutoPipelining: false,
  });

  /** The call's answer; when its signal aborts first, the caller stops waiting at once. */
  function settle(pending: Promise<unknown>, signal: AbortSignal | undefined): Promise<RedisValue> {
    if (signal === undefined) {
      return pending.then(
        (value) => value as RedisValue,
        (error: unknown) => {
          throw translate(error, undefined);
        },
      );
    }
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

  /** A call through the auto-pipelining client; one whose signal has aborted is not sent. */
  function pipelined(run: () => Promise<unknown>, callOptions: CallOptions | undefined): Promise<RedisValue> {
    const signal = callOptions?.signal;
    if (signal?.aborted === true) return Promise.reject(translate(signal.reason, signal));
    queued.push(signal);
    let pending: Promise<unknown>;
    try {
      pending = run();
    } catch (error) {
      // Never reached a pipeline: its place in the queue is the last one.
      queued.pop();
      return Promise.reject(translate(error, signal));
    }
    return settle(pending, signal);
  }

  /** A call through the direct client, which sends its request before `run` returns. */
  function alone(run: () => Promise<unknown>, callOptions: CallOptions | undefined): Promise<RedisValue> {
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
    return settle(pending, signal);
  }

  return {
    evalsha: (sha, keys, args, callOptions) =>
      pipelined(() => redis.evalsha(sha, [...keys], [...args]), callOptions),
    eval: (source, keys, args, callOptions) =>
      pipelined(() => redis.eval(source, [...keys], [...args]), callOptions),
    blockingRead: (keys, ids, blockMs, callOptions) =>
      alone(
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
