/**
 * Node's HTTP edge over raw sockets (functions/support/node-body.ts in `startApiServer`): the
 * token is checked before any body byte is read, a body that stalls is answered 408 and its
 * connection closed, and a consume answer that cannot be written because the client reset the
 * connection gives its messages back at once.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiServer, startApiServer } from '../../../functions/node.ts';
import {
  consumeAndReset,
  expectGivenBack,
  expectKeptWhenTaken,
  fillWithLargeMessages,
} from '../../runtimes/support/undelivered.ts';
import { head, type RawAnswer, stalledRequest } from '../../support/raw-http.ts';

const token = 'node-edge-admin-token';
const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

function envelopeOf(answer: RawAnswer): { error: { code: string; message: string } } {
  return JSON.parse(answer.text.slice(answer.text.indexOf('\r\n\r\n') + 4));
}

const MiB = 1024 * 1024;

describe('a stalled body', () => {
  let server: ApiServer;
  let quick: ApiServer;

  beforeAll(async () => {
    // The default bound (10 s): a 401 within a second cannot come from it.
    server = await startApiServer({ port: 0, env: { API_TOKENS: `admin:${token}` }, sweepIntervalMs: 0 });
    quick = await startApiServer({
      port: 0,
      env: { API_TOKENS: `admin:${token}`, BODY_TIMEOUT_MS: '400' },
      sweepIntervalMs: 0,
    });
  });

  afterAll(async () => {
    await server?.close();
    await quick?.close();
  });

  it('without a token is answered 401 within a second, before any of its 1 MiB arrived', async () => {
    const answer = await stalledRequest(
      server.url,
      head('/v1/queues/edge-anon/messages', { 'content-type': 'application/json' }, MiB),
      '{"messages":[{"body":"',
      1500,
      false,
    );
    expect(answer.status).toBe(401);
    expect(answer.firstByteMs).toBeGreaterThanOrEqual(0);
    expect(answer.firstByteMs).toBeLessThan(1000);
    expect(envelopeOf(answer).error.code).toBe('UNAUTHORIZED');
  });

  it('without a token has its connection cut once BODY_TIMEOUT_MS has passed', async () => {
    const answer = await stalledRequest(
      quick.url,
      head('/v1/queues/edge-anon/messages', { 'content-type': 'application/json' }, MiB),
      '{"messages":',
      5000,
    );
    expect(answer.status).toBe(401);
    expect(answer.firstByteMs).toBeLessThan(300);
    expect(answer.closedMs).toBeGreaterThanOrEqual(350);
    expect(answer.closedMs).toBeLessThan(3000);
  });

  it('with a token is answered 408 once BODY_TIMEOUT_MS has passed, and its connection closed', async () => {
    const answer = await stalledRequest(
      quick.url,
      head('/v1/queues/edge-slow/messages', auth, MiB),
      '{"messages":[{"body":"',
      5000,
    );
    expect(answer.status).toBe(408);
    expect(answer.firstByteMs).toBeGreaterThanOrEqual(350);
    expect(answer.firstByteMs).toBeLessThan(3000);
    expect(answer.text.toLowerCase()).toContain('connection: close');
    expect(answer.closedMs).toBeDefined();
    expect(envelopeOf(answer).error).toEqual({
      code: 'REQUEST_TIMEOUT',
      message: 'The request body did not arrive within 400 ms (BODY_TIMEOUT_MS)',
      details: { timeoutMs: 400 },
    });
    // Nothing of the partial body was produced.
    const stats = await fetch(`${quick.url}/v1/queues/edge-slow`, { headers: auth });
    expect(stats.status).toBe(404);
  });

  it('with a token that arrives in pieces within the bound is served', async () => {
    const body = JSON.stringify({ messages: [{ body: 'in pieces' }] });
    const { hostname, port } = new URL(quick.url);
    const socket = connect(Number(port), hostname);
    const answer = new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
        if (text.includes('\r\n\r\n{')) resolve(text);
      });
    });
    socket.write(head('/v1/queues/edge-pieces/messages', auth, body.length) + body.slice(0, 10));
    await new Promise((resolve) => setTimeout(resolve, 150));
    socket.write(body.slice(10));
    const text = await answer;
    socket.destroy();
    expect(text).toMatch(/^HTTP\/1\.1 201/);
  });
});

describe('a consume answer the client does not take', () => {
  let server: ApiServer;
  const group = 'g';
  /** 7.5 MiB of answer: more than loopback's socket buffers take, so the write really fails. */
  const count = 30;

  beforeAll(async () => {
    server = await startApiServer({ port: 0, env: { API_TOKENS: `admin:${token}` }, sweepIntervalMs: 0 });
  });

  afterAll(async () => {
    await server?.close();
  });

  it('gives back at once what it leased when the client resets mid-answer', async () => {
    const ids = await fillWithLargeMessages(server.url, token, 'edge-reset', group, count);
    const read = await consumeAndReset(server.url, token, 'edge-reset', group);
    expect(read).toBeGreaterThan(0);
    expect(read).toBeLessThan(count * 250 * 1024);
    await expectGivenBack(server.url, token, 'edge-reset', group, ids);
  }, 60_000);

  it('keeps the lease of an answer written whole, also on a connection closed after it', async () => {
    const ids = await fillWithLargeMessages(server.url, token, 'edge-whole', group, count);
    await expectKeptWhenTaken(server.url, token, 'edge-whole', group, ids, { connection: 'close' });
  }, 60_000);
});
