/**
 * The one error type of the queue, with stable string codes. Library code throws it; the HTTP
 * boundary maps each code to a status and the error envelope (see lib/api).
 */

export const QueueErrorCode = {
  /** Input failed validation (names, ids, counts, bodies). Nothing was changed. */
  invalidArgument: 'INVALID_ARGUMENT',
  queueNotFound: 'QUEUE_NOT_FOUND',
  groupNotFound: 'GROUP_NOT_FOUND',
  /** A message body (or attributes) over the per-message size limit. */
  messageTooLarge: 'MESSAGE_TOO_LARGE',
  /** The state does not allow the operation (for example a queue name reused for another type). */
  conflict: 'CONFLICT',
  /** Redis did not answer, or answered with a transport failure. Retryable. */
  redisUnavailable: 'REDIS_UNAVAILABLE',
  /** Redis answered with an error the queue did not expect. */
  redisError: 'REDIS_ERROR',
} as const;

export type QueueErrorCode = (typeof QueueErrorCode)[keyof typeof QueueErrorCode];

export class QueueError extends Error {
  override name = 'QueueError';

  constructor(
    readonly code: QueueErrorCode,
    message: string,
    readonly details?: unknown,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function isQueueError(error: unknown, code?: QueueErrorCode): error is QueueError {
  return error instanceof QueueError && (code === undefined || error.code === code);
}
