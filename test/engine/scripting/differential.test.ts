/**
 * The same scripts run by EVAL on the engine and on the real redis-server, replies and the
 * resulting state compared step by step (test/support/differential.ts): strings, hashes, sorted
 * sets and streams with consumer groups, Redis' conversion rules on the wire, and script errors.
 * Never put a script that does not end here: the real server is shared.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareScenario, connectServer, createRandom, type Scenario } from '../../support/differential.ts';
import { REDIS_URL, redisAvailable } from '../../support/redis.ts';
import type { RespClient } from '../../support/resp-client.ts';

const EVAL = (script: string, keys: readonly string[], ...args: string[]): string[] => [
  'EVAL',
  script,
  String(keys.length),
  ...keys,
  ...args,
];

/**
 * The stream-group commands are landing in the engine separately; until every one the queue
 * scenario uses answers something other than "unknown command", that scenario waits for them.
 */
/** A random Lua value literal: numbers (integers and floats), strings, booleans, nil, nested tables. */
function luaLiteral(random: ReturnType<typeof createRandom>, depth = 0): string {
  const kind = random.int(depth > 2 ? 5 : 8);
  switch (kind) {
    case 0:
      return String(random.int(2_000_001) - 1_000_000);
    case 1:
      return String((random.int(2_000_001) - 1_000_000) / random.pick([2, 3, 4, 7, 1000, 1e6]));
    case 2:
      return `'${Array.from({ length: random.int(6) }, () => random.pick([...'abcXYZ019 _-/'])).join('')}'`;
    case 3:
      return random.pick(['true', 'false', 'nil']);
    case 4:
      return random.pick(['1e14', '-0.0', '0.1', '123456.789', '2^40', '-2^31', '1/3']);
    case 5:
      return `{${Array.from({ length: random.int(5) }, () => luaLiteral(random, depth + 1)).join(', ')}}`;
    case 6:
      return random.pick([
        `{ok='S${random.int(9)}'}`,
        `{err='E${random.int(9)} x'}`,
        `{double=${luaLiteral(random, 3)}}`,
      ]);
    default:
      return `{${luaLiteral(random, depth + 1)}, nil, ${luaLiteral(random, depth + 1)}}`;
  }
}

describe.skipIf(!redisAvailable)('scripts answer and change data exactly like Redis 7.0', () => {
  let server: RespClient;
  beforeAll(async () => {
    server = await connectServer(REDIS_URL);
  });
  afterAll(async () => {
    await server.close();
  });

  const same = async (scenario: Scenario) => {
    expect(await compareScenario(server, scenario)).toEqual([]);
  };

  it('converts every Lua value the way Redis does', () =>
    same(() => [
      EVAL("return {1, 'two', 3.99, -3.99, true, false, 'after false'}", []),
      EVAL("return {1, nil, 'hidden'}", []),
      EVAL("return {ok='FINE'}", []),
      EVAL("return {err='MYERR custom'}", []),
      EVAL("return {1, {err='ERR nested'}, {ok='NESTED'}}", []),
      EVAL("return redis.status_reply('DONE')", []),
      EVAL("return redis.error_reply('ERR made up')", []),
      EVAL('return {double=3.14}', []),
      EVAL("return {err=3, 'x'}", []),
      EVAL("return {{}, {{}}, ''}", []),
      EVAL('return 1e15', []),
      EVAL("return 'a', 'b'", []),
    ]));

  it('converts random nested Lua values, and random numbers passed to redis.call, like Redis', () =>
    same(() => {
      const random = createRandom(20260701);
      const steps: string[][] = [];
      for (let i = 0; i < 60; i++) steps.push(EVAL(`return ${luaLiteral(random)}`, []));
      for (let i = 0; i < 30; i++) {
        const number = random.pick([
          String(random.int(2_000_001) - 1_000_000),
          `${random.int(100_000)} / ${random.pick([3, 7, 9, 1000, 1e7])}`,
          `${random.int(1000)} * 10^${random.int(25)}`,
          `-${random.int(1000)} / 10^${random.int(12)}`,
        ]);
        steps.push(EVAL(`return redis.call('echo', ${number})`, []));
      }
      return steps;
    }));

  it('converts every reply type handed to Lua the way Redis does', () =>
    same((k) => [
      EVAL(
        "local s = redis.call('set', KEYS[1], '10') local n = redis.call('incr', KEYS[1]) local b = redis.call('get', KEYS[1]) local m = redis.call('get', KEYS[2]) return {type(s), s.ok, type(n), n, type(b), b, type(m), tostring(m)}",
        [k('n'), k('missing')],
      ),
      EVAL("local r = redis.call('mget', KEYS[1], KEYS[2]) return {#r, r[1], tostring(r[2])}", [
        k('n'),
        k('missing'),
      ]),
      EVAL("redis.call('set', KEYS[1], 'text') local e = redis.pcall('incr', KEYS[1]) return e", [k('text')]),
      EVAL(
        "return {redis.call('set', KEYS[1], 3.0), redis.call('get', KEYS[1]), redis.call('set', KEYS[1], 0.1), redis.call('get', KEYS[1]), redis.call('set', KEYS[1], 1e20), redis.call('get', KEYS[1])}",
        [k('num')],
      ),
      EVAL("return tostring(2.5) .. ' ' .. tostring(7)", []),
    ]));

  it('runs string and hash scripts to the same replies and state', () =>
    same((k) => [
      ['HSET', k('h'), 'name', 'Ada', 'visits', '1'],
      EVAL(
        "local v = redis.call('hincrby', KEYS[1], 'visits', ARGV[1]) redis.call('hset', KEYS[1], 'last', ARGV[2]) redis.call('hdel', KEYS[1], 'name') return {v, redis.call('hgetall', KEYS[1])}",
        [k('h')],
        '5',
        'now',
      ),
      ['HGETALL', k('h')],
      EVAL(
        "if redis.call('setnx', KEYS[1], ARGV[1]) == 1 then return 'set' end return redis.call('get', KEYS[1])",
        [k('lock')],
        'owner-1',
      ),
      EVAL(
        "if redis.call('setnx', KEYS[1], ARGV[1]) == 1 then return 'set' end return redis.call('get', KEYS[1])",
        [k('lock')],
        'owner-2',
      ),
      EVAL(
        "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0",
        [k('lock')],
        'owner-1',
      ),
      ['EXISTS', k('lock')],
      EVAL(
        "local t = cjson.decode(ARGV[1]) redis.call('hset', KEYS[1], 'first', t[1], 'count', #t) return cjson.encode({t[2], t[3], 'a/b', {1, 2}})",
        [k('json')],
        '["x", 2, [true, false]]',
      ),
      ['HGETALL', k('json')],
    ]));

  it('runs sorted-set scripts to the same replies and state', () =>
    same((k) => [
      EVAL(
        "for i = 1, #ARGV do redis.call('zadd', KEYS[1], i * 1.5, ARGV[i]) end return redis.call('zrange', KEYS[1], 0, -1, 'WITHSCORES')",
        [k('z')],
        'a',
        'b',
        'c',
      ),
      EVAL(
        "local s = redis.call('zincrby', KEYS[1], 0.25, 'a') local n = tonumber(s) return {s, n, redis.call('zscore', KEYS[1], 'b'), redis.call('zcard', KEYS[1])}",
        [k('z')],
      ),
      EVAL(
        "local due = redis.call('zrangebyscore', KEYS[1], '-inf', ARGV[1]) for _, m in ipairs(due) do redis.call('zrem', KEYS[1], m) end return due",
        [k('z')],
        '3',
      ),
      ['ZRANGE', k('z'), '0', '-1', 'WITHSCORES'],
    ]));

  it('runs a small queue on a stream with a consumer group to the same replies and state', () =>
    same((k) => [
      EVAL(
        "redis.call('xgroup', 'create', KEYS[1], 'g', '0', 'MKSTREAM') for i = 1, #ARGV do redis.call('xadd', KEYS[1], i .. '-1', 'body', ARGV[i]) end return redis.call('xlen', KEYS[1])",
        [k('s')],
        'm1',
        'm2',
        'm3',
      ),
      EVAL(
        "local r = redis.call('xreadgroup', 'GROUP', 'g', ARGV[1], 'COUNT', ARGV[2], 'STREAMS', KEYS[1], '>') if not r then return false end return r[1][2]",
        [k('s')],
        'worker-1',
        '2',
      ),
      EVAL(
        "local acked = redis.call('xack', KEYS[1], 'g', ARGV[1]) local p = redis.call('xpending', KEYS[1], 'g') return {acked, p[1], p[2], p[3], p[4]}",
        [k('s')],
        '1-1',
      ),
      EVAL(
        "local r = redis.call('xreadgroup', 'GROUP', 'g', 'worker-2', 'COUNT', 10, 'STREAMS', KEYS[1], '>') local none = redis.call('xreadgroup', 'GROUP', 'g', 'worker-2', 'COUNT', 10, 'STREAMS', KEYS[1], '>') return {#r[1][2], tostring(none)}",
        [k('s')],
      ),
      EVAL(
        "redis.call('xadd', KEYS[1], '9-1', 'body', 'late') return redis.call('xrange', KEYS[1], '-', '+')",
        [k('s')],
      ),
      ['XPENDING', k('s'), 'g', '-', '+', '10'],
      ['XINFO', 'GROUPS', k('s')],
      ['XRANGE', k('s'), '-', '+'],
    ]));

  it('reports script errors with the same texts', () =>
    same((k) => [
      EVAL("return redis.call('nope')", []),
      EVAL("return redis.pcall('nope')", []),
      EVAL("local a = 1\nredis.call('set', KEYS[1], 'x')\nreturn redis.call('incr', KEYS[1])", [k('e')]),
      EVAL('return nil + 1', []),
      EVAL('return +', []),
      EVAL("error('boom')", []),
      EVAL("error({err='CUSTOM boom'})", []),
      EVAL('x = 1', []),
      EVAL('return undefined_name', []),
      EVAL("return redis.call('set', {}, 1)", []),
      EVAL('return redis.call()', []),
      EVAL("return redis.call('eval', 'return 1', 0)", []),
      EVAL("return redis.call('ping', 'a', 'b')", []),
      ['EVAL', 'return 1', 'x'],
      ['EVAL', 'return 1', '2', 'a'],
      ['EVAL', 'return 1', '-1'],
      ['EVALSHA', 'ffffffffffffffffffffffffffffffffffffffff', '0'],
      ['EVAL_RO', "return redis.call('set', KEYS[1], 'v')", '1', k('ro')],
      ['EVAL_RO', "return redis.call('get', KEYS[1])", '1', k('e')],
      ['EVAL', "#!lua flags=no-writes\nreturn redis.call('set', KEYS[1], 'v')", '1', k('ro')],
      ['EVAL', '#!lua flags=bogus\nreturn 1', '0'],
      ['EVAL', '#!lua name=x\nreturn 1', '0'],
      ['EVAL', '#!python\nreturn 1', '0'],
      ['SCRIPT', 'LOAD', 'return 123'],
      ['EVALSHA', '30dc9ef2a8d563dced9a243ecd0cc449c2ea0144', '0'],
      [
        'SCRIPT',
        'EXISTS',
        '30dc9ef2a8d563dced9a243ecd0cc449c2ea0144',
        'ffffffffffffffffffffffffffffffffffffffff',
      ],
      ['SCRIPT', 'FLUSH', 'NOW'],
      ['SCRIPT', 'KILL'],
      ['SCRIPT', 'NOPE'],
    ]));
});
