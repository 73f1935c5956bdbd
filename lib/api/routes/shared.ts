/**
 * Pieces every route definition uses: the documented error responses (each operation lists
 * exactly the statuses it can answer, with their headers), JSON content helpers, the bearer
 * security requirement and the per-route scope check.
 */

import type { Context, MiddlewareHandler, TypedResponse } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { JSONParsed, JSONValue } from 'hono/utils/types';
import type { ZodType } from 'zod';
import type { Scope } from '../auth.ts';
import type { ApiEnv } from '../context.ts';
import { asRouteStep, checkScope, emptyBodyAsEmptyObject } from '../fused-routes.ts';
import { ErrorEnvelopeSchema } from '../schemas.ts';
import { keepBodyText } from '../undelivered.ts';

/** Every answer carries the request id (the client's `X-Request-Id` when sane, else a new one). */
const requestIdHeader = {
  'X-Request-Id': {
    description: 'The request id: the one sent, when 1-64 characters of A-Z a-z 0-9 . _ -, else a new UUID',
    schema: { type: 'string' as const },
  },
};

/**
 * Marks a response `json` built (it carries the request id already). A property rather than a
 * WeakSet: adding each answer to a WeakSet (an ephemeron the young-generation GC has to visit)
 * cost ~0.5 us per answer more in a microbenchmark of 2 million short-lived objects.
 */
const carriesId: unique symbol = Symbol('carries x-request-id');
type Marked = Response & { [carriesId]?: true };

/**
 * A JSON answer with the request id, its headers a plain object: the Node adapter writes such an
 * answer straight out, where `c.json` after `c.header` builds a `Headers` and copies it (a third of
 * a small request's CPU in the Node server, measured with --cpu-prof).
 * @example return json(c, { acked: 3 }, 200);
 */
export function json<T extends JSONValue | object, S extends ContentfulStatusCode>(
  c: Context<ApiEnv>,
  body: T,
  status: S,
  extraHeaders?: Record<string, string>,
): Response & TypedResponse<JSONParsed<T>, S, 'json'> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-request-id': c.get('requestId'),
  };
  if (extraHeaders !== undefined) Object.assign(headers, extraHeaders);
  const text = JSON.stringify(body);
  const response: Marked = new Response(text, { status, headers });
  response[carriesId] = true;
  keepBodyText(response, text);
  // The same object hono's c.json returns, built without its Headers copy.
  return response as Response & TypedResponse<JSONParsed<T>, S, 'json'>;
}

/** Whether `response` was built by `json` and so already carries the request id. */
export function carriesRequestId(response: Response): boolean {
  return (response as Marked)[carriesId] === true;
}

export function jsonContent<T extends ZodType>(schema: T, description: string) {
  return { description, headers: requestIdHeader, content: { 'application/json': { schema } } } as const;
}

export function jsonBody<T extends ZodType>(schema: T) {
  return {
    required: true,
    description: 'JSON (`Content-Type: application/json`, optionally with a charset); anything else is 415',
    content: { 'application/json': { schema } },
  } as const;
}

export type ErrorStatus = 400 | 401 | 403 | 404 | 408 | 409 | 413 | 415 | 500 | 503;

const errorDescriptions: Record<ErrorStatus, string> = {
  400: 'Validation failed (path, query or body); `details.issues` lists what and where',
  401: 'No bearer token, or an unknown one',
  403: 'The token lacks the scope this route needs',
  404: 'Unknown queue (`QUEUE_NOT_FOUND`), group (`GROUP_NOT_FOUND`; `details.hint` says how to create it) or message (`MESSAGE_NOT_FOUND`)',
  408: 'The request body did not arrive within BODY_TIMEOUT_MS (`REQUEST_TIMEOUT`); the connection is closed',
  409: 'A key of the queue holds a value of another type (`CONFLICT`), written by something other than this queue',
  413: 'The request body is over MAX_REQUEST_BYTES (`PAYLOAD_TOO_LARGE`), or a message over MAX_MESSAGE_BYTES (`MESSAGE_TOO_LARGE`)',
  415: 'The body is not sent as application/json (`UNSUPPORTED_MEDIA_TYPE`)',
  500: 'Redis refused the service credentials (`REDIS_AUTH_FAILED`, a configuration error; do not retry), or an internal error (`INTERNAL`, `REDIS_ERROR`)',
  503: 'Redis did not answer in time, or the request ran out of its budget (`REDIS_UNAVAILABLE`); retry after `Retry-After` seconds. A write may still have been applied',
};

function errorResponse(status: ErrorStatus) {
  const headers: Record<string, { description: string; schema: { type: 'string' | 'integer' } }> = {
    ...requestIdHeader,
  };
  if (status === 401)
    headers['WWW-Authenticate'] = { description: 'Always `Bearer`', schema: { type: 'string' } };
  if (status === 503)
    headers['Retry-After'] = { description: 'Seconds to wait before retrying', schema: { type: 'integer' } };
  return {
    description: errorDescriptions[status],
    headers,
    content: { 'application/json': { schema: ErrorEnvelopeSchema } },
  };
}

/** The documented error answers of one operation, exactly the statuses it can give. */
export function errorResponses(...statuses: ErrorStatus[]): Record<string, ReturnType<typeof errorResponse>> {
  return Object.fromEntries(
    [...new Set(statuses)].sort().map((status) => [String(status), errorResponse(status)]),
  );
}

/** What every authenticated route can answer: no or a wrong token, a missing scope, Redis. */
export const AUTHENTICATED: readonly ErrorStatus[] = [401, 403, 409, 500, 503];
/** And a route that takes path parameters or a query (400), with a JSON body (413, 415). */
export const WITH_INPUT: readonly ErrorStatus[] = [...AUTHENTICATED, 400];
export const WITH_BODY: readonly ErrorStatus[] = [...WITH_INPUT, 408, 413, 415];

export const bearerSecurity = [{ bearerAuth: [] }];

/**
 * Route middleware: 403 unless the authenticated token holds `scope` (or admin). A route of the
 * app runs it inline (lib/api/fused-routes.ts).
 */
export function requireScope(scope: Scope): MiddlewareHandler<ApiEnv> {
  return asRouteStep(
    async (c, next) => {
      checkScope(c, scope);
      await next();
    },
    { kind: 'scope', scope },
  );
}

/**
 * Route middleware for an optional JSON body: an empty body (even sent with a JSON content type)
 * is the empty object, as for a bare POST with no content type.
 */
export const emptyBodyIsEmptyObject: MiddlewareHandler<ApiEnv> = asRouteStep(
  async (c, next) => {
    emptyBodyAsEmptyObject(c, await c.req.text());
    await next();
  },
  { kind: 'empty-body-is-empty-object' },
);

/** Drops keys whose value is undefined: zod's optional output vs `exactOptionalPropertyTypes`. */
export function compact<T extends object>(value: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}
