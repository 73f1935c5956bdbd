/**
 * A deadline on every call through the Redis seam: past `timeoutMs` (or the call's own
 * `timeoutMs`) the call rejects with `RedisTimeoutError` and its signal aborts, so an adapter that
 * can cancel (the Upstash fetch, the engine's blocking read) does. A caller's own signal (a client
 * that went away) ends the call the same way. Whatever the call did may still be applied by Redis.
 * A blocking read gets its block time on top of the deadline.
 */
import { type CallOptions, type RedisClient, RedisTimeoutError, type RedisValue } from './client.ts';

/**
 * @example
 * const redis = withDeadline(createUpstashClient({ url, token }), 3000);
 */
export function withDeadline(client: RedisClient, timeoutMs: number): RedisClient {
  function bounded<T = RedisValue>(
    run: (options: CallOptions) => Promise<T>,
    options: CallOptions | undefined,
    extraMs = 0,
  ): Promise<T> {
    const ms = (options?.timeoutMs ?? timeoutMs) + extraMs;
    const outer = options?.signal;
    // Made when the adapter asks for the call's signal (the in-process engine never does).
    let controller: AbortController | undefined;
    let failure: Error | undefined;
    return new Promise<T>((resolve, reject) => {
      const stop = (error: Error) => {
        failure ??= error;
        controller?.abort(failure);
        reject(failure);
      };
      const timer = setTimeout(() => stop(new RedisTimeoutError(ms)), ms);
      const giveUp = () => stop(outer?.reason ?? new DOMException('The call was aborted', 'AbortError'));
      if (outer?.aborted === true) giveUp();
      else outer?.addEventListener('abort', giveUp, { once: true });
      const callOptions: CallOptions = {
        timeoutMs: ms,
        get signal() {
          if (controller === undefined) {
            controller = new AbortController();
            if (failure !== undefined) controller.abort(failure);
          }
          return controller.signal;
        },
      };
      run(callOptions)
        .then(resolve, reject)
        .finally(() => {
          clearTimeout(timer);
          outer?.removeEventListener('abort', giveUp);
        });
    });
  }
  const read = client.blockingRead?.bind(client);
  return {
    evalsha: (sha, keys, args, options) => bounded((o) => client.evalsha(sha, keys, args, o), options),
    eval: (source, keys, args, options) => bounded((o) => client.eval(source, keys, args, o), options),
    // A blocking read's deadline is its block time plus the usual deadline as a margin: a Redis
    // (or REST endpoint) that stalls still answers the caller within block + timeoutMs.
    ...(read === undefined
      ? {}
      : {
          blockingRead: (keys, ids, blockMs, options) =>
            bounded((o) => read(keys, ids, blockMs, o), options, blockMs),
        }),
  };
}
