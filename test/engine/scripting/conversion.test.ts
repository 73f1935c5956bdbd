import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../../lib/clock.ts';
import { createEngine } from '../../../lib/engine/engine.ts';
import { RedisError, type Reply, StatusReply } from '../../../lib/engine/reply.ts';

function evalOn(script: string, keys: string[] = [], args: string[] = []): Reply {
  const engine = createEngine({ clock: createManualClock() });
  return engine.callSync(['EVAL', script, String(keys.length), ...keys, ...args]);
}

describe('Lua → reply conversion', () => {
  it('turns a Lua number into an integer reply, truncating toward zero', () => {
    expect(evalOn('return 3.99')).toBe(3);
    expect(evalOn('return -3.99')).toBe(-3);
    expect(evalOn('return 42')).toBe(42);
  });

  it('turns a Lua string into a bulk reply, bytes intact', () => {
    expect(evalOn("return 'héllo\\0world'")).toBe('héllo\u0000world');
  });

  it('carries strings of every length and byte both ways: ASCII, UTF-8 and NUL, short and long', () => {
    const texts = [
      '',
      'a',
      'é',
      '\u0000',
      'a'.repeat(63),
      'a'.repeat(64),
      'a'.repeat(65),
      `${'a'.repeat(63)}é`,
    ];
    texts.push(
      `é${'a'.repeat(70)}`,
      `${'a'.repeat(40)}日本${'b'.repeat(30)}`,
      '😀',
      `x\u0000${'y'.repeat(62)}`,
    );
    // Each ARGV string is pushed to Lua, measured there, and read back: a key, a field and a reply.
    const script =
      "redis.call('HSET', KEYS[1], ARGV[1], ARGV[1]); return {#ARGV[1], redis.call('HGET', KEYS[1], ARGV[1]), ARGV[1]}";
    for (const text of texts) {
      expect(evalOn(script, [`k${text}`], [text])).toEqual([Buffer.byteLength(text), text, text]);
    }
  });

  it('turns true into 1 and false and nil into a nil reply', () => {
    expect(evalOn('return true')).toBe(1);
    expect(evalOn('return false')).toBeNull();
    expect(evalOn('return nil')).toBeNull();
    expect(evalOn('local x = 1')).toBeNull();
  });

  it('turns a table into an array that stops at its first nil', () => {
    expect(evalOn("return {1, 'two', 3.5, nil, 5}")).toEqual([1, 'two', 3]);
    expect(evalOn('return {}')).toEqual([]);
    expect(evalOn("return {1, {2, {'x'}}, true, false, 'after'}")).toEqual([1, [2, ['x']], 1, null, 'after']);
  });

  it('turns {ok=...} into a status reply and {err=...} into an error reply', () => {
    expect(evalOn("return {ok='FINE'}")).toEqual(new StatusReply('FINE'));
    expect(evalOn("return redis.status_reply('DONE')")).toEqual(new StatusReply('DONE'));
    const error = evalOn("return {err='MYERR went wrong'}");
    expect(error).toBeInstanceOf(RedisError);
    expect((error as RedisError).message).toBe('MYERR went wrong');
    expect((evalOn("return redis.error_reply('my err')") as RedisError).message).toBe('my err');
  });

  it('ignores ok/err fields that are not strings and reads the table as an array', () => {
    expect(evalOn('return {err=3}')).toEqual([]);
    expect(evalOn('return {1, 2, ok={}}')).toEqual([1, 2]);
  });

  it('prefers err over ok, and an error inside an array stays an error element', () => {
    expect((evalOn("return {ok='a', err='ERR b'}") as RedisError).message).toBe('ERR b');
    const reply = evalOn("return {1, {err='ERR inner'}}") as Reply[];
    expect(reply[0]).toBe(1);
    expect((reply[1] as RedisError).message).toBe('ERR inner');
  });

  it('renders {double=...} as its %.17g text', () => {
    expect(evalOn('return {double=3.14}')).toBe('3.1400000000000001');
  });

  it('returns only the first of several return values', () => {
    expect(evalOn("return 'a', 'b'")).toBe('a');
  });

  it('answers nil for functions and other values with no reply form', () => {
    expect(evalOn('return function() end')).toBeNull();
  });
});

describe('reply → Lua conversion (what redis.call returns)', () => {
  it('hands integer replies to Lua as integers that print without a decimal point', () => {
    expect(
      evalOn(
        "redis.call('set', KEYS[1], '41'); local n = redis.call('incr', KEYS[1]); return {type(n), tostring(n), math.type(n)}",
        ['k'],
      ),
    ).toEqual(['number', '42', 'integer']);
  });

  it('hands bulk replies to Lua as strings and a nil bulk as false', () => {
    expect(
      evalOn("redis.call('set', KEYS[1], 'v'); local v = redis.call('get', KEYS[1]); return {type(v), v}", [
        'k',
      ]),
    ).toEqual(['string', 'v']);
    expect(
      evalOn("local v = redis.call('get', KEYS[1]); return {type(v), tostring(v)}", ['missing']),
    ).toEqual(['boolean', 'false']);
  });

  it('hands a status reply to Lua as a table with an ok field', () => {
    expect(evalOn("local r = redis.call('set', KEYS[1], 'v'); return {type(r), r.ok}", ['k'])).toEqual([
      'table',
      'OK',
    ]);
    expect(evalOn("return redis.call('ping')")).toEqual(new StatusReply('PONG'));
  });

  it('hands an error reply to redis.pcall as a table with an err field', () => {
    expect(
      evalOn(
        "redis.call('set', KEYS[1], 'x'); local r = redis.pcall('incr', KEYS[1]); return {type(r), r.err}",
        ['k'],
      ),
    ).toEqual(['table', 'ERR value is not an integer or out of range']);
  });

  it('hands array replies to Lua as tables, with nil elements as false', () => {
    expect(
      evalOn(
        "redis.call('set', KEYS[1], 'a'); local r = redis.call('mget', KEYS[1], KEYS[2]); return {#r, r[1], tostring(r[2])}",
        ['k1', 'k2'],
      ),
    ).toEqual([2, 'a', 'false']);
  });

  it('passes numbers to redis.call as Redis 7 does (%.17g), not as Lua 5.4 prints them', () => {
    expect(
      evalOn(
        "return {redis.call('echo', 3.0), redis.call('echo', 3.5), redis.call('echo', 0.1), redis.call('echo', 1e20)}",
      ),
    ).toEqual(['3', '3.5', '0.10000000000000001', '1e+20']);
    expect(evalOn("return redis.call('echo', 123456789012345678)")).toBe('1.2345678901234568e+17');
  });

  it('round-trips nested arrays from redis.call back into the reply unchanged', () => {
    expect(evalOn("return redis.call('time')")).toEqual(['1700000000', '0']);
  });
});
