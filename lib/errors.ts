/**
 * The base of every error the project throws on purpose: a stable string `code` from an `as const`
 * table, a message for people, optional `details` for programs, and the `cause` kept. The queue's
 * `QueueError` and the HTTP layer's `ApiError` extend it; the HTTP boundary turns any of them into
 * a status and the error envelope in one place (lib/api/errors.ts).
 */
export class CodedError<C extends string = string> extends Error {
  override name = 'CodedError';

  constructor(
    readonly code: C,
    message: string,
    readonly details?: unknown,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
