/**
 * The REST adapter's transport on Node (lib/redis/rest-requester.ts): HTTP/1.1 POSTs written
 * straight on node:net / node:tls sockets kept alive between calls. undici's pool
 * (undici-transport.ts) spends 146 µs of client CPU per script call and node:http 123 µs, most of
 * it in general machinery this one POST-and-read-the-answer exchange does not need (BENCHMARKS.md,
 * api, "the REST adapter alone").
 *
 * One request in flight per connection; a call opens a connection when every open one is busy (a
 * long poll holds one for its block time), up to `maxConnections`, after which calls wait in
 * turn. The response parser is small and strict: a status line, headers (Content-Length or
 * chunked, never both, Connection, Keep-Alive, `upstash-sync-token`), 1xx interim answers
 * skipped, a body until close when neither length is given; anything else is refused with a
 * SocketTransportError and its connection closed.
 *
 * Connection reuse follows undici: an idle connection is closed after 4 s, or after the server's
 * `Keep-Alive: timeout` less 2 s, so it is not used just as the server drops it; a POST is never
 * sent twice: a call goes to another connection only when its own was found closed before any
 * byte of the request was written; one that fails after that rejects. An abort rejects with the
 * signal's reason (as undici and fetch do) and closes that connection.
 */
import { isIP, connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { RestRequest, RestResponse, RestTransport } from '../../lib/redis/rest-requester.ts';

export const SocketTransportErrorCode = {
  /** The server's answer is not HTTP/1.x as this parser reads it. */
  malformed: 'MALFORMED_RESPONSE',
  /** The connection closed, or failed, before the whole answer came. */
  closed: 'CONNECTION_CLOSED',
  /** No connection within the connect timeout, or no whole answer within the response timeout. */
  timeout: 'TIMEOUT',
  /** The request cannot be sent as given (a header the transport sets, or an invalid character). */
  invalidRequest: 'INVALID_REQUEST',
  /** The transport was closed. */
  destroyed: 'DESTROYED',
} as const;
export type SocketTransportErrorCode =
  (typeof SocketTransportErrorCode)[keyof typeof SocketTransportErrorCode];

export class SocketTransportError extends Error {
  override readonly name = 'SocketTransportError';
  readonly code: SocketTransportErrorCode;
  constructor(code: SocketTransportErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}

export interface SocketTransportOptions {
  /** Connections open at once (1,024 unless given); calls beyond them wait for one to free. */
  maxConnections?: number;
  /** How long a connection (and its TLS handshake) may take: 10 s unless given, as undici's. */
  connectTimeoutMs?: number;
  /** How long a whole answer may take once the request is out: 300 s unless given, as undici's. */
  responseTimeoutMs?: number;
  /** An idle connection's life when the server names none: 4 s unless given, as undici's. */
  keepAliveMs?: number;
  /** Certificates to trust for https besides Node's own (a test's self-signed server). */
  ca?: string;
}

export interface SocketTransport {
  readonly transport: RestTransport;
  /** Closes every connection; calls still in flight or waiting fail. */
  close(): Promise<void>;
}

/** Most bytes of a response head (status line and headers) read before it is refused. */
const MAX_HEAD_BYTES = 64 * 1024;
/** undici's: a server's keep-alive hint less this, so we are not the one that uses it last. */
const KEEP_ALIVE_THRESHOLD_MS = 2000;
const KEEP_ALIVE_MAX_MS = 600_000;
/** How often idle connections and stalled calls are checked (the timers are per pool, not per call). */
const SWEEP_MS = 500;
const HEAD_END = Buffer.from('\r\n\r\n', 'latin1');
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** What undici accepts in a header value: tab, visible ASCII and space, obs-text. */
const INVALID_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
const SET_BY_TRANSPORT = new Set([
  'host',
  'content-length',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'expect',
]);

/** A call: one POST waiting for a connection or for its answer. */
interface Call {
  readonly data: string;
  readonly signal: AbortSignal | undefined;
  readonly resolve: (response: RestResponse) => void;
  readonly reject: (error: unknown) => void;
  onAbort: (() => void) | undefined;
  connection: Connection | undefined;
  /** When the request went out (for the response timeout). */
  sentAt: number;
  done: boolean;
}

/** Where the parse of an answer is. */
const Phase = {
  Head: 0,
  Length: 1,
  ChunkSize: 2,
  ChunkData: 3,
  ChunkEnd: 4,
  Trailers: 5,
  UntilClose: 6,
} as const;
type Phase = (typeof Phase)[keyof typeof Phase];

/** One connection and the parse of the answer it is reading. */
class Connection {
  readonly socket: Socket;
  connected = false;
  connectStarted: number;
  call: Call | undefined;
  idleSince = 0;
  keepAliveMs: number;
  /** Bytes read but not parsed yet. */
  pending: Buffer | undefined;
  phase: Phase = Phase.Head;
  status = 0;
  syncToken: string | undefined;
  keepAlive = true;
  remaining = 0;
  body: Buffer[] = [];
  closed = false;
  /** Whether the socket keeps the process alive (while it carries a call). */
  referenced = true;

  constructor(socket: Socket, keepAliveMs: number) {
    this.socket = socket;
    this.keepAliveMs = keepAliveMs;
    this.connectStarted = Date.now();
  }

  reset(): void {
    this.phase = Phase.Head;
    this.status = 0;
    this.syncToken = undefined;
    this.remaining = 0;
    this.body = [];
  }
}

/** Bytes to hold past this read: copied when they are in the shared read buffer. */
function keep(bytes: Buffer, shared: boolean): Buffer {
  return shared ? Buffer.from(bytes) : bytes;
}

function malformed(why: string): SocketTransportError {
  return new SocketTransportError(SocketTransportErrorCode.malformed, `malformed HTTP response: ${why}`);
}

/** The answer's body as text, as fetch and undici read it: UTF-8, a leading BOM dropped. */
function decode(bytes: Buffer, start: number, end: number): string {
  const text = bytes.toString('utf8', start, end);
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** The connection header's say on reuse, given the protocol's default. */
function keepsAlive(value: string, fallback: boolean): boolean {
  let result = fallback;
  for (const token of value.split(',')) {
    const word = token.trim().toLowerCase();
    if (word === 'close') return false;
    if (word === 'keep-alive') result = true;
  }
  return result;
}

/** `timeout=N` of a Keep-Alive header in ms, as undici reads it, or undefined. */
function keepAliveHint(value: string): number | undefined {
  const match = /timeout=(\d+)/.exec(value);
  return match === null ? undefined : Number(match[1]) * 1000;
}

/**
 * @example
 * const { transport, close } = createSocketTransport(url);
 * const redis = createUpstashClient({ url, token, transport });
 */
export function createSocketTransport(url: string, options: SocketTransportOptions = {}): SocketTransport {
  const maxConnections = options.maxConnections ?? 1024;
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  const responseTimeoutMs = options.responseTimeoutMs ?? 300_000;
  const defaultKeepAliveMs = options.keepAliveMs ?? 4000;

  // Read at the first call: a URL the requester refuses (UrlError) is reported by it, at start.
  let origin = '';
  let requestLine = '';
  let secure = false;
  let hostname = '';
  let port = 0;
  let servername: string | undefined;
  let tlsSession: Buffer | undefined;

  const idle: Connection[] = [];
  const all = new Set<Connection>();
  const waiting: Call[] = [];
  let sweeper: NodeJS.Timeout | undefined;
  let destroyed = false;
  // The header block last checked, so a call with the same headers is not checked again.
  let checkedBlock = '';
  // Every plain connection's reads land here; each is parsed before the next read.
  const readBuffer = Buffer.allocUnsafe(64 * 1024);

  function parseOrigin(): void {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new SocketTransportError(
        SocketTransportErrorCode.invalidRequest,
        `${parsed.protocol} is not http: or https:`,
      );
    }
    origin = parsed.origin;
    secure = parsed.protocol === 'https:';
    hostname = parsed.hostname.startsWith('[') ? parsed.hostname.slice(1, -1) : parsed.hostname;
    port = parsed.port === '' ? (secure ? 443 : 80) : Number(parsed.port);
    servername = isIP(hostname) === 0 ? hostname : undefined;
    requestLine = `\r\nHost: ${parsed.host}\r\n`;
  }

  /** The header lines of a call, checked as undici checks them. */
  function headerBlock(headers: Record<string, string>): string {
    let block = '';
    for (const name in headers) block += `${name}: ${headers[name]}\r\n`;
    if (block === checkedBlock) return block;
    for (const name in headers) {
      const value = headers[name] as string;
      if (!TOKEN.test(name) || INVALID_VALUE.test(value) || SET_BY_TRANSPORT.has(name.toLowerCase())) {
        throw new SocketTransportError(
          SocketTransportErrorCode.invalidRequest,
          `header ${JSON.stringify(name)} cannot be sent as given`,
        );
      }
    }
    checkedBlock = block;
    return block;
  }

  function sweep(): void {
    const now = Date.now();
    for (const connection of all) {
      const call = connection.call;
      if (call === undefined) {
        if (now - connection.idleSince >= connection.keepAliveMs) drop(connection);
      } else if (!connection.connected) {
        if (now - connection.connectStarted >= connectTimeoutMs) {
          fail(
            connection,
            new SocketTransportError(SocketTransportErrorCode.timeout, `connect to ${origin} timed out`),
          );
        }
      } else if (now - call.sentAt >= responseTimeoutMs) {
        fail(
          connection,
          new SocketTransportError(
            SocketTransportErrorCode.timeout,
            `no whole answer from ${origin} in time`,
          ),
        );
      }
    }
    if (all.size === 0 && sweeper !== undefined) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
  }

  function open(): Connection {
    const socket = secure
      ? tlsConnect({
          host: hostname,
          port,
          ...(servername === undefined ? {} : { servername }),
          ALPNProtocols: ['http/1.1'],
          ...(options.ca === undefined ? {} : { ca: options.ca }),
          ...(tlsSession === undefined ? {} : { session: tlsSession }),
        })
      : netConnect({
          host: hostname,
          port,
          // Plain TCP reads into one buffer of the pool's, not a new one per read (~5 µs a call).
          onread: {
            buffer: readBuffer,
            callback: (length: number) => {
              onData(connection, readBuffer.subarray(0, length), true);
              return true;
            },
          },
        });
    socket.setNoDelay(true);
    const connection: Connection = new Connection(socket, defaultKeepAliveMs);
    all.add(connection);
    socket.once(secure ? 'secureConnect' : 'connect', () => {
      connection.connected = true;
    });
    if (secure) {
      socket.on('session', (session: Buffer) => {
        tlsSession = session;
      });
    }
    if (secure) socket.on('data', (chunk: Buffer) => onData(connection, chunk, false));
    socket.on('end', () => onEnd(connection));
    socket.on('error', (error: Error) => fail(connection, error));
    socket.on('close', () =>
      fail(
        connection,
        new SocketTransportError(SocketTransportErrorCode.closed, `${origin} closed the connection`),
      ),
    );
    if (sweeper === undefined) {
      sweeper = setInterval(sweep, SWEEP_MS);
      sweeper.unref();
    }
    return connection;
  }

  /** Closes a connection and takes it out of the pool (its call, if any, is failed by `fail`). */
  function drop(connection: Connection): void {
    if (connection.closed) return;
    connection.closed = true;
    all.delete(connection);
    const at = idle.indexOf(connection);
    if (at >= 0) idle.splice(at, 1);
    connection.socket.destroy();
    // A caller waiting for a free connection may open one now.
    if (waiting.length > 0 && all.size < maxConnections) {
      const next = waiting.shift() as Call;
      send(next, open());
    }
  }

  /** The connection failed: its call, if any, rejects; the connection is gone. */
  function fail(connection: Connection, error: unknown): void {
    const call = connection.call;
    connection.call = undefined;
    drop(connection);
    if (call !== undefined) settle(call, undefined, error);
  }

  function settle(call: Call, response: RestResponse | undefined, error?: unknown): void {
    if (call.done) return;
    call.done = true;
    call.connection = undefined;
    if (call.onAbort !== undefined) call.signal?.removeEventListener('abort', call.onAbort);
    if (response === undefined) call.reject(error);
    else call.resolve(response);
  }

  function send(call: Call, connection: Connection): void {
    connection.call = call;
    call.connection = connection;
    call.sentAt = Date.now();
    connection.reset();
    if (!connection.referenced) {
      connection.referenced = true;
      connection.socket.ref();
    }
    connection.socket.write(call.data);
  }

  /** An idle connection that is still open, or undefined. */
  function takeIdle(): Connection | undefined {
    for (;;) {
      const connection = idle.pop();
      if (connection === undefined) return undefined;
      // Closed by the server before we wrote anything: safe to leave for another.
      if (connection.socket.destroyed || !connection.socket.writable || connection.socket.readableEnded) {
        drop(connection);
        continue;
      }
      return connection;
    }
  }

  function dispatch(call: Call): void {
    const connection = takeIdle();
    if (connection !== undefined) send(call, connection);
    else if (all.size < maxConnections) send(call, open());
    else waiting.push(call);
  }

  /** The answer is whole: the call resolves, the connection serves the next or waits. */
  function finish(connection: Connection, text: string, rest: number): void {
    const call = connection.call as Call;
    const response: RestResponse = { status: connection.status, text, syncToken: connection.syncToken };
    connection.call = undefined;
    connection.pending = undefined;
    connection.body = [];
    if (!connection.keepAlive || rest > 0) {
      // Bytes after the answer are nothing we asked for: the connection cannot be trusted.
      drop(connection);
    } else {
      const next = waiting.shift();
      if (next !== undefined) send(next, connection);
      else {
        connection.idleSince = Date.now();
        // As undici's: an idle connection does not keep the process alive.
        connection.referenced = false;
        connection.socket.unref();
        idle.push(connection);
      }
    }
    settle(call, response);
  }

  /**
   * Reads the head at `at`: the status, the headers this transport needs, and how the body ends.
   * Returns the offset after the head, or -1 when the head is not whole yet.
   */
  function readHead(connection: Connection, bytes: Buffer, at: number): number {
    const end = bytes.indexOf(HEAD_END, at);
    if (end < 0) {
      if (bytes.length - at > MAX_HEAD_BYTES) throw malformed('head too large');
      return -1;
    }
    if (end - at > MAX_HEAD_BYTES) throw malformed('head too large');
    const lines = bytes.toString('latin1', at, end).split('\r\n');
    const statusLine = lines[0] as string;
    const status = /^HTTP\/1\.([01]) ([1-9]\d\d)(?: [^\r\n]*)?$/.exec(statusLine);
    if (status === null) throw malformed(`status line ${JSON.stringify(statusLine.slice(0, 80))}`);
    connection.status = Number(status[2]);
    let keepAlive = status[1] === '1';
    let length: number | undefined;
    let chunked = false;
    let syncToken: string | undefined;
    let hint: number | undefined;
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i] as string;
      const colon = line.indexOf(':');
      const name = colon > 0 ? line.slice(0, colon) : '';
      if (!TOKEN.test(name) || line.includes('\n') || line.includes('\r') || line.includes('\0')) {
        throw malformed(`header line ${JSON.stringify(line.slice(0, 80))}`);
      }
      switch (name.length) {
        case 10: {
          const lower = name.toLowerCase();
          if (lower === 'connection') keepAlive = keepsAlive(line.slice(colon + 1), keepAlive);
          else if (lower === 'keep-alive') hint = keepAliveHint(line.slice(colon + 1));
          break;
        }
        case 14:
          if (name.toLowerCase() === 'content-length') {
            const value = line.slice(colon + 1).trim();
            if (!/^\d{1,15}$/.test(value) || length !== undefined) {
              throw malformed(`Content-Length ${JSON.stringify(value)}`);
            }
            length = Number(value);
          }
          break;
        case 17:
          if (name.toLowerCase() === 'transfer-encoding') {
            const value = line
              .slice(colon + 1)
              .trim()
              .toLowerCase();
            if (value !== 'chunked' || chunked) throw malformed(`Transfer-Encoding ${JSON.stringify(value)}`);
            chunked = true;
          }
          break;
        case 18:
          if (syncToken === undefined && name.toLowerCase() === 'upstash-sync-token') {
            syncToken = line.slice(colon + 1).trim();
          }
          break;
      }
    }
    if (chunked && length !== undefined) throw malformed('both Content-Length and chunked');
    const code = connection.status;
    if (code < 200) {
      if (code === 101) throw malformed('unexpected 101 Switching Protocols');
      // An interim answer (100 Continue, 103 Early Hints): the real one follows.
      return end + 4;
    }
    connection.syncToken = syncToken;
    connection.keepAlive = keepAlive;
    if (hint !== undefined) {
      const ms = Math.min(hint - KEEP_ALIVE_THRESHOLD_MS, KEEP_ALIVE_MAX_MS);
      if (ms <= 0) connection.keepAlive = false;
      else connection.keepAliveMs = ms;
    } else connection.keepAliveMs = defaultKeepAliveMs;
    if (code === 204 || code === 304) {
      connection.phase = Phase.Length;
      connection.remaining = 0;
    } else if (chunked) {
      connection.phase = Phase.ChunkSize;
    } else if (length !== undefined) {
      connection.phase = Phase.Length;
      connection.remaining = length;
    } else {
      connection.phase = Phase.UntilClose;
      connection.keepAlive = false;
    }
    return end + 4;
  }

  /**
   * Parses what came, keeping an unfinished head or chunk line for the next bytes; throws on
   * malformed. `shared`: `bytes` is the pool's read buffer, overwritten by the next read.
   */
  function parse(connection: Connection, bytes: Buffer, shared: boolean): void {
    let at = 0;
    for (;;) {
      switch (connection.phase) {
        case Phase.Head: {
          const next = readHead(connection, bytes, at);
          if (next < 0) {
            connection.pending = keep(at === 0 ? bytes : bytes.subarray(at), shared);
            return;
          }
          at = next;
          break;
        }
        case Phase.Length: {
          const available = bytes.length - at;
          if (connection.body.length === 0 && available >= connection.remaining) {
            // The whole body is here: the usual case, read without copying.
            const end = at + connection.remaining;
            finish(connection, decode(bytes, at, end), bytes.length - end);
            return;
          }
          if (available >= connection.remaining) {
            connection.body.push(keep(bytes.subarray(at, at + connection.remaining), shared));
            at += connection.remaining;
            const whole = Buffer.concat(connection.body);
            finish(connection, decode(whole, 0, whole.length), bytes.length - at);
            return;
          }
          if (available > 0) connection.body.push(keep(at === 0 ? bytes : bytes.subarray(at), shared));
          connection.remaining -= available;
          connection.pending = undefined;
          return;
        }
        case Phase.ChunkSize: {
          const eol = bytes.indexOf(10, at);
          if (eol < 0) {
            if (bytes.length - at > 1024) throw malformed('chunk size line too long');
            connection.pending = keep(bytes.subarray(at), shared);
            return;
          }
          const line = bytes.toString('latin1', at, eol);
          const size = /^([0-9a-fA-F]{1,12})(?:;[^\r\n]*)?\r$/.exec(line);
          if (size === null) throw malformed(`chunk size ${JSON.stringify(line.slice(0, 40))}`);
          connection.remaining = Number.parseInt(size[1] as string, 16);
          connection.phase = connection.remaining === 0 ? Phase.Trailers : Phase.ChunkData;
          at = eol + 1;
          break;
        }
        case Phase.ChunkData: {
          const available = bytes.length - at;
          if (available < connection.remaining) {
            if (available > 0) connection.body.push(keep(bytes.subarray(at), shared));
            connection.remaining -= available;
            connection.pending = undefined;
            return;
          }
          connection.body.push(keep(bytes.subarray(at, at + connection.remaining), shared));
          at += connection.remaining;
          connection.phase = Phase.ChunkEnd;
          break;
        }
        case Phase.ChunkEnd: {
          if (bytes.length - at < 2) {
            connection.pending = keep(bytes.subarray(at), shared);
            return;
          }
          if (bytes[at] !== 13 || bytes[at + 1] !== 10) throw malformed('chunk not followed by CRLF');
          at += 2;
          connection.phase = Phase.ChunkSize;
          break;
        }
        case Phase.Trailers: {
          // Trailer lines until an empty one; their content is not needed.
          const eol = bytes.indexOf(10, at);
          if (eol < 0) {
            if (bytes.length - at > MAX_HEAD_BYTES) throw malformed('trailers too large');
            connection.pending = keep(bytes.subarray(at), shared);
            return;
          }
          if (bytes[eol - 1] !== 13 || eol - 1 < at) throw malformed('trailer line not ended by CRLF');
          const empty = eol - 1 === at;
          at = eol + 1;
          if (empty) {
            const whole = Buffer.concat(connection.body);
            finish(connection, decode(whole, 0, whole.length), bytes.length - at);
            return;
          }
          break;
        }
        case Phase.UntilClose: {
          if (at < bytes.length) connection.body.push(keep(at === 0 ? bytes : bytes.subarray(at), shared));
          connection.pending = undefined;
          return;
        }
      }
    }
  }

  function onData(connection: Connection, chunk: Buffer, shared: boolean): void {
    if (connection.call === undefined) {
      // Nothing was asked on this connection: whatever the server says, it cannot be trusted.
      drop(connection);
      return;
    }
    const pending = connection.pending;
    connection.pending = undefined;
    try {
      if (pending === undefined) parse(connection, chunk, shared);
      else parse(connection, Buffer.concat([pending, chunk]), false);
    } catch (error) {
      fail(connection, error);
    }
  }

  function onEnd(connection: Connection): void {
    const call = connection.call;
    if (call !== undefined && connection.phase === Phase.UntilClose) {
      const whole = Buffer.concat(connection.body);
      connection.keepAlive = false;
      finish(connection, decode(whole, 0, whole.length), 0);
      return;
    }
    fail(
      connection,
      new SocketTransportError(
        SocketTransportErrorCode.closed,
        call === undefined || connection.phase === Phase.Head
          ? `${origin} closed the connection before answering`
          : `${origin} closed the connection mid-answer`,
      ),
    );
  }

  const transport: RestTransport = (request: RestRequest) => {
    if (destroyed) {
      return Promise.reject(new SocketTransportError(SocketTransportErrorCode.destroyed, 'transport closed'));
    }
    const { signal } = request;
    if (signal?.aborted === true) return Promise.reject(signal.reason);
    if (origin === '') parseOrigin();
    if (!request.url.startsWith(origin)) {
      return Promise.reject(
        new SocketTransportError(
          SocketTransportErrorCode.invalidRequest,
          `${request.url} is not on ${origin}`,
        ),
      );
    }
    let data: string;
    try {
      const path = request.url.slice(origin.length) || '/';
      if (path[0] !== '/' || /[^\x21-\x7e]/.test(path)) {
        throw new SocketTransportError(
          SocketTransportErrorCode.invalidRequest,
          `path ${JSON.stringify(path)}`,
        );
      }
      const { body } = request;
      data = `POST ${path} HTTP/1.1${requestLine}${headerBlock(request.headers)}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise<RestResponse>((resolve, reject) => {
      const call: Call = {
        data,
        signal,
        resolve,
        reject,
        onAbort: undefined,
        connection: undefined,
        sentAt: 0,
        done: false,
      };
      if (signal !== undefined) {
        call.onAbort = () => {
          const connection = call.connection;
          if (connection !== undefined) {
            connection.call = undefined;
            drop(connection);
          } else {
            const at = waiting.indexOf(call);
            if (at >= 0) waiting.splice(at, 1);
          }
          settle(call, undefined, signal.reason);
        };
        signal.addEventListener('abort', call.onAbort, { once: true });
      }
      dispatch(call);
    });
  };

  return {
    transport,
    async close() {
      destroyed = true;
      const error = new SocketTransportError(SocketTransportErrorCode.destroyed, 'transport closed');
      for (const call of waiting.splice(0)) settle(call, undefined, error);
      for (const connection of [...all]) fail(connection, error);
      if (sweeper !== undefined) clearInterval(sweeper);
      sweeper = undefined;
    },
  };
}
