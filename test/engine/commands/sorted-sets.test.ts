import { describe, expect, it } from 'vitest';
import { commandScripts, error, freshEngine, status } from '../../support/command-script.ts';

const { describeScripts, runOnEngine } = commandScripts({ placeholder: '$' });

const WRONGTYPE = error('WRONGTYPE Operation against a key holding the wrong kind of value');
const SYNTAX = error('ERR syntax error');
const NOT_FLOAT = error('ERR value is not a valid float');
const NOT_INTEGER = error('ERR value is not an integer or out of range');
const BAD_RANGE = error('ERR min or max is not a float');
const BAD_LEX = error('ERR min or max not valid string range item');
const NAN = error('ERR resulting score is not a number (NaN)');

describeScripts('sorted-set commands', {
  'ZADD counts new members, ZCARD and ZSCORE see them': [
    [['ZADD', '$z', '1', 'a', '2', 'b', '3', 'a'], 2],
    [['ZSCORE', '$z', 'a'], '3'],
    [['ZADD', '$z', '5', 'b', '1', 'c'], 1],
    [['ZCARD', '$z'], 3],
    [['ZCARD', '$missing'], 0],
    [['ZSCORE', '$z', 'nope'], null],
    [['ZSCORE', '$missing', 'a'], null],
  ],
  'scores are formatted like Redis 7.0: 17 significant digits rounded half to even, inf, exponents': [
    [
      [
        'ZADD',
        '$z',
        '0.1',
        'a',
        '1',
        'b',
        '1.5',
        'c',
        'inf',
        'd',
        '-inf',
        'e',
        '1e20',
        'f',
        '123456789012345678',
        'g',
        '1e-5',
        'h',
        '-0',
        'i',
        '3.0000000000000004',
        'j',
        '0x10',
        'k',
      ],
      11,
    ],
    [
      ['ZRANGE', '$z', '0', '-1', 'WITHSCORES'],
      [
        'e',
        '-inf',
        'i',
        '0',
        'h',
        '1.0000000000000001e-05',
        'a',
        '0.10000000000000001',
        'b',
        '1',
        'c',
        '1.5',
        'j',
        '3.0000000000000004',
        'k',
        '16',
        'g',
        '1.2345678901234568e+17',
        'f',
        '1e+20',
        'd',
        'inf',
      ],
    ],
    [['ZADD', '$z', '1e16', 'y', '1.7976931348623157e308', 'w', '4.9e-324', 'x', '+.5', 'v', '-1E2', 'u'], 5],
    [['ZSCORE', '$z', 'y'], '10000000000000000'],
    [['ZSCORE', '$z', 'w'], '1.7976931348623157e+308'],
    [['ZSCORE', '$z', 'x'], '4.9406564584124654e-324'],
    [['ZSCORE', '$z', 'v'], '0.5'],
    [['ZSCORE', '$z', 'u'], '-100'],
    [
      [
        'ZADD',
        '$z',
        '80185481010296.0625',
        't1',
        '0.125',
        't2',
        '2.5e-5',
        't3',
        '1e17',
        't4',
        '9.5e-5',
        't5',
      ],
      5,
    ],
    [['ZSCORE', '$z', 't1'], '80185481010296.062'],
    [['ZSCORE', '$z', 't2'], '0.125'],
    [['ZSCORE', '$z', 't3'], '2.5000000000000001e-05'],
    [['ZSCORE', '$z', 't4'], '1e+17'],
    [['ZSCORE', '$z', 't5'], '9.5000000000000005e-05'],
    [['ZADD', '$z', '-infinity', 'e', '+INF', 'd'], 0],
    [['ZSCORE', '$z', 'e'], '-inf'],
  ],
  'ZADD rejects scores strtod would not read completely or that overflow': [
    [['ZADD', '$z', '1e400', 'x'], NOT_FLOAT],
    [['ZADD', '$z', '1e-400', 'x'], NOT_FLOAT],
    [['ZADD', '$z', 'nan', 'x'], NOT_FLOAT],
    [['ZADD', '$z', ' 1', 'x'], NOT_FLOAT],
    [['ZADD', '$z', '1 ', 'x'], NOT_FLOAT],
    [['ZADD', '$z', '', 'x'], NOT_FLOAT],
    [['ZADD', '$z', '1e', 'x'], NOT_FLOAT],
    [['ZADD', '$z', 'abc', 'x'], NOT_FLOAT],
    [['ZADD', '$z', '1', 'a', 'bad', 'b'], NOT_FLOAT],
    [['EXISTS', '$z'], 0],
  ],
  'ZADD option errors are checked in Redis order': [
    [['ZADD', '$z', '1'], error("ERR wrong number of arguments for 'zadd' command")],
    [['ZADD', '$z', 'NX', '1'], SYNTAX],
    [['ZADD', '$z', '1', 'a', '2'], SYNTAX],
    [
      ['ZADD', '$z', 'NX', 'XX', '1', 'a'],
      error('ERR XX and NX options at the same time are not compatible'),
    ],
    [
      ['ZADD', '$z', 'NX', 'GT', '1', 'a'],
      error('ERR GT, LT, and/or NX options at the same time are not compatible'),
    ],
    [
      ['ZADD', '$z', 'GT', 'LT', '1', 'a'],
      error('ERR GT, LT, and/or NX options at the same time are not compatible'),
    ],
    [
      ['ZADD', '$z', 'INCR', '1', 'a', '2', 'b'],
      error('ERR INCR option supports a single increment-element pair'),
    ],
    [['ZADD', '$z', 'FOO', '1', 'a'], SYNTAX],
    [['ZADD', '$z', 'FOO', '1', 'a', 'b'], NOT_FLOAT],
    [['EXISTS', '$z'], 0],
  ],
  'ZADD NX, XX, GT, LT and CH decide which members change and what is counted': [
    [['ZADD', '$z', '10', 'a', '20', 'b'], 2],
    [['ZADD', '$z', 'NX', '99', 'a', '30', 'c'], 1],
    [['ZSCORE', '$z', 'a'], '10'],
    [['ZADD', '$z', 'XX', '11', 'a', '40', 'd'], 0],
    [['ZSCORE', '$z', 'a'], '11'],
    [['ZSCORE', '$z', 'd'], null],
    [['ZADD', '$z', 'XX', 'CH', '12', 'a', '20', 'b'], 1],
    [['ZADD', '$z', 'GT', 'CH', '5', 'a', '25', 'b', '1', 'new'], 2],
    [
      ['ZRANGE', '$z', '0', '-1', 'WITHSCORES'],
      ['new', '1', 'a', '12', 'b', '25', 'c', '30'],
    ],
    [['ZADD', '$z', 'LT', 'CH', '5', 'a', '25', 'b'], 1],
    [['ZADD', '$z', 'XX', 'GT', 'CH', '6', 'a', '7', 'zz'], 1],
    [
      ['ZRANGE', '$z', '0', '-1', 'WITHSCORES'],
      ['new', '1', 'a', '6', 'b', '25', 'c', '30'],
    ],
    [['ZADD', '$missing', 'XX', '1', 'a'], 0],
    [['EXISTS', '$missing'], 0],
  ],
  'ZADD INCR and ZINCRBY answer the new score, or nil when an option stopped them': [
    [['ZINCRBY', '$z', '1.5', 'a'], '1.5'],
    [['ZINCRBY', '$z', '0.1', 'a'], '1.6000000000000001'],
    [['ZADD', '$z', 'INCR', '2', 'a'], '3.6000000000000001'],
    [['ZADD', '$z', 'INCR', 'NX', '1', 'a'], null],
    [['ZADD', '$z', 'INCR', 'XX', '1', 'b'], null],
    [['ZADD', '$z', 'INCR', 'GT', '-1', 'a'], null],
    [['ZADD', '$z', 'INCR', 'LT', '-1', 'a'], '2.6000000000000001'],
    [['ZADD', '$z', 'INCR', 'NX', '7', 'b'], '7'],
    [['ZADD', '$z', 'INCR', 'XX', '0', 'b'], '7'],
    [['ZADD', '$missing', 'INCR', 'XX', '1', 'b'], null],
    [['ZINCRBY', '$z', 'inf', 'a'], 'inf'],
    [['ZINCRBY', '$z', '-inf', 'a'], NAN],
    [['ZADD', '$z', 'INCR', '-inf', 'a'], NAN],
    [['ZSCORE', '$z', 'a'], 'inf'],
    [['ZINCRBY', '$z', 'x', 'a'], NOT_FLOAT],
    [['ZINCRBY', '$z', 'incr', 'a'], SYNTAX],
  ],
  'ZREM counts removed members and deletes the key with its last member': [
    [['ZADD', '$z', '1', 'a', '2', 'b'], 2],
    [['ZREM', '$z', 'a', 'a', 'x'], 1],
    [['ZREM', '$z', 'b'], 1],
    [['EXISTS', '$z'], 0],
    [['ZREM', '$z', 'b'], 0],
  ],
  'members with equal scores sort by their bytes': [
    [['ZADD', '$z', '1', 'b', '1', 'B', '1', 'a', '1', 'ab', '1', '', '0', 'zz'], 6],
    [
      ['ZRANGE', '$z', '0', '-1'],
      ['zz', '', 'B', 'a', 'ab', 'b'],
    ],
    [
      ['ZRANGE', '$z', '0', '-1', 'REV'],
      ['b', 'ab', 'a', 'B', '', 'zz'],
    ],
  ],
  'ZRANGE by rank clamps indexes like Redis': [
    [['ZADD', '$z', '1', 'a', '2', 'b', '3', 'c', '4', 'd'], 4],
    [
      ['ZRANGE', '$z', '1', '2'],
      ['b', 'c'],
    ],
    [
      ['ZRANGE', '$z', '-2', '-1'],
      ['c', 'd'],
    ],
    [
      ['ZRANGE', '$z', '-100', '1'],
      ['a', 'b'],
    ],
    [
      ['ZRANGE', '$z', '2', '100'],
      ['c', 'd'],
    ],
    [['ZRANGE', '$z', '3', '1'], []],
    [['ZRANGE', '$z', '4', '10'], []],
    [['ZRANGE', '$z', '0', '-5'], []],
    [
      ['ZRANGE', '$z', '0', '9223372036854775807'],
      ['a', 'b', 'c', 'd'],
    ],
    [
      ['ZRANGE', '$z', '0', '0', 'REV', 'WITHSCORES'],
      ['d', '4'],
    ],
    [
      ['ZREVRANGE', '$z', '0', '1', 'WITHSCORES'],
      ['d', '4', 'c', '3'],
    ],
    [['ZRANGE', '$missing', '0', '-1'], []],
    [['ZRANGE', '$z', 'a', '1'], NOT_INTEGER],
    [
      ['ZRANGE', '$z', '0', '1', 'LIMIT', '0', '1'],
      error('ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX'),
    ],
    [['ZRANGE', '$z', '0', '1', 'FOO'], SYNTAX],
    [['ZRANGE', '$z', '0', '1', 'REV', 'REV'], SYNTAX],
    [['ZREVRANGE', '$z', '0', '1', 'REV'], SYNTAX],
  ],
  'ZRANGE BYSCORE and ZRANGEBYSCORE take exclusive and infinite bounds': [
    [['ZADD', '$z', '1', 'a', '2', 'b', '3', 'c', '4', 'd', '4', 'e'], 5],
    [
      ['ZRANGEBYSCORE', '$z', '2', '4'],
      ['b', 'c', 'd', 'e'],
    ],
    [['ZRANGEBYSCORE', '$z', '(2', '(4'], ['c']],
    [
      ['ZRANGEBYSCORE', '$z', '-inf', '+inf', 'WITHSCORES'],
      ['a', '1', 'b', '2', 'c', '3', 'd', '4', 'e', '4'],
    ],
    [['ZRANGEBYSCORE', '$z', '(4', 'inf'], []],
    [['ZRANGEBYSCORE', '$z', '3', '2'], []],
    [['ZRANGEBYSCORE', '$z', '(3', '3'], []],
    [
      ['ZRANGEBYSCORE', '$z', '4', '4'],
      ['d', 'e'],
    ],
    [['ZRANGEBYSCORE', '$z', ' 1', '( 2'], ['a']],
    [
      ['ZRANGEBYSCORE', '$z', '', '1e400'],
      ['a', 'b', 'c', 'd', 'e'],
    ],
    [
      ['ZRANGE', '$z', '(1', '3', 'BYSCORE', 'WITHSCORES'],
      ['b', '2', 'c', '3'],
    ],
    [
      ['ZRANGE', '$z', '3', '(1', 'BYSCORE', 'REV'],
      ['c', 'b'],
    ],
    [
      ['ZREVRANGEBYSCORE', '$z', '+inf', '-inf'],
      ['e', 'd', 'c', 'b', 'a'],
    ],
    [
      ['ZREVRANGEBYSCORE', '$z', '(4', '2', 'WITHSCORES'],
      ['c', '3', 'b', '2'],
    ],
    [['ZRANGEBYSCORE', '$missing', '-inf', '+inf'], []],
  ],
  'LIMIT takes an offset and a count; a negative count means all, a negative offset nothing': [
    [['ZADD', '$z', '1', 'a', '2', 'b', '3', 'c', '4', 'd', '5', 'e'], 5],
    [
      ['ZRANGEBYSCORE', '$z', '-inf', '+inf', 'LIMIT', '1', '2'],
      ['b', 'c'],
    ],
    [
      ['ZRANGEBYSCORE', '$z', '2', '+inf', 'LIMIT', '2', '10'],
      ['d', 'e'],
    ],
    [
      ['ZRANGEBYSCORE', '$z', '-inf', '+inf', 'LIMIT', '0', '-1'],
      ['a', 'b', 'c', 'd', 'e'],
    ],
    [['ZRANGEBYSCORE', '$z', '-inf', '+inf', 'LIMIT', '0', '0'], []],
    [['ZRANGEBYSCORE', '$z', '-inf', '+inf', 'LIMIT', '-1', '2'], []],
    [['ZRANGEBYSCORE', '$z', '-inf', '+inf', 'LIMIT', '5', '2'], []],
    [['ZRANGEBYSCORE', '$z', '-inf', '+inf', 'LIMIT', '4', '2'], ['e']],
    [
      ['ZREVRANGEBYSCORE', '$z', '+inf', '-inf', 'LIMIT', '1', '2', 'WITHSCORES'],
      ['d', '4', 'c', '3'],
    ],
    [
      ['ZRANGE', '$z', '+inf', '-inf', 'BYSCORE', 'REV', 'LIMIT', '0', '2'],
      ['e', 'd'],
    ],
    [['ZRANGEBYSCORE', '$z', '-inf', '+inf', 'LIMIT', '1'], SYNTAX],
    [['ZRANGEBYSCORE', '$z', '-inf', '+inf', 'LIMIT', 'x', '1'], NOT_INTEGER],
  ],
  'score range errors come before the key is looked at': [
    [['SET', '$s', 'v'], status('OK')],
    [['ZRANGEBYSCORE', '$s', 'a', '1'], BAD_RANGE],
    [['ZRANGEBYSCORE', '$s', '1', '(x'], BAD_RANGE],
    [['ZRANGEBYSCORE', '$s', 'nan', '1'], BAD_RANGE],
    [['ZRANGEBYSCORE', '$s', '1', '2', 'BYSCORE'], SYNTAX],
    [['ZRANGEBYSCORE', '$s', '1', '2', 'REV'], SYNTAX],
    [['ZRANGEBYSCORE', '$s', '1', '2'], WRONGTYPE],
    [['ZCOUNT', '$s', 'x', '1'], BAD_RANGE],
    [['ZCOUNT', '$s', '1', '2'], WRONGTYPE],
    [['ZREMRANGEBYSCORE', '$s', 'x', '1'], BAD_RANGE],
    [['ZREMRANGEBYSCORE', '$s', '1', '2'], WRONGTYPE],
  ],
  'ZRANGE BYLEX, ZRANGEBYLEX and ZREVRANGEBYLEX on members of one score': [
    [['ZADD', '$z', '0', 'a', '0', 'b', '0', 'c', '0', 'd', '0', 'e'], 5],
    [
      ['ZRANGEBYLEX', '$z', '-', '+'],
      ['a', 'b', 'c', 'd', 'e'],
    ],
    [
      ['ZRANGEBYLEX', '$z', '[b', '(d'],
      ['b', 'c'],
    ],
    [
      ['ZRANGEBYLEX', '$z', '(b', '[d'],
      ['c', 'd'],
    ],
    [
      ['ZRANGEBYLEX', '$z', '[bb', '+'],
      ['c', 'd', 'e'],
    ],
    [
      ['ZRANGEBYLEX', '$z', '-', '+', 'LIMIT', '1', '2'],
      ['b', 'c'],
    ],
    [['ZRANGEBYLEX', '$z', '[d', '[b'], []],
    [['ZRANGEBYLEX', '$z', '(c', '[c'], []],
    [['ZRANGEBYLEX', '$z', '+', '-'], []],
    [
      ['ZREVRANGEBYLEX', '$z', '+', '-', 'LIMIT', '0', '2'],
      ['e', 'd'],
    ],
    [
      ['ZREVRANGEBYLEX', '$z', '(d', '[b'],
      ['c', 'b'],
    ],
    [
      ['ZRANGE', '$z', '[c', '+', 'BYLEX'],
      ['c', 'd', 'e'],
    ],
    [
      ['ZRANGE', '$z', '[c', '-', 'BYLEX', 'REV'],
      ['c', 'b', 'a'],
    ],
    [['ZRANGEBYLEX', '$z', 'a', '+'], BAD_LEX],
    [['ZRANGEBYLEX', '$z', '-x', '+'], BAD_LEX],
    [['ZRANGEBYLEX', '$z', '-', '++'], BAD_LEX],
    [
      ['ZRANGEBYLEX', '$z', '-', '+', 'WITHSCORES'],
      error('ERR syntax error, WITHSCORES not supported in combination with BYLEX'),
    ],
    [['ZRANGE', '$z', '-', '+', 'BYLEX', 'BYSCORE'], SYNTAX],
  ],
  'BYLEX on members of different scores answers as Redis does for a small set': [
    [['ZADD', '$z', '1', 'b', '2', 'a'], 2],
    [
      ['ZRANGEBYLEX', '$z', '-', '+'],
      ['b', 'a'],
    ],
    [
      ['ZRANGEBYLEX', '$z', '[a', '[b'],
      ['b', 'a'],
    ],
    [['ZRANGEBYLEX', '$z', '[b', '+'], []],
    [
      ['ZREVRANGEBYLEX', '$z', '+', '-'],
      ['a', 'b'],
    ],
    [
      ['ZRANGE', '$z', '0', '-1', 'LIMIT', '0', '-1'],
      ['b', 'a'],
    ],
  ],
  'ZCOUNT counts members within a score range': [
    [['ZADD', '$z', '1', 'a', '2', 'b', '3', 'c'], 3],
    [['ZCOUNT', '$z', '-inf', '+inf'], 3],
    [['ZCOUNT', '$z', '(1', '3'], 2],
    [['ZCOUNT', '$z', '(1', '(3'], 1],
    [['ZCOUNT', '$z', '5', '1'], 0],
    [['ZCOUNT', '$missing', '-inf', '+inf'], 0],
  ],
  'ZREMRANGEBYSCORE removes a score range and the key when nothing is left': [
    [['ZADD', '$z', '1', 'a', '2', 'b', '3', 'c', '4', 'd'], 4],
    [['ZREMRANGEBYSCORE', '$z', '(1', '3'], 2],
    [
      ['ZRANGE', '$z', '0', '-1'],
      ['a', 'd'],
    ],
    [['ZREMRANGEBYSCORE', '$z', '10', '20'], 0],
    [['ZREMRANGEBYSCORE', '$z', '-inf', '+inf'], 2],
    [['EXISTS', '$z'], 0],
    [['ZREMRANGEBYSCORE', '$z', '-inf', '+inf'], 0],
  ],
  'every sorted-set command refuses a key of another type': [
    [['SADD', '$s', 'm'], 1],
    [['ZADD', '$s', '1', 'a'], WRONGTYPE],
    [['ZINCRBY', '$s', '1', 'a'], WRONGTYPE],
    [['ZREM', '$s', 'a'], WRONGTYPE],
    [['ZCARD', '$s'], WRONGTYPE],
    [['ZSCORE', '$s', 'a'], WRONGTYPE],
    [['ZRANGE', '$s', '0', '-1'], WRONGTYPE],
    [['ZREVRANGE', '$s', '0', '-1'], WRONGTYPE],
    [['ZRANGEBYLEX', '$s', '-', '+'], WRONGTYPE],
    [['ZREVRANGEBYSCORE', '$s', '+inf', '-inf'], WRONGTYPE],
  ],
});

const manyMembers = Array.from({ length: 129 }, (_, i) => [String(i), `m${i}`]).flat();

describeScripts('a score of -0', {
  'is answered as -0 by ZINCRBY but kept as 0 while the set is small, as in Redis compact encoding': [
    [['ZINCRBY', '$z', '-0', 'b'], '-0'],
    [['ZSCORE', '$z', 'b'], '0'],
    [['ZADD', '$z', '-0', 'a'], 1],
    [['ZSCORE', '$z', 'a'], '0'],
  ],
  'is kept as -0 once the set has outgrown the compact encoding (129 members)': [
    [['ZADD', '$z', ...manyMembers], 129],
    [['ZADD', '$z', '-0', 'zero'], 1],
    [['ZSCORE', '$z', 'zero'], '-0'],
    [
      ['ZRANGEBYSCORE', '$z', '-1', '0', 'WITHSCORES'],
      ['m0', '0', 'zero', '-0'],
    ],
  ],
  'is kept as -0 in a set holding a member longer than 64 bytes': [
    [['ZADD', '$z', '1', 'x'.repeat(65)], 1],
    [['ZREM', '$z', 'x'.repeat(65)], 1],
    [['ZADD', '$z', '1', 'x'.repeat(65), '-0', 'zero'], 2],
    [['ZSCORE', '$z', 'zero'], '-0'],
  ],
});

describe('sorted sets on the engine', () => {
  it('keeps a large set ordered through adds, moves and removals', () => {
    const { engine } = freshEngine();
    const scores = new Map<string, number>();
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    for (let i = 0; i < 3000; i++) {
      const member = `m${Math.floor(random() * 1000)}`;
      if (random() < 0.25) {
        engine.callSync(['ZREM', 'z', member]);
        scores.delete(member);
      } else {
        const score = Math.floor(random() * 100);
        engine.callSync(['ZADD', 'z', String(score), member]);
        scores.set(member, score);
      }
    }
    const expected = [...scores]
      .sort(([a, x], [b, y]) => x - y || (a < b ? -1 : a > b ? 1 : 0))
      .flatMap(([member, score]) => [member, String(score)]);
    expect(engine.callSync(['ZRANGE', 'z', '0', '-1', 'WITHSCORES'])).toEqual(expected);
    expect(engine.callSync(['ZCARD', 'z'])).toBe(scores.size);
    const inRange = [...scores.values()].filter((s) => s > 10 && s <= 40).length;
    expect(engine.callSync(['ZCOUNT', 'z', '(10', '40'])).toBe(inRange);
    expect((engine.callSync(['ZRANGEBYSCORE', 'z', '(10', '40']) as string[]).length).toBe(inRange);
  });

  it('costs about the same per ZADD, ZREM and ZRANGEBYSCORE page at 50k members as at 500', () => {
    /** Microseconds per round of (range page from the middle, add, remove) on a set of `size`. */
    const perRound = (size: number): number => {
      const { engine } = freshEngine();
      const members: string[] = [];
      for (let i = 0; i < size; i++) members.push(String(i), `job:${i}`);
      engine.callSync(['ZADD', 'delayed', ...members]);
      const round = (i: number) => {
        engine.callSync(['ZRANGEBYSCORE', 'delayed', `(${size / 2}`, '+inf', 'LIMIT', '0', '10']);
        engine.callSync(['ZADD', 'delayed', String(size / 2 + 0.5), `late:${i}`]);
        engine.callSync(['ZREM', 'delayed', `late:${i}`]);
      };
      for (let i = 0; i < 2000; i++) round(i);
      const started = performance.now();
      for (let i = 0; i < 4000; i++) round(i);
      expect(engine.callSync(['ZRANGEBYSCORE', 'delayed', '(5', '8'])).toEqual(['job:6', 'job:7', 'job:8']);
      return ((performance.now() - started) * 1000) / 4000;
    };
    const small = perRound(500);
    const large = perRound(50_000);
    // Log-time paths grow by ~1.7x from 500 to 50k members; a linear scan or re-sort would be ~100x.
    expect(large / small).toBeLessThan(8);
  });

  it('records ZADD and ZREMRANGEBYSCORE as writes and ZRANGE as a read', () => {
    const { engine } = freshEngine();
    const written: string[] = [];
    engine.setWriteListener((record) => written.push(record.argv[0] ?? ''));
    engine.callSync(['ZADD', 'z', '1', 'a']);
    engine.callSync(['ZRANGE', 'z', '0', '-1']);
    engine.callSync(['ZREMRANGEBYSCORE', 'z', '0', '5']);
    expect(written).toEqual(['ZADD', 'ZREMRANGEBYSCORE']);
  });

  it('answers the arity error for every sorted-set command', () => {
    const arity = (name: string) => error(`ERR wrong number of arguments for '${name}' command`);
    runOnEngine([
      [['ZADD', 'z', '1'], arity('zadd')],
      [['ZINCRBY', 'z', '1'], arity('zincrby')],
      [['ZREM', 'z'], arity('zrem')],
      [['ZCARD'], arity('zcard')],
      [['ZSCORE', 'z'], arity('zscore')],
      [['ZCOUNT', 'z', '1'], arity('zcount')],
      [['ZRANGE', 'z', '1'], arity('zrange')],
      [['ZRANGEBYSCORE', 'z', '1'], arity('zrangebyscore')],
      [['ZREVRANGEBYSCORE', 'z', '1'], arity('zrevrangebyscore')],
      [['ZREMRANGEBYSCORE', 'z', '1'], arity('zremrangebyscore')],
    ]);
  });
});
