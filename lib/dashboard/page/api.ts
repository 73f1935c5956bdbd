/**
 * The page's calls to the JSON API: plain fetch with the bearer token, relative to wherever the
 * page is served (so a service mounted under a path prefix works too). Every failure becomes an
 * `ApiFailure` with the envelope's code and message, or NETWORK / TIMEOUT when no answer came.
 */

export class ApiFailure extends Error {
  override readonly name = 'ApiFailure';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }

  /** `details.hint` of a 404, which says how to create what is missing. */
  get hint(): string | undefined {
    const details = this.details;
    if (typeof details !== 'object' || details === null || !('hint' in details)) return undefined;
    return typeof details.hint === 'string' ? details.hint : undefined;
  }
}

export interface Api {
  get<T>(path: string): Promise<T>;
  send<T>(method: 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T>;
}

const timeoutMs = 15_000;

/** A path segment (queue, group or id) for a URL. */
export function segment(value: string): string {
  return encodeURIComponent(value);
}

function isEnvelope(
  value: unknown,
): value is { error: { code: string; message: string; details?: unknown } } {
  if (typeof value !== 'object' || value === null || !('error' in value)) return false;
  const error = value.error;
  return (
    typeof error === 'object' &&
    error !== null &&
    'code' in error &&
    typeof error.code === 'string' &&
    'message' in error &&
    typeof error.message === 'string'
  );
}

async function call<T>(base: URL, token: string | undefined, method: string, path: string, body?: unknown) {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(new URL(path.replace(/^\//, ''), base), {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(timeoutMs),
      cache: 'no-store',
      credentials: 'omit',
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'TimeoutError') {
      throw new ApiFailure(0, 'TIMEOUT', `The service did not answer within ${timeoutMs / 1000} s`);
    }
    throw new ApiFailure(0, 'NETWORK', 'The service could not be reached');
  }
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (response.ok) return parsed as T;
  if (isEnvelope(parsed)) {
    throw new ApiFailure(response.status, parsed.error.code, parsed.error.message, parsed.error.details);
  }
  throw new ApiFailure(response.status, `HTTP_${response.status}`, response.statusText || 'Request failed');
}

/**
 * The API at `base` with `token`.
 * @example const api = createApi(new URL('./', location.href), token); await api.get('/v1/queues')
 */
export function createApi(base: URL, token: string): Api {
  return {
    get: (path) => call(base, token, 'GET', path),
    send: (method, path, body) => call(base, token, method, path, body),
  };
}

/** A call without a token (the OpenAPI document, which needs none). */
export function getPublic<T>(base: URL, path: string): Promise<T> {
  return call<T>(base, undefined, 'GET', path);
}

/** What to tell a person about a failure: what happened, the code, and what to do. */
export function describeFailure(error: unknown): string {
  if (!(error instanceof ApiFailure)) {
    return `Something went wrong in the page: ${error instanceof Error ? error.message : String(error)}`;
  }
  const tag = error.status === 0 ? error.code : `${error.status} ${error.code}`;
  switch (error.status) {
    case 0:
      return `${error.message} (${tag}). Check that the service is running; the dashboard keeps trying.`;
    case 401:
      return `The service does not accept this token (${tag}: ${error.message}). Check it for typos, or use one of the service's API_TOKENS (npm start prints a development token).`;
    case 403:
      return `This token may not do that (${tag}: ${error.message}).`;
    case 503:
      return `Redis did not answer in time (${tag}). The dashboard keeps trying.`;
    default:
      return `${error.message} (${tag})${error.hint === undefined ? '' : `. ${error.hint}`}`;
  }
}
