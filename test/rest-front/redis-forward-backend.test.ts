/**
 * The ENGINE_REDIS_URL backend against the real Redis: reply conversion, refusal of commands
 * that would change the shared connection, blocking calls on their own connection, failures.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createRedisForwardBackend,
  type RedisForwardBackend,
} from '../../functions/support/redis-forward-backend.ts';
import { RedisError } from '../../lib/engine/reply.ts';
import { createRestFront } from '../../lib/rest-front/app.ts';
import { REDIS_URL, redisAvailable } from '../support/redis.ts';
import { post, TOKEN } from './request.ts';

describe.skipIf(!redisAvailable)('the Redis forwarding backend', () => {
  let backend: RedisForwardBackend;
  const created: string[] = [];

  function key(name: string): string {
    const k = `rest-front:${randomUUID()}:${name}`;
    created.push(k);
    return k;
  }

  beforeAll(() => {
    backend = createRedisForwardBackend(REDIS_URL);
  });

  afterAll(async () => {
    if (created.length > 0) await backend.call(['DEL', ...created]);
    await backend.close();
  });

  it('converts replies: bulk and status strings, integers, nil and nested arrays', async () => {
    const h = key('hash');
    expect(await backend.call(['SET', key('s'), 'v'])).toBe('OK');
    expect(await backend.call(['HSET', h, 'a', '1', 'b', '2'])).toBe(2);
    expect(await backend.call(['GET', key('missing')])).toBeNull();
    expect(await backend.call(['XADD', key('x'), '1-1', 'f', 'v'])).toBe('1-1');
  });

  it('returns HGETALL as the flat array Redis sends, not an object', async () => {
    const h = key('hash');
    await backend.call(['HSET', h, 'a', '1', 'b', '2']);
    expect(await backend.call(['hgetall', h])).toEqual(['a', '1', 'b', '2']);
  });

  it('answers Redis errors as RedisError values, nested ones included', async () => {
    const reply = await backend.call(['XADD', key('x'), '0-0', 'f', 'v']);
    expect(reply).toEqual(new RedisError('ERR The ID specified in XADD must be greater than 0-0'));
    expect(await backend.call(['EVAL', "return {1, redis.error_reply('boom')}", '0'])).toEqual([
      1,
      new RedisError('ERR boom'),
    ]);
  });

  it('refuses commands that would change the shared connection, and aborts transactions holding them', async () => {
    for (const argv of [
      ['MULTI'],
      ['SELECT', '1'],
      ['WATCH', 'k'],
      ['SUBSCRIBE', 'c'],
      ['client', 'reply', 'off'],
    ]) {
      const reply = await backend.call(argv);
      expect(reply).toBeInstanceOf(RedisError);
      expect((reply as RedisError).message).toMatch(
        /changes connection state and is not available over REST/,
      );
    }
    const counter = key('counter');
    expect(
      await backend.exec([
        ['INCR', counter],
        ['SELECT', '2'],
      ]),
    ).toEqual(new RedisError('EXECABORT Transaction discarded because of previous errors.'));
    expect(await backend.call(['GET', counter])).toBeNull();
    // The shared connection is still in database 0 and not inside a MULTI.
    expect(await backend.exec([['INCR', counter]])).toEqual([1]);
  });

  it('runs a transaction with per-command errors and aborts on a queue-time error', async () => {
    const s = key('s');
    expect(
      await backend.exec([
        ['SET', s, 'v'],
        ['INCR', s],
        ['GET', s],
      ]),
    ).toEqual(['OK', new RedisError('ERR value is not an integer or out of range'), 'v']);
    expect(await backend.exec([['SET', s, 'w'], ['NOSUCH']])).toEqual(
      new RedisError('EXECABORT Transaction discarded because of previous errors.'),
    );
    expect(await backend.call(['GET', s])).toBe('v');
  });

  /** Polls CLIENT LIST (over the shared connection) until `done` holds for this backend's blocked clients. */
  async function waitForBlocked(done: (blockedCount: number) => boolean): Promise<boolean> {
    // Bounded by time, not by a count: on a loaded machine a new connection takes a while.
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const list = await backend.call(['CLIENT', 'LIST']);
      if (typeof list !== 'string') throw new Error('CLIENT LIST did not answer a string');
      const blocked = list
        .split('\n')
        .filter((line) => line.includes(` name=${backend.blockingClientName} `) && /\bflags=b\b/.test(line));
      if (done(blocked.length)) return true;
    }
    return false;
  }

  it('parks a blocking XREAD on its own connection while other commands keep flowing', async () => {
    const s = key('blocked');
    const blocked = backend.call(['XREAD', 'BLOCK', '0', 'STREAMS', s, '0-0']);
    // Each poll goes through the shared connection: had the XREAD taken it, this would hang.
    expect(await waitForBlocked((count) => count === 1)).toBe(true);
    expect(await backend.call(['PING'])).toBe('PONG');
    expect(await backend.call(['XLEN', s])).toBe(0);
    expect(await backend.call(['XADD', s, '7-1', 'k', 'v'])).toBe('7-1');
    expect(await blocked).toEqual([[s, [['7-1', ['k', 'v']]]]]);
    expect(await waitForBlocked((count) => count === 0)).toBe(true);
  });

  it('drops a blocked XREADGROUP whose request was aborted, delivering nothing to it', async () => {
    const s = key('aborted');
    expect(await backend.call(['XGROUP', 'CREATE', s, 'g', '$', 'MKSTREAM'])).toBe('OK');
    const abort = new AbortController();
    const blocked = backend.call(['XREADGROUP', 'GROUP', 'g', 'c', 'BLOCK', '0', 'STREAMS', s, '>'], {
      signal: abort.signal,
    });
    expect(await waitForBlocked((count) => count === 1)).toBe(true);
    abort.abort();
    await expect(blocked).rejects.toThrow();
    expect(await waitForBlocked((count) => count === 0)).toBe(true);
    expect(await backend.call(['XADD', s, '1-1', 'k', 'v'])).toBe('1-1');
    expect(await backend.call(['XPENDING', s, 'g'])).toEqual([0, null, null, null]);
    // A fresh blocking call still works after the dropped one.
    expect(await backend.call(['XREADGROUP', 'GROUP', 'g', 'c', 'BLOCK', '0', 'STREAMS', s, '>'])).toEqual([
      [s, [['1-1', ['k', 'v']]]],
    ]);
  });

  it('fails the request with a 500 when Redis cannot be reached, and the front keeps serving', async () => {
    const unreachable = createRedisForwardBackend('redis://127.0.0.1:1');
    try {
      await expect(unreachable.call(['PING'])).rejects.toThrow();
      const app = createRestFront({ backend: unreachable, token: TOKEN });
      const res = await post(app, ['PING']);
      expect(res.status).toBe(500);
      expect(res.json).toEqual({ error: expect.stringMatching(/^ERR backend failure: /) });
      expect((await post(app, ['PING'], { token: 'wrong' })).status).toBe(401);
    } finally {
      await unreachable.close();
    }
  });
});
