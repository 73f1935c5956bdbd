import { describe, expect, it } from 'vitest';
import { commandScripts, error, freshEngine, status } from '../../support/command-script.ts';

const { describeScripts, runOnEngine } = commandScripts({ placeholder: '$' });

const OK = status('OK');
const WRONGTYPE = error('WRONGTYPE Operation against a key holding the wrong kind of value');
const NOT_INTEGER = error('ERR value is not an integer or out of range');
const SYNTAX = error('ERR syntax error');
const INVALID_EXPIRE = error("ERR invalid expire time in 'set' command");
const OVERFLOW = error('ERR increment or decrement would overflow');

describeScripts('string commands', {
  'GET answers nil for a missing key and the value once SET': [
    [['GET', '$s'], null],
    [['SET', '$s', 'hello'], OK],
    [['GET', '$s'], 'hello'],
    [['SET', '$s', ''], OK],
    [['GET', '$s'], ''],
  ],
  'SET NX and XX only write when the key is missing or present': [
    [['SET', '$s', 'a', 'XX'], null],
    [['EXISTS', '$s'], 0],
    [['SET', '$s', 'a', 'nx'], OK],
    [['SET', '$s', 'b', 'NX'], null],
    [['GET', '$s'], 'a'],
    [['SET', '$s', 'c', 'XX'], OK],
    [['GET', '$s'], 'c'],
  ],
  'SET GET answers the old value, also when NX or XX stops the write': [
    [['SET', '$s', 'a', 'GET'], null],
    [['SET', '$s', 'b', 'GET'], 'a'],
    [['SET', '$s', 'c', 'NX', 'GET'], 'b'],
    [['GET', '$s'], 'b'],
    [['SET', '$t', 'x', 'XX', 'GET'], null],
    [['EXISTS', '$t'], 0],
    [['SET', '$s', 'd', 'GET', 'GET'], 'b'],
  ],
  'SET GET refuses a key of another type, even with NX': [
    [['HSET', '$h', 'f', 'v'], 1],
    [['SET', '$h', 'v', 'GET'], WRONGTYPE],
    [['SET', '$h', 'v', 'NX', 'GET'], WRONGTYPE],
    [['SET', '$h', 'v', 'XX', 'GET'], WRONGTYPE],
    [['TYPE', '$h'], status('hash')],
    [['SET', '$h', 'v'], OK],
    [['TYPE', '$h'], status('string')],
  ],
  'SET rejects conflicting options with a syntax error and accepts a repeated one': [
    [['SET', '$s', 'v', 'NX', 'XX'], SYNTAX],
    [['SET', '$s', 'v', 'XX', 'NX'], SYNTAX],
    [['SET', '$s', 'v', 'EX', '10', 'PX', '10'], SYNTAX],
    [['SET', '$s', 'v', 'PX', '10', 'PXAT', '10'], SYNTAX],
    [['SET', '$s', 'v', 'EXAT', '10', 'EX', '10'], SYNTAX],
    [['SET', '$s', 'v', 'KEEPTTL', 'EX', '10'], SYNTAX],
    [['SET', '$s', 'v', 'EX', '10', 'KEEPTTL'], SYNTAX],
    [['SET', '$s', 'v', 'EX'], SYNTAX],
    [['SET', '$s', 'v', 'FOO'], SYNTAX],
    [['SET', '$s', 'v', 'NX', 'NX'], OK],
    [['SET', '$s', 'v', 'KEEPTTL', 'KEEPTTL'], OK],
    [['SET', '$s', 'v', 'EX', '10', 'ex', '20'], OK],
    [['TTL', '$s'], 20],
  ],
  'SET checks the expire time before anything else': [
    [['SET', '$s', 'v', 'EX', '0'], INVALID_EXPIRE],
    [['SET', '$s', 'v', 'EX', '-1'], INVALID_EXPIRE],
    [['SET', '$s', 'v', 'PX', '0'], INVALID_EXPIRE],
    [['SET', '$s', 'v', 'EXAT', '0'], INVALID_EXPIRE],
    [['SET', '$s', 'v', 'EX', 'abc'], NOT_INTEGER],
    [['SET', '$s', 'v', 'EX', '1.5'], NOT_INTEGER],
    [['SET', '$s', 'v', 'EX', '9223372036854775807'], INVALID_EXPIRE],
    [['SET', '$s', 'v', 'PX', '9223372036854775807'], INVALID_EXPIRE],
    [['HSET', '$h', 'f', 'v'], 1],
    [['SET', '$h', 'v', 'GET', 'EX', '0'], INVALID_EXPIRE],
    [['EXISTS', '$s'], 0],
  ],
  'SET EX, PX and KEEPTTL set or keep the expiry; a plain SET clears it': [
    [['SET', '$s', 'v', 'EX', '100'], OK],
    [['TTL', '$s'], 100],
    [['SET', '$s', 'w', 'KEEPTTL'], OK],
    [['TTL', '$s'], 100],
    [['SET', '$s', 'x'], OK],
    [['TTL', '$s'], -1],
    [['SET', '$s', 'y', 'PX', '200000'], OK],
    [['TTL', '$s'], 200],
    [['SET', '$s', 'z', 'GET', 'EX', '50'], 'y'],
    [['TTL', '$s'], 50],
  ],
  'SETNX answers 1 when it wrote and 0 for any existing key': [
    [['SETNX', '$s', 'a'], 1],
    [['SETNX', '$s', 'b'], 0],
    [['GET', '$s'], 'a'],
    [['SADD', '$set', 'm'], 1],
    [['SETNX', '$set', 'b'], 0],
  ],
  'GETDEL answers the value and removes the key': [
    [['GETDEL', '$s'], null],
    [['SET', '$s', 'v'], OK],
    [['GETDEL', '$s'], 'v'],
    [['EXISTS', '$s'], 0],
    [['SADD', '$set', 'm'], 1],
    [['GETDEL', '$set'], WRONGTYPE],
    [['EXISTS', '$set'], 1],
  ],
  'MGET answers nil for missing keys and keys of another type': [
    [['SET', '$a', '1'], OK],
    [['SET', '$b', '2'], OK],
    [['SADD', '$set', 'm'], 1],
    [
      ['MGET', '$a', '$missing', '$set', '$b', '$a'],
      ['1', null, null, '2', '1'],
    ],
  ],
  'GET refuses a key of another type': [
    [['SADD', '$set', 'm'], 1],
    [['GET', '$set'], WRONGTYPE],
  ],
  'INCR, DECR, INCRBY and DECRBY count from zero on a missing key': [
    [['INCR', '$n'], 1],
    [['INCR', '$n'], 2],
    [['DECR', '$n'], 1],
    [['INCRBY', '$n', '10'], 11],
    [['INCRBY', '$n', '-20'], -9],
    [['DECRBY', '$n', '-4'], -5],
    [['DECRBY', '$m', '3'], -3],
    [['GET', '$n'], '-5'],
    [['SET', '$z', '0'], OK],
    [['INCR', '$z'], 1],
  ],
  'INCR refuses values that are not strict 64-bit integers': [
    [['SET', '$f', '1.5'], OK],
    [['INCR', '$f'], NOT_INTEGER],
    [['SET', '$f', ' 1'], OK],
    [['INCR', '$f'], NOT_INTEGER],
    [['SET', '$f', '01'], OK],
    [['INCR', '$f'], NOT_INTEGER],
    [['SET', '$f', '+1'], OK],
    [['INCR', '$f'], NOT_INTEGER],
    [['SET', '$f', '-0'], OK],
    [['INCR', '$f'], NOT_INTEGER],
    [['SET', '$f', ''], OK],
    [['INCR', '$f'], NOT_INTEGER],
    [['SET', '$f', '9223372036854775808'], OK],
    [['INCR', '$f'], NOT_INTEGER],
    [['INCRBY', '$n', 'abc'], NOT_INTEGER],
    [['INCRBY', '$n', ''], NOT_INTEGER],
    [['INCRBY', '$n', '9223372036854775808'], NOT_INTEGER],
    [['SADD', '$set', 'm'], 1],
    [['INCR', '$set'], WRONGTYPE],
    [['INCRBY', '$set', 'x'], NOT_INTEGER],
  ],
  // Integer replies are JS numbers, so the replies near 2^63 are compared rounded; GET checks the exact text.
  'INCR detects 64-bit overflow exactly at both ends': [
    [['SET', '$n', '9223372036854775806'], OK],
    [['INCRBY', '$n', '0'], Number(9223372036854775806n)],
    [['GET', '$n'], '9223372036854775806'],
    [['INCR', '$n'], Number(9223372036854775807n)],
    [['GET', '$n'], '9223372036854775807'],
    [['INCR', '$n'], OVERFLOW],
    [['DECRBY', '$n', '-1'], OVERFLOW],
    [['GET', '$n'], '9223372036854775807'],
    [['SET', '$m', '-9223372036854775808'], OK],
    [['DECR', '$m'], OVERFLOW],
    [['INCRBY', '$m', '-9223372036854775808'], OVERFLOW],
    [['DECRBY', '$m', '-9223372036854775808'], error('ERR decrement would overflow')],
    [['INCRBY', '$m', '9223372036854775807'], -1],
  ],
});

describe('string commands and time', () => {
  it('expires a key set with EX once the clock reaches its time, not a millisecond before', () => {
    const { engine, clock } = freshEngine();
    runOnEngine(
      [
        [['SET', 'k', 'v', 'EX', '10'], OK],
        [['PTTL', 'k'], 10_000],
      ],
      engine,
    );
    clock.advance(9_999);
    expect(engine.callSync(['GET', 'k'])).toBe('v');
    clock.advance(1);
    expect(engine.callSync(['GET', 'k'])).toBeNull();
    expect(engine.callSync(['EXISTS', 'k'])).toBe(0);
  });

  it('takes EXAT and PXAT as absolute times', () => {
    const { engine, clock } = freshEngine();
    const at = clock.now() + 5_000;
    runOnEngine(
      [
        [['SET', 'a', 'v', 'PXAT', String(at)], OK],
        [['PTTL', 'a'], 5_000],
        [['SET', 'b', 'v', 'EXAT', String(Math.floor(at / 1000) + 1)], OK],
        [['TTL', 'b'], 6],
        [['SET', 'c', 'v', 'PXAT', String(clock.now() - 1)], OK],
        [['GET', 'c'], null],
      ],
      engine,
    );
  });

  it('keeps the expiry of a counter across INCR', () => {
    const { engine, clock } = freshEngine();
    runOnEngine(
      [
        [['SET', 'n', '1', 'PX', '1000'], OK],
        [['INCR', 'n'], 2],
        [['PTTL', 'n'], 1000],
      ],
      engine,
    );
    clock.advance(1000);
    expect(engine.callSync(['GET', 'n'])).toBeNull();
  });

  it('treats an expired key as missing for SET NX and SETNX', () => {
    const { engine, clock } = freshEngine();
    engine.callSync(['SET', 'k', 'old', 'PX', '10']);
    clock.advance(10);
    runOnEngine(
      [
        [['SET', 'k', 'new', 'NX', 'GET'], null],
        [['GET', 'k'], 'new'],
        [['TTL', 'k'], -1],
      ],
      engine,
    );
  });

  it('checks the arity of every string command', () => {
    runOnEngine([
      [['GET'], error("ERR wrong number of arguments for 'get' command")],
      [['SET', 'k'], error("ERR wrong number of arguments for 'set' command")],
      [['SETNX', 'k'], error("ERR wrong number of arguments for 'setnx' command")],
      [['GETDEL', 'a', 'b'], error("ERR wrong number of arguments for 'getdel' command")],
      [['INCR', 'a', 'b'], error("ERR wrong number of arguments for 'incr' command")],
      [['INCRBY', 'a'], error("ERR wrong number of arguments for 'incrby' command")],
      [['DECRBY', 'a'], error("ERR wrong number of arguments for 'decrby' command")],
      [['MGET'], error("ERR wrong number of arguments for 'mget' command")],
    ]);
  });

  it('records SET and INCR as writes and GET as a read', () => {
    const { engine } = freshEngine();
    const written: string[] = [];
    engine.setWriteListener((record) => written.push(record.argv[0] ?? ''));
    engine.callSync(['SET', 'k', '1']);
    engine.callSync(['GET', 'k']);
    engine.callSync(['INCR', 'k']);
    engine.callSync(['INCR', 'nope', 'x']);
    expect(written).toEqual(['SET', 'INCR']);
  });
});
