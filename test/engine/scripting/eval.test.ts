import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../../lib/clock.ts';
import { createEngine, type Engine, type WriteRecord } from '../../../lib/engine/engine.ts';
import { RedisError, type Reply, StatusReply } from '../../../lib/engine/reply.ts';
import type { ScriptingOptions } from '../../../lib/engine/scripting/options.ts';
import { sha1Hex } from '../../../lib/engine/scripting/sha1.ts';

function message(reply: Reply): string {
  expect(reply).toBeInstanceOf(RedisError);
  return (reply as RedisError).message;
}

function fresh(scripting: Partial<ScriptingOptions> = {}): Engine {
  return createEngine({ clock: createManualClock(), scripting });
}

describe('EVAL errors carry Redis 7.0 texts', () => {
  it('reports an unknown command called from a script with the script sha and line', () => {
    const script = "return redis.call('nope')";
    expect(message(fresh().callSync(['EVAL', script, '0']))).toBe(
      `ERR Unknown Redis command called from script script: ${sha1Hex(script)}, on @user_script:1.`,
    );
  });

  it('reports the line of the failing redis.call', () => {
    const script = "local a = 1\nlocal b = 2\nredis.call('incr', KEYS[1])";
    const engine = fresh();
    engine.callSync(['SET', 'k', 'text']);
    expect(message(engine.callSync(['EVAL', script, '1', 'k']))).toBe(
      `ERR value is not an integer or out of range script: ${sha1Hex(script)}, on @user_script:3.`,
    );
  });

  it('prefixes Lua runtime errors with ERR and the user_script position', () => {
    const script = 'return nil + 1';
    expect(message(fresh().callSync(['EVAL', script, '0']))).toBe(
      `ERR user_script:1: attempt to perform arithmetic on a nil value script: ${sha1Hex(script)}, on @user_script:1.`,
    );
  });

  it('passes a table raised with error() through without the ERR prefix', () => {
    const script = "error({err='CUSTOM boom'})";
    expect(message(fresh().callSync(['EVAL', script, '0']))).toBe(
      `CUSTOM boom script: ${sha1Hex(script)}, on @user_script:1.`,
    );
  });

  it('reports compile errors as Redis does', () => {
    expect(message(fresh().callSync(['EVAL', 'return +', '0']))).toBe(
      "ERR Error compiling script (new function): user_script:1: unexpected symbol near '+'",
    );
  });

  it('refuses bad redis.call arguments', () => {
    expect(message(fresh().callSync(['EVAL', "return redis.call('set', {}, 1)", '0']))).toMatch(
      /^ERR Lua redis lib command arguments must be strings or integers script: /,
    );
    expect(message(fresh().callSync(['EVAL', 'return redis.call()', '0']))).toMatch(
      /^ERR Please specify at least one argument for this redis lib call script: /,
    );
  });

  it('checks numkeys', () => {
    const engine = fresh();
    expect(message(engine.callSync(['EVAL', 'return 1', 'x']))).toBe(
      'ERR value is not an integer or out of range',
    );
    expect(message(engine.callSync(['EVAL', 'return 1', '2', 'a']))).toBe(
      "ERR Number of keys can't be greater than number of args",
    );
    expect(message(engine.callSync(['EVAL', 'return 1', '-1']))).toBe("ERR Number of keys can't be negative");
  });

  it('refuses scripting commands inside a script', () => {
    expect(message(fresh().callSync(['EVAL', "return redis.call('eval', 'return 1', 0)", '0']))).toMatch(
      /^ERR This Redis command is not allowed from script script: /,
    );
  });
});

describe('the script sandbox', () => {
  it('splits KEYS and ARGV by numkeys', () => {
    expect(
      fresh().callSync(['EVAL', 'return {KEYS[1], KEYS[2], ARGV[1], #ARGV}', '2', 'k1', 'k2', 'a1', 'a2']),
    ).toEqual(['k1', 'k2', 'a1', 2]);
  });

  it('refuses new globals and reads of undefined globals, like Redis 7', () => {
    expect(message(fresh().callSync(['EVAL', 'x = 1', '0']))).toMatch(
      /^ERR user_script:1: Attempt to modify a readonly table script: /,
    );
    expect(message(fresh().callSync(['EVAL', 'return os.time()', '0']))).toMatch(
      /^ERR user_script:1: Script attempted to access nonexistent global variable 'os' script: /,
    );
  });

  it('offers cjson encode and decode', () => {
    const engine = fresh();
    expect(engine.callSync(['EVAL', "return cjson.encode({1, 2, {a='x/y'}})", '0'])).toBe(
      '[1,2,{"a":"x\\/y"}]',
    );
    expect(
      engine.callSync([
        'EVAL',
        'local t = cjson.decode(ARGV[1]) return {t.a[2], t.b, tostring(t.c == cjson.null)}',
        '0',
        '{"a":[1,"two"],"b":3,"c":null}',
      ]),
    ).toEqual(['two', 3, 'true']);
    expect(engine.callSync(['EVAL', 'return cjson.encode({})', '0'])).toBe('{}');
  });

  it('offers redis.sha1hex, the bit library and Lua 5.1 names', () => {
    expect(
      fresh().callSync([
        'EVAL',
        "return {redis.sha1hex(''), bit.band(255, 15), bit.bnot(0), bit.tohex(255), select(2, unpack({7, 8})), table.getn({1, 2, 3})}",
        '0',
      ]),
    ).toEqual(['da39a3ee5e6b4b0d3255bfef95601890afd80709', 15, -1, '000000ff', 8, 3]);
  });

  it('prints integral floats the Lua 5.1 way through tostring', () => {
    expect(fresh().callSync(['EVAL', 'return tostring(10 / 2) .. " " .. tostring(2.5)', '0'])).toBe('5 2.5');
  });

  it('sees one frozen time for the whole script', () => {
    const clock = createManualClock(1_700_000_000_500);
    const engine = createEngine({ clock });
    expect(
      engine.callSync([
        'EVAL',
        "local a = redis.call('time') local b = redis.call('time') return {a[1], a[2], b[2]}",
        '0',
      ]),
    ).toEqual(['1700000000', '500000', '500000']);
  });

  it('accepts #!lua shebang flags, including Upstash allow-key-locking', () => {
    const engine = fresh();
    expect(engine.callSync(['EVAL', '#!lua flags=allow-key-locking\nreturn 1', '0'])).toBe(1);
    expect(message(engine.callSync(['EVAL', '#!lua flags=bogus\nreturn 1', '0']))).toBe(
      'ERR Unexpected flag in script shebang: bogus',
    );
    expect(message(engine.callSync(['EVAL', '#!lua name=x\nreturn 1', '0']))).toBe(
      'ERR Unknown lua shebang option: name=x',
    );
    expect(
      message(engine.callSync(['EVAL', "#!lua flags=no-writes\nreturn redis.call('set', 'k', 'v')", '0'])),
    ).toMatch(
      /^ERR Write commands are not allowed from read-only scripts\. script: [0-9a-f]{40}, on @user_script:2\.$/,
    );
  });
});

describe('script cache and read-only variants', () => {
  it('answers NOSCRIPT for an unknown sha and runs a loaded one by sha in any case', () => {
    const engine = fresh();
    expect(message(engine.callSync(['EVALSHA', 'e0e1f9fabfc9d4800c877a703b823ac0578ff8db', '0']))).toBe(
      'NOSCRIPT No matching script. Please use EVAL.',
    );
    expect(engine.callSync(['SCRIPT', 'LOAD', 'return 1'])).toBe('e0e1f9fabfc9d4800c877a703b823ac0578ff8db');
    expect(engine.callSync(['EVALSHA', 'E0E1F9FABFC9D4800C877A703B823AC0578FF8DB', '0'])).toBe(1);
    expect(engine.callSync(['SCRIPT', 'EXISTS', 'e0e1f9fabfc9d4800c877a703b823ac0578ff8db', 'ffff'])).toEqual(
      [1, 0],
    );
  });

  it('caches scripts run by EVAL and forgets them on SCRIPT FLUSH', () => {
    const engine = fresh();
    engine.callSync(['EVAL', "return 'x'", '0']);
    const sha = sha1Hex("return 'x'");
    expect(engine.callSync(['EVALSHA', sha, '0'])).toBe('x');
    expect(engine.callSync(['SCRIPT', 'FLUSH'])).toEqual(new StatusReply('OK'));
    expect(engine.callSync(['SCRIPT', 'EXISTS', sha])).toEqual([0]);
    expect(message(engine.callSync(['SCRIPT', 'FLUSH', 'NOW']))).toBe(
      'ERR SCRIPT FLUSH only support SYNC|ASYNC option',
    );
    expect(message(engine.callSync(['SCRIPT', 'LOAD']))).toBe(
      "ERR wrong number of arguments for 'script|load' command",
    );
    expect(message(engine.callSync(['SCRIPT', 'KILL']))).toBe('NOTBUSY No scripts in execution right now.');
  });

  it('refuses write commands under EVAL_RO and EVALSHA_RO but runs reads', () => {
    const engine = fresh();
    engine.callSync(['SET', 'k', 'v']);
    expect(message(engine.callSync(['EVAL_RO', "return redis.call('set', KEYS[1], 'w')", '1', 'k']))).toMatch(
      /^ERR Write commands are not allowed from read-only scripts\. script: /,
    );
    expect(engine.callSync(['EVAL_RO', "return redis.call('get', KEYS[1])", '1', 'k'])).toBe('v');
    const sha = engine.callSync(['SCRIPT', 'LOAD', "return redis.call('del', KEYS[1])"]) as string;
    expect(message(engine.callSync(['EVALSHA_RO', sha, '1', 'k']))).toMatch(
      /^ERR Write commands are not allowed/,
    );
    expect(engine.callSync(['GET', 'k'])).toBe('v');
  });
});

describe('atomicity and durability hooks', () => {
  it('logs each write a script makes, with the script time, and never the EVAL itself', () => {
    const records: WriteRecord[] = [];
    const clock = createManualClock(1_700_000_000_000);
    const engine = createEngine({ clock, onWrite: (record) => records.push(record) });
    engine.callSync([
      'EVAL',
      "redis.call('set', KEYS[1], 'a') redis.call('get', KEYS[1]) redis.call('incr', KEYS[2]) return 1",
      '2',
      'x',
      'n',
    ]);
    expect(records).toEqual([
      { argv: ['set', 'x', 'a'], now: 1_700_000_000_000 },
      { argv: ['incr', 'n'], now: 1_700_000_000_000 },
    ]);
  });

  it('runs a script as one step: concurrent callers never see its intermediate state', async () => {
    const engine = fresh();
    engine.callSync(['SET', 'balance:a', '100']);
    engine.callSync(['SET', 'balance:b', '0']);
    const move =
      "local v = tonumber(redis.call('get', KEYS[1])) if v > 0 then redis.call('decrby', KEYS[1], 1) redis.call('incrby', KEYS[2], 1) end return redis.call('get', KEYS[1]) + redis.call('get', KEYS[2])";
    const calls: Promise<Reply>[] = [];
    for (let i = 0; i < 150; i++) {
      calls.push(engine.call(['EVAL', move, '2', 'balance:a', 'balance:b']));
      calls.push(
        engine.call([
          'EVAL',
          "return redis.call('get', KEYS[1]) + redis.call('get', KEYS[2])",
          '2',
          'balance:a',
          'balance:b',
        ]),
      );
    }
    const replies = await Promise.all(calls);
    expect(new Set(replies)).toEqual(new Set([100]));
    expect(engine.callSync(['MGET', 'balance:a', 'balance:b'])).toEqual(['0', '100']);
  });
});

describe('a runaway script', () => {
  it('is stopped after the time limit with a BUSY error, and the engine keeps answering', () => {
    // A fake monotonic clock that moves 1 ms per look: the limit passes after a fixed amount of work.
    let ticks = 0;
    const engine = fresh({ timeLimitMs: 100, elapsed: () => ticks++ });
    expect(message(engine.callSync(['EVAL', 'while true do end', '0']))).toBe(
      'BUSY Redis is busy running a script. The local engine stopped it after the 100 ms script time limit.',
    );
    expect(ticks).toBeGreaterThan(100);
    expect(engine.callSync(['EVAL', 'return 7', '0'])).toBe(7);
    expect(engine.callSync(['PING'])).toEqual(new StatusReply('PONG'));
  });

  it('cannot escape the limit with pcall or a coroutine', () => {
    let ticks = 0;
    const engine = fresh({ timeLimitMs: 50, elapsed: () => ticks++ });
    expect(
      message(engine.callSync(['EVAL', 'while true do pcall(function() while true do end end) end', '0'])),
    ).toMatch(/^BUSY /);
    expect(
      message(engine.callSync(['EVAL', 'coroutine.wrap(function() while true do end end)()', '0'])),
    ).toMatch(/^BUSY /);
    expect(engine.callSync(['EVAL', "return redis.call('ping')", '0'])).toEqual(new StatusReply('PONG'));
  });

  it('uses real time by default', () => {
    const engine = fresh({ timeLimitMs: 30 });
    const started = performance.now();
    expect(message(engine.callSync(['EVAL', 'local i = 0 while true do i = i + 1 end', '0']))).toMatch(
      /^BUSY /,
    );
    expect(performance.now() - started).toBeGreaterThanOrEqual(30);
  });
});
