/**
 * The REST adapter (lib/redis/upstash-client.ts) on each of its transports (fetch, Node's sockets,
 * undici's pool), against the engine's REST front and against a server that holds every request: what a
 * caller's abort does to calls that share a batched request (a call that gave up before its
 * request left is not sent; a request is cancelled once every call it carries gave up, not
 * before), how Redis' answers map to the seam's errors, and that strings arrive exactly as the
 * library's own client reads them (non-ASCII, invalid UTF-8, lone surrogates, "OK").
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from '@upstash/redis/cloudflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EngineServer, startEngineServer } from '../../functions/engine-server.ts';
import {
  isNoScript,
  RedisAuthError,
  type RedisClient,
  RedisReplyError,
  RedisUnavailableError,
} from '../../lib/redis/client.ts';
import type { RestRequest, RestTransport } from '../../lib/redis/rest-requester.ts';
import { createUpstashClient } from '../../lib/redis/upstash-client.ts';
import { transportKinds } from '../support/transports.ts';

const TOKEN = 'adapter-test-token';

/** A server that answers nothing: it keeps each request and notes when its connection closes. */
interface Holding {
  readonly url: string;
  readonly held: { body: string; closed: boolean; res: ServerResponse }[];
  close(): Promise<void>;
}

async function startHolding(): Promise<Holding> {
  const held: Holding['held'] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on('end', () => {
      const entry = { body, closed: false, res };
      held.push(entry);
      res.on('close', () => {
        entry.closed = true;
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    held,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Polls `condition` every 5 ms for up to 5 s. */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const gone = (name: string) => new Error(`${name} gave up`);

for (const kind of transportKinds) {
  describe(`the REST adapter on ${kind.name}`, () => {
    let front: EngineServer;
    let holding: Holding;
    const closers: (() => Promise<void>)[] = [];

    /** The adapter on `url`, every request it sends recorded. */
    function adapter(url: string, token = TOKEN): { redis: Required<RedisClient>; sent: RestRequest[] } {
      const sent: RestRequest[] = [];
      const { transport, close } = kind.open(url);
      closers.push(close);
      const recording: RestTransport = (request) => {
        sent.push(request);
        return transport(request);
      };
      const redis = createUpstashClient({ url, token, transport: recording });
      if (redis.blockingRead === undefined) throw new Error('the REST adapter has a blocking read');
      return { redis: redis as Required<RedisClient>, sent };
    }

    beforeAll(async () => {
      front = await startEngineServer({ port: 0, token: TOKEN });
      holding = await startHolding();
    });

    afterAll(async () => {
      for (const close of closers) await close();
      await holding?.close();
      await front?.close();
    });

    it('does not send a call whose signal has already aborted', async () => {
      const { redis, sent } = adapter(front.url);
      const controller = new AbortController();
      const reason = gone('the caller');
      controller.abort(reason);
      await expect(redis.eval('return 1', [], [], { signal: controller.signal })).rejects.toBe(reason);
      await expect(redis.blockingRead(['s'], ['0-0'], 10, { signal: controller.signal })).rejects.toBe(
        reason,
      );
      expect(await redis.eval('return 2', [], [])).toBe(2);
      expect(sent.map((r) => JSON.parse(r.body))).toEqual([['eval', 'return 2', 0]]);
    });

    it('does not send a call aborted before its batch leaves', async () => {
      const { redis, sent } = adapter(front.url);
      const controller = new AbortController();
      const reason = gone('the caller');
      const call = redis.eval('return 1', [], [], { signal: controller.signal });
      // A batch leaves a microtask after its first call: this abort comes first.
      controller.abort(reason);
      await expect(call).rejects.toBe(reason);
      expect(sent).toEqual([]);
    });

    it('batches the calls of one tick into one pipeline request, in order', async () => {
      const { redis, sent } = adapter(front.url);
      const answers = await Promise.all([
        redis.eval("return 'one'", [], []),
        redis.eval("return redis.error_reply('ERR two')", [], []).catch((e: unknown) => e),
        redis.eval('return {ARGV[1], 3}', [], ['three']),
      ]);
      expect(answers).toEqual(['one', new RedisReplyError('ERR two'), ['three', 3]]);
      expect(sent.map((r) => [new URL(r.url).pathname, JSON.parse(r.body).length])).toEqual([
        ['/pipeline', 3],
      ]);
    });

    it('leaves out of its batch a call that gave up before the batch left, and answers the others', async () => {
      const { redis, sent } = adapter(front.url);
      const controller = new AbortController();
      const reason = gone('the first caller');
      const first = redis.eval('return 1', [], [], { signal: controller.signal });
      const second = redis.eval("return 'two'", [], [], { signal: new AbortController().signal });
      controller.abort(reason);
      await expect(first).rejects.toBe(reason);
      expect(await second).toBe('two');
      expect(sent.map((r) => [new URL(r.url).pathname, JSON.parse(r.body)])).toEqual([
        ['/', ['eval', "return 'two'", 0]],
      ]);
    });

    it('cancels a pipelined request once every call it carries gave up, not before', async () => {
      const { redis } = adapter(holding.url);
      const a = new AbortController();
      const b = new AbortController();
      const first = redis.eval('return 1', [], [], { signal: a.signal });
      const second = redis.eval('return 2', [], [], { signal: b.signal });
      await until(() => holding.held.length === 1, 'the request arrived');
      const request = holding.held[0] as Holding['held'][number];
      expect(JSON.parse(request.body)).toHaveLength(2);
      a.abort(gone('a'));
      await expect(first).rejects.toThrow('a gave up');
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(request.closed).toBe(false);
      b.abort(gone('b'));
      await expect(second).rejects.toThrow('b gave up');
      await until(() => request.closed, 'the request was cancelled');
    });

    it("cancels a blocking read's request when its caller gives up", async () => {
      const { redis } = adapter(holding.url);
      const controller = new AbortController();
      const before = holding.held.length;
      const read = redis.blockingRead(['s'], ['0-0'], 10_000, {
        signal: controller.signal,
      });
      await until(() => holding.held.length === before + 1, 'the read arrived');
      const request = holding.held[before] as Holding['held'][number];
      expect(JSON.parse(request.body)).toEqual([
        'XREAD',
        'COUNT',
        '1',
        'BLOCK',
        '10000',
        'STREAMS',
        's',
        '0-0',
      ]);
      controller.abort(gone('the long poll'));
      await expect(read).rejects.toThrow('the long poll gave up');
      await until(() => request.closed, 'the read was cancelled');
    });

    it("maps Redis' answers to the seam's errors", async () => {
      const { redis } = adapter(front.url);
      const noScript = await redis.evalsha('0'.repeat(40), [], []).catch((e: unknown) => e);
      expect(noScript).toBeInstanceOf(RedisReplyError);
      expect(isNoScript(noScript)).toBe(true);
      await expect(redis.eval("return redis.error_reply('ERR custom')", [], [])).rejects.toThrow(
        new RedisReplyError('ERR custom'),
      );
      await expect(adapter(front.url, 'a-wrong-token').redis.eval('return 1', [], [])).rejects.toBeInstanceOf(
        RedisAuthError,
      );
      const { port } = new URL(holding.url);
      await holding.close();
      await expect(adapter(`http://127.0.0.1:${port}`).redis.eval('return 1', [], [])).rejects.toBeInstanceOf(
        RedisUnavailableError,
      );
      holding = await startHolding();
    });

    it("reads every string exactly as the library's own client does", async () => {
      const { redis } = adapter(front.url);
      const library = new Redis({ url: front.url, token: TOKEN, automaticDeserialization: false });
      const script = `return { 'plain', 'ü 🌍', string.char(255, 254, 65), ARGV[1], 'OK', { 'OK', 'x', { 'OK' } }, 42 }`;
      const args = ['lone \ud800 surrogate'];
      const ours = await redis.eval(script, [], args);
      expect(ours).toEqual(await library.eval(script, [], args));
      expect(ours).toEqual([
        'plain',
        'ü 🌍',
        '\ufffd\ufffdA',
        // JSON carries the lone surrogate escaped; the front stores its UTF-8 replacement.
        'lone \ufffd surrogate',
        'OK',
        ['OK', 'x', ['OK']],
        42,
      ]);
      // A reply that is "OK" itself stays "OK" (a status reply).
      expect(await redis.eval("return redis.status_reply('OK')", [], [])).toBe('OK');
    });
  });
}
