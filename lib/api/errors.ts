/**
 * The HTTP boundary's errors: the one envelope every failure is answered with, the API's own
 * error type, and the single table that maps every code (the queue's and the API's) to a status.
 */
import { CodedError } from '../errors.ts';
import { QueueErrorCode } from '../queue/errors.ts';

/** Codes the HTTP layer adds to the queue's own (auth, routing, body limits, the unexpected). */
export const ApiErrorCode = {
  unauthorized: 'UNAUTHORIZED',
  forbidden: 'FORBIDDEN',
  notFound: 'NOT_FOUND',
  methodNotAllowed: 'METHOD_NOT_ALLOWED',
  payloadTooLarge: 'PAYLOAD_TOO_LARGE',
  unsupportedMediaType: 'UNSUPPORTED_MEDIA_TYPE',
  /** The request body did not arrive within BODY_TIMEOUT_MS. */
  requestTimeout: 'REQUEST_TIMEOUT',
  internal: 'INTERNAL',
} as const;

export type ApiErrorCode = (typeof ApiErrorCode)[keyof typeof ApiErrorCode];

/** Every code a client can see in `error.code`. */
export type ErrorCode = ApiErrorCode | QueueErrorCode;

/** The one place a code becomes an HTTP status. */
export const statusByCode: Record<
  ErrorCode,
  400 | 401 | 403 | 404 | 405 | 408 | 409 | 413 | 415 | 500 | 503
> = {
  [QueueErrorCode.invalidArgument]: 400,
  [QueueErrorCode.queueNotFound]: 404,
  [QueueErrorCode.groupNotFound]: 404,
  [QueueErrorCode.messageNotFound]: 404,
  [QueueErrorCode.scheduleNotFound]: 404,
  [QueueErrorCode.moveTaskNotFound]: 404,
  [QueueErrorCode.messageTooLarge]: 413,
  [QueueErrorCode.conflict]: 409,
  [QueueErrorCode.redisUnavailable]: 503,
  // The service is misconfigured: not the client's fault, and not worth retrying.
  [QueueErrorCode.redisAuthFailed]: 500,
  // Redis refused something the queue sent: our fault, not the client's.
  [QueueErrorCode.redisError]: 500,
  [ApiErrorCode.unauthorized]: 401,
  [ApiErrorCode.forbidden]: 403,
  [ApiErrorCode.notFound]: 404,
  [ApiErrorCode.methodNotAllowed]: 405,
  [ApiErrorCode.payloadTooLarge]: 413,
  [ApiErrorCode.unsupportedMediaType]: 415,
  [ApiErrorCode.requestTimeout]: 408,
  [ApiErrorCode.internal]: 500,
};

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(statusByCode, code);
}

/** Thrown by middleware and handlers for failures that are the HTTP layer's own. */
export class ApiError extends CodedError<ErrorCode> {
  override name = 'ApiError';
}

/** The body of every error response. */
export interface ErrorEnvelope {
  error: { code: ErrorCode; message: string; details?: unknown };
}

export function envelope(code: ErrorCode, message: string, details?: unknown): ErrorEnvelope {
  return { error: details === undefined ? { code, message } : { code, message, details } };
}
