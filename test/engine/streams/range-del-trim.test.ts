import {
  commandScripts,
  error,
  fill,
  INVALID_ID,
  MAX,
  MAX_ID,
  NOT_INTEGER,
  OK,
  SYNTAX,
  streamFull,
  streamSummary,
  WRONGTYPE,
} from '../../support/command-script.ts';

const { describeScripts } = commandScripts({ placeholder: '@', keyTag: 'streamtest' });

const INVALID_START = error('ERR invalid start ID for the interval');
const INVALID_END = error('ERR invalid end ID for the interval');
const e = (id: string, value: string) => [id, ['f', value]];

describeScripts('XLEN, XRANGE and XREVRANGE', {
  'XLEN counts live entries, 0 for a missing key, WRONGTYPE for another type': [
    [['XLEN', '@s'], 0],
    ...fill('@s', 3),
    [['XLEN', '@s'], 3],
    [['XDEL', '@s', '2-0'], 1],
    [['XLEN', '@s'], 2],
    [['SET', '@str', 'x'], OK],
    [['XLEN', '@str'], WRONGTYPE],
  ],
  'XRANGE takes - and +, plain ids, missing sequences and COUNT': [
    ...fill('@s', 5),
    [['XADD', '@s', '5-1', 'f', 'v5b'], '5-1'],
    [
      ['XRANGE', '@s', '-', '+'],
      [e('1-0', 'v1'), e('2-0', 'v2'), e('3-0', 'v3'), e('4-0', 'v4'), e('5-0', 'v5'), e('5-1', 'v5b')],
    ],
    [
      ['XRANGE', '@s', '2', '4'],
      [e('2-0', 'v2'), e('3-0', 'v3'), e('4-0', 'v4')],
    ],
    [
      ['XRANGE', '@s', '5', '5'],
      [e('5-0', 'v5'), e('5-1', 'v5b')],
    ],
    [['XRANGE', '@s', '5-1', '+'], [e('5-1', 'v5b')]],
    [
      ['XRANGE', '@s', '-', '+', 'COUNT', '2'],
      [e('1-0', 'v1'), e('2-0', 'v2')],
    ],
    [['XRANGE', '@s', '-', '+', 'count', '9', 'COUNT', '1'], [e('1-0', 'v1')]],
    [['XRANGE', '@s', '-', '+', 'COUNT', '0'], null],
    [['XRANGE', '@s', '-', '+', 'COUNT', '-3'], null],
    [['XRANGE', '@s', '4', '2'], []],
    [['XRANGE', '@s', '6', '+'], []],
  ],
  'XREVRANGE takes the end first and walks backwards': [
    ...fill('@s', 5),
    [
      ['XREVRANGE', '@s', '+', '-', 'COUNT', '2'],
      [e('5-0', 'v5'), e('4-0', 'v4')],
    ],
    [
      ['XREVRANGE', '@s', '4', '2'],
      [e('4-0', 'v4'), e('3-0', 'v3'), e('2-0', 'v2')],
    ],
    [['XREVRANGE', '@s', '2', '4'], []],
    // A missing sequence is the largest in an end bound, so `(4` still takes 4-0.
    [
      ['XREVRANGE', '@s', '(4', '(2'],
      [e('4-0', 'v4'), e('3-0', 'v3')],
    ],
    [['XREVRANGE', '@s', '(4-0', '(2-0'], [e('3-0', 'v3')]],
    [['XREVRANGE', '@s', '+', '-', 'COUNT', '0'], null],
  ],
  'makes ( bounds exclusive, and refuses to step past either end of the id space': [
    ...fill('@s', 4),
    [
      ['XRANGE', '@s', '(1-0', '(4-0'],
      [e('2-0', 'v2'), e('3-0', 'v3')],
    ],
    [
      ['XRANGE', '@s', '(1', '+'],
      [e('2-0', 'v2'), e('3-0', 'v3'), e('4-0', 'v4')],
    ],
    [
      ['XRANGE', '@s', '-', '(3'],
      [e('1-0', 'v1'), e('2-0', 'v2'), e('3-0', 'v3')],
    ],
    [
      ['XRANGE', '@s', '-', '(3-0'],
      [e('1-0', 'v1'), e('2-0', 'v2')],
    ],
    [['XRANGE', '@s', '(0-1', '+', 'COUNT', '1'], [e('1-0', 'v1')]],
    [['XRANGE', '@s', '(0-18446744073709551615', '+', 'COUNT', '1'], [e('1-0', 'v1')]],
    [['XRANGE', '@s', `(${MAX_ID}`, '+'], INVALID_START],
    [['XRANGE', '@s', '-', '(0-0'], INVALID_END],
    [['XRANGE', '@s', '-', '(0'], []],
    [['XRANGE', '@s', '(-', '+'], INVALID_ID],
    [['XRANGE', '@s', '-', '(+'], INVALID_ID],
    [['XRANGE', '@s', '(', '+'], INVALID_ID],
    [['XREVRANGE', '@s', '(0-0', '-'], INVALID_END],
    [['XREVRANGE', '@s', '+', `(${MAX_ID}`], INVALID_START],
  ],
  'checks ids and options before the key, then the key type': [
    [['XRANGE', '@none', 'x', '+'], INVALID_ID],
    [['XRANGE', '@none', '-', '+', 'COUNT'], SYNTAX],
    [['XRANGE', '@none', '-', '+', 'LIMIT', '1'], SYNTAX],
    [['XRANGE', '@none', '-', '+', 'COUNT', 'x'], NOT_INTEGER],
    [['XRANGE', '@none', '-', '+'], []],
    [['XRANGE', '@none', '-', '+', 'COUNT', '0'], []],
    [['SET', '@str', 'x'], OK],
    [['XRANGE', '@str', '-', '+', 'COUNT', 'x'], NOT_INTEGER],
    [['XRANGE', '@str', '-', '+'], WRONGTYPE],
    [['XREVRANGE', '@str', '+', '-'], WRONGTYPE],
    [['XRANGE', '@s'], error("ERR wrong number of arguments for 'xrange' command")],
  ],
  'ranges over the largest ids exactly': [
    [['XADD', '@s', `${MAX}-1`, 'f', 'a'], `${MAX}-1`],
    [['XADD', '@s', `${MAX}-${MAX}`, 'f', 'b'], MAX_ID],
    [
      ['XRANGE', '@s', MAX, '+'],
      [e(`${MAX}-1`, 'a'), e(MAX_ID, 'b')],
    ],
    [['XRANGE', '@s', `(${MAX}-1`, MAX], [e(MAX_ID, 'b')]],
    [['XREVRANGE', '@s', MAX, `${MAX}-2`], [e(MAX_ID, 'b')]],
    [['XRANGE', '@s', '-', '18446744073709551614'], []],
  ],
});

describeScripts('XDEL', {
  'deletes live entries once, and answers how many it deleted': [
    ...fill('@s', 5),
    [['XDEL', '@s', '2-0', '4', '2-0', '9-0'], 2],
    [['XDEL', '@s', '2-0'], 0],
    [
      ['XRANGE', '@s', '-', '+'],
      [e('1-0', 'v1'), e('3-0', 'v3'), e('5-0', 'v5')],
    ],
    [['XLEN', '@s'], 3],
  ],
  'looks at the key first: a missing key answers 0 whatever the ids': [
    [['XDEL', '@none', 'bad-id'], 0],
    ...fill('@s', 2),
    [['XDEL', '@s', '1-0', 'bad-id'], INVALID_ID],
    [['XDEL', '@s', '-'], INVALID_ID],
    [['XLEN', '@s'], 2],
    [['SET', '@str', 'x'], OK],
    [['XDEL', '@str', 'bad-id'], WRONGTYPE],
  ],
  'records the largest deleted id and moves the first id on': [
    ...fill('@s', 4),
    [['XDEL', '@s', '1-0', '3-0'], 2],
    [
      ['XINFO', 'STREAM', '@s', 'FULL', 'COUNT', '0'],
      streamFull({ length: 2, keys: 1, nodes: 2, last: '4-0', maxDeleted: '3-0', added: 4, first: '2-0' }, [
        e('2-0', 'v2'),
        e('4-0', 'v4'),
      ]),
    ],
    [['XDEL', '@s', '2-0', '4-0'], 2],
    [
      ['XINFO', 'STREAM', '@s', 'FULL', 'COUNT', '0'],
      streamFull(
        { length: 0, keys: 0, nodes: 1, last: '4-0', maxDeleted: '4-0', added: 4, first: '0-0' },
        [],
      ),
    ],
    [['EXISTS', '@s'], 1],
    [
      ['XADD', '@s', '3-0', 'f', 'v'],
      error('ERR The ID specified in XADD is equal or smaller than the target stream top item'),
    ],
  ],
});

describeScripts('XTRIM', {
  'trims exactly by MAXLEN and MINID and answers how many entries went': [
    ...fill('@s', 10),
    [['XTRIM', '@s', 'MAXLEN', '7'], 3],
    [['XTRIM', '@s', 'MAXLEN', '=', '7'], 0],
    [['XTRIM', '@s', 'MINID', '6'], 2],
    [['XTRIM', '@s', 'minid', '=', '6-1'], 1],
    [['XRANGE', '@s', '-', '+', 'COUNT', '1'], [e('7-0', 'v7')]],
    [['XTRIM', '@s', 'MAXLEN', '0'], 4],
    [['XLEN', '@s'], 0],
    [['EXISTS', '@s'], 1],
    [['XTRIM', '@none', 'MAXLEN', '0'], 0],
  ],
  'trims with ~ whole nodes only, honouring LIMIT': [
    ...fill('@s', 250),
    [['XTRIM', '@s', 'MAXLEN', '~', '200'], 0],
    [['XTRIM', '@s', 'MAXLEN', '~', '150'], 100],
    [['XTRIM', '@s', 'MINID', '~', '240'], 100],
    [['XTRIM', '@s', 'MINID', '~', '251'], 50],
    [['XLEN', '@s'], 0],
    ...fill('@t', 500),
    [['XTRIM', '@t', 'MAXLEN', '~', '0', 'LIMIT', '250'], 200],
    [['XTRIM', '@t', 'MAXLEN', '~', '0', 'LIMIT', '99'], 0],
    [['XTRIM', '@t', 'MAXLEN', '~', '0', 'LIMIT', '0'], 300],
  ],
  'keeps a node whose live entries all fall below an exact MINID while a tombstone is above it': [
    ...fill('@s', 3),
    [['XDEL', '@s', '3-0'], 1],
    [['XTRIM', '@s', 'MINID', '3'], 2],
    [['XLEN', '@s'], 0],
    [
      ['XINFO', 'STREAM', '@s'],
      streamSummary(
        { length: 0, keys: 1, nodes: 2, last: '3-0', maxDeleted: '3-0', added: 3, first: '0-0' },
        { firstEntry: null, lastEntry: null },
      ),
    ],
    [['XADD', '@s', '4-0', 'f', 'v4'], '4-0'],
    [
      ['XINFO', 'STREAM', '@s', 'FULL'],
      streamFull({ length: 1, keys: 1, nodes: 2, last: '4-0', maxDeleted: '3-0', added: 4, first: '4-0' }, [
        e('4-0', 'v4'),
      ]),
    ],
  ],
  'reports option errors like XADD, plus its own': [
    ...fill('@s', 2),
    [['XTRIM', '@s', 'NOMKSTREAM', 'MAXLEN', '1'], SYNTAX],
    [
      ['XTRIM', '@s', 'LIMIT', '5'],
      error('ERR syntax error, LIMIT cannot be used without specifying a trimming strategy'),
    ],
    [['XTRIM', '@s', 'LIMIT', '0'], error('ERR syntax error, XTRIM must be called with a trimming strategy')],
    [
      ['XTRIM', '@s', 'MAXLEN', '1', 'LIMIT', '5'],
      error('ERR syntax error, LIMIT cannot be used without the special ~ option'),
    ],
    [
      ['XTRIM', '@s', 'MAXLEN', '1', 'MINID', '1'],
      error('ERR syntax error, MAXLEN and MINID options at the same time are not compatible'),
    ],
    [['XTRIM', '@s', 'MAXLEN', '-1'], error('ERR The MAXLEN argument must be >= 0.')],
    [['XTRIM', '@s', 'MAXLEN', '~'], NOT_INTEGER],
    [['XTRIM', '@s', 'MINID', '-'], INVALID_ID],
    [['XTRIM', '@s', 'MAXLEN', '1', 'junk'], SYNTAX],
    [['XTRIM', '@s', 'MAXLEN'], error("ERR wrong number of arguments for 'xtrim' command")],
    [
      ['XTRIM', '@none', 'LIMIT', '1'],
      error('ERR syntax error, LIMIT cannot be used without specifying a trimming strategy'),
    ],
    [['SET', '@str', 'x'], OK],
    [['XTRIM', '@str', 'MAXLEN', 'x'], NOT_INTEGER],
    [['XTRIM', '@str', 'MAXLEN', '1'], WRONGTYPE],
    [['XLEN', '@s'], 2],
  ],
});
