/**
 * The client's fetch on Node (lib/client, its `fetch` option): each call one `node:http(s)`
 * request on a keep-alive agent, answered with the few fields the client reads (status, headers,
 * text) instead of a WHATWG Response. Node's own `fetch` (undici behind Request, Headers, streams
 * and a Response per call) cost 1.0-1.5 ms of CPU per API call on the benchmark machine where
 * this costs 0.35-0.5 (bench/client.ts): with one message per produce request, every message is
 * three calls. Node built-ins only, so the dependency-free client package can carry it.
 */
import http from 'node:http';
import https from 'node:https';
import type { FetchLike, FetchResponse } from '../../lib/client/transport.ts';

export interface NodeFetch {
  readonly fetch: FetchLike;
  /** Closes its connections, idle or not (calls in flight fail). */
  close(): void;
}

export interface NodeFetchOptions {
  /** Idle connections kept per origin (default 64: a worker's long polls each hold one). */
  maxFreeSockets?: number;
}

/** Plain header records as the client sends them; a Headers or pairs as fetch would take them. */
function headerRecord(headers: RequestInit['headers']): Record<string, string> {
  if (headers === undefined) return {};
  if (headers instanceof Headers || Array.isArray(headers)) return Object.fromEntries(new Headers(headers));
  return headers as Record<string, string>;
}

class NodeResponse implements FetchResponse {
  readonly ok: boolean;
  readonly headers: { get(name: string): string | null };
  constructor(
    readonly status: number,
    readonly statusText: string,
    rawHeaders: http.IncomingHttpHeaders,
    private readonly body: string,
  ) {
    this.ok = status >= 200 && status < 300;
    this.headers = {
      get: (name) => {
        const value = rawHeaders[name.toLowerCase()];
        if (value === undefined) return null;
        return Array.isArray(value) ? value.join(', ') : value;
      },
    };
  }
  text(): Promise<string> {
    return Promise.resolve(this.body);
  }
}

/**
 * A fetch for `createQueueClient` on Node. The answer's body is read in full before the promise
 * resolves; an abort before the answer's head arrived fails the call as fetch's would (an
 * AbortError), after it the body is still read (the client reads every answer to its end anyway).
 * @example
 * const { fetch, close } = createNodeFetch();
 * const client = createQueueClient({ url, token, fetch });
 */
export function createNodeFetch(options: NodeFetchOptions = {}): NodeFetch {
  const agentOptions = { keepAlive: true, maxFreeSockets: options.maxFreeSockets ?? 64 };
  const agents = { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) };

  const fetchFn: FetchLike = (input, init) =>
    new Promise<FetchResponse>((resolve, reject) => {
      const signal = init.signal ?? undefined;
      if (signal?.aborted === true) {
        reject(signal.reason);
        return;
      }
      const url = new URL(input);
      const secure = url.protocol === 'https:';
      const body = typeof init.body === 'string' ? init.body : undefined;
      if (init.body !== undefined && init.body !== null && body === undefined) {
        reject(new TypeError('createNodeFetch sends string bodies only (the client sends JSON text)'));
        return;
      }
      const headers = headerRecord(init.headers);
      if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
      const request = (secure ? https : http).request(
        {
          protocol: url.protocol,
          hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
          port: url.port,
          path: `${url.pathname}${url.search}`,
          method: init.method ?? 'GET',
          headers,
          agent: secure ? agents.https : agents.http,
        },
        (response) => {
          // The head is in: from here on the body is read to its end (see the comment above).
          signal?.removeEventListener('abort', onAbort);
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => {
            text += chunk;
          });
          response.once('error', reject);
          response.once('close', () => {
            if (!response.complete) reject(new Error('the connection closed before the answer ended'));
          });
          response.once('end', () =>
            resolve(
              new NodeResponse(
                response.statusCode ?? 0,
                response.statusMessage ?? '',
                response.headers,
                text,
              ),
            ),
          );
        },
      );
      const onAbort = () => {
        const reason: unknown = signal?.reason;
        request.destroy();
        reject(reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      request.once('error', (error) => {
        signal?.removeEventListener('abort', onAbort);
        reject(error);
      });
      request.end(body);
    });

  return {
    fetch: fetchFn,
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}
