/**
 * The REST transport on Node's sockets (functions/support/socket-transport.ts) against raw TCP
 * and TLS servers these tests script byte by byte: answers split anywhere, chunked, interim, read
 * until close; connections reused, opened beside a held long poll, capped with calls waiting;
 * connections closed idle, mid-answer or before answering (never a POST sent twice); aborts;
 * malformed answers refused; request bytes as fetch and undici send them (lone surrogates too).
 * The adapter's own semantics on it run in the transport suites (test/support/transports.ts).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  createSocketTransport,
  type SocketTransport,
  SocketTransportError,
} from '../../../functions/support/socket-transport.ts';
import { createUndiciTransport } from '../../../functions/support/undici-transport.ts';
import { fetchTransport, type RestRequest } from '../../../lib/redis/rest-requester.ts';

/** One request as the server read it. */
interface Received {
  readonly head: string;
  readonly body: Buffer;
  /** Which connection (0, 1, ...) carried it, in the order the server accepted them. */
  readonly connection: number;
}

type Handler = (socket: Socket, request: Received) => void;

interface RawServer {
  readonly url: string;
  readonly received: Received[];
  /** Connections accepted so far. */
  connections(): number;
  /** Sockets still open on the server's side. */
  readonly open: Set<Socket>;
  close(): Promise<void>;
}

const servers: RawServer[] = [];
const transports: SocketTransport[] = [];

afterEach(async () => {
  for (const transport of transports.splice(0)) await transport.close();
  for (const server of servers.splice(0)) await server.close();
});

/** Reads requests off each connection (head, then Content-Length bytes) and hands each to `handler`. */
function serve(handler: Handler, make: (listener: (socket: Socket) => void) => Server = createServer) {
  const received: Received[] = [];
  const open = new Set<Socket>();
  let accepted = 0;
  const server = make((socket) => {
    const connection = accepted++;
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    socket.on('error', () => undefined);
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buffered.toString('latin1', 0, end);
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        const request = { head, body: buffered.subarray(end + 4, end + 4 + length), connection };
        buffered = buffered.subarray(end + 4 + length);
        received.push(request);
        handler(socket, request);
      }
    });
  });
  const listening = new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const raw: RawServer = {
    get url() {
      const address = server.address();
      if (address === null || typeof address === 'string') throw new Error('not listening');
      return `http://127.0.0.1:${address.port}`;
    },
    received,
    connections: () => accepted,
    open,
    close: () =>
      new Promise((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
  servers.push(raw);
  return listening.then(() => raw);
}

function transportTo(url: string, options: Parameters<typeof createSocketTransport>[1] = {}) {
  const transport = createSocketTransport(url, options);
  transports.push(transport);
  return transport.transport;
}

function post(url: string, body = '["ping"]', signal?: AbortSignal, path = ''): RestRequest {
  return {
    url: url + path,
    headers: { 'Content-Type': 'application/json', authorization: 'Bearer t' },
    body,
    signal,
  };
}

/** An answer with a Content-Length, extra header lines given. */
function answer(body: string, extra = '', status = '200 OK'): string {
  return `HTTP/1.1 ${status}\r\n${extra}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/** Writes `bytes` one at a time, each in its own packet (a macrotask apart). */
async function trickle(socket: Socket, bytes: Buffer | string): Promise<void> {
  const all = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes;
  for (let i = 0; i < all.length; i++) {
    socket.write(all.subarray(i, i + 1));
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}

function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('resolved');
    },
    (error: unknown) => error,
  );
}

describe('the socket transport, reading answers', () => {
  it('sends a POST with Host, the given headers and the body length, and reads status, text and sync token', async () => {
    const server = await serve((socket) =>
      socket.write(answer('{"result":"PONG"}', 'upstash-sync-token: 17\r\nUpstash-Sync-Token: 99\r\n')),
    );
    const send = transportTo(server.url);
    expect(await send(post(server.url, '["ping"]', undefined, '/pipeline'))).toEqual({
      status: 200,
      text: '{"result":"PONG"}',
      syncToken: '17',
    });
    const [request] = server.received;
    const port = new URL(server.url).port;
    expect(request?.head.split('\r\n')).toEqual([
      'POST /pipeline HTTP/1.1',
      `Host: 127.0.0.1:${port}`,
      'Content-Type: application/json',
      'authorization: Bearer t',
      'Content-Length: 8',
    ]);
    expect(request?.body.toString()).toBe('["ping"]');
  });

  it('reads an answer that arrives one byte at a time, a UTF-8 character split across packets', async () => {
    const body = '{"result":"ü 🌍 ok"}';
    const server = await serve((socket) => void trickle(socket, answer(body, 'upstash-sync-token: 5\r\n')));
    const send = transportTo(server.url);
    expect(await send(post(server.url))).toEqual({ status: 200, text: body, syncToken: '5' });
    // The connection is whole again: the next call uses it.
    expect((await send(post(server.url))).text).toBe(body);
    expect(server.connections()).toBe(1);
  });

  it('reads chunked answers, with chunk extensions and trailers, whole or byte by byte', async () => {
    const chunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
    const chunked =
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n' +
      chunk('{"re').replace('\r\n', ';ext=1\r\n') +
      chunk('sult":"ü🌍"}') +
      '0\r\nX-Trailer: yes\r\n\r\n';
    let byByte = false;
    const server = await serve((socket) => {
      if (byByte) void trickle(socket, chunked);
      else socket.write(chunked);
    });
    const send = transportTo(server.url);
    expect((await send(post(server.url))).text).toBe('{"result":"ü🌍"}');
    byByte = true;
    expect((await send(post(server.url))).text).toBe('{"result":"ü🌍"}');
    expect(server.connections()).toBe(1);
  });

  it('skips interim 1xx answers and reads the final one', async () => {
    const server = await serve((socket) =>
      socket.write(
        `HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n${answer('[1]')}`,
      ),
    );
    const send = transportTo(server.url);
    expect(await send(post(server.url))).toEqual({ status: 200, text: '[1]', syncToken: undefined });
  });

  it('reads an answer with neither length nor chunks until the server closes, and does not reuse that connection', async () => {
    const server = await serve((socket) => socket.end('HTTP/1.1 400 Bad Request\r\n\r\n{"error":"no"}'));
    const send = transportTo(server.url);
    expect(await send(post(server.url))).toEqual({
      status: 400,
      text: '{"error":"no"}',
      syncToken: undefined,
    });
    expect((await send(post(server.url))).text).toBe('{"error":"no"}');
    expect(server.connections()).toBe(2);
  });

  it('opens a new connection after an answer saying Connection: close, an HTTP/1.0 one, or a short keep-alive', async () => {
    const answers = [
      answer('[1]', 'Connection: close\r\n'),
      answer('[2]').replace('HTTP/1.1', 'HTTP/1.0'),
      answer('[3]', 'Keep-Alive: timeout=1\r\n'),
      answer('[4]', 'Connection: keep-alive\r\nKeep-Alive: timeout=60\r\n'),
      answer('[5]'),
    ];
    let next = 0;
    const server = await serve((socket) => socket.write(answers[next++] ?? ''));
    const send = transportTo(server.url);
    const texts: string[] = [];
    for (let i = 0; i < answers.length; i++) texts.push((await send(post(server.url))).text);
    expect(texts).toEqual(['[1]', '[2]', '[3]', '[4]', '[5]']);
    // [1], [2] and [3] each left their connection unusable; [4] and [5] share the fourth.
    expect(server.received.map((r) => r.connection)).toEqual([0, 1, 2, 3, 3]);
  });

  it('drops a leading byte order mark as fetch and undici do', async () => {
    const server = await serve((socket) => socket.write(answer('\uFEFF{"result":1}')));
    const send = transportTo(server.url);
    const undici = createUndiciTransport(server.url);
    try {
      const mine = await send(post(server.url));
      expect(mine.text).toBe('{"result":1}');
      expect((await fetchTransport(post(server.url))).text).toBe(mine.text);
      expect((await undici.transport(post(server.url))).text).toBe(mine.text);
    } finally {
      await undici.close();
    }
  });
});

describe('the socket transport, refusing malformed answers', () => {
  const cases: [string, string][] = [
    ['a status line that is not HTTP/1.x', 'HTTP/2 200 OK\r\nContent-Length: 0\r\n\r\n'],
    ['a status code that is not three digits', 'HTTP/1.1 20 OK\r\nContent-Length: 0\r\n\r\n'],
    ['a header line without a colon', 'HTTP/1.1 200 OK\r\nbroken\r\nContent-Length: 0\r\n\r\n'],
    ['a folded header line', 'HTTP/1.1 200 OK\r\nX-A: 1\r\n  2\r\nContent-Length: 0\r\n\r\n'],
    ['a bare LF inside the head', 'HTTP/1.1 200 OK\nContent-Length: 0\r\n\r\n'],
    [
      'both Content-Length and chunked',
      'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n',
    ],
    ['two Content-Lengths', 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n[]'],
    ['a Content-Length that is not a number', 'HTTP/1.1 200 OK\r\nContent-Length: 2x\r\n\r\n[]'],
    ['a transfer coding other than chunked', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n'],
    ['a chunk size that is not hex', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n'],
    [
      'a chunk not followed by CRLF',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n[]xx0\r\n\r\n',
    ],
    ['a protocol switch', 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\n'],
  ];
  for (const [what, bytes] of cases) {
    it(`refuses ${what} and closes that connection`, async () => {
      let first = true;
      const server = await serve((socket) => {
        socket.write(first ? bytes : answer('[1]'));
        first = false;
      });
      const send = transportTo(server.url);
      const error = await rejection(send(post(server.url)));
      expect(error).toBeInstanceOf(SocketTransportError);
      expect(error).toMatchObject({ code: 'MALFORMED_RESPONSE' });
      expect((error as Error).message).toMatch(/^malformed HTTP response: /);
      expect((await send(post(server.url))).text).toBe('[1]');
      expect(server.connections()).toBe(2);
    });
  }

  it('refuses a head larger than 64 KiB', async () => {
    const server = await serve((socket) =>
      socket.write(`HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(70_000)}\r\n`),
    );
    const send = transportTo(server.url);
    expect(await rejection(send(post(server.url)))).toMatchObject({ code: 'MALFORMED_RESPONSE' });
  });
});

describe('the socket transport, connections', () => {
  it('sends calls made in turn on one connection', async () => {
    const server = await serve((socket, request) => socket.write(answer(request.body.toString())));
    const send = transportTo(server.url);
    for (let i = 0; i < 5; i++) expect((await send(post(server.url, `[${i}]`))).text).toBe(`[${i}]`);
    expect(server.connections()).toBe(1);
  });

  it('answers many concurrent calls each with its own answer, then reuses the connections it opened', async () => {
    const server = await serve((socket, request) => {
      // Out of order across connections: answers come back after a varying delay.
      setTimeout(
        () => socket.write(answer(request.body.toString())),
        Number(request.body.toString().slice(1, -1)) % 7,
      );
    });
    const send = transportTo(server.url);
    const bodies = Array.from({ length: 50 }, (_, i) => `[${i}]`);
    const first = await Promise.all(bodies.map((body) => send(post(server.url, body))));
    expect(first.map((r) => r.text)).toEqual(bodies);
    const opened = server.connections();
    expect(opened).toBeLessThanOrEqual(50);
    const second = await Promise.all(bodies.map((body) => send(post(server.url, body))));
    expect(second.map((r) => r.text)).toEqual(bodies);
    expect(server.connections()).toBe(opened);
  });

  it('opens no more than maxConnections, the other calls waiting their turn', async () => {
    const server = await serve((socket, request) =>
      setImmediate(() => socket.write(answer(request.body.toString()))),
    );
    const send = transportTo(server.url, { maxConnections: 3 });
    const bodies = Array.from({ length: 200 }, (_, i) => `[${i}]`);
    const answers = await Promise.all(bodies.map((body) => send(post(server.url, body))));
    expect(answers.map((r) => r.text)).toEqual(bodies);
    expect(server.connections()).toBe(3);
  });

  it('answers other calls on another connection while a long poll holds one', async () => {
    let release: (() => void) | undefined;
    const server = await serve((socket, request) => {
      if (request.body.toString() === '["poll"]') release = () => socket.write(answer('["polled"]'));
      else socket.write(answer(request.body.toString()));
    });
    const send = transportTo(server.url);
    const poll = send(post(server.url, '["poll"]'));
    await expect.poll(() => release).toBeDefined();
    for (let i = 0; i < 3; i++) expect((await send(post(server.url, `[${i}]`))).text).toBe(`[${i}]`);
    expect(server.connections()).toBe(2);
    release?.();
    expect((await poll).text).toBe('["polled"]');
  });

  it('opens a fresh connection when the server closed the idle one, sending the call once', async () => {
    const server = await serve((socket, request) => socket.write(answer(request.body.toString())));
    const send = transportTo(server.url);
    expect((await send(post(server.url, '[1]'))).text).toBe('[1]');
    for (const socket of server.open) socket.end();
    await expect.poll(() => server.open.size).toBe(0);
    expect((await send(post(server.url, '[2]'))).text).toBe('[2]');
    expect(server.received.map((r) => [r.connection, r.body.toString()])).toEqual([
      [0, '[1]'],
      [1, '[2]'],
    ]);
  });

  it('closes a connection idle past its keep-alive time and opens another for the next call', async () => {
    const server = await serve((socket, request) => socket.write(answer(request.body.toString())));
    const send = transportTo(server.url, { keepAliveMs: 50 });
    await send(post(server.url, '[1]'));
    await expect.poll(() => server.open.size, { timeout: 3000 }).toBe(0);
    expect((await send(post(server.url, '[2]'))).text).toBe('[2]');
    expect(server.connections()).toBe(2);
  });

  it('rejects, without sending it again, a call whose connection closed before its answer', async () => {
    const server = await serve((socket) => socket.destroy());
    const send = transportTo(server.url);
    const error = await rejection(send(post(server.url)));
    expect(error).toBeInstanceOf(SocketTransportError);
    expect(error).toMatchObject({ code: 'CONNECTION_CLOSED' });
    expect(server.received).toHaveLength(1);
  });

  it('rejects a call whose connection closed mid-answer, and answers the next on a new connection', async () => {
    let first = true;
    const server = await serve((socket) => {
      if (first) socket.end('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{"res');
      else socket.write(answer('[2]'));
      first = false;
    });
    const send = transportTo(server.url);
    const error = await rejection(send(post(server.url)));
    expect(error).toMatchObject({ code: 'CONNECTION_CLOSED', message: expect.stringMatching(/mid-answer/) });
    expect((await send(post(server.url))).text).toBe('[2]');
    expect(server.received).toHaveLength(2);
  });

  it('rejects with the connect error when nothing listens', async () => {
    const server = await serve(() => undefined);
    const url = server.url;
    await server.close();
    servers.length = 0;
    const send = transportTo(url);
    expect(await rejection(send(post(url)))).toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('rejects a call with no whole answer within the response timeout', async () => {
    const server = await serve((socket) => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n[1'));
    const send = transportTo(server.url, { responseTimeoutMs: 100 });
    expect(await rejection(send(post(server.url)))).toMatchObject({ code: 'TIMEOUT' });
    await expect.poll(() => server.open.size).toBe(0);
  });

  it('fails calls in flight and later ones once closed', async () => {
    const server = await serve(() => undefined);
    const transport = createSocketTransport(server.url);
    const pending = rejection(transport.transport(post(server.url)));
    await expect.poll(() => server.received.length).toBe(1);
    await transport.close();
    expect(await pending).toMatchObject({ code: 'DESTROYED' });
    expect(await rejection(transport.transport(post(server.url)))).toMatchObject({ code: 'DESTROYED' });
  });
});

describe('the socket transport, aborts', () => {
  it('rejects a call aborted mid-flight with the signal reason, as undici does, and closes its connection', async () => {
    const server = await serve((socket, request) => {
      if (request.body.toString() !== '["held"]') socket.write(answer('[2]'));
    });
    const send = transportTo(server.url);
    const undici = createUndiciTransport(server.url);
    try {
      for (const transport of [send, undici.transport]) {
        const controller = new AbortController();
        const call = rejection(transport(post(server.url, '["held"]', controller.signal)));
        const before = server.received.length;
        await expect.poll(() => server.received.length).toBe(before + 1);
        const reason = new Error('gave up');
        controller.abort(reason);
        expect(await call).toBe(reason);
        // Ours closes the connection whose answer nobody waits for (the server sees it go).
        if (transport === send) await expect.poll(() => server.open.size).toBe(0);
      }
      expect((await send(post(server.url, '[2]'))).text).toBe('[2]');
      expect(server.received.filter((r) => r.body.toString() === '[2]')).toHaveLength(1);
    } finally {
      await undici.close();
    }
  });

  it('does not send a call whose signal has already aborted', async () => {
    const server = await serve((socket) => socket.write(answer('[1]')));
    const send = transportTo(server.url);
    const controller = new AbortController();
    controller.abort();
    const error = await rejection(send(post(server.url, '[1]', controller.signal)));
    expect(error).toBe(controller.signal.reason);
    expect((error as Error).name).toBe('AbortError');
    expect(server.connections()).toBe(0);
  });

  it('takes an aborted call out of the queue of calls waiting for a connection', async () => {
    let release: (() => void) | undefined;
    const server = await serve((socket, request) => {
      if (request.body.toString() === '["poll"]') release = () => socket.write(answer('["polled"]'));
      else socket.write(answer(request.body.toString()));
    });
    const send = transportTo(server.url, { maxConnections: 1 });
    const poll = send(post(server.url, '["poll"]'));
    const controller = new AbortController();
    const waiting = rejection(send(post(server.url, '["never"]', controller.signal)));
    const after = send(post(server.url, '["after"]'));
    controller.abort(new Error('gave up'));
    expect(await waiting).toMatchObject({ message: 'gave up' });
    await expect.poll(() => release).toBeDefined();
    release?.();
    expect((await poll).text).toBe('["polled"]');
    expect((await after).text).toBe('["after"]');
    expect(server.received.map((r) => r.body.toString())).toEqual(['["poll"]', '["after"]']);
  });
});

describe('the socket transport, request bytes', () => {
  it('sends a body with lone surrogates and multi-byte characters byte for byte as fetch and undici do', async () => {
    const server = await serve((socket) => socket.write(answer('[1]')));
    const body = `["set","k","a\uD800b\uDC00c ü 🌍"]`;
    const send = transportTo(server.url);
    const undici = createUndiciTransport(server.url);
    try {
      await send(post(server.url, body));
      await fetchTransport(post(server.url, body));
      await undici.transport(post(server.url, body));
    } finally {
      await undici.close();
    }
    const [mine, fetched, pooled] = server.received.map((r) => r.body);
    expect(mine?.toString('hex')).toBe(fetched?.toString('hex'));
    expect(mine?.toString('hex')).toBe(pooled?.toString('hex'));
    expect(mine?.includes(Buffer.from('a\uFFFDb\uFFFDc', 'utf8'))).toBe(true);
  });

  it('refuses a header value with a line break and a header the transport sets itself', async () => {
    const server = await serve((socket) => socket.write(answer('[1]')));
    const send = transportTo(server.url);
    for (const headers of [
      { authorization: 'Bearer t\r\nX-Evil: 1' },
      { 'Content-Length': '5' },
      { host: 'x' },
    ]) {
      const error = await rejection(send({ ...post(server.url), headers }));
      expect(error).toMatchObject({ code: 'INVALID_REQUEST' });
    }
    expect(server.connections()).toBe(0);
  });
});

describe('the socket transport over TLS', () => {
  const dir = mkdtempSync(join(tmpdir(), 'socket-transport-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('speaks https with the host name as SNI, reusing its connection', async () => {
    execFileSync(
      'openssl',
      [
        ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost'],
        ...[
          '-addext',
          'subjectAltName=DNS:localhost',
          '-keyout',
          join(dir, 'key.pem'),
          '-out',
          join(dir, 'cert.pem'),
        ],
      ],
      { stdio: 'ignore' },
    );
    const cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
    const key = readFileSync(join(dir, 'key.pem'), 'utf8');
    const names: (string | false | null)[] = [];
    const server = await serve(
      (socket, request) => socket.write(answer(request.body.toString(), 'upstash-sync-token: 3\r\n')),
      (listener) =>
        createTlsServer({ cert, key }, (socket: TLSSocket) => {
          names.push(socket.servername);
          listener(socket);
        }),
    );
    const url = server.url.replace('http://127.0.0.1', 'https://localhost');
    const send = transportTo(url, { ca: cert });
    expect(await send(post(url, '["a ü"]'))).toEqual({ status: 200, text: '["a ü"]', syncToken: '3' });
    expect((await send(post(url, '[2]'))).text).toBe('[2]');
    expect(names).toEqual(['localhost']);
    // A certificate nobody trusts is refused.
    const untrusting = transportTo(url);
    expect(await rejection(untrusting(post(url)))).toMatchObject({ code: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
  });
});
