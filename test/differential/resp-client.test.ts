import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisError, StatusReply } from '../../lib/engine/reply.ts';
import {
  findDifference,
  normaliseReply,
  renderReply,
  WALL_CLOCK_TOLERANCE_MS,
  WallClock,
} from '../support/differential.ts';
import { REDIS_URL, redisAvailable } from '../support/redis.ts';
import { createRespClient, encodeCommand, parseReply, type RespClient } from '../support/resp-client.ts';

describe('RESP2 parsing', () => {
  it('keeps status, error, integer, bulk, nil and nested arrays apart', () => {
    const wire = Buffer.from('*6\r\n+OK\r\n-ERR bad\r\n:-7\r\n$2\r\nOK\r\n$-1\r\n*2\r\n*-1\r\n*0\r\n');
    const parsed = parseReply(wire, 0);
    expect(parsed?.next).toBe(wire.length);
    expect(parsed?.reply).toEqual([
      new StatusReply('OK'),
      new RedisError('ERR bad'),
      -7,
      'OK',
      null,
      [null, []],
    ]);
  });

  it('asks for more bytes when a reply is cut anywhere', () => {
    const wire = Buffer.from('*2\r\n$5\r\nhello\r\n:1\r\n');
    for (let cut = 0; cut < wire.length; cut++) {
      expect(parseReply(wire.subarray(0, cut), 0)).toBeUndefined();
    }
  });

  it('encodes arguments by byte length, so multi-byte text survives', () => {
    expect(encodeCommand(['SET', 'k', 'é'])).toBe('*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2\r\né\r\n');
  });
});

describe('reply comparison', () => {
  it('tells a status OK from a bulk "OK" and an error from a bulk with the same text', () => {
    expect(findDifference(new StatusReply('OK'), 'OK')).toBe('$: status differs');
    expect(findDifference(new RedisError('ERR x'), 'ERR x')).toBe('$: error differs');
    expect(findDifference(null, [])).toBe('$: type differs');
    expect(findDifference(['a', 1], ['a', '1'])).toBe('$[1]: value differs');
    expect(findDifference([['a']], [['a'], []])).toBe('$: length 1 vs 2');
  });

  it('compares idle times within a tolerance but not beyond it', () => {
    const argv = ['XPENDING', 'k', 'g', '-', '+', '10'];
    const redis = normaliseReply(argv, [['1-0', 'c', 1000, 1]], Date.now());
    expect(findDifference(redis, normaliseReply(argv, [['1-0', 'c', 1003, 1]], Date.now()))).toBeUndefined();
    expect(
      findDifference(
        redis,
        normaliseReply(argv, [['1-0', 'c', 1000 + WALL_CLOCK_TOLERANCE_MS + 1, 1]], Date.now()),
      ),
    ).toBe('$[0][2]: wall-clock value 1000 vs 2501');
    expect(findDifference(redis, normaliseReply(argv, [['1-0', 'c', 1000, 2]], Date.now()))).toBe(
      '$[0][3]: value differs',
    );
  });

  it('masks only ids generated from the clock, not explicit small ids', () => {
    const now = Date.now();
    expect(normaliseReply(['XADD', 'k', '*'], `${now}-0`, now)).toEqual(new WallClock('id', now));
    expect(normaliseReply(['XADD', 'k', '5-1'], '5-1', now)).toBe('5-1');
    expect(renderReply([`${now}-3`, '5-1'])).toBe(`["${now}-3", "5-1"]`);
  });
});

describe.skipIf(!redisAvailable)('RESP client against the real server', () => {
  let client: RespClient;
  const key = `diff:resp:${process.pid}:${Math.random().toString(36).slice(2)}`;

  beforeAll(async () => {
    client = await createRespClient(REDIS_URL);
  });
  afterAll(async () => {
    await client.call(['DEL', key]);
    await client.close();
  });

  it('answers with the reply types Redis sends', async () => {
    expect(await client.call(['SET', key, 'OK'])).toEqual(new StatusReply('OK'));
    expect(await client.call(['GET', key])).toBe('OK');
    expect(await client.call(['STRLEN', key])).toBe(2);
    expect(await client.call(['INCR', key])).toEqual(
      new RedisError('ERR value is not an integer or out of range'),
    );
    expect(await client.call(['GET', `${key}:missing`])).toBeNull();
  });

  it('pipelines thousands of commands and keeps replies in order', async () => {
    const commands = Array.from({ length: 5000 }, (_, i) => ['ECHO', `m${i}`]);
    const replies = await client.pipeline(commands);
    expect(replies).toHaveLength(5000);
    expect(replies[0]).toBe('m0');
    expect(replies[4999]).toBe('m4999');
  });
});
