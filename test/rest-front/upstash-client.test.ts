/**
 * The real `@upstash/redis` client against the real HTTP server (`startEngineServer` on a random
 * port), once on the in-memory engine and once forwarding to the real Redis (ENGINE_REDIS_URL
 * mode), each on four requesters: the library's own (fetch), and ours (lib/redis/rest-requester.ts)
 * on fetch (Workers, Deno), on Node's sockets (what Node runs) and on undici's pool. The same assertions run on all: whatever
 * the client sees must depend neither on the backend nor on the requester.
 */
import { randomUUID } from 'node:crypto';
import type { Redis, RedisConfigNodejs } from '@upstash/redis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type EngineServer, startEngineServer } from '../../functions/engine-server.ts';
import { REDIS_URL, redisAvailable } from '../support/redis.ts';
import { type RequesterKind, requesterKinds } from './requesters.ts';

const TOKEN = 'client-test-token';

const backends = [
  { name: 'the in-memory engine', redisUrl: undefined, skip: false },
  { name: 'a real Redis (ENGINE_REDIS_URL)', redisUrl: REDIS_URL, skip: !redisAvailable },
];

const suites = backends.flatMap((backend) => requesterKinds.map((requester) => ({ backend, requester })));

for (const { backend, requester } of suites) {
  describe.skipIf(backend.skip)(
    `@upstash/redis on ${requester.name} through the REST front on ${backend.name}`,
    () => {
      let server: EngineServer;
      let kind: ReturnType<RequesterKind['open']>;
      const created: string[] = [];

      /** A key no other test (or parallel test file) uses; removed after the suite. */
      function key(name: string): string {
        const k = `rest-front:${randomUUID()}:${name}`;
        created.push(k);
        return k;
      }

      function client(options: Partial<RedisConfigNodejs> = {}): Redis {
        return kind.client({ url: server.url, token: TOKEN, enableTelemetry: false, ...options });
      }

      /** The paths of the requests sent since the test began. */
      const paths = () => kind.sent.map((url) => new URL(url).pathname);

      /** Exact strings, base64 on (the client's default), auto-pipelining on (the default). */
      function exactClient(options: Partial<RedisConfigNodejs> = {}): Redis {
        return client({ automaticDeserialization: false, ...options });
      }

      beforeAll(async () => {
        server = await startEngineServer({ port: 0, token: TOKEN, redisUrl: backend.redisUrl });
        kind = requester.open();
      });

      afterAll(async () => {
        if (server === undefined) return;
        if (created.length > 0) {
          await exactClient({ enableAutoPipelining: false })
            .del(...created)
            .catch(() => {});
        }
        await server.close();
        await kind.close();
      });

      afterEach(() => {
        vi.restoreAllMocks();
        kind.sent.length = 0;
      });

      it('drives every stream command with exact strings through auto-pipelining and base64', async () => {
        const redis = exactClient({ enableAutoPipelining: true });
        const s = key('stream');
        const id1 = await redis.xadd(s, '*', { f: 'v1' });
        const id2 = await redis.xadd(s, '*', { f: 'v2' });
        const id3 = await redis.xadd(s, '*', { f: 'v3', n: 'ü 🌍' });
        expect(id1).toMatch(/^\d+-\d+$/);
        expect([id1, id2, id3]).toEqual([...new Set([id1, id2, id3])].sort(compareIds));
        expect(await redis.xlen(s)).toBe(3);

        expect(await redis.xgroup(s, { type: 'CREATE', group: 'g', id: '0' })).toBe('OK');
        expect(await redis.xgroup(s, { type: 'CREATECONSUMER', group: 'g', consumer: 'c0' })).toBe(1);
        expect(await redis.xreadgroup('g', 'c1', s, '>', { count: 2 })).toEqual([
          [
            s,
            [
              [id1, ['f', 'v1']],
              [id2, ['f', 'v2']],
            ],
          ],
        ]);
        expect(await redis.xpending(s, 'g', '-', '+', 10)).toEqual([
          [id1, 'c1', expect.any(Number), 1],
          [id2, 'c1', expect.any(Number), 1],
        ]);
        expect(await redis.xpending(s, 'g', '-', '+', 10, { consumer: 'c0' })).toEqual([]);
        expect(await redis.xack(s, 'g', id1)).toBe(1);
        expect(await redis.xack(s, 'g', [id1, id2, id3])).toBe(1);
        expect(await redis.xreadgroup('g', 'c1', s, '>')).toEqual([[s, [[id3, ['f', 'v3', 'n', 'ü 🌍']]]]]);

        expect(await redis.xclaim(s, 'g', 'c2', 0, id3)).toEqual([[id3, ['f', 'v3', 'n', 'ü 🌍']]]);
        expect(await redis.xclaim(s, 'g', 'c2', 0, [id3], { justId: true, retryCount: 5 })).toEqual([id3]);
        expect(await redis.xpending(s, 'g', '-', '+', 10)).toEqual([[id3, 'c2', expect.any(Number), 5]]);
        expect(await redis.xautoclaim(s, 'g', 'c3', 0, '0-0', { count: 10 })).toEqual([
          '0-0',
          [[id3, ['f', 'v3', 'n', 'ü 🌍']]],
          [],
        ]);
        expect(await redis.xautoclaim(s, 'g', 'c3', 0, '0-0', { justId: true })).toEqual(['0-0', [id3], []]);

        expect(await redis.xinfo(s, { type: 'GROUPS' })).toEqual([
          ['name', 'g', 'consumers', 4, 'pending', 1, 'last-delivered-id', id3, 'entries-read', 3, 'lag', 0],
        ]);
        const consumers = (await redis.xinfo(s, { type: 'CONSUMERS', group: 'g' })) as unknown[][];
        expect(consumers.map((c) => [c[0], c[1], c[2], c[3], c[4]])).toEqual([
          ['name', 'c0', 'pending', 0, 'idle'],
          ['name', 'c1', 'pending', 0, 'idle'],
          ['name', 'c2', 'pending', 0, 'idle'],
          ['name', 'c3', 'pending', 1, 'idle'],
        ]);

        expect(await redis.xrange(s, '-', '+')).toEqual([
          [id1, ['f', 'v1']],
          [id2, ['f', 'v2']],
          [id3, ['f', 'v3', 'n', 'ü 🌍']],
        ]);
        expect(await redis.xrange(s, `(${id1}`, '+', 1)).toEqual([[id2, ['f', 'v2']]]);
        expect(await redis.xrevrange(s, '+', '-', 2)).toEqual([
          [id3, ['f', 'v3', 'n', 'ü 🌍']],
          [id2, ['f', 'v2']],
        ]);
        expect(await redis.xread(s, id2)).toEqual([[s, [[id3, ['f', 'v3', 'n', 'ü 🌍']]]]]);
        expect(await redis.xread([s, key('absent')], ['0-0', '0-0'], { count: 1 })).toEqual([
          [s, [[id1, ['f', 'v1']]]],
        ]);
        expect(await redis.xdel(s, id2)).toBe(1);
        expect(await redis.xdel(s, [id2, '1-1'])).toBe(0);
        expect(await redis.xtrim(s, { strategy: 'MAXLEN', exactness: '=', threshold: 1 })).toBe(1);
        expect(await redis.xlen(s)).toBe(1);
        expect(await redis.xrange(s, '-', '+')).toEqual([[id3, ['f', 'v3', 'n', 'ü 🌍']]]);

        expect(await redis.xgroup(s, { type: 'SETID', group: 'g', id: '0' })).toBe('OK');
        expect(await redis.xgroup(s, { type: 'DELCONSUMER', group: 'g', consumer: 'c3' })).toBe(1);
        expect(await redis.xgroup(s, { type: 'DESTROY', group: 'g' })).toBe(1);
        expect(await redis.xinfo(s, { type: 'GROUPS' })).toEqual([]);

        const sent = paths();
        expect(sent.length).toBeGreaterThan(0);
        // xrange goes straight to `/`; every other stream command goes through auto-pipelining.
        expect(sent.filter((p) => p === '/pipeline').length).toBeGreaterThan(20);
        expect(sent.every((p) => p === '/pipeline' || p === '/')).toBe(true);
      });

      it('batches concurrent calls into few pipeline requests and keeps their order', async () => {
        const redis = exactClient();
        const s = key('batched');
        const ids = await Promise.all(
          Array.from({ length: 50 }, (_, i) => redis.xadd(s, '*', { i: String(i) })),
        );
        expect(ids).toEqual([...ids].sort(compareIds));
        expect(new Set(ids).size).toBe(50);
        expect(paths()).toEqual(['/pipeline']);
        const entries = (await redis.xrange(s, '-', '+')) as unknown as [string, string[]][];
        expect(entries.map(([id, fields]) => [id, fields[1]])).toEqual(ids.map((id, i) => [id, String(i)]));
      });

      it('sends one request per command without auto-pipelining', async () => {
        const redis = exactClient({ enableAutoPipelining: false });
        const s = key('single');
        const id = await redis.xadd(
          s,
          '*',
          { a: '1' },
          { trim: { type: 'MAXLEN', comparison: '=', threshold: 5 } },
        );
        expect(await redis.xgroup(s, { type: 'CREATE', group: 'g', id: '0' })).toBe('OK');
        expect(await redis.xreadgroup('g', 'c', s, '>', { count: 10 })).toEqual([[s, [[id, ['a', '1']]]]]);
        expect(await redis.xpending(s, 'g', '-', '+', 10)).toEqual([[id, 'c', expect.any(Number), 1]]);
        expect(await redis.xack(s, 'g', id)).toBe(1);
        expect(await redis.xreadgroup('g', 'c', s, '>')).toBeNull();
        expect(await redis.xlen(s)).toBe(1);
      });

      it('deserialises values with the default settings', async () => {
        const redis = client();
        const s = key('default');
        const id = await redis.xadd(s, '*', { n: 42, text: 'hello', obj: { a: 1 }, flag: true });
        expect(await redis.xrange(s, '-', '+')).toEqual({
          [id]: { n: 42, text: 'hello', obj: { a: 1 }, flag: true },
        });
        await redis.xgroup(s, { type: 'CREATE', group: 'g', id: '0' });
        expect(await redis.xreadgroup('g', 'c', s, '>')).toEqual([
          [s, [[id, ['n', 42, 'text', 'hello', 'obj', { a: 1 }, 'flag', true]]]],
        ]);
        expect(await redis.xlen(s)).toBe(1);
      });

      it('reads the same strings with base64 off', async () => {
        const redis = exactClient({ responseEncoding: false });
        const s = key('plain');
        const id = await redis.xadd(s, '*', { k: 'ü 🌍', ok: 'OK' });
        expect(await redis.xrange(s, '-', '+')).toEqual([[id, ['k', 'ü 🌍', 'ok', 'OK']]]);
      });

      it('runs a transaction from multi() and reports Redis errors with their text', async () => {
        const redis = exactClient();
        const s = key('tx');
        const results = await redis.multi().xadd(s, '5-1', { a: '1' }).xlen(s).xrange(s, '-', '+').exec();
        expect(results).toEqual(['5-1', 1, [['5-1', ['a', '1']]]]);
        await expect(redis.xadd(s, '5-1', { a: '2' })).rejects.toThrow(
          'ERR The ID specified in XADD is equal or smaller than the target stream top item',
        );
        await expect(redis.xreadgroup('nogroup', 'c', s, '>')).rejects.toThrow(
          `NOGROUP No such key '${s}' or consumer group 'nogroup' in XREADGROUP with GROUP option`,
        );
      });

      it('runs concurrent transactions atomically', async () => {
        const counter = key('counter');
        const post = (path: string, body: unknown) =>
          fetch(`${server.url}${path}`, {
            method: 'POST',
            headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
            body: JSON.stringify(body),
          }).then(async (res) => ({ status: res.status, json: (await res.json()) as unknown }));
        const transactions = Array.from({ length: 20 }, () =>
          post('/multi-exec', [
            ['INCR', counter],
            ['INCR', counter],
            ['INCR', counter],
          ]),
        );
        const singles = Array.from({ length: 20 }, () => post('/', ['INCR', counter]));
        const replies = await Promise.all(transactions);
        await Promise.all(singles);
        for (const reply of replies) {
          expect(reply.status).toBe(200);
          const [a, b, c] = (reply.json as { result: number }[]).map((item) => item.result);
          expect([b, c]).toEqual([(a ?? 0) + 1, (a ?? 0) + 2]);
        }
        expect(await post('/', ['GET', counter])).toEqual({ status: 200, json: { result: '80' } });
        const aborted = await post('/multi-exec', [['INCR', counter], ['NOSUCHCOMMAND']]);
        expect(aborted).toEqual({
          status: 400,
          json: { error: 'EXECABORT Transaction discarded because of previous errors.' },
        });
        expect(await post('/', ['GET', counter])).toEqual({ status: 200, json: { result: '80' } });
      });

      it('wakes a blocked XREADGROUP when an entry arrives while other requests keep being answered', async () => {
        const redis = exactClient({ enableAutoPipelining: false });
        const s = key('blocking');
        await redis.xgroup(s, { type: 'CREATE', group: 'g', id: '$', options: { MKSTREAM: true } });
        const blocked = redis.xreadgroup('g', 'c', s, '>', { blockMS: 0 });
        for (let i = 0; i < 5; i++) expect(await redis.xlen(s)).toBe(0);
        const id = await redis.xadd(s, '*', { woke: 'yes' });
        expect(await blocked).toEqual([[s, [[id, ['woke', 'yes']]]]]);
        expect(await redis.xpending(s, 'g', '-', '+', 10)).toEqual([[id, 'c', expect.any(Number), 1]]);
      });
    },
  );
}

/** Stream IDs compared numerically (ms, then sequence), as Redis orders them. */
function compareIds(a: string, b: string): number {
  const [am = 0n, as = 0n] = a.split('-').map(BigInt);
  const [bm = 0n, bs = 0n] = b.split('-').map(BigInt);
  return am === bm ? Number(as - bs) : Number(am - bm);
}
