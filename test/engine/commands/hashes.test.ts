import { describe, it } from 'vitest';
import { commandScripts, error, status } from '../../support/command-script.ts';

const { describeScripts, runOnEngine } = commandScripts({ placeholder: '$' });

const WRONGTYPE = error('WRONGTYPE Operation against a key holding the wrong kind of value');
const NOT_INTEGER = error('ERR value is not an integer or out of range');

describeScripts('hash commands', {
  'HSET counts new fields, overwrites existing ones and HGET reads them': [
    [['HSET', '$h', 'a', '1', 'b', '2'], 2],
    [['HSET', '$h', 'a', '10', 'c', '3'], 1],
    [['HGET', '$h', 'a'], '10'],
    [['HGET', '$h', 'missing'], null],
    [['HGET', '$missing', 'a'], null],
    [['HLEN', '$h'], 3],
    [['HLEN', '$missing'], 0],
  ],
  'HMSET answers OK': [
    [['HMSET', '$h', 'a', '1', 'b', '2'], status('OK')],
    [
      ['HMGET', '$h', 'a', 'b'],
      ['1', '2'],
    ],
  ],
  'HSET and HMSET need field/value pairs': [
    [['HSET', '$h', 'a'], error("ERR wrong number of arguments for 'hset' command")],
    [['HSET', '$h', 'a', '1', 'b'], error("ERR wrong number of arguments for 'hset' command")],
    [['HMSET', '$h', 'a', '1', 'b'], error("ERR wrong number of arguments for 'hmset' command")],
    [['EXISTS', '$h'], 0],
  ],
  'HGETALL, HKEYS and HVALS list a small hash in insertion order': [
    [['HSET', '$h', 'z', '1', 'a', '2', 'm', '3'], 3],
    [['HSET', '$h', 'z', '9'], 0],
    [
      ['HGETALL', '$h'],
      ['z', '9', 'a', '2', 'm', '3'],
    ],
    [
      ['HKEYS', '$h'],
      ['z', 'a', 'm'],
    ],
    [
      ['HVALS', '$h'],
      ['9', '2', '3'],
    ],
    [['HDEL', '$h', 'z'], 1],
    [['HSET', '$h', 'z', '0'], 1],
    [
      ['HKEYS', '$h'],
      ['a', 'm', 'z'],
    ],
    [['HGETALL', '$missing'], []],
    [['HKEYS', '$missing'], []],
    [['HVALS', '$missing'], []],
  ],
  'HMGET answers nil for missing fields and for a missing key': [
    [['HSET', '$h', 'a', '1'], 1],
    [
      ['HMGET', '$h', 'a', 'x', 'a'],
      ['1', null, '1'],
    ],
    [
      ['HMGET', '$missing', 'a', 'b'],
      [null, null],
    ],
  ],
  'HSETNX writes a field only when it is missing': [
    [['HSETNX', '$h', 'a', '1'], 1],
    [['HSETNX', '$h', 'a', '2'], 0],
    [['HGET', '$h', 'a'], '1'],
    [['HSETNX', '$h', 'b', '2'], 1],
    [['HLEN', '$h'], 2],
  ],
  'HDEL counts removed fields and deletes the key with its last field': [
    [['HSET', '$h', 'a', '1', 'b', '2'], 2],
    [['HDEL', '$h', 'a', 'a', 'x'], 1],
    [['HEXISTS', '$h', 'a'], 0],
    [['HEXISTS', '$h', 'b'], 1],
    [['HDEL', '$h', 'b'], 1],
    [['EXISTS', '$h'], 0],
    [['HDEL', '$h', 'b'], 0],
    [['HEXISTS', '$missing', 'b'], 0],
  ],
  'HINCRBY counts from zero and keeps 64-bit integers exact': [
    [['HINCRBY', '$h', 'n', '5'], 5],
    [['HINCRBY', '$h', 'n', '-7'], -2],
    [['HGET', '$h', 'n'], '-2'],
    [['HSET', '$h', 'big', '9223372036854775806'], 1],
    [['HINCRBY', '$h', 'big', '1'], Number(9223372036854775807n)],
    [['HGET', '$h', 'big'], '9223372036854775807'],
    [['HINCRBY', '$h', 'big', '1'], error('ERR increment or decrement would overflow')],
    [['HSET', '$h', 'small', '-9223372036854775808'], 1],
    [['HINCRBY', '$h', 'small', '-1'], error('ERR increment or decrement would overflow')],
  ],
  'HINCRBY rejects a bad increment before the key and a non-integer field after it': [
    [['HINCRBY', '$h', 'n', 'x'], NOT_INTEGER],
    [['HINCRBY', '$h', 'n', '1.5'], NOT_INTEGER],
    [['EXISTS', '$h'], 0],
    [['HSET', '$h', 'f', '1.5', 'g', ' 1'], 2],
    [['HINCRBY', '$h', 'f', '1'], error('ERR hash value is not an integer')],
    [['HINCRBY', '$h', 'g', '1'], error('ERR hash value is not an integer')],
    [['SET', '$s', 'v'], status('OK')],
    [['HINCRBY', '$s', 'f', 'x'], NOT_INTEGER],
    [['HINCRBY', '$s', 'f', '1'], WRONGTYPE],
  ],
  'every hash command refuses a key of another type': [
    [['SET', '$s', 'v'], status('OK')],
    [['HSET', '$s', 'a', '1'], WRONGTYPE],
    [['HMSET', '$s', 'a', '1'], WRONGTYPE],
    [['HSETNX', '$s', 'a', '1'], WRONGTYPE],
    [['HGET', '$s', 'a'], WRONGTYPE],
    [['HMGET', '$s', 'a'], WRONGTYPE],
    [['HGETALL', '$s'], WRONGTYPE],
    [['HKEYS', '$s'], WRONGTYPE],
    [['HVALS', '$s'], WRONGTYPE],
    [['HDEL', '$s', 'a'], WRONGTYPE],
    [['HLEN', '$s'], WRONGTYPE],
    [['HEXISTS', '$s', 'a'], WRONGTYPE],
    [['GET', '$s'], 'v'],
  ],
});

describe('hash command arity on the engine', () => {
  it('answers the arity error for every hash command', () => {
    const arity = (name: string) => error(`ERR wrong number of arguments for '${name}' command`);
    runOnEngine([
      [['HSETNX', 'h', 'a'], arity('hsetnx')],
      [['HGET', 'h'], arity('hget')],
      [['HMGET', 'h'], arity('hmget')],
      [['HGETALL'], arity('hgetall')],
      [['HDEL', 'h'], arity('hdel')],
      [['HLEN'], arity('hlen')],
      [['HEXISTS', 'h'], arity('hexists')],
      [['HINCRBY', 'h', 'f'], arity('hincrby')],
      [['HKEYS'], arity('hkeys')],
      [['HVALS', 'a', 'b'], arity('hvals')],
    ]);
  });
});
