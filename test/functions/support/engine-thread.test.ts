/**
 * The local engine on its own thread (functions/support/engine-thread.ts), as `npm start` runs it:
 * script calls answered in order and batched, Redis' error replies as RedisReplyError (each to its
 * own call in a batch that mixes them with values), a blocking read woken by a write and one
 * withdrawn on the engine when its caller gives up, the data file replayed by a new thread, a start
 * that fails (the data file unreadable) reported by `ready` and by every call, and calls failing
 * once the thread is closed.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EngineThread, startEngineThread } from '../../../functions/support/engine-thread.ts';
import { RedisReplyError, RedisUnavailableError } from '../../../lib/redis/client.ts';

let dir: string;
const threads: EngineThread[] = [];
const start = (dataFile?: string) => {
  const thread = startEngineThread({ dataFile });
  threads.push(thread);
  return thread;
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'engine-thread-'));
});

afterAll(async () => {
  for (const thread of threads) await thread.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the local engine on a thread of its own', () => {
  it('answers script calls in the order they were made, errors as Redis replies', async () => {
    const { redis, ready } = start();
    await ready;
    const script = "return redis.call('INCR', KEYS[1])";
    const answers = await Promise.all(Array.from({ length: 20 }, () => redis.eval(script, ['n'], [])));
    expect(answers).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(await redis.eval("return {ARGV[1], {'OK', 2}, false}", [], ['ü 🌍'])).toEqual([
      'ü 🌍',
      ['OK', 2],
      null,
    ]);
    const noScript = redis.evalsha('0'.repeat(40), [], []);
    await expect(noScript).rejects.toBeInstanceOf(RedisReplyError);
    await expect(noScript).rejects.toThrow(/^NOSCRIPT/);
    await expect(redis.eval("return redis.error_reply('ERR custom')", [], [])).rejects.toThrow(
      new RedisReplyError('ERR custom'),
    );
  });

  it('answers each call of a batch that mixes error replies and values with its own', async () => {
    const { redis, ready } = start();
    await ready;
    const calls = Array.from({ length: 9 }, (_, i) =>
      i % 3 === 1
        ? redis.eval(`return redis.error_reply('ERR call ${i}')`, [], [])
        : redis.eval('return ARGV[1]', [], [`value ${i}`]),
    );
    const settled = await Promise.allSettled(calls);
    expect(
      settled.map((result) =>
        result.status === 'fulfilled' ? result.value : (result.reason as Error).message,
      ),
    ).toEqual(Array.from({ length: 9 }, (_, i) => (i % 3 === 1 ? `ERR call ${i}` : `value ${i}`)));
    expect(settled.filter((result) => result.status === 'rejected').map((result) => result.reason)).toEqual(
      Array.from({ length: 3 }, () => expect.any(RedisReplyError)),
    );
  });

  it('wakes a blocking read with a write, and withdraws one whose caller gave up', async () => {
    const { redis, ready } = start();
    await ready;
    const blockingRead = redis.blockingRead?.bind(redis);
    if (blockingRead === undefined) throw new Error('the engine thread has a blocking read');
    const woken = blockingRead(['s'], ['$'], 10_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await redis.eval("return redis.call('XADD', KEYS[1], '*', 'f', 'v')", ['s'], []);
    expect(await woken).toBe(true);
    expect(await blockingRead(['s'], ['$'], 20)).toBe(false);

    const controller = new AbortController();
    const started = Date.now();
    const withdrawn = blockingRead(['s'], ['$'], 10_000, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    expect(await withdrawn).toBe(false);
    expect(Date.now() - started).toBeLessThan(5000);
    // Withdrawn on the engine too: a write now reaches nobody, and the engine answers as before.
    await redis.eval("return redis.call('XADD', KEYS[1], '*', 'f', 'v')", ['s'], []);
    expect(await redis.eval("return redis.call('XLEN', KEYS[1])", ['s'], [])).toBe(2);
  });

  it('keeps its data file: a new thread replays it', async () => {
    const file = join(dir, 'engine.log');
    const first = start(file);
    await first.ready;
    expect(first.replayed).toBe(0);
    await first.redis.eval("return redis.call('SET', KEYS[1], ARGV[1])", ['kept'], ['yes']);
    await first.close();
    const second = start(file);
    await second.ready;
    expect(second.replayed).toBeGreaterThan(0);
    expect(await second.redis.eval("return redis.call('GET', KEYS[1])", ['kept'], [])).toBe('yes');
  });

  it('reports a start that failed, by `ready` and by every call', async () => {
    const unreadable = join(dir, 'a-directory');
    await mkdir(unreadable);
    const { redis, ready } = start(unreadable);
    await expect(ready).rejects.toBeInstanceOf(RedisUnavailableError);
    await expect(ready).rejects.toThrow(/^The local engine could not start: /);
    await expect(redis.eval('return 1', [], [])).rejects.toBeInstanceOf(RedisUnavailableError);
  });

  it('fails calls once closed', async () => {
    const thread = start();
    await thread.ready;
    await thread.close();
    await expect(thread.redis.eval('return 1', [], [])).rejects.toThrow('The local engine has stopped');
  });
});
