/**
 * The one error the client throws, `QueueApiError`: the API's own code, status, message and
 * details when the service answered, a client code when it did not (network, timeout, abort), and
 * the three facts a caller decides on — whether another attempt may succeed (`transient`),
 * whether the call may already have taken effect (`mayHaveBeenApplied`), and whether it is safe to
 * try again (`retryable`, both together with the call's own safety).
 */
import type { ErrorCode } from '../api/errors.ts';
import { CodedError } from '../errors.ts';

/** Codes of failures where no API answer came (or none the client could read). */
export const ClientErrorCode = {
  /** The request or its answer was lost on the way: connection refused or reset, DNS, TLS. */
  network: 'NETWORK_ERROR',
  /** No answer within the call's timeout. */
  timeout: 'TIMEOUT',
  /** The caller's signal aborted the call. */
  aborted: 'ABORTED',
  /** A success status whose body is not the API's JSON. */
  invalidResponse: 'INVALID_RESPONSE',
  /** A failure status without the API's error envelope (a proxy or load balancer answered). */
  http: 'HTTP_ERROR',
} as const;

export type ClientErrorCode = (typeof ClientErrorCode)[keyof typeof ClientErrorCode];

/** Every code this client knows; a newer service may send others, so any string is accepted. */
export type QueueApiErrorCode = ErrorCode | ClientErrorCode | (string & {});

export interface QueueApiErrorInit {
  code: QueueApiErrorCode;
  message: string;
  /** The HTTP status; 0 when no answer came. */
  status: number;
  details?: unknown;
  retryAfterMs?: number;
  transient: boolean;
  mayHaveBeenApplied: boolean;
  retryable: boolean;
  attempts: number;
  method: string;
  path: string;
  cause?: unknown;
}

/**
 * A failed call. `retryable` says whether the same call may be sent again as it is: the failure
 * is transient (network, timeout, 429, 502-504) and either the call is safe to repeat or it
 * certainly was not applied. When `retryable` is true the client has already tried `attempts`
 * times within its retry policy.
 * @example
 * try { await q.produce([{ body }]); }
 * catch (error) {
 *   if (error instanceof QueueApiError && error.mayHaveBeenApplied) console.warn('maybe produced');
 * }
 */
export class QueueApiError extends CodedError<QueueApiErrorCode> {
  override name = 'QueueApiError';
  readonly status: number;
  readonly retryAfterMs: number | undefined;
  readonly transient: boolean;
  readonly mayHaveBeenApplied: boolean;
  readonly retryable: boolean;
  readonly attempts: number;
  readonly method: string;
  readonly path: string;

  constructor(init: QueueApiErrorInit) {
    super(init.code, init.message, init.details, init.cause === undefined ? {} : { cause: init.cause });
    this.status = init.status;
    this.retryAfterMs = init.retryAfterMs;
    this.transient = init.transient;
    this.mayHaveBeenApplied = init.mayHaveBeenApplied;
    this.retryable = init.retryable;
    this.attempts = init.attempts;
    this.method = init.method;
    this.path = init.path;
  }
}

/** True for an error answer whose code is `code` (e.g. QUEUE_NOT_FOUND). */
export function isApiError(error: unknown, code?: QueueApiErrorCode): error is QueueApiError {
  return error instanceof QueueApiError && (code === undefined || error.code === code);
}

/** Statuses after which another attempt may succeed: rate limited, or the service or a gateway down. */
export function isTransientStatus(status: number): boolean {
  return status === 429 || status === 502 || status === 503 || status === 504;
}

/**
 * Whether an answer with this status and code may mean the call took effect. Anything refused
 * with a 4xx was not applied; a 5xx may have been (the service's 503 says so), except the
 * service's own refusal to reach Redis at all.
 */
export function statusMayHaveApplied(status: number, code: string): boolean {
  return status >= 500 && code !== 'REDIS_AUTH_FAILED';
}

/**
 * The wait a `Retry-After` header asks for, in ms: delta-seconds or an HTTP date; undefined when
 * absent or unreadable.
 */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
