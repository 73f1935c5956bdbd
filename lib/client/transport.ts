/**
 * One HTTP call to the API, with everything around it: the bearer token, JSON in and out, a
 * timeout per attempt, the caller's AbortSignal, the error envelope turned into a QueueApiError,
 * and retries for failures a repeat can fix when the call is safe to repeat. Web standards only
 * (fetch, AbortController, setTimeout).
 */
import {
  ClientErrorCode,
  isTransientStatus,
  parseRetryAfter,
  QueueApiError,
  statusMayHaveApplied,
} from './errors.ts';
import { type RetryPolicy, withRetry } from './retry.ts';

/**
 * What the client reads of an answer: a fetch Response has it all, and a transport of its own
 * (functions/support/node-fetch.ts on Node) needs nothing more.
 */
export interface FetchResponse {
  readonly ok: boolean;
  readonly status: number;
  readonly statusText: string;
  readonly headers: { get(name: string): string | null };
  text(): Promise<string>;
}

/**
 * The fetch the client calls: the global one by default, or a service binding's, a test's, or one
 * that answers with the fields of a Response the client reads (FetchResponse). The client passes
 * `method`, plain-record `headers`, a string `body` and a `signal` in `init`.
 */
export type FetchLike = (input: string, init: RequestInit) => Promise<FetchResponse>;

export interface TransportOptions {
  /** The API's base URL, e.g. https://queue.example.com (a path prefix is kept). */
  url: string;
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  fetch?: FetchLike;
  /** Each attempt's time limit in ms; a long poll adds its own wait. */
  timeoutMs: number;
  retry: RetryPolicy;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /** Told before each retry's wait (logging, metrics). */
  onRetry?: (error: QueueApiError, retry: number, waitMs: number) => void;
  /** Asked before each retry the policy allows; false ends the call with that error. */
  shouldRetry?: (error: QueueApiError) => boolean;
}

export interface CallSpec {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The path under the base URL, segments already encoded. */
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /**
   * Whether sending the call twice does no harm (reads, consume, ack, nack, extend, idempotent
   * PUTs, produce with a dedupId on every message). An unsafe call is retried only when it
   * certainly was not applied (429).
   */
  safe: boolean;
  /** Said in the error when an unsafe call failed in a way that may have applied it. */
  unsafeHint?: string;
  /** Added to the attempt timeout: the time the server is asked to wait (a consume's waitMs). */
  serverWaitMs?: number;
  /**
   * Aborts the call while no answer has started to arrive. Once the status line is in, the body
   * is read to the end: a consume's messages are then the caller's to give back, not lost in
   * transit.
   */
  signal?: AbortSignal;
}

export interface Transport {
  call<T>(spec: CallSpec): Promise<T>;
}

function joinUrl(base: string, path: string, query: CallSpec['query']): string {
  let url = `${base.replace(/\/+$/, '')}${path}`;
  if (query !== undefined) {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
    const text = params.toString();
    if (text !== '') url += `?${text}`;
  }
  return url;
}

const REFUSED_CODES = new Set(['ECONNREFUSED', 'ConnectionRefused']);
const NO_HOST_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME']);

/**
 * Why a fetch failed before it sent anything, when the error says so: the connection was refused,
 * the host name did not resolve, or fetch refused the port itself. Node puts the system error's code on `cause` (an
 * AggregateError's errors for several addresses), Bun on the error, Deno only in the message;
 * a browser says nothing ("Failed to fetch"), so there it stays a failure that may have applied.
 */
export function unsentReason(error: unknown): string | undefined {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  while (queue.length > 0) {
    const current = queue.shift();
    if (typeof current !== 'object' || current === null || seen.has(current)) continue;
    seen.add(current);
    const { code, message, cause, errors } = current as {
      code?: unknown;
      message?: unknown;
      cause?: unknown;
      errors?: unknown;
    };
    const text = typeof message === 'string' ? message : '';
    if ((typeof code === 'string' && REFUSED_CODES.has(code)) || /connection refused/i.test(text)) {
      return 'connection refused';
    }
    if ((typeof code === 'string' && NO_HOST_CODES.has(code)) || /failed to lookup address/i.test(text)) {
      return 'host name did not resolve';
    }
    // The Fetch standard's "bad port" (1, 25, 6000, …): refused before connecting.
    if (text === 'bad port') return 'fetch refuses this port (bad port)';
    queue.push(cause);
    if (Array.isArray(errors)) queue.push(...errors);
  }
  return undefined;
}

interface Envelope {
  error: { code: string; message: string; details?: unknown };
}

function readEnvelope(text: string): Envelope | undefined {
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed !== 'object' || parsed === null || !('error' in parsed)) return undefined;
    const error = (parsed as { error: unknown }).error;
    if (typeof error !== 'object' || error === null) return undefined;
    const { code, message } = error as { code?: unknown; message?: unknown };
    if (typeof code !== 'string' || typeof message !== 'string') return undefined;
    return parsed as Envelope;
  } catch {
    return undefined;
  }
}

/**
 * @example
 * const transport = createTransport({ url, token, timeoutMs: 15_000, retry: DEFAULT_RETRY });
 * const stats = await transport.call({ method: 'GET', path: '/v1/queues/orders', safe: true });
 */
export function createTransport(options: TransportOptions): Transport {
  // Called as a plain function: workerd refuses a fetch detached from its global ("Illegal invocation").
  const fetchFn: FetchLike = options.fetch ?? ((input, init) => fetch(input, init));
  const baseHeaders: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (options.token !== undefined) baseHeaders.authorization = `Bearer ${options.token}`;

  async function attempt<T>(spec: CallSpec, n: number): Promise<T> {
    const fail = (init: {
      code: string;
      message: string;
      status: number;
      details?: unknown;
      retryAfterMs?: number;
      transient: boolean;
      mayHaveBeenApplied: boolean;
      cause?: unknown;
    }): QueueApiError => {
      const retryable = init.transient && (spec.safe || !init.mayHaveBeenApplied);
      const note =
        init.transient && init.mayHaveBeenApplied && !spec.safe
          ? ` (not retried: it may have been applied${spec.unsafeHint === undefined ? '' : `; ${spec.unsafeHint}`})`
          : '';
      return new QueueApiError({
        ...init,
        message: `${init.message}${note}`,
        retryable,
        attempts: n,
        method: spec.method,
        path: spec.path,
      });
    };

    if (spec.signal?.aborted === true) {
      throw fail({
        code: ClientErrorCode.aborted,
        message: `${spec.method} ${spec.path} aborted before it was sent`,
        status: 0,
        transient: false,
        mayHaveBeenApplied: false,
        cause: spec.signal.reason,
      });
    }
    const controller = new AbortController();
    const limitMs = options.timeoutMs + (spec.serverWaitMs ?? 0);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, limitMs);
    const callerAborted = () => controller.abort();
    spec.signal?.addEventListener('abort', callerAborted, { once: true });
    const headers: Record<string, string> = { ...baseHeaders };
    if (spec.body !== undefined) headers['content-type'] = 'application/json';

    let response: FetchResponse;
    let text: string;
    try {
      try {
        response = await fetchFn(joinUrl(options.url, spec.path, spec.query), {
          method: spec.method,
          headers,
          ...(spec.body === undefined ? {} : { body: JSON.stringify(spec.body) }),
          signal: controller.signal,
        });
      } finally {
        spec.signal?.removeEventListener('abort', callerAborted);
      }
      text = await response.text();
    } catch (error) {
      const sent = `${spec.method} ${spec.path}`;
      if (timedOut) {
        throw fail({
          code: ClientErrorCode.timeout,
          message: `${sent}: no answer within ${limitMs} ms`,
          status: 0,
          transient: true,
          mayHaveBeenApplied: true,
          cause: error,
        });
      }
      if (controller.signal.aborted) {
        throw fail({
          code: ClientErrorCode.aborted,
          message: `${sent} aborted`,
          status: 0,
          transient: false,
          mayHaveBeenApplied: true,
          cause: spec.signal?.reason ?? error,
        });
      }
      const unsent = unsentReason(error);
      if (unsent !== undefined) {
        // Nothing reached the service: safe to report as not applied, and to send again.
        throw fail({
          code: ClientErrorCode.network,
          message: `${sent} failed: ${unsent} at ${new URL(options.url).host} (nothing was sent)`,
          status: 0,
          transient: true,
          mayHaveBeenApplied: false,
          cause: error,
        });
      }
      const reason = error instanceof Error ? error.message : String(error);
      throw fail({
        code: ClientErrorCode.network,
        message: `${sent} failed: ${reason}`,
        status: 0,
        transient: true,
        mayHaveBeenApplied: true,
        cause: error,
      });
    } finally {
      clearTimeout(timer);
    }

    if (response.ok) {
      if (text === '') return undefined as T;
      try {
        return JSON.parse(text) as T;
      } catch (error) {
        throw fail({
          code: ClientErrorCode.invalidResponse,
          message: `${spec.method} ${spec.path}: status ${response.status} with a body that is not JSON`,
          status: response.status,
          transient: false,
          mayHaveBeenApplied: true,
          cause: error,
        });
      }
    }
    const envelope = readEnvelope(text);
    const code = envelope?.error.code ?? ClientErrorCode.http;
    const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), Date.now());
    throw fail({
      code,
      message:
        envelope?.error.message ??
        `${spec.method} ${spec.path}: status ${response.status}${response.statusText === '' ? '' : ` ${response.statusText}`}`,
      status: response.status,
      ...(envelope?.error.details === undefined ? {} : { details: envelope.error.details }),
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      transient: isTransientStatus(response.status),
      mayHaveBeenApplied: statusMayHaveApplied(response.status, code),
    });
  }

  return {
    call<T>(spec: CallSpec): Promise<T> {
      return withRetry((n) => attempt<T>(spec, n), {
        policy: options.retry,
        ...(spec.signal === undefined ? {} : { signal: spec.signal }),
        ...(options.onRetry === undefined ? {} : { onRetry: options.onRetry }),
        ...(options.shouldRetry === undefined ? {} : { shouldRetry: options.shouldRetry }),
      });
    },
  };
}
