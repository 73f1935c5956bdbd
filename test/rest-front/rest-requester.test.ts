/**
 * Our requester (lib/redis/rest-requester.ts) against the library's own HTTP client, answer for
 * answer: both clients read the same crafted HTTP answers (a stubbed `fetch`), and must return the
 * same values and throw the same errors. Replies are random trees of base64 strings (of any bytes,
 * invalid UTF-8 included), strings that are not base64, "OK" at any depth, numbers and nil, as a
 * single command's answer and as a pipeline's.
 */
import { Redis } from '@upstash/redis';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRestRequester, fetchTransport } from '../../lib/redis/rest-requester.ts';
import { redisOn } from '../../lib/redis/upstash-redis.ts';

const url = 'http://rest.invalid';
const token = 'requester-test';

/** Every request of both clients is answered with `status` and `body`; their requests are kept. */
function answer(status: number, body: string): Request[] {
  const seen: Request[] = [];
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    seen.push(new Request(input, init));
    return new Response(body, { status, headers: { 'upstash-sync-token': 'sync-7' } });
  });
  return seen;
}

const options = { automaticDeserialization: false, enableAutoPipelining: false } as const;
const library = () => new Redis({ url, token, ...options, enableTelemetry: false, retry: false });
const ours = () => redisOn(createRestRequester({ url, token, transport: fetchTransport }), options);

/** The value a call settles with, or its error's name and message. */
async function outcome(run: () => Promise<unknown>): Promise<{ value?: unknown; error?: string }> {
  try {
    return { value: await run() };
  } catch (error) {
    return { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
}

const base64Of = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
const leaf = fc.oneof(
  fc.uint8Array({ maxLength: 12 }).map(base64Of),
  fc.string({ unit: 'grapheme', maxLength: 8 }).map((s) => Buffer.from(s).toString('base64')),
  fc.string({ maxLength: 8 }),
  fc.constantFrom('OK', 'T0s=', 'PONG', 'QUEUED', '', '====', 'abc', 'a'),
  // UTF-8 edge cases: a BOM (dropped at the start), a surrogate's encoding, an overlong NUL, a
  // truncated sequence, a lone continuation byte.
  fc
    .constantFrom(
      [0xef, 0xbb, 0xbf, 0x41],
      [0x41, 0xef, 0xbb, 0xbf],
      [0xed, 0xa0, 0x80],
      [0xc0, 0x80],
      [0xe2, 0x82],
      [0x80],
    )
    .map((bytes) => base64Of(Uint8Array.from(bytes))),
  fc.integer(),
  fc.constant(null),
);
const { tree } = fc.letrec((tie) => ({
  tree: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('tree'), { maxLength: 4 })),
}));

describe('our requester beside the library’s HTTP client', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('reads every reply of a single command alike', async () => {
    await fc.assert(
      fc.asyncProperty(tree, async (reply) => {
        answer(200, JSON.stringify({ result: reply }));
        const theirs = await outcome(() => library().exec(['GET', 'k']));
        expect(await outcome(() => ours().exec(['GET', 'k']))).toEqual(theirs);
        vi.restoreAllMocks();
      }),
      { numRuns: 200 },
    );
  });

  it('reads every reply of a pipeline alike, errors included', async () => {
    const item = fc.oneof(
      tree.map((result) => ({ result })),
      fc.string({ maxLength: 12 }).map((error) => ({ error })),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(item, { minLength: 1, maxLength: 4 }), async (items) => {
        answer(200, JSON.stringify(items));
        const run = (redis: Redis) => () => {
          const pipeline = redis.pipeline();
          for (let i = 0; i < items.length; i++) pipeline.get(`k${i}`);
          return pipeline.exec({ keepErrors: true });
        };
        const theirs = await outcome(run(library()));
        expect(await outcome(run(ours()))).toEqual(theirs);
        vi.restoreAllMocks();
      }),
      { numRuns: 100 },
    );
  });

  it('answers each call of a batch as the library answers it alone', async () => {
    const item = fc.oneof(
      tree.map((result) => ({ result })),
      fc.string({ minLength: 1, maxLength: 12 }).map((error) => ({ error })),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(item, { minLength: 1, maxLength: 5 }), async (items) => {
        // The endpoint answers command i (its key names i) with items[i], alone or in a pipeline.
        const itemOf = (command: string[]) =>
          items[Number(command[1])] as { result?: unknown; error?: string };
        const paths: string[] = [];
        vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
          const path = new URL(String(input)).pathname;
          paths.push(path);
          const body = JSON.parse(String(init?.body)) as string[] | string[][];
          if (path === '/pipeline') return new Response(JSON.stringify((body as string[][]).map(itemOf)));
          const one = itemOf(body as string[]);
          return new Response(JSON.stringify(one), { status: one.error === undefined ? 200 : 400 });
        });
        const calls = (redis: Redis) =>
          Promise.all(items.map((_, i) => outcome(() => redis.exec(['GET', String(i)]))));
        const theirs = await calls(library());
        paths.length = 0;
        const batched = redisOn(
          createRestRequester({ url, token, transport: fetchTransport, batch: true }),
          options,
        );
        const mine = await calls(batched);
        // One request for the batch; an error's text as the adapter reads it (no ", command was").
        expect(paths).toEqual([items.length === 1 ? '/' : '/pipeline']);
        const text = (o: { error?: string; value?: unknown }) =>
          o.error === undefined ? o : { error: o.error.replace(/, command was: [\s\S]*$/, '') };
        expect(mine.map(text)).toEqual(theirs.map(text));
        vi.restoreAllMocks();
      }),
      { numRuns: 100 },
    );
  });

  it('throws the same errors for refused, failed and unreadable answers', async () => {
    const cases: [number, string][] = [
      [401, JSON.stringify({ error: 'WRONGPASS invalid or missing auth token' })],
      [400, JSON.stringify({ error: 'ERR unknown command' })],
      [500, JSON.stringify({ error: 'ERR backend failure: connect ECONNREFUSED' })],
      [502, '<html>Bad Gateway</html>'],
      [200, 'not json'],
      [200, JSON.stringify({ error: 'NOSCRIPT No matching script' })],
      [200, JSON.stringify({})],
    ];
    for (const [status, body] of cases) {
      answer(status, body);
      const theirs = await outcome(() => library().exec(['EVALSHA', 'f00', '0']));
      expect(await outcome(() => ours().exec(['EVALSHA', 'f00', '0'])), `${status} ${body}`).toEqual(theirs);
      vi.restoreAllMocks();
    }
  });

  it('sends the same request: URL, method, headers that matter, body, and the sync token back', async () => {
    const seen = answer(200, JSON.stringify({ result: 'T0s=' }));
    for (const redis of [library(), ours()]) {
      await redis.exec(['SET', 'k', 'ü']);
      await redis.exec(['GET', 'k']);
    }
    const shape = async (request: Request) => ({
      url: request.url,
      method: request.method,
      authorization: request.headers.get('authorization'),
      contentType: request.headers.get('content-type'),
      encoding: request.headers.get('upstash-encoding'),
      sync: request.headers.get('upstash-sync-token'),
      body: await request.text(),
    });
    const [theirFirst, theirSecond, ourFirst, ourSecond] = await Promise.all(seen.map(shape));
    expect(ourFirst).toEqual(theirFirst);
    expect(ourSecond).toEqual(theirSecond);
    expect(ourSecond).toMatchObject({ sync: 'sync-7', encoding: 'base64', body: '["GET","k"]' });
  });
});
