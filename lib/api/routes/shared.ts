/**
 * Pieces every route definition uses: the documented error responses, JSON content helpers, the
 * bearer security requirement and the per-route scope check.
 */

import type { MiddlewareHandler } from 'hono';
import type { ZodType } from 'zod';
import { allows, type Scope } from '../auth.ts';
import type { ApiEnv } from '../context.ts';
import { ApiError, ApiErrorCode } from '../errors.ts';
import { ErrorEnvelopeSchema } from '../schemas.ts';

export function jsonContent<T extends ZodType>(schema: T, description: string) {
  return { description, content: { 'application/json': { schema } } } as const;
}

export function jsonBody<T extends ZodType>(schema: T) {
  return { required: true, content: { 'application/json': { schema } } } as const;
}

const errorResponse = (description: string) => jsonContent(ErrorEnvelopeSchema, description);

/** The failures any authenticated route may answer with, all in the one envelope. */
export const errorResponses = {
  400: errorResponse('Validation failed; `details.issues` lists what and where'),
  401: errorResponse('No bearer token, or an unknown one'),
  403: errorResponse('The token lacks the scope this route needs'),
  404: errorResponse('Unknown queue or group; `details.hint` says how to create it'),
  409: errorResponse('The state does not allow the operation'),
  413: errorResponse('Request or message over the size limit'),
  503: errorResponse('Redis did not answer; retry after `Retry-After` seconds'),
} as const;

export const bearerSecurity = [{ bearerAuth: [] }];

/** Route middleware: 403 unless the authenticated token holds `scope` (or admin). */
export function requireScope(scope: Scope): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    if (!allows(c.get('scopes'), scope)) {
      throw new ApiError(ApiErrorCode.forbidden, `This route needs a token with the "${scope}" scope`, {
        required: scope,
      });
    }
    await next();
  };
}

/**
 * Route middleware for an optional JSON body: an empty body (even sent with a JSON content type)
 * is the empty object, as for a bare POST with no content type.
 */
export const emptyBodyIsEmptyObject: MiddlewareHandler<ApiEnv> = async (c, next) => {
  const text = await c.req.text();
  // hono caches each body reading as a promise (its type says string); json() parses this one.
  if (text.trim() === '') (c.req.bodyCache as Record<string, unknown>).text = Promise.resolve('{}');
  await next();
};

/** Drops keys whose value is undefined: zod's optional output vs `exactOptionalPropertyTypes`. */
export function compact<T extends object>(value: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}
