/**
 * The page's calls to the JSON API, through the client's own transport (lib/client/transport.ts):
 * the bearer token, JSON in and out, a time limit, and the error envelope read into the client's
 * one error type, `QueueApiError` (here `ApiFailure`), so the page and the client read answers
 * alike. Calls go relative to wherever the page is served (a service mounted under a path prefix
 * works too), uncached and without cookies. No retries: the live view tries again on its next
 * tick, and a person clicking a button wants the answer now.
 */
import { ClientErrorCode, QueueApiError } from '../../client/errors.ts';
import { NO_RETRY } from '../../client/retry.ts';
import { type CallSpec, createTransport, type Transport } from '../../client/transport.ts';

/** A failed call: the API's code, status, message and details, or a client code with status 0. */
export { QueueApiError as ApiFailure };

export interface Api {
  get<T>(path: string): Promise<T>;
  send<T>(method: 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T>;
}

const timeoutMs = 15_000;

/** A path segment (queue, group or id) for a URL. */
export function segment(value: string): string {
  return encodeURIComponent(value);
}

function transportFor(base: URL, token: string | undefined): Transport {
  return createTransport({
    url: base.href,
    ...(token === undefined ? {} : { token }),
    fetch: (input, init) => fetch(input, { ...init, cache: 'no-store', credentials: 'omit' }),
    timeoutMs,
    retry: NO_RETRY,
  });
}

function call<T>(transport: Transport, method: CallSpec['method'], path: string, body?: unknown): Promise<T> {
  return transport.call<T>({
    method,
    path,
    ...(body === undefined ? {} : { body }),
    safe: method === 'GET',
  });
}

/**
 * The API at `base` with `token`.
 * @example const api = createApi(new URL('./', location.href), token); await api.get('/v1/queues')
 */
export function createApi(base: URL, token: string): Api {
  const transport = transportFor(base, token);
  return {
    get: (path) => call(transport, 'GET', path),
    send: (method, path, body) => call(transport, method, path, body),
  };
}

/** A call without a token (the OpenAPI document, which needs none). */
export function getPublic<T>(base: URL, path: string): Promise<T> {
  return call<T>(transportFor(base, undefined), 'GET', path);
}

/** A failure the page finds itself (a form field), shown as the API would show it. */
export function pageFailure(status: number, code: string, message: string, details?: unknown): QueueApiError {
  return new QueueApiError({
    code,
    message,
    status,
    ...(details === undefined ? {} : { details }),
    transient: false,
    mayHaveBeenApplied: false,
    retryable: false,
    attempts: 0,
    method: 'GET',
    path: '',
  });
}

/** `details.hint` of a 404, which says how to create what is missing. */
function hintOf(error: QueueApiError): string | undefined {
  const details = error.details;
  if (typeof details !== 'object' || details === null || !('hint' in details)) return undefined;
  return typeof details.hint === 'string' ? details.hint : undefined;
}

/** What to tell a person about a failure: what happened, the code, and what to do. */
export function describeFailure(error: unknown): string {
  if (!(error instanceof QueueApiError)) {
    return `Something went wrong in the page: ${error instanceof Error ? error.message : String(error)}`;
  }
  const tag = error.status === 0 ? error.code : `${error.status} ${error.code}`;
  switch (error.status) {
    case 0: {
      const what =
        error.code === ClientErrorCode.timeout
          ? `The service did not answer within ${timeoutMs / 1000} s`
          : 'The service could not be reached';
      return `${what} (${tag}). Check that the service is running; the dashboard keeps trying.`;
    }
    case 401:
      return `The service does not accept this token (${tag}: ${error.message}). Check it for typos, or use one of the service's API_TOKENS (npm start prints a development token).`;
    case 403:
      return `This token may not do that (${tag}: ${error.message}).`;
    case 503:
      return `Redis did not answer in time (${tag}). The dashboard keeps trying.`;
    default: {
      const hint = hintOf(error);
      return `${error.message} (${tag})${hint === undefined ? '' : `. ${hint}`}`;
    }
  }
}
