/**
 * Node's side of the HTTP edge, around the app's fetch for @hono/node-server (run it with
 * `autoCleanupIncoming: false`): request bodies, slow clients, and answers that never arrive.
 *
 * - The body is read straight from the socket, cheaper than the web Request the adapter would
 *   build around it (its stream cost more than the rest of a small request), but only when the
 *   app asks for it (lib/api/request-body.ts, after the token check): an anonymous client never
 *   makes the server hold its body. An answer given without reading the body (401, 404) lets Node
 *   discard the rest as it arrives, so the kept-alive connection serves the next request.
 * - The body must arrive within BODY_TIMEOUT_MS of its headers: past that the app answers 408 and
 *   the connection closes; a client that stalls after an early answer is cut off then too.
 * - A body over the request limit is read to its end and discarded (the app answers 413); only
 *   past `maxDrainBytes` is the connection closed, after the answer, which says so.
 * - An answer that leased messages (a consume's) and could not be written to the end, because the
 *   client went away, gives them back at once (lib/api/undelivered.ts). Node's 'finish' means the
 *   answer was handed to the kernel whole; a smaller answer than the socket's buffers is therefore
 *   "delivered" even if the client never reads it, and waits out its visibility timeout.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2Bindings, HttpBindings } from '@hono/node-server';
import { BODY_READER, type BodyReader, type ReadBody } from '../../lib/api/request-body.ts';
import { giveBackOf } from '../../lib/api/undelivered.ts';

export interface NodeBodyOptions {
  /** MAX_REQUEST_BYTES: past it the body is discarded and the app answers 413. */
  limitBytes: number;
  /** Past this many bytes a body is no longer read or discarded: the connection closes. */
  maxDrainBytes: number;
  /** BODY_TIMEOUT_MS: how long after its headers the body may take to arrive. */
  timeoutMs: number;
}

/** What @hono/node-server passes as the app's bindings, plus the body reader. */
type NodeBindings = (HttpBindings | Http2Bindings) & { [BODY_READER]?: BodyReader };

type Fetch = (request: Request, env: NodeBindings) => Response | Promise<Response>;

/** The adapter builds a request's web body from this when something asks for it (zod-openapi does). */
type WithRawBody = IncomingMessage & { rawBody?: Buffer };

const EMPTY = Buffer.alloc(0);

/**
 * Wraps the app's fetch for @hono/node-server.
 * @example serve({ fetch: withNodeBody(app.fetch, { limitBytes, maxDrainBytes, timeoutMs }), autoCleanupIncoming: false })
 */
export function withNodeBody(fetch: Fetch, options: NodeBodyOptions): Fetch {
  return (request, env) => {
    const { incoming, outgoing } = env;
    // The server here is HTTP/1.1 (serve's default); HTTP/2 requests pass through as they are.
    if (incoming.httpVersionMajor === 2 || incoming.method === 'GET' || incoming.method === 'HEAD') {
      return fetch(request, env);
    }
    const body = new IncomingBody(incoming as IncomingMessage, outgoing as ServerResponse, options);
    return Promise.resolve(fetch(request, { ...env, [BODY_READER]: body.read })).then((response) => {
      body.answered();
      watchDelivery(response, outgoing as ServerResponse);
      return response;
    });
  };
}

/** One request's body: read on demand, within the limit and the time bound. */
class IncomingBody {
  private readonly deadline: number;
  private readonly hasBody: boolean;
  /** The body's length from Content-Length (none with Transfer-Encoding, or past the limit). */
  private readonly whole: number | undefined;
  private reading: Promise<ReadBody> | undefined;

  constructor(
    private readonly incoming: WithRawBody,
    private readonly outgoing: ServerResponse,
    private readonly options: NodeBodyOptions,
  ) {
    this.deadline = Date.now() + options.timeoutMs;
    const length = incoming.headers['content-length'];
    const chunked = incoming.headers['transfer-encoding'] !== undefined;
    this.hasBody = (length !== undefined && length !== '0') || chunked;
    const bytes = !chunked && length !== undefined && /^\d{1,15}$/.test(length) ? Number(length) : undefined;
    this.whole = bytes !== undefined && bytes <= options.limitBytes ? bytes : undefined;
  }

  /** The BodyReader the app calls (once, after the token check). */
  readonly read = (): Promise<ReadBody> => {
    this.reading ??= this.hasBody ? this.readAll() : this.none();
    return this.reading;
  };

  private none(): Promise<ReadBody> {
    this.incoming.rawBody = EMPTY;
    return Promise.resolve({ text: '' });
  }

  /**
   * The app asks for the body from the headers' callback (at once, after the token check); a small
   * request's body comes in the same segment as its headers, and the parser hands it over right
   * after that callback. So a microtask later it is all buffered, and taken in one read: without
   * the stream's events, the four listeners and the timer of `stream` (about 8 us of a produce of
   * one message). A body still arriving, chunked or over the limit goes through `stream`.
   */
  private readAll(): Promise<ReadBody> {
    const now = this.takeWhole();
    if (now !== undefined) return Promise.resolve(now);
    return Promise.resolve().then(() => this.takeWhole() ?? this.stream());
  }

  /** The whole body when all its Content-Length bytes are buffered and unread, else undefined. */
  private takeWhole(): ReadBody | undefined {
    const { incoming } = this;
    if (
      this.whole === undefined ||
      incoming.readableLength !== this.whole ||
      incoming.readableFlowing !== null ||
      incoming.destroyed
    ) {
      return undefined;
    }
    return this.done((incoming.read() as Buffer | null) ?? EMPTY);
  }

  /** The body read as it arrives, within the limit and the time bound. */
  private stream(): Promise<ReadBody> {
    const { incoming, outgoing, options } = this;
    return new Promise((resolve) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const stop = () => {
        clearTimeout(timer);
        incoming.off('data', onData);
        incoming.off('end', onEnd);
        incoming.off('error', onGone);
        incoming.off('close', onGone);
      };
      // Answer, then close: the rest of this body will not be read.
      const closeAfterAnswer = () => {
        incoming.pause();
        outgoing.setHeader('connection', 'close');
        outgoing.once('finish', () => incoming.socket.destroySoon());
      };
      const onData = (chunk: Buffer) => {
        size += chunk.length;
        if (size <= options.limitBytes) {
          chunks.push(chunk);
          return;
        }
        chunks.length = 0;
        if (size > options.maxDrainBytes) {
          stop();
          closeAfterAnswer();
          resolve({ tooLarge: true });
        }
      };
      const onEnd = () => {
        stop();
        if (size > options.limitBytes) return resolve({ tooLarge: true });
        resolve(this.done(Buffer.concat(chunks, size)));
      };
      const onLate = () => {
        stop();
        closeAfterAnswer();
        resolve({ timedOut: true });
      };
      // The client went away mid-body: whatever the app answers goes to nobody, and a prefix of
      // the body must not be taken for the whole.
      const onGone = () => {
        stop();
        resolve({ timedOut: true });
      };
      const left = this.deadline - Date.now();
      if (left <= 0) return onLate();
      timer = setTimeout(onLate, left);
      incoming.on('data', onData);
      incoming.on('end', onEnd);
      incoming.on('error', onGone);
      incoming.on('close', onGone);
    });
  }

  /** The body read whole, as the app takes it. */
  private done(bytes: Buffer): ReadBody {
    // The adapter builds the web body from it if anything asks (zod-openapi, for a bodiless
    // request without a Content-Type): the socket's stream has been read already.
    this.incoming.rawBody = bytes;
    let text = bytes.toString('utf8');
    // As the Fetch API's text() does: a UTF-8 byte-order mark is not part of the text.
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    return { text };
  }

  /**
   * The app answered. When it did so without reading a body that is still arriving (a 401, a
   * 404), Node discards the rest once the answer is written; a client that stalls, or sends more
   * than `maxDrainBytes`, is cut off.
   */
  answered(): void {
    const { incoming, outgoing, options } = this;
    if (this.reading !== undefined || !this.hasBody || incoming.readableEnded) return;
    let drained = 0;
    const cutOff = () => {
      clearTimeout(timer);
      incoming.off('data', onData);
      incoming.off('end', done);
      if (!incoming.readableEnded) incoming.socket.destroy();
    };
    const onData = (chunk: Buffer) => {
      drained += chunk.length;
      if (drained > options.maxDrainBytes) cutOff();
    };
    const done = () => {
      clearTimeout(timer);
      incoming.off('data', onData);
    };
    const timer = setTimeout(cutOff, Math.max(0, this.deadline - Date.now()));
    timer.unref();
    incoming.on('end', done);
    // After Node's own 'finish' handler, which discards the body (it drops 'data' listeners).
    outgoing.once('finish', () => {
      if (!incoming.readableEnded) incoming.on('data', onData);
    });
  }
}

/** Gives back what `response` leased when the client is gone before it was written whole. */
function watchDelivery(response: Response, outgoing: ServerResponse): void {
  const giveBack = giveBackOf(response);
  if (giveBack === undefined) return;
  const socket = outgoing.socket;
  if (outgoing.destroyed || socket === null || socket.destroyed) {
    void giveBack();
    return;
  }
  // Node emits 'finish' also when the write failed (after the socket's error): the socket's error
  // tells the two apart. A socket closed after a whole answer (Connection: close) has none.
  let settled = false;
  const settle = () => {
    if (settled) return;
    settled = true;
    if (socket.errored !== null) void giveBack();
  };
  outgoing.once('finish', settle);
  outgoing.once('close', () => {
    if (settled) return;
    settled = true;
    void giveBack();
  });
}
