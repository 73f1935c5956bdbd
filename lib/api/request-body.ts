/**
 * The request body's size limit and, where the entry point has already read the body, its text.
 * An entry point that reads bodies itself (Node, where the web Request and its stream cost more
 * than the rest of a small request) hands the result over as the binding `PRE_READ_BODY`; the app
 * then never touches the request's own body. Elsewhere the limit is checked from Content-Length
 * without opening the body, and a body without one is read with the limit applied as it streams.
 */
import type { MiddlewareHandler } from 'hono';
import type { ApiEnv } from './context.ts';
import { ApiError, ApiErrorCode } from './errors.ts';

/** A body the entry point read before the app ran: its text, or that it was over the limit. */
export type PreReadBody = { text: string } | { tooLarge: true };

/** The binding under which an entry point passes a PreReadBody. */
export const PRE_READ_BODY = Symbol.for('edge-stream-queue.pre-read-body');

function tooLarge(limit: number): ApiError {
  return new ApiError(ApiErrorCode.payloadTooLarge, `Request body over ${limit} bytes`, { limit });
}

/** hono keeps each body reading as a promise in bodyCache (its type says the value itself). */
function cacheText(c: Parameters<MiddlewareHandler<ApiEnv>>[0], text: string): void {
  (c.req.bodyCache as Record<string, unknown>).text = Promise.resolve(text);
}

/**
 * 413 for a body over `limit` bytes, before any route reads it; a body the entry point read is
 * handed to hono's cache. Synchronous unless the body has to be read here (no Content-Length).
 * @example await acceptBody(c, 1024 * 1024)
 */
export function acceptBody(
  c: Parameters<MiddlewareHandler<ApiEnv>>[0],
  limit: number,
): Promise<void> | undefined {
  const method = c.req.method;
  if (method === 'GET' || method === 'HEAD') return undefined;
  const preRead = (c.env as Record<symbol, PreReadBody | undefined> | undefined)?.[PRE_READ_BODY];
  if (preRead !== undefined) {
    if ('tooLarge' in preRead) throw tooLarge(limit);
    cacheText(c, preRead.text);
    return undefined;
  }
  const length = c.req.header('content-length');
  if (length !== undefined && c.req.header('transfer-encoding') === undefined) {
    if (Number(length) > limit) throw tooLarge(limit);
    return undefined;
  }
  const stream = c.req.raw.body;
  if (stream === null) return undefined;
  return readLimited(c, stream, limit);
}

async function readLimited(
  c: Parameters<MiddlewareHandler<ApiEnv>>[0],
  stream: ReadableStream<Uint8Array>,
  limit: number,
): Promise<void> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel();
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.length;
  }
  cacheText(c, new TextDecoder().decode(body));
}
