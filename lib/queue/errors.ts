/**
 * The queue's error type, with stable string codes. Library code throws it; the HTTP boundary
 * maps each code to a status and the error envelope (see lib/api/errors.ts).
 */
import { CodedError } from '../errors.ts';

export const QueueErrorCode = {
  /** Input failed validation (names, ids, counts, bodies). Nothing was changed. */
  invalidArgument: 'INVALID_ARGUMENT',
  queueNotFound: 'QUEUE_NOT_FOUND',
  groupNotFound: 'GROUP_NOT_FOUND',
  /** A message lookup found no such message (never produced, or acked and trimmed). */
  messageNotFound: 'MESSAGE_NOT_FOUND',
  /** No recurring schedule of that name on the queue. */
  scheduleNotFound: 'SCHEDULE_NOT_FOUND',
  /** No message move task has that handle, or it is no longer active (cancelMove). */
  moveTaskNotFound: 'MOVE_TASK_NOT_FOUND',
  /** A message body (or attributes) over the per-message size limit. */
  messageTooLarge: 'MESSAGE_TOO_LARGE',
  /** The state does not allow the operation (for example a queue name reused for another type). */
  conflict: 'CONFLICT',
  /**
   * Redis did not answer (in time), or the connection failed. Retryable; a write that timed out
   * may have been applied (retry a produce with its dedupId).
   */
  redisUnavailable: 'REDIS_UNAVAILABLE',
  /** Redis refused the service's credentials: a configuration error no retry can fix. */
  redisAuthFailed: 'REDIS_AUTH_FAILED',
  /** Redis answered with an error the queue did not expect. */
  redisError: 'REDIS_ERROR',
} as const;

export type QueueErrorCode = (typeof QueueErrorCode)[keyof typeof QueueErrorCode];

export class QueueError extends CodedError<QueueErrorCode> {
  override name = 'QueueError';
}

const codes = new Set<string>(Object.values(QueueErrorCode));

/** True for a status a script may answer instead of 'ok' (see lib/queue/script-runner.ts). */
export function isQueueErrorCode(value: unknown): value is QueueErrorCode {
  return typeof value === 'string' && codes.has(value);
}

export function isQueueError(error: unknown, code?: QueueErrorCode): error is QueueError {
  return error instanceof QueueError && (code === undefined || error.code === code);
}
