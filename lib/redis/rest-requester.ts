/**
 * Upstash's REST protocol as an `@upstash/redis` `Requester` over a pluggable transport: `fetch`
 * here (Workers, Deno, any Web runtime), undici's connection pool on Node
 * (functions/support/undici-transport.ts). It speaks the protocol as the library's own HTTP client
 * does — the same headers, base64 replies decoded string for string alike (base64-reply.ts), the
 * read-your-writes token, the same `UpstashError` texts — minus retries (a request whose answer
 * was lost must not run twice behind the caller's back) and streaming commands (the queue uses
 * none). Each request's abort signal comes from `signalFor`: the adapter knows which of its calls
 * a request carries (see upstash-client.ts).
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
  /** The abort signal for a request (given the commands it carries), else none. */
  signalFor?: (request: UpstashRequest) => AbortSignal | undefined;
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

  const requester: RestRequester = {
    readYourWrites: true,
    upstashSyncToken: '',
    async request<TResult>(req: UpstashRequest): Promise<UpstashResponse<TResult>> {
      if (req.isStreaming === true) {
        throw new errors.UpstashError('Streaming commands are not supported by this requester');
      }
      const signal = req.signal ?? signalFor?.(req);
      // A request nobody waits for any more is not sent.
      signal?.throwIfAborted();
      const sent: Record<string, string> =
        req.headers === undefined ? { ...headers } : { ...headers, ...req.headers };
      if (requester.readYourWrites) sent['upstash-sync-token'] = requester.upstashSyncToken;
      const body = JSON.stringify(req.body);
      const response = await transport({
        url: req.path === undefined ? base : [base, ...req.path].join('/'),
        headers: sent,
        body,
        signal,
      });
      let parsed: unknown;
      try {
        parsed = JSON.parse(response.text);
      } catch (error) {
        throw new errors.UpstashJSONParseError(response.text, { cause: error });
      }
      if (response.status < 200 || response.status > 299) {
        throw new errors.UpstashError(`${(parsed as { error?: string }).error}, command was: ${body}`);
      }
      if (requester.readYourWrites && response.syncToken !== undefined) {
        requester.upstashSyncToken = response.syncToken;
      }
      if (!base64) return parsed as UpstashResponse<TResult>;
      if (Array.isArray(parsed)) {
        return parsed.map(({ result, error }: UpstashResponse<unknown>) => ({
          result: decodeBase64Result(result),
          error,
        })) as unknown as UpstashResponse<TResult>;
      }
      const { result, error } = parsed as UpstashResponse<unknown>;
      return { result: decodeBase64Result(result) as TResult, ...(error === undefined ? {} : { error }) };
    },
  };
  return requester;
}
