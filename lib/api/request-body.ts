/**
 * Reading a request's body, always after the token was checked (app.ts calls this from the /v1
 * middleware, after authentication): an anonymous client never makes the service hold its body.
 * The body is read whole here, within the size limit (413) and within BODY_TIMEOUT_MS (408), and
 * handed to hono's cache, so the routes' validators never touch the stream.
 *
 * An entry point that reads bodies itself (Node, where the web Request and its stream cost more
 * than the rest of a small request) passes a `BodyReader` as the binding `BODY_READER`; the app
 * calls it at this point and never touches the request's own body. Elsewhere (Workers, Deno) the
 * web stream is read here.
 */
import type { MiddlewareHandler } from 'hono';
import { utf8Length } from '../queue/validate.ts';
import type { ApiEnv } from './context.ts';
import { ApiError, ApiErrorCode } from './errors.ts';
import { LATE, lateOnBudget, type RequestBudget } from './request-budget.ts';

type TimeBound = { late: Promise<typeof LATE>; cancel: () => void };

/** A body an entry point read: its text, or that it was over the limit, or did not come in time. */
export type ReadBody = { text: string } | { tooLarge: true } | { timedOut: true };

/** Reads the request's body when the app asks (once, after authentication). */
export type BodyReader = () => Promise<ReadBody>;

/** The binding under which an entry point passes its BodyReader. */
export const BODY_READER = Symbol.for('edge-stream-queue.body-reader');

type Ctx = Parameters<MiddlewareHandler<ApiEnv>>[0];

function tooLarge(limit: number): ApiError {
  return new ApiError(ApiErrorCode.payloadTooLarge, `Request body over ${limit} bytes`, { limit });
}

function timedOut(timeoutMs: number): ApiError {
  return new ApiError(
    ApiErrorCode.requestTimeout,
    `The request body did not arrive within ${timeoutMs} ms (BODY_TIMEOUT_MS)`,
    { timeoutMs },
  );
}

const TEXT: unique symbol = Symbol('the body text read');
type WithText = Ctx['req'] & { [TEXT]?: string };

/**
 * Hands the body's text to hono's cache, where `c.req.text()` and `c.req.json()` find it (each
 * reading is kept there as a promise; its type says the value itself), and keeps it beside as
 * the text itself, which the fused route checks (fused-routes.ts) read without awaiting.
 */
function cacheText(c: Ctx, text: string): void {
  (c.req.bodyCache as Record<string, unknown>).text = Promise.resolve(text);
  (c.req as WithText)[TEXT] = text;
}

/** The body's text when this module read it (what `c.req.text()` resolves to), else undefined. */
export function bodyTextOf(c: Ctx): string | undefined {
  return (c.req as WithText)[TEXT];
}

/** Replaces the body's text as the routes' validators will read it (an empty body as `{}`). */
export function replaceBodyText(c: Ctx, text: string): void {
  cacheText(c, text);
}

function settle(c: Ctx, body: ReadBody, limit: number, timeoutMs: number): void {
  if ('tooLarge' in body) throw tooLarge(limit);
  if ('timedOut' in body) throw timedOut(timeoutMs);
  cacheText(c, body.text);
}

export interface BodyRules {
  /** MAX_REQUEST_BYTES. */
  limitBytes: number;
  /** BODY_TIMEOUT_MS: how long the body may take to arrive. */
  timeoutMs: number;
}

/**
 * Reads the body of a POST, PUT, PATCH or DELETE into hono's cache: 413 past `limitBytes`, 408
 * past `timeoutMs`. Resolves at once (undefined) when there is nothing to read.
 * @example await acceptBody(c, { limitBytes: 1024 * 1024, timeoutMs: 10_000 })
 */
export function acceptBody(c: Ctx, rules: BodyRules): Promise<void> | undefined {
  const method = c.req.method;
  if (method === 'GET' || method === 'HEAD') return undefined;
  const reader = (c.env as Record<symbol, BodyReader | undefined> | undefined)?.[BODY_READER];
  if (reader !== undefined) {
    return reader().then((body) => settle(c, body, rules.limitBytes, rules.timeoutMs));
  }
  const length = c.req.header('content-length');
  const framed = length !== undefined && c.req.header('transfer-encoding') === undefined;
  if (framed && Number(length) > rules.limitBytes) throw tooLarge(rules.limitBytes);
  const stream = c.req.raw.body;
  if (stream === null) return undefined;
  const bound = timeBound(c, rules.timeoutMs);
  const reading = framed ? readFramed(c.req.raw, rules, bound) : readStream(stream, rules, bound);
  return reading.then((body) => settle(c, body, rules.limitBytes, rules.timeoutMs));
}

/**
 * The body's time bound: LATE `timeoutMs` from now. On the request's budget's timer when there is
 * one (lib/api/request-budget.ts: one timer per request), else on a timer of its own.
 */
function timeBound(c: Ctx, timeoutMs: number): { late: Promise<typeof LATE>; cancel: () => void } {
  const shared = lateOnBudget(c.get('budget') as RequestBudget | undefined, timeoutMs);
  if (shared !== undefined) return shared;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<typeof LATE>((resolve) => {
    timer = setTimeout(() => resolve(LATE), timeoutMs);
  });
  return { late, cancel: () => clearTimeout(timer) };
}

/**
 * A body whose Content-Length is within the limit, read by the runtime in one call (`text()`)
 * instead of chunk by chunk: the chunk loop, its races and the copy were 6.8% of a consume's CPU
 * in the Worker (issue 27's profile). The length is checked again on the text, for a Request made
 * in code, whose header nothing holds to its body.
 */
async function readFramed(request: Request, rules: BodyRules, bound: TimeBound): Promise<ReadBody> {
  const reading = request.text();
  // A stream that fails after the time is up fails unheard.
  reading.catch(() => undefined);
  try {
    const text = await Promise.race([reading, bound.late]);
    if (text === LATE) {
      // The stream is text()'s now; the runtime drops it with the request.
      return { timedOut: true };
    }
    // UTF-8 takes at least one byte per UTF-16 unit and at most three.
    if (text.length > rules.limitBytes) return { tooLarge: true };
    if (text.length * 3 > rules.limitBytes && utf8Length(text) > rules.limitBytes) return { tooLarge: true };
    return { text };
  } finally {
    bound.cancel();
  }
}

/** Reads a web stream whole, within the limit and the time bound. */
async function readStream(
  stream: ReadableStream<Uint8Array>,
  rules: BodyRules,
  bound: TimeBound,
): Promise<ReadBody> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), bound.late]);
      if (next === LATE) {
        reader.cancel().catch(() => undefined);
        return { timedOut: true };
      }
      if (next.done) break;
      size += next.value.length;
      if (size > rules.limitBytes) {
        reader.cancel().catch(() => undefined);
        return { tooLarge: true };
      }
      chunks.push(next.value);
    }
  } finally {
    bound.cancel();
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.length;
  }
  // TextDecoder drops a leading byte-order mark, as the Fetch API's text() does.
  return { text: new TextDecoder().decode(body) };
}
