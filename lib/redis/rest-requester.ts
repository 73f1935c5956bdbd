/**
 * Upstash's REST protocol as an `@upstash/redis` `Requester` over a pluggable transport: `fetch`
 * here (Workers, Deno, any Web runtime), keep-alive sockets of its own on Node
 * (functions/support/socket-transport.ts). It speaks the protocol as the library's own HTTP client
 * does — the same headers, base64 replies decoded string for string alike (base64-reply.ts), the
 * read-your-writes token, the same `UpstashError` texts — minus retries (a request whose answer
 * was lost must not run twice behind the caller's back) and streaming commands (the queue uses
 * none). Each request's abort signal comes from `signalFor` (the adapter sets it around each call).
 *
 * With `batch`, the single commands issued in one tick go out as one `/pipeline` request (one
 * alone as a plain request), each caller getting its own command's answer: the library's own
 * auto-pipelining does the same, but builds a `Pipeline` per batch, which creates a closure for
 * each of its ~400 commands (4.5% of a consume's CPU under workerd), and cannot leave out a
 * command whose caller gave up before the request left; this does.
 */
import { errors, type Requester, type UpstashRequest, type UpstashResponse } from '@upstash/redis';
import { decodeBase64Result } from './base64-reply.ts';

/** One POST to the endpoint, as a transport sends it. */
export interface RestRequest {
  /** Absolute URL: the endpoint's base URL and the request's path. */
  readonly url: string;
  readonly headers: Record<string, string>;
  /** The JSON text of the command or commands. */
  readonly body: string;
  readonly signal: AbortSignal | undefined;
}

/** Its answer; the transport rejects when no answer came (refused, reset, aborted). */
export interface RestResponse {
  readonly status: number;
  readonly text: string;
  /** The `upstash-sync-token` response header, if any. */
  readonly syncToken: string | undefined;
}

export type RestTransport = (request: RestRequest) => Promise<RestResponse>;

export interface RestRequesterOptions {
  /** The endpoint, e.g. `https://<db>.upstash.io` (a trailing slash is ignored). */
  url: string;
  token: string;
  transport: RestTransport;
  /** `base64` (the default, exact bytes whatever they are) or false (the endpoint's plain JSON). */
  responseEncoding?: 'base64' | false;
  /** The abort signal for a request, else none: read when the request is made. */
  signalFor?: () => AbortSignal | undefined;
  /** Send the single commands of one tick as one `/pipeline` request. */
  batch?: boolean;
}

/** The most commands one `/pipeline` request carries (the library's own limit). */
const MAX_BATCH = 1000;

/**
 * A signal that aborts once every one of `signals` has: a request is cancelled only when nobody
 * waits for any of its answers.
 */
function whenAllAbort(signals: readonly (AbortSignal | undefined)[]): AbortSignal | undefined {
  if (signals.length === 1) return signals[0];
  if (signals.includes(undefined)) return undefined;
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

/** A command waiting in a batch for its request to leave. */
interface Queued {
  readonly body: unknown;
  readonly signal: AbortSignal | undefined;
  resolve(response: UpstashResponse<unknown>): void;
  reject(error: unknown): void;
}

/** A Requester that also reads and sends the read-your-writes token, as the library's does. */
export interface RestRequester extends Requester {
  readYourWrites: boolean;
  upstashSyncToken: string;
}

/** The transport every Web runtime has: `fetch`. */
export const fetchTransport: RestTransport = async ({ url, headers, body, signal }) => {
  const response = await fetch(url, { method: 'POST', headers, body, ...(signal ? { signal } : {}) });
  return {
    status: response.status,
    text: await response.text(),
    syncToken: response.headers.get('upstash-sync-token') ?? undefined,
  };
};

/**
 * @example
 * const redis = redisOn(createRestRequester({ url, token, transport: fetchTransport }));
 */
export function createRestRequester(options: RestRequesterOptions): RestRequester {
  const base = options.url.replace(/\/$/, '');
  if (!/^https?:\/\/[^\s#$./?].\S*$/.test(base)) throw new errors.UrlError(base);
  const base64 = (options.responseEncoding ?? 'base64') === 'base64';
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    authorization: `Bearer ${options.token}`,
    ...(base64 ? { 'Upstash-Encoding': 'base64' } : {}),
  };
  const { transport, signalFor } = options;

  /** One POST: its answer decoded, or the library's error for a refused or unreadable one. */
  async function send(
    path: string[] | undefined,
    body: unknown,
    extraHeaders: Record<string, string> | undefined,
    signal: AbortSignal | undefined,
  ): Promise<unknown> {
    const sent: Record<string, string> =
      extraHeaders === undefined ? { ...headers } : { ...headers, ...extraHeaders };
    if (requester.readYourWrites) sent['upstash-sync-token'] = requester.upstashSyncToken;
    const text = JSON.stringify(body);
    const response = await transport({
      url: path === undefined ? base : [base, ...path].join('/'),
      headers: sent,
      body: text,
      signal,
    });
    let parsed: unknown;
    try {
      parsed = JSON.parse(response.text);
    } catch (error) {
      throw new errors.UpstashJSONParseError(response.text, { cause: error });
    }
    if (response.status < 200 || response.status > 299) {
      throw new errors.UpstashError(`${(parsed as { error?: string }).error}, command was: ${text}`);
    }
    if (requester.readYourWrites && response.syncToken !== undefined) {
      requester.upstashSyncToken = response.syncToken;
    }
    if (!base64) return parsed;
    if (Array.isArray(parsed)) return parsed.map(decodeItem);
    return decodeItem(parsed as UpstashResponse<unknown>);
  }

  let queued: Queued[] | undefined;

  /** Sends what the tick queued: the commands whose callers still wait, in order. */
  function flush(): void {
    const waiting = (queued ?? []).filter((call) => {
      if (call.signal?.aborted !== true) return true;
      call.reject(call.signal.reason);
      return false;
    });
    queued = undefined;
    for (let start = 0; start < waiting.length; start += MAX_BATCH) {
      const calls = waiting.slice(start, start + MAX_BATCH);
      const signal = whenAllAbort(calls.map((call) => call.signal));
      if (calls.length === 1) {
        const [call] = calls as [Queued];
        send(undefined, call.body, undefined, signal).then(
          (response) => call.resolve(response as UpstashResponse<unknown>),
          call.reject,
        );
        continue;
      }
      send(
        ['pipeline'],
        calls.map((call) => call.body),
        undefined,
        signal,
      ).then(
        (responses) => {
          calls.forEach((call, i) => {
            call.resolve((responses as UpstashResponse<unknown>[])[i] ?? {});
          });
        },
        (error: unknown) => {
          for (const call of calls) call.reject(error);
        },
      );
    }
  }

  const requester: RestRequester = {
    readYourWrites: true,
    upstashSyncToken: '',
    request<TResult>(req: UpstashRequest): Promise<UpstashResponse<TResult>> {
      if (req.isStreaming === true) {
        return Promise.reject(
          new errors.UpstashError('Streaming commands are not supported by this requester'),
        );
      }
      const signal = req.signal ?? signalFor?.();
      // A request nobody waits for any more is not sent.
      if (signal?.aborted === true) return Promise.reject(signal.reason);
      if (options.batch !== true || req.path !== undefined || req.headers !== undefined) {
        return send(req.path, req.body, req.headers, signal) as Promise<UpstashResponse<TResult>>;
      }
      return new Promise((resolve, reject) => {
        if (queued === undefined) {
          queued = [];
          queueMicrotask(flush);
        }
        queued.push({
          body: req.body,
          signal,
          resolve: resolve as (response: UpstashResponse<unknown>) => void,
          reject,
        });
      });
    },
  };
  return requester;
}

/** One command's answer as the library's client decodes it (`error` as it came). */
function decodeItem({ result, error }: UpstashResponse<unknown>): UpstashResponse<unknown> {
  return { result: decodeBase64Result(result), ...(error === undefined ? {} : { error }) };
}
