/**
 * A REST adapter transport on Node (lib/redis/rest-requester.ts), the one Node ran before
 * socket-transport.ts took its place: kept as a second Node transport the semantic suites and the
 * bench run beside it (test/support/transports.ts). Requests on an undici
 * connection pool to the endpoint's origin, kept alive between calls. Node's own `fetch` is undici
 * too, behind the WHATWG layer (Request, Headers, streams, a Response per call): 551-614 µs of
 * CPU per script call through fetch against 146-168 µs here (BENCHMARKS.md, api, "the REST
 * adapter alone"). The pool
 * opens as many connections as there are requests in flight (a long poll holds one for its block
 * time), and reuses them.
 */
import { Pool } from 'undici';
import type { RestTransport } from '../../lib/redis/rest-requester.ts';

export interface UndiciTransport {
  readonly transport: RestTransport;
  /** Closes the pool's connections; calls still in flight fail. */
  close(): Promise<void>;
}

/**
 * @example
 * const { transport, close } = createUndiciTransport(url);
 * const redis = createUpstashClient({ url, token, transport });
 */
export function createUndiciTransport(url: string): UndiciTransport {
  // Made by the first request: a URL the requester refuses (UrlError) is reported by it, at start.
  let pool: Pool | undefined;
  let origin = '';
  return {
    async transport({ url: target, headers, body, signal }) {
      if (pool === undefined) {
        origin = new URL(url).origin;
        pool = new Pool(origin);
      }
      if (!target.startsWith(origin)) throw new Error(`${target} is not on ${origin}`);
      const response = await pool.request({
        path: target.slice(origin.length) || '/',
        method: 'POST',
        headers,
        body,
        signal: signal ?? null,
      });
      const text = await response.body.text();
      const token = response.headers['upstash-sync-token'];
      return {
        status: response.statusCode,
        text,
        syncToken: Array.isArray(token) ? token[0] : token,
      };
    },
    close: async () => {
      await pool?.destroy();
    },
  };
}
