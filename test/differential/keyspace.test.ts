/**
 * The non-stream commands the engine supports, compared with the real server: keys and expiry,
 * strings, hashes, sets, sorted sets (ZRANGE BYSCORE LIMIT included), WRONGTYPE across every type,
 * and Redis' unknown-command and arity errors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  compareScenario,
  connectServer,
  type ExpectedDifference,
  type Scenario,
} from '../support/differential.ts';
import { REDIS_URL, redisAvailable } from '../support/redis.ts';
import type { RespClient } from '../support/resp-client.ts';

describe.skipIf(!redisAvailable)(
  'keys, strings, hashes, sets and sorted sets answer exactly like Redis 7.0',
  () => {
    let server: RespClient;
    beforeAll(async () => {
      server = await connectServer(REDIS_URL);
    });
    afterAll(async () => {
      await server.close();
    });

    const same = async (scenario: Scenario, expected: readonly ExpectedDifference[] = []) => {
      expect(await compareScenario(server, scenario, { expected })).toEqual([]);
    };

    it('handles SET options, GET and their errors', () =>
      same((k) => [
        ['GET', k('a')],
        ['SET', k('a'), '1'],
        ['GET', k('a')],
        ['SET', k('a'), '2', 'NX'],
        ['SET', k('a'), '2', 'XX'],
        ['SET', k('b'), '2', 'XX'],
        ['SET', k('b'), '3', 'NX'],
        ['SET', k('a'), '4', 'GET'],
        ['SET', k('c'), '5', 'GET'],
        ['SET', k('a'), '6', 'NX', 'GET'],
        ['SET', k('a'), '7', 'XX', 'GET'],
        ['SET', k('a'), '8', 'NX', 'XX'],
        ['SET', k('a'), '8', 'EX', '10', 'PX', '100'],
        ['SET', k('a'), '8', 'EX', '0'],
        ['SET', k('a'), '8', 'EX', '-1'],
        ['SET', k('a'), '8', 'PX', '0'],
        ['SET', k('a'), '8', 'EX', 'x'],
        ['SET', k('a'), '8', 'EX'],
        ['SET', k('a'), '8', 'BOGUS'],
        ['SET', k('a'), '9', 'ex', '100'],
        ['TTL', k('a')],
        ['SET', k('a'), '10'],
        ['TTL', k('a')],
        ['SET', k('a'), '11', 'PX', '100000'],
        ['PTTL', k('a')],
        ['SET', k('h'), 'x'],
        ['HSET', k('hash'), 'f', 'v'],
        ['SET', k('hash'), 'v', 'GET'],
        ['GET', k('hash')],
        ['SET', k('hash'), 'v'],
        ['GET', k('hash')],
        ['SET', k('a')],
        ['GET'],
        ['GET', k('a'), k('b')],
      ]));

    it('increments integers and refuses anything else', () =>
      same((k) => [
        ['INCR', k('n')],
        ['INCR', k('n')],
        ['SET', k('n'), '41'],
        ['INCR', k('n')],
        ['GET', k('n')],
        ['SET', k('n'), '-5'],
        ['INCR', k('n')],
        ['SET', k('n'), '9223372036854775806'],
        ['INCR', k('n')],
        ['INCR', k('n')],
        ['SET', k('n'), '1.5'],
        ['INCR', k('n')],
        ['SET', k('n'), ' 1'],
        ['INCR', k('n')],
        ['SET', k('n'), '01'],
        ['INCR', k('n')],
        ['SET', k('n'), 'abc'],
        ['INCR', k('n')],
        ['SET', k('n'), ''],
        ['INCR', k('n')],
        ['INCR'],
      ]));

    it('expires keys and reports TTL/PTTL, removing keys given a past expiry', () =>
      same((k) => [
        ['TTL', k('a')],
        ['PTTL', k('a')],
        ['EXPIRE', k('a'), '10'],
        ['SET', k('a'), '1'],
        ['TTL', k('a')],
        ['PTTL', k('a')],
        ['EXPIRE', k('a'), '100'],
        ['TTL', k('a')],
        ['PEXPIRE', k('a'), '100000'],
        ['PTTL', k('a')],
        ['EXPIRE', k('a'), 'x'],
        ['PEXPIRE', k('a'), '1.5'],
        ['EXPIRE', k('a'), '100', 'NX'],
        ['EXPIRE', k('a'), '0'],
        ['EXISTS', k('a')],
        ['SET', k('b'), '1'],
        ['PEXPIRE', k('b'), '-5'],
        ['GET', k('b')],
        ['EXPIRE', k('a')],
        ['TTL'],
      ]));

    it('answers DEL, EXISTS, TYPE and PING like Redis', () =>
      same((k) => [
        ['SET', k('a'), '1'],
        ['HSET', k('h'), 'f', 'v'],
        ['SADD', k('s'), 'm'],
        ['ZADD', k('z'), '1', 'm'],
        ['TYPE', k('a')],
        ['TYPE', k('h')],
        ['TYPE', k('s')],
        ['TYPE', k('z')],
        ['TYPE', k('none')],
        ['EXISTS', k('a'), k('a'), k('none'), k('h')],
        ['DEL', k('a'), k('a'), k('none'), k('h')],
        ['EXISTS', k('a'), k('h')],
        ['DEL', k('s'), k('z'), k('none')],
        ['PING'],
        ['PING', 'hello'],
        ['PING', 'a', 'b'],
        ['DEL'],
        ['EXISTS'],
        ['TYPE'],
      ]));

    it('stores hashes field by field', () =>
      same((k) => [
        ['HSET', k('h'), 'a', '1', 'b', '2'],
        ['HSET', k('h'), 'b', '3', 'c', '4'],
        ['HSET', k('h'), 'a'],
        ['HSET', k('h'), 'a', '1', 'b'],
        ['HGET', k('h'), 'b'],
        ['HGET', k('h'), 'nope'],
        ['HGET', k('none'), 'a'],
        ['HMGET', k('h'), 'a', 'nope', 'c'],
        ['HMGET', k('none'), 'a', 'b'],
        ['HGETALL', k('h')],
        ['HGETALL', k('none')],
        ['HDEL', k('h'), 'a', 'a', 'nope'],
        ['HGETALL', k('h')],
        ['HSET', k('h'), 'a', '9'],
        ['HGETALL', k('h')],
        ['HINCRBY', k('h'), 'n', '5'],
        ['HINCRBY', k('h'), 'n', '-7'],
        ['HINCRBY', k('h'), 'a', 'x'],
        ['HINCRBY', k('h'), 'b', '1'],
        ['HSET', k('h'), 'big', '9223372036854775807'],
        ['HINCRBY', k('h'), 'big', '1'],
        ['HSET', k('h'), 'txt', 'abc'],
        ['HINCRBY', k('h'), 'txt', '1'],
        ['HINCRBY', k('none2'), 'f', '3'],
        ['HDEL', k('h'), 'a', 'b', 'c', 'n', 'big', 'txt'],
        ['EXISTS', k('h')],
        ['HDEL', k('none'), 'a'],
        ['HGET', k('h')],
        ['HMGET', k('h')],
        ['HGETALL'],
        ['HDEL', k('h')],
        ['HINCRBY', k('h'), 'f'],
      ]));

    it('stores sets member by member', () =>
      same((k) => [
        ['SADD', k('s'), 'a', 'b', 'a'],
        ['SADD', k('s'), 'b', 'c'],
        ['SMEMBERS', k('s')],
        ['SCARD', k('s')],
        ['SISMEMBER', k('s'), 'a'],
        ['SISMEMBER', k('s'), 'z'],
        ['SISMEMBER', k('none'), 'a'],
        ['SREM', k('s'), 'a', 'z', 'a'],
        ['SMEMBERS', k('s')],
        ['SADD', k('i'), '3', '1', '2', '10'],
        ['SMEMBERS', k('i')],
        ['SREM', k('s'), 'b', 'c'],
        ['EXISTS', k('s')],
        ['SMEMBERS', k('none')],
        ['SCARD', k('none')],
        ['SREM', k('none'), 'a'],
        ['SADD', k('s')],
        ['SCARD'],
        ['SISMEMBER', k('s')],
      ]));

    it('orders sorted sets by score then member, with BYSCORE, LIMIT and score formatting', () =>
      same((k) => [
        ['ZADD', k('z'), '1', 'a', '2', 'b', '2', 'a2', '3', 'c', '-1.5', 'neg'],
        ['ZADD', k('z'), '5', 'a'],
        ['ZADD', k('z'), 'inf', 'top', '-inf', 'bottom', '1e17', 'big', '0.1', 'tenth'],
        ['ZADD', k('z'), 'x', 'bad'],
        ['ZADD', k('z'), 'nan', 'bad'],
        ['ZADD', k('z'), '1', 'a', '2'],
        ['ZADD', k('z'), 'NX', '9', 'a', '9', 'new'],
        ['ZADD', k('z'), 'XX', '8', 'a', '8', 'newer'],
        ['ZADD', k('z'), 'CH', '8', 'a', '7', 'c'],
        ['ZADD', k('z'), 'GT', '1', 'a'],
        ['ZADD', k('z'), 'LT', 'CH', '1', 'a'],
        ['ZADD', k('z'), 'NX', 'XX', '1', 'a'],
        ['ZADD', k('z'), 'INCR', '2', 'a'],
        ['ZCARD', k('z')],
        ['ZRANGE', k('z'), '0', '-1'],
        ['ZRANGE', k('z'), '0', '-1', 'WITHSCORES'],
        ['ZRANGE', k('z'), '2', '4'],
        ['ZRANGE', k('z'), '-3', '100'],
        ['ZRANGE', k('z'), '5', '2'],
        ['ZRANGE', k('z'), 'x', '2'],
        ['ZRANGE', k('z'), '1', '3', 'BYSCORE'],
        ['ZRANGE', k('z'), '(1', '3', 'BYSCORE', 'WITHSCORES'],
        ['ZRANGE', k('z'), '-inf', '+inf', 'BYSCORE', 'LIMIT', '1', '3'],
        ['ZRANGE', k('z'), '-inf', '+inf', 'BYSCORE', 'LIMIT', '2', '-1'],
        ['ZRANGE', k('z'), '-inf', '+inf', 'BYSCORE', 'LIMIT', '-1', '2'],
        ['ZRANGE', k('z'), '0', '-1', 'LIMIT', '1', '2'],
        ['ZRANGE', k('z'), 'x', '3', 'BYSCORE'],
        ['ZRANGE', k('z'), '(x', '3', 'BYSCORE'],
        ['ZRANGE', k('z'), '3', '1', 'BYSCORE'],
        ['ZRANGE', k('z'), '-inf', '+inf', 'BYSCORE', 'LIMIT', '0'],
        ['ZRANGEBYSCORE', k('z'), '-inf', '+inf'],
        ['ZRANGEBYSCORE', k('z'), '(2', '(8', 'WITHSCORES'],
        ['ZRANGEBYSCORE', k('z'), '0', '10', 'LIMIT', '1', '2'],
        ['ZRANGEBYSCORE', k('z'), '0', '10', 'LIMIT', '1'],
        ['ZRANGEBYSCORE', k('z'), '0', 'x'],
        ['ZRANGEBYSCORE', k('none'), '0', '10'],
        ['ZREM', k('z'), 'a', 'nope', 'a'],
        ['ZREMRANGEBYSCORE', k('z'), '(2', '3'],
        ['ZREMRANGEBYSCORE', k('z'), '-inf', '(0'],
        ['ZREMRANGEBYSCORE', k('z'), 'x', '1'],
        ['ZRANGE', k('z'), '0', '-1', 'WITHSCORES'],
        ['ZREMRANGEBYSCORE', k('z'), '-inf', '+inf'],
        ['EXISTS', k('z')],
        ['ZCARD', k('none')],
        ['ZREM', k('none'), 'a'],
        ['ZADD', k('z'), '1'],
        ['ZRANGE', k('z'), '0'],
        ['ZCARD'],
      ]));

    // Streams against the other types are in stream-edges.test.ts, with the stream commands.
    it('answers WRONGTYPE for every cross-type access', () =>
      same((k) => {
        const keys = { string: k('str'), hash: k('hash'), set: k('set'), zset: k('zset') };
        // Two members each, and removals of absent members only, so no probe empties a key.
        const setup: string[][] = [
          ['SET', keys.string, '1'],
          ['HSET', keys.hash, 'f', '1', 'g', '2'],
          ['SADD', keys.set, 'm', 'n'],
          ['ZADD', keys.zset, '1', 'm', '2', 'n'],
        ];
        const probes = (key: string): string[][] => [
          ['GET', key],
          ['SET', key, 'v', 'GET'],
          ['INCR', key],
          ['HSET', key, 'f', 'v'],
          ['HGET', key, 'f'],
          ['HMGET', key, 'f'],
          ['HGETALL', key],
          ['HDEL', key, 'absent'],
          ['HINCRBY', key, 'f', '1'],
          ['SADD', key, 'm'],
          ['SREM', key, 'absent'],
          ['SMEMBERS', key],
          ['SISMEMBER', key, 'm'],
          ['SCARD', key],
          ['ZADD', key, '1', 'm'],
          ['ZREM', key, 'absent'],
          ['ZCARD', key],
          ['ZRANGE', key, '0', '-1'],
          ['ZRANGEBYSCORE', key, '0', '1'],
          ['ZREMRANGEBYSCORE', key, '100', '200'],
          ['EXPIRE', key, '1000'],
          ['TTL', key],
        ];
        return [
          ...setup,
          ...Object.values(keys).flatMap(probes),
          ...Object.values(keys).map((key) => ['TYPE', key]),
        ];
      }));

    it('rejects unknown commands and wrong arity with Redis texts', () =>
      same((k) => [
        ['NOSUCHCOMMAND'],
        ['nosuch', 'a', 'b'],
        ['Foo', k('x'), 'with space'],
        ['HSETNX_MAYBE', 'a'],
        ['SET'],
        ['SET', k('a'), 'b', 'c', 'd', 'e'],
        ['EXPIRE', k('a')],
        ['PEXPIRE', k('a')],
        ['PTTL'],
        ['HMGET'],
        ['ZREMRANGEBYSCORE', k('a'), '1'],
        ['ZRANGEBYSCORE', k('a')],
        ['SREM', k('a')],
        ['SMEMBERS'],
        ['TIME', 'extra'],
        ['NOSUCH', "it's", 'é', ''],
        [''],
      ]));

    it('quotes at most 128 bytes of the unknown command and its arguments, as Redis does', () =>
      same(() => [
        ['NOSUCH', 'a'.repeat(200)],
        ['NOSUCH', ...Array.from({ length: 20 }, (_, i) => `argument-${i}`)],
        ['C'.repeat(200), 'x'],
        ['NOSUCH', 'line\r\nbreak'],
      ]));
  },
);
