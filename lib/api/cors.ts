/**
 * CORS for browsers calling the API from other origins (CORS_ORIGINS): hono's `cors` middleware,
 * run only for a request whose Origin is listed (or for any origin with `*`), so an unlisted origin
 * gets no grant at all and a request without an Origin (servers, workers, curl) pays nothing.
 * Registered before the token check: a preflight carries no token. Bearer tokens, not cookies,
 * carry the credentials, so no Access-Control-Allow-Credentials.
 */
import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import type { ApiEnv } from './context.ts';
import { ANY_ORIGIN } from './settings.ts';

/** What the API's routes use; the dashboard and docs are GETs too. */
const ALLOW_METHODS = ['GET', 'HEAD', 'PUT', 'POST', 'DELETE'];
/** Exactly what the client sends: the token and the JSON body's type. */
const ALLOW_HEADERS = ['authorization', 'content-type'];
/** Headers a browser program may read: the request id to quote, the wait after a 503 or 429. */
const EXPOSE_HEADERS = ['x-request-id', 'retry-after'];
/** How long a browser may reuse a preflight's answer (seconds; Chromium caps it at 2 h). */
const MAX_AGE_SECONDS = 600;

/**
 * The middleware for `origins` (serialised origins, or `*`).
 * @example app.use('*', createCors(['https://app.example.com']))
 */
export function createCors(origins: readonly string[]): MiddlewareHandler<ApiEnv> {
  const any = origins.includes(ANY_ORIGIN);
  const listed = new Set(origins);
  const grant = cors({
    origin: any ? ANY_ORIGIN : [...listed],
    allowMethods: ALLOW_METHODS,
    allowHeaders: ALLOW_HEADERS,
    exposeHeaders: EXPOSE_HEADERS,
    maxAge: MAX_AGE_SECONDS,
  });
  return async (c, next) => {
    const origin = c.req.header('origin');
    if (origin === undefined) return next();
    if (any || listed.has(origin)) return grant(c, next);
    await next();
    // The answer depends on the Origin: a shared cache must not hand this one to a listed origin.
    if (!any) c.res.headers.append('vary', 'Origin');
  };
}
