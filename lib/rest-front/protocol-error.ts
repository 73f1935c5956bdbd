/**
 * A request the REST front refuses before any command runs (bad token, bad body, wrong method).
 * Handlers throw it; the app's single `onError` turns it into `{"error": message}` with `status`.
 */
export class ProtocolError extends Error {
  override name = 'ProtocolError';
  constructor(
    readonly status: 400 | 401 | 404 | 405 | 413,
    message: string,
  ) {
    super(message);
  }
}
