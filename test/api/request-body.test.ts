/**
 * Bodies on runtimes that hand the app a web Request (Workers, Deno; here `app.request`): the
 * token is checked before the body's stream is pulled at all, a body that stops arriving is
 * answered 408 after BODY_TIMEOUT_MS, and one that arrives in pieces within it is served.
 */
import { describe, expect, it } from 'vitest';
import { createHarness, tokens } from './support/harness.ts';

const encoder = new TextEncoder();

/** A body stream that hands out `chunks` one pull at a time, then stalls (or ends if `ends`). */
function streamOf(
  chunks: string[],
  ends: boolean,
): { stream: ReadableStream<Uint8Array>; pulls: () => number } {
  let pulls = 0;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        pulls++;
        const next = chunks.shift();
        if (next !== undefined) controller.enqueue(encoder.encode(next));
        else if (ends) controller.close();
        // else: never resolves another chunk, as a client that stopped sending.
        else return new Promise(() => undefined);
        return undefined;
      },
    },
    // No pull before someone reads: the count says whether the app read.
    { highWaterMark: 0 },
  );
  return { stream, pulls: () => pulls };
}

function post(path: string, body: ReadableStream<Uint8Array>, token: string | null): Request {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  return new Request(`http://localhost${path}`, {
    method: 'POST',
    headers,
    body,
    duplex: 'half',
  } as RequestInit);
}

describe('a request body on the web runtimes', () => {
  it('is never pulled when the token is missing or unknown: 401 first', async () => {
    const h = await createHarness({ edge: { bodyTimeoutMs: 60_000 } });
    for (const token of [null, 'not-a-token']) {
      const { stream, pulls } = streamOf(['{"messages":'], false);
      const response = await h.app.request(post('/v1/queues/wq/messages', stream, token));
      expect(response.status).toBe(401);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('UNAUTHORIZED');
      expect(pulls()).toBe(0);
    }
  });

  it('is answered 408 when it stops arriving for BODY_TIMEOUT_MS, and nothing is produced', async () => {
    const h = await createHarness({ edge: { bodyTimeoutMs: 150 } });
    const { stream } = streamOf(['{"messages":[{"body":'], false);
    const started = Date.now();
    const response = await h.app.request(post('/v1/queues/wq/messages', stream, tokens.admin));
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(response.status).toBe(408);
    expect(await response.json()).toEqual({
      error: {
        code: 'REQUEST_TIMEOUT',
        message: 'The request body did not arrive within 150 ms (BODY_TIMEOUT_MS)',
        details: { timeoutMs: 150 },
      },
    });
    expect((await h.call('GET', '/v1/queues/wq')).status).toBe(404);
  });

  it('is served when it arrives in pieces within BODY_TIMEOUT_MS', async () => {
    const h = await createHarness({ edge: { bodyTimeoutMs: 5_000 } });
    const { stream } = streamOf(['{"messages":', '[{"body":"in pieces"}]', '}'], true);
    const response = await h.app.request(post('/v1/queues/wq/messages', stream, tokens.admin));
    expect(response.status).toBe(201);
    const browsed = await h.call('GET', '/v1/queues/wq/messages');
    expect(browsed.json.messages.map((m: { body: unknown }) => m.body)).toEqual(['in pieces']);
  });

  it('is refused 413 past MAX_REQUEST_BYTES while it streams, without a Content-Length', async () => {
    const h = await createHarness({ limits: { maxRequestBytes: 64 } });
    const { stream } = streamOf(['{"messages":[{"body":"', 'x'.repeat(100), '"}]}'], true);
    const response = await h.app.request(post('/v1/queues/wq/messages', stream, tokens.admin));
    expect(response.status).toBe(413);
  });

  it('is read whole when a Content-Length frames it, and still refused 413 when the header understates it', async () => {
    const h = await createHarness({ limits: { maxRequestBytes: 64 } });
    const framed = (body: string, length: number) =>
      new Request('http://localhost/v1/queues/wq/messages', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${tokens.admin}`,
          'content-length': String(length),
        },
        body,
      });
    const small = '{"messages":[{"body":"framed"}]}';
    const served = await h.app.request(framed(small, encoder.encode(small).length));
    expect(served.status).toBe(201);
    const browsed = await h.call('GET', '/v1/queues/wq/messages');
    expect(browsed.json.messages.map((m: { body: unknown }) => m.body)).toEqual(['framed']);
    // 30 characters of 3 bytes: 90 bytes of UTF-8, over the 64 allowed, behind a header saying 10.
    const wide = `{"messages":[{"body":"${'€'.repeat(30)}"}]}`;
    const refused = await h.app.request(framed(wide, 10));
    expect(refused.status).toBe(413);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('PAYLOAD_TOO_LARGE');
    // A body whose text is anything, "late" included, is a body: invalid JSON here, 400.
    expect((await h.app.request(framed('late', 4))).status).toBe(400);
    const long = `{"messages":[{"body":"${'x'.repeat(100)}"}]}`;
    expect((await h.app.request(framed(long, 20))).status).toBe(413);
  });

  it('is answered 408 when a body with a Content-Length stops arriving for BODY_TIMEOUT_MS', async () => {
    const h = await createHarness({ edge: { bodyTimeoutMs: 150 } });
    const { stream } = streamOf(['{"messages":[{"body":'], false);
    const request = new Request('http://localhost/v1/queues/wq/messages', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${tokens.admin}`,
        'content-length': '40',
      },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    const response = await h.app.request(request);
    expect(response.status).toBe(408);
    expect((await h.call('GET', '/v1/queues/wq')).status).toBe(404);
  });
});
