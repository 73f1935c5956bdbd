/**
 * Stream edge cases compared with the real server: id parsing oddities, XADD option errors and
 * their order, XRANGE/XREVRANGE bounds, trimming variants (exact and `~` with LIMIT, across the
 * 100-entry node boundary), WRONGTYPE versus syntax-error order, and arity errors.
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

const MAX = '18446744073709551615';
const MAX_ID = `${MAX}-${MAX}`;

/** `count` entries 1-0 … count-0. */
function fill(s: string, count: number): string[][] {
  return Array.from({ length: count }, (_, i) => ['XADD', s, `${i + 1}-0`, 'f', `v${i + 1}`]);
}

/**
 * Known remaining differences, each with Redis' reply written out (Redis must still answer exactly
 * that; only the engine's reply is excused). Remove an entry once the engine matches: the test
 * then fails until it is removed. Integers beyond 2^53 are compared as JS numbers (the engine's
 * Reply integer type), so only the sign can tell these apart.
 */
const countOverflowDifferences: ExpectedDifference[] = [
  {
    step: 6,
    command: 'XPENDING s g - + 10',
    redis: '[["1-0", "c", <duration>, :-9223372036854776000]]',
    why: 'the delivery count is an unsigned 64-bit counter printed as signed: 2^63 shows as -2^63',
  },
];

describe.skipIf(!redisAvailable)('stream edge cases answer exactly like Redis 7.0', () => {
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

  it('parses ids the way strtoull does, oddities included', () =>
    same((k) => [
      ['XADD', k('s'), '+5', 'f', 'v'],
      ['XADD', k('s'), ' 10', 'f', 'v'],
      ['XADD', k('s'), '11-+3', 'f', 'v'],
      ['XADD', k('s'), '-5', 'f', 'v'],
      ['XADD', k('s'), '20-', 'f', 'v'],
      ['XADD', k('s'), '20-5-3', 'f', 'v'],
      ['XADD', k('s'), '1a', 'f', 'v'],
      ['XADD', k('s'), '18446744073709551616', 'f', 'v'],
      ['XADD', k('s'), `${MAX}-18446744073709551616`, 'f', 'v'],
      ['XADD', k('s'), '1'.repeat(128), 'f', 'v'],
      ['XADD', k('s'), '', 'f', 'v'],
      ['XADD', k('s'), '-', 'f', 'v'],
      ['XADD', k('s'), '+', 'f', 'v'],
      ['XADD', k('s'), '12-*', 'f', 'v'],
      ['XADD', k('s'), '*-1', 'f', 'v'],
      ['XADD', k('s'), '0x10', 'f', 'v'],
      ['XRANGE', k('s'), '-', '+'],
      ['XRANGE', k('s'), '5', '10'],
      ['XRANGE', k('s'), '+5', '11-+3'],
      ['XRANGE', k('s'), '-5', '+'],
      ['XRANGE', k('s'), '-', '11-'],
      ['XDEL', k('s'), '+5'],
      ['XDEL', k('s'), '-'],
      ['XDEL', k('s'), '10', '1-2-3'],
      ['XLEN', k('s')],
    ]));

  it('generates ms-* and * ids from the last id, exhausting at the maximum', () =>
    same((k) => [
      ['XADD', k('s'), '123-456', 'f', 'v'],
      ['XADD', k('s'), '123-*', 'f', 'v'],
      ['XADD', k('s'), '789-*', 'f', 'v'],
      ['XADD', k('s'), '42-*', 'f', 'v'],
      ['XADD', k('s'), '789-*', 'f', 'v'],
      ['XADD', k('z'), '0-*', 'f', 'v'],
      ['XADD', k('z'), '0-*', 'f', 'v'],
      ['XADD', k('m'), `${MAX}-${MAX}`, 'f', 'v'],
      ['XADD', k('m'), '*', 'f', 'v'],
      ['XADD', k('m'), `${MAX}-*`, 'f', 'v'],
      ['XADD', k('n'), `5-${MAX}`, 'f', 'v'],
      ['XADD', k('n'), '5-*', 'f', 'v'],
      ['XADD', k('n'), '6-*', 'f', 'v'],
      ['XADD', k('p'), `${MAX}-5`, 'f', 'v'],
      ['XADD', k('p'), '*', 'f', 'v'],
      ['XADD', k('p'), '*', 'f', 'v'],
      ['XRANGE', k('p'), '-', '+'],
      ['XINFO', 'STREAM', k('p')],
    ]));

  it('refuses 0-0 before looking at the key, so it beats WRONGTYPE and creates nothing', () =>
    same((k) => [
      ['XADD', k('s'), '0-0', 'f', 'v'],
      ['EXISTS', k('s')],
      ['SET', k('str'), 'x'],
      ['XADD', k('str'), '0-0', 'f', 'v'],
      ['XADD', k('str'), '1-0', 'f', 'v'],
      ['XADD', k('str'), 'MAXLEN', 'x', '1-0', 'f', 'v'],
      ['XADD', k('str'), '1-0', 'f'],
      ['XADD', k('s'), '0-1', 'f', 'v'],
      ['XADD', k('s'), '0-1', 'f', 'v'],
      ['XADD', k('s'), '0-0', 'f', 'v'],
    ]));

  it('reports XADD option errors in Redis order', () =>
    same((k) => [
      ['XADD', k('s'), 'MAXLEN', '1', 'MINID', '1', '*', 'f', 'v'],
      ['XADD', k('s'), 'MINID', '1', 'MAXLEN', '1', '*', 'f', 'v'],
      ['XADD', k('s'), 'MAXLEN', 'x', '*', 'f', 'v'],
      ['XADD', k('s'), 'MAXLEN', '-1', '*', 'f', 'v'],
      ['XADD', k('s'), 'MAXLEN', '~', '1', 'LIMIT', '-1', '*', 'f', 'v'],
      ['XADD', k('s'), 'MAXLEN', '~', '1', 'LIMIT', 'x', '*', 'f', 'v'],
      ['XADD', k('s'), 'LIMIT', '5', '*', 'f', 'v'],
      ['XADD', k('s'), 'MAXLEN', '1', 'LIMIT', '5', '*', 'f', 'v'],
      ['XADD', k('s'), 'MAXLEN', '=', '1', 'LIMIT', '5', '*', 'f', 'v'],
      ['XADD', k('s'), 'MINID', 'x', '*', 'f', 'v'],
      ['XADD', k('s'), 'MINID', '-', '*', 'f', 'v'],
      ['XADD', k('s'), '1-0', 'f', 'v', 'g'],
      ['XADD', k('s'), 'MAXLEN', '-1', '1-0', 'f'],
      ['XADD', k('s'), 'NOMKSTREAM', '1-0', 'f', 'v'],
      ['EXISTS', k('s')],
      ['XADD', k('s'), 'NOMKSTREAM', 'NOMKSTREAM', '1-0', 'f', 'v'],
      ['XADD', k('s'), 'MAXLEN', '=', '*', 'f', 'v'],
      ['XADD', k('s'), 'MAXLEN', '~', '0', '2-0', 'f', 'v'],
      ['XADD', k('s'), 'MAXLEN', '~'],
      ['XADD', k('s'), 'maxlen', '0', '3-0', 'f', 'v'],
      ['EXISTS', k('s')],
      ['XLEN', k('s')],
      ['XADD', k('s'), 'BOGUS', '4-0', 'f', 'v'],
      ['XADD', k('s'), '4-0', 'f', 'v'],
      ['XADD', k('s'), '4-0', 'f', 'v'],
      ['XADD', k('s'), '3-5', 'f', 'v'],
      ['XADD', k('s'), 'NOMKSTREAM', 'MINID', '5', '5-0', 'f', 'v'],
      ['XRANGE', k('s'), '-', '+'],
    ]));

  it('handles XRANGE and XREVRANGE bounds, exclusive edges and COUNT', () =>
    same((k) => [
      ['XADD', k('s'), '0-1', 'f', 'a'],
      ['XADD', k('s'), `0-${MAX}`, 'f', 'b'],
      ['XADD', k('s'), '1-0', 'f', 'c'],
      ['XADD', k('s'), '1-5', 'f', 'd'],
      ['XADD', k('s'), '2-0', 'f', 'e'],
      ['XADD', k('s'), MAX_ID, 'f', 'z'],
      ['XRANGE', k('s'), '-', '+'],
      ['XRANGE', k('s'), '(0-1', '+'],
      ['XRANGE', k('s'), '-', `(0-${MAX}`],
      ['XRANGE', k('s'), `(0-${MAX}`, '+'],
      ['XRANGE', k('s'), `(${MAX_ID}`, '+'],
      ['XRANGE', k('s'), '-', '(0-0'],
      ['XRANGE', k('s'), '-', '(0'],
      ['XRANGE', k('s'), '(0', '(2'],
      ['XRANGE', k('s'), '1', '1'],
      ['XRANGE', k('s'), '(1', '+'],
      ['XRANGE', k('s'), '(-', '+'],
      ['XRANGE', k('s'), '-', '(+'],
      ['XRANGE', k('s'), '(', '+'],
      ['XRANGE', k('s'), '2', '1'],
      ['XRANGE', k('s'), '-', '+', 'COUNT', '2'],
      ['XRANGE', k('s'), '-', '+', 'COUNT', '0'],
      ['XRANGE', k('s'), '-', '+', 'COUNT', '-1'],
      ['XRANGE', k('s'), '-', '+', 'COUNT', '5', 'COUNT', '1'],
      ['XRANGE', k('s'), '-', '+', 'COUNT'],
      ['XRANGE', k('s'), '-', '+', 'COUNT', 'x'],
      ['XRANGE', k('s'), '-', '+', 'LIMIT', '1'],
      ['XRANGE', k('s'), 'x', '+'],
      ['XRANGE', k('missing'), '-', '+'],
      ['XRANGE', k('missing'), '-', '+', 'COUNT', '0'],
      ['XRANGE', k('missing'), 'x', '+'],
      ['XREVRANGE', k('s'), '+', '-'],
      ['XREVRANGE', k('s'), '+', '-', 'COUNT', '2'],
      ['XREVRANGE', k('s'), '(2', '(0-1'],
      ['XREVRANGE', k('s'), '-', '+'],
      ['XREVRANGE', k('s'), '(0-0', '-'],
      ['XREVRANGE', k('s'), '+', `(${MAX_ID}`],
      ['XREVRANGE', k('s'), '+', '-', 'COUNT', '0'],
      ['XRANGE', k('s')],
    ]));

  it('trims exactly with MAXLEN and MINID, on XADD and XTRIM', () =>
    same((k) => [
      ...fill(k('s'), 10),
      ['XTRIM', k('s'), 'MAXLEN', '8'],
      ['XTRIM', k('s'), 'MAXLEN', '=', '6'],
      ['XTRIM', k('s'), 'MINID', '6'],
      ['XTRIM', k('s'), 'MINID', '=', '(7'],
      ['XTRIM', k('s'), 'MINID', '7-1'],
      ['XRANGE', k('s'), '-', '+'],
      ['XINFO', 'STREAM', k('s')],
      ['XADD', k('s'), 'MAXLEN', '2', '11-0', 'f', 'v'],
      ['XADD', k('s'), 'MINID', '11', '12-0', 'f', 'v'],
      ['XRANGE', k('s'), '-', '+'],
      ['XTRIM', k('s'), 'MAXLEN', '0'],
      ['XLEN', k('s')],
      ['EXISTS', k('s')],
      ['XINFO', 'STREAM', k('s')],
      ['XTRIM', k('missing'), 'MAXLEN', '0'],
      ['XTRIM', k('s'), 'MAXLEN'],
      ['XTRIM', k('s'), 'FOO', '1'],
      ['XTRIM', k('s'), 'NOMKSTREAM', 'MAXLEN', '1'],
      ['XTRIM', k('s'), 'LIMIT', '1'],
      ['XTRIM', k('s'), 'MAXLEN', '1', 'LIMIT', '1'],
      ['XTRIM', k('s'), 'MAXLEN', '~', '1', 'LIMIT', '1'],
      ['XTRIM', k('s'), 'MAXLEN', '-1'],
      ['XTRIM', k('s'), 'MINID', 'x'],
      ['XTRIM', k('s'), 'MAXLEN', '1', 'MINID', '1'],
      ['XTRIM', k('s'), 'MAXLEN', '1', 'extra'],
    ]));

  it('trims with ~ only whole nodes of 100 entries, honouring LIMIT', () =>
    same((k) => [
      ...fill(k('s'), 250),
      ['XTRIM', k('s'), 'MAXLEN', '~', '220'],
      ['XLEN', k('s')],
      ['XTRIM', k('s'), 'MAXLEN', '~', '140'],
      ['XLEN', k('s')],
      ['XTRIM', k('s'), 'MAXLEN', '~', '10', 'LIMIT', '50'],
      ['XLEN', k('s')],
      ['XTRIM', k('s'), 'MINID', '~', '230'],
      ['XLEN', k('s')],
      ['XTRIM', k('s'), 'MAXLEN', '~', '0', 'LIMIT', '0'],
      ['XLEN', k('s')],
      ['XINFO', 'STREAM', k('s')],
      ...fill(k('t'), 120),
      ['XADD', k('t'), 'MAXLEN', '~', '10', '121-0', 'f', 'v'],
      ['XLEN', k('t')],
      ['XADD', k('t'), 'MINID', '~', '200', 'LIMIT', '100', '122-0', 'f', 'v'],
      ['XLEN', k('t')],
      ['XADD', k('t'), 'MINID', '~', '200', '123-0', 'f', 'v'],
      ['XLEN', k('t')],
      ['XINFO', 'STREAM', k('t')],
    ]));

  it('keeps XDEL and trimming bookkeeping: first id, max deleted id, entries added', () =>
    same((k) => [
      ...fill(k('s'), 5),
      ['XDEL', k('s'), '1-0', '1-0', '9-0'],
      ['XINFO', 'STREAM', k('s')],
      ['XDEL', k('s'), '4-0'],
      ['XINFO', 'STREAM', k('s')],
      ['XTRIM', k('s'), 'MAXLEN', '1'],
      ['XINFO', 'STREAM', k('s')],
      ['XDEL', k('s'), '5-0'],
      ['XINFO', 'STREAM', k('s')],
      ['XADD', k('s'), '3-0', 'f', 'v'],
      ['XDEL', k('missing'), 'bad-id'],
      ['XDEL', k('s'), 'bad-id', '5-0'],
      ['XDEL', k('s')],
    ]));

  it('answers WRONGTYPE only after the argument checks Redis runs first', () =>
    same((k) => [
      ['SET', k('str'), 'x'],
      ['XLEN', k('str')],
      ['XRANGE', k('str'), '-', '+'],
      ['XRANGE', k('str'), 'x', '+'],
      ['XREVRANGE', k('str'), '+', '-', 'COUNT', 'x'],
      ['XDEL', k('str'), 'bad'],
      ['XDEL', k('str'), '1-0'],
      ['XTRIM', k('str'), 'MAXLEN', 'x'],
      ['XTRIM', k('str'), 'MAXLEN', '1'],
      ['XACK', k('str'), 'g', 'bad'],
      ['XPENDING', k('str'), 'g'],
      ['XPENDING', k('str'), 'g', 'x', '+', '10'],
      ['XPENDING', k('str'), 'g', '-', '+', '10'],
      ['XPENDING', k('str'), 'g', '-', '+'],
      ['XCLAIM', k('str'), 'g', 'c', 'x', '1-0'],
      ['XCLAIM', k('str'), 'g', 'c', '0', '1-0'],
      ['XAUTOCLAIM', k('str'), 'g', 'c', '0', '-', 'COUNT', '0'],
      ['XAUTOCLAIM', k('str'), 'g', 'c', 'x', '-'],
      ['XAUTOCLAIM', k('str'), 'g', 'c', '0', '-'],
      ['XGROUP', 'CREATE', k('str'), 'g', '$', 'BOGUS'],
      ['XGROUP', 'CREATE', k('str'), 'g', 'x'],
      ['XGROUP', 'CREATE', k('str'), 'g', '$'],
      ['XGROUP', 'SETID', k('str'), 'g', '$'],
      ['XGROUP', 'DESTROY', k('str'), 'g'],
      ['XGROUP', 'CREATECONSUMER', k('str'), 'g', 'c'],
      ['XGROUP', 'DELCONSUMER', k('str'), 'g', 'c'],
      ['XINFO', 'STREAM', k('str')],
      ['XINFO', 'STREAM', k('str'), 'FULL'],
      ['XINFO', 'GROUPS', k('str')],
      ['XINFO', 'CONSUMERS', k('str'), 'g'],
      ['XREAD', 'STREAMS', k('str'), '0'],
      ['XREAD', 'STREAMS', k('str'), 'x'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', k('str'), '>'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', k('str'), 'x'],
      ['XADD', k('s'), '1-0', 'f', 'v'],
      ['XGROUP', 'CREATE', k('s'), 'g', '0'],
      ['XREAD', 'STREAMS', k('s'), k('str'), '0', '0'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', k('s'), k('str'), '>', '>'],
      ['XPENDING', k('s'), 'g'],
      ['GET', k('s')],
      ['SET', k('s'), 'v', 'GET'],
      ['INCR', k('s')],
      ['HSET', k('s'), 'f', 'v'],
      ['HGET', k('s'), 'f'],
      ['HMGET', k('s'), 'f'],
      ['HGETALL', k('s')],
      ['HDEL', k('s'), 'f'],
      ['HINCRBY', k('s'), 'f', '1'],
      ['SADD', k('s'), 'm'],
      ['SREM', k('s'), 'm'],
      ['SMEMBERS', k('s')],
      ['SISMEMBER', k('s'), 'm'],
      ['SCARD', k('s')],
      ['ZADD', k('s'), '1', 'm'],
      ['ZREM', k('s'), 'm'],
      ['ZCARD', k('s')],
      ['ZRANGE', k('s'), '0', '-1'],
      ['ZRANGEBYSCORE', k('s'), '0', '1'],
      ['ZREMRANGEBYSCORE', k('s'), '0', '1'],
      ['TYPE', k('s')],
      ['HSET', k('h'), 'f', 'v'],
      ['SADD', k('set'), 'm'],
      ['ZADD', k('z'), '1', 'm'],
      ...[k('h'), k('set'), k('z')].flatMap((key) => [
        ['XADD', key, '1-0', 'f', 'v'],
        ['XLEN', key],
        ['XRANGE', key, '-', '+'],
        ['XGROUP', 'CREATE', key, 'g', '$'],
        ['XINFO', 'STREAM', key],
      ]),
      ['DEL', k('str')],
      ['XADD', k('str'), '1-0', 'f', 'v'],
      ['TYPE', k('str')],
    ]));

  it('answers arity and unknown-subcommand errors with the exact text', () =>
    same((k) => [
      ['XADD', k('s'), '*', 'f'],
      ['XADD', k('s')],
      ['XLEN'],
      ['XLEN', k('s'), 'extra'],
      ['XRANGE', k('s'), '-'],
      ['XREVRANGE', k('s'), '+'],
      ['XDEL', k('s')],
      ['XTRIM', k('s'), 'MAXLEN'],
      ['XREAD', 'STREAMS', k('s')],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', k('s')],
      ['XACK', k('s'), 'g'],
      ['XPENDING', k('s')],
      ['XCLAIM', k('s'), 'g', 'c', '0'],
      ['XAUTOCLAIM', k('s'), 'g', 'c', '0'],
      ['XGROUP', 'CREATE', k('s'), 'g'],
      ['XGROUP', 'SETID', k('s'), 'g'],
      ['XGROUP', 'DESTROY', k('s')],
      ['XGROUP', 'DESTROY', k('s'), 'g', 'extra'],
      ['XGROUP', 'CREATECONSUMER', k('s'), 'g'],
      ['XGROUP', 'DELCONSUMER', k('s'), 'g', 'c', 'extra'],
      ['XGROUP', 'NOPE', k('s')],
      ['XGROUP', 'CREATE', k('s'), 'g', '$', 'MKSTREAM', 'ENTRIESREAD'],
      ['XINFO', 'STREAM'],
      ['XINFO', 'GROUPS', k('s'), 'extra'],
      ['XINFO', 'CONSUMERS', k('s')],
      ['XINFO', 'NOPE'],
      ['xinfo', 'nope', 'x'],
      ['XINFO'],
      ['XGROUP', 'HELP'],
      ['XINFO', 'HELP'],
      ['xgroup', 'help', 'extra'],
      ['XGROUP', 'CREATE', k("we'ird é"), 'g', '$'],
      ['XREADGROUP', 'GROUP', "gr'oup", 'c', 'STREAMS', k("we'ird é"), '>'],
      ['XGROUP', 'CREATE', k("we'ird é"), "gr'oup", '$', 'MKSTREAM'],
      ['XGROUP', 'SETID', k("we'ird é"), 'é', '$'],
      ['XPENDING', k("we'ird é"), 'é'],
    ]));

  it('handles extreme counts, lengths and times', () =>
    same((k) => [
      ...fill(k('s'), 3),
      ['XGROUP', 'CREATE', k('s'), 'g', '0'],
      ['XADD', k('s'), 'MAXLEN', '9223372036854775807', '4-0', 'f', 'v'],
      ['XADD', k('s'), 'MAXLEN', '9223372036854775808', '5-0', 'f', 'v'],
      ['XADD', k('s'), 'MAXLEN', '~', '1', 'LIMIT', '9223372036854775807', '5-0', 'f', 'v'],
      ['XTRIM', k('s'), 'MAXLEN', '1.5'],
      ['XTRIM', k('s'), 'MAXLEN', '+1'],
      ['XTRIM', k('s'), 'MAXLEN', ' 1'],
      ['XTRIM', k('s'), 'MAXLEN', '010'],
      ['XRANGE', k('s'), '-', '+', 'COUNT', '9223372036854775807'],
      ['XRANGE', k('s'), '-', '+', 'COUNT', '-9223372036854775808'],
      ['XRANGE', k('s'), '-', '+', 'COUNT', '9223372036854775808'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'COUNT', '9223372036854775807', 'STREAMS', k('s'), '>'],
      ['XPENDING', k('s'), 'g', '-', '+', '9223372036854775807'],
      ['XPENDING', k('s'), 'g', 'IDLE', '9223372036854775807', '-', '+', '10'],
      ['XCLAIM', k('s'), 'g', 'c2', '9223372036854775807', '1-0'],
      ['XCLAIM', k('s'), 'g', 'c2', '0', '1-0', 'IDLE', '9223372036854775807'],
      ['XCLAIM', k('s'), 'g', 'c2', '0', '2-0', 'TIME', '-5'],
      ['XCLAIM', k('s'), 'g', 'c2', '0', '3-0', 'RETRYCOUNT', '2147483648'],
      ['XPENDING', k('s'), 'g', '-', '+', '10'],
      ['XAUTOCLAIM', k('s'), 'g', 'c3', '0', '-', 'COUNT', '1000'],
      ['XGROUP', 'CREATE', k('s'), 'g2', '0', 'ENTRIESREAD', '9223372036854775807'],
      ['XGROUP', 'SETID', k('s'), 'g2', '0', 'ENTRIESREAD', '99'],
      ['XINFO', 'GROUPS', k('s')],
      ['XINFO', 'STREAM', k('s'), 'FULL', 'COUNT', '-1'],
      ['XINFO', 'STREAM', k('s'), 'FULL', 'COUNT', '9223372036854775807'],
    ]));

  it('limits XINFO STREAM FULL listings to COUNT, 10 by default', () =>
    same((k) => [
      ...fill(k('s'), 14),
      ['XGROUP', 'CREATE', k('s'), 'g', '0'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', k('s'), '>'],
      ['XINFO', 'STREAM', k('s'), 'FULL'],
      ['XINFO', 'STREAM', k('s'), 'FULL', 'COUNT', '3'],
    ]));

  it('wraps a delivery count raised past 2^63-1 to a negative number, as Redis prints it', () =>
    same(
      (k) => [
        ['XADD', k('s'), '1-0', 'f', 'v'],
        ['XGROUP', 'CREATE', k('s'), 'g', '0'],
        ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', k('s'), '>'],
        ['XCLAIM', k('s'), 'g', 'c', '0', '1-0', 'RETRYCOUNT', '9223372036854775807', 'JUSTID'],
        ['XCLAIM', k('s'), 'g', 'c', '0', '1-0'],
        ['XPENDING', k('s'), 'g', '-', '+', '10'],
      ],
      countOverflowDifferences,
    ));

  it('parses the odd corners of XINFO, XGROUP, XPENDING and XREAD arguments', () =>
    same((k) => [
      ...fill(k('s'), 3),
      ['XGROUP', 'CREATE', k('s'), 'g', '0'],
      ['XINFO', 'STREAM', k('s'), 'FULL', 'COUNT'],
      ['XINFO', 'STREAM', k('s'), 'FULL', 'COUNT', '1', 'extra'],
      ['XINFO', 'STREAM', k('s'), 'full', 'count', '1'],
      ['XINFO', 'STREAM', k('s'), 'COUNT', '1'],
      ['XGROUP', 'CREATE', k('s'), 'g2', '$', 'ENTRIESREAD', '1', 'MKSTREAM'],
      ['XGROUP', 'CREATE', k('s'), 'g3', '$', 'MKSTREAM', 'MKSTREAM'],
      ['XGROUP', 'SETID', k('s'), 'g', '$', 'ENTRIESREAD'],
      ['XGROUP', 'SETID', k('s'), 'g', '$', 'ENTRIESREAD', '1', 'ENTRIESREAD', '2'],
      ['XGROUP', 'SETID', k('s'), 'g', 'x'],
      ['XGROUP', 'SETID', k('s'), 'g', '(1-0'],
      ['XINFO', 'GROUPS', k('s')],
      ['XPENDING', k('s'), 'g', '-', '+', '10', 'c', 'extra'],
      ['XPENDING', k('s'), 'g', 'IDLE', '10', '-', '+'],
      ['XPENDING', k('s'), 'g', 'IDLE', '10', '-', '+', '10', 'c', 'x', 'y'],
      ['XPENDING', k('s'), 'g', 'idle', '0', '(0', '(9', '3'],
      ['XPENDING', k('s'), 'g', '-'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'COUNT', '1', 'COUNT', '2', 'STREAMS', k('s'), '>'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'NOACK', 'NOACK', 'STREAMS', k('s'), '0'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'GROUP', 'g', 'd', 'STREAMS', k('s'), '>'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', k('s'), k('s'), '0', '>'],
      ['XREADGROUP', 'group', 'g', 'c', 'streams', k('s'), '0'],
      ['XREAD', 'STREAMS', k('s'), k('s'), '0', '2'],
      ['XREAD', 'BLOCK', '0', 'BLOCK', '1', 'COUNT', '1', 'STREAMS', k('s'), '0'],
      ['XREAD', 'STREAMS', 'STREAMS', '0'],
      ['XACK', k('s'), 'g', '1-0', '2-0', '3-0', '1-0'],
      ['XCLAIM', k('s'), 'g', 'c', '0', '1-0', 'FORCE', 'JUSTID', 'LASTID'],
      ['XCLAIM', k('s'), 'g', 'c', '0', '1-0', 'JUSTID', '2-0'],
      ['XCLAIM', k('s'), 'g', 'c', '0', 'JUSTID'],
      ['XAUTOCLAIM', k('s'), 'g', 'c', '0', '-', 'JUSTID', 'COUNT', '1'],
      ['XAUTOCLAIM', k('s'), 'g', 'c', '0', '-', 'COUNT', '1', 'COUNT', '2'],
      ['XAUTOCLAIM', k('s'), 'g', 'c', '0', '-', 'COUNT'],
    ]));

  // The engine answers `XREADGROUP GROUP g c [COUNT n] STREAMS key >` and `XADD key ms-seq ...`
  // on a fast path that skips the general parse; these shapes and their near misses must still
  // take Redis' error order.
  it('answers the worker loop shapes of XREADGROUP and XADD like the general parse', () =>
    same((k) => [
      ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', k('s'), '>'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'COUNT', 'x', 'STREAMS', k('s'), '>'],
      ['XADD', k('str'), '1-0', 'f', 'v'],
      ['SET', k('plain'), 'v'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', k('plain'), '>'],
      ['XADD', k('plain'), '1-0', 'f', 'v'],
      ['XADD', k('s'), '5-0', 'f'],
      ['XADD', k('s'), '0-0', 'f', 'v'],
      ['XADD', k('s'), '05-007', 'f', 'v', 'g', 'w'],
      ['XADD', k('s'), '5-7', 'f', 'v'],
      ['XADD', k('s'), '5-8', 'f', 'v'],
      ['XGROUP', 'CREATE', k('s'), 'g', '0'],
      ['XGROUP', 'CREATE', k('s'), 'COUNT', '0'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'COUNT', '-3', 'STREAMS', k('s'), '>'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'COUNT', '1', 'STREAMS', k('s'), '>'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', k('s'), '>'],
      ['XREADGROUP', 'group', 'COUNT', '5', 'streams', k('s'), '>'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'COUNT', '0', 'STREAMS', k('s'), '>'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'NOACK', 'STREAMS', k('s'), '>'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'COUNT', '1', 'STREAMS', k('s'), '0'],
      ['XREADGROUP', 'GROUP', 'nope', 'c', 'COUNT', '1', 'STREAMS', k('s'), '>'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'BLOCK', '0', 'STREAMS', k('s'), '$'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', k('s'), k('s'), '>', '>'],
      ['XPENDING', k('s'), 'g', '-', '+', '10'],
      ['XPENDING', k('s'), 'COUNT'],
    ]));
});
