import { describe, expect, it } from 'vitest';
import {
  call,
  commandScripts,
  error,
  fill,
  freshEngine,
  INVALID_ID,
  NOT_INTEGER,
  OK,
  type Step,
  SYNTAX,
  WRONGTYPE,
} from '../../support/command-script.ts';

const { describeScripts } = commandScripts({ placeholder: '@', keyTag: 'streamtest' });

const noGroup = (key: string, group: string) =>
  error(`NOGROUP No such key '${key}' or consumer group '${group}'`);
const HOUR = '3600000';

/** Three entries read by `alice` (1, 2) and `bob` (3) in group g of `@s`. */
const threePending: Step[] = [
  ...fill('@s', 3),
  [['XGROUP', 'CREATE', '@s', 'g', '0'], OK],
  [
    ['XREADGROUP', 'GROUP', 'g', 'alice', 'COUNT', '2', 'STREAMS', '@s', '>'],
    [
      [
        '@s',
        [
          ['1-0', ['f', 'v1']],
          ['2-0', ['f', 'v2']],
        ],
      ],
    ],
  ],
  [['XREADGROUP', 'GROUP', 'g', 'bob', 'STREAMS', '@s', '>'], [['@s', [['3-0', ['f', 'v3']]]]]],
];

describeScripts('XACK', {
  'acknowledges pending ids once, counting duplicates once': [
    ...threePending,
    [['XACK', '@s', 'g', '1-0'], 1],
    [['XACK', '@s', 'g', '1-0'], 0],
    [['XACK', '@s', 'g', '2-0', '2', '3-0', '9-0'], 2],
    [
      ['XPENDING', '@s', 'g'],
      [0, null, null, null],
    ],
  ],
  'refuses the whole batch when one id is invalid': [
    ...threePending,
    [['XACK', '@s', 'g', '1-0', 'nope'], INVALID_ID],
    [['XACK', '@s', 'g', '1-0', '+'], INVALID_ID],
    [
      ['XPENDING', '@s', 'g'],
      [
        3,
        '1-0',
        '3-0',
        [
          ['alice', '2'],
          ['bob', '1'],
        ],
      ],
    ],
  ],
  'answers 0 without parsing ids when the key or group is missing, WRONGTYPE first': [
    [['XACK', '@none', 'g', 'nope'], 0],
    ...fill('@s', 1),
    [['XACK', '@s', 'g', 'nope'], 0],
    [['SET', '@str', 'x'], OK],
    [['XACK', '@str', 'g', 'nope'], WRONGTYPE],
    [['XACK', '@s', 'g'], error("ERR wrong number of arguments for 'xack' command")],
  ],
});

describeScripts('XPENDING', {
  'summarises the PEL: count, first and last id, consumers with pending entries in byte order': [
    ...threePending,
    [['XGROUP', 'CREATECONSUMER', '@s', 'g', 'carol'], 1],
    [['XGROUP', 'CREATECONSUMER', '@s', 'g', 'Zed'], 1],
    [
      ['XPENDING', '@s', 'g'],
      [
        3,
        '1-0',
        '3-0',
        [
          ['alice', '2'],
          ['bob', '1'],
        ],
      ],
    ],
    [['XCLAIM', '@s', 'g', 'Zed', '0', '2-0', 'JUSTID'], ['2-0']],
    [
      ['XPENDING', '@s', 'g'],
      [
        3,
        '1-0',
        '3-0',
        [
          ['Zed', '1'],
          ['alice', '1'],
          ['bob', '1'],
        ],
      ],
    ],
  ],
  'lists rows in id order from start to end, at most count, of one consumer if named': [
    ...threePending,
    [['XPENDING', '@s', 'g', '-', '+', '10', 'nobody'], []],
    [['XPENDING', '@s', 'g', '-', '+', '10', 'nobody', 'ignored'], []],
    [['XPENDING', '@s', 'g', '-', '+', '0'], []],
    [['XPENDING', '@s', 'g', '-', '+', '-1'], []],
    [['XPENDING', '@s', 'g', 'IDLE', HOUR, '-', '+', '10'], []],
    [['XPENDING', '@s', 'g', '(3-0', '+', '10'], []],
    [['XPENDING', '@s', 'g', '3', '1', '10'], []],
    [['XPENDING', '@s', 'g', 'IDLE', '0', '(2-0', '2-0', '10', 'alice'], []],
    [['XPENDING', '@s', 'g', '-', '(1-0', '10'], []],
    [['XPENDING', '@s', 'g', 'IDLE', HOUR, '-', '+', '10', 'alice'], []],
  ],
  'checks arguments before the key, and names the key and group in NOGROUP': [
    [['XPENDING', '@s', 'g', '-'], SYNTAX],
    [['XPENDING', '@s', 'g', '-', '+'], SYNTAX],
    [['XPENDING', '@s', 'g', '-', '+', '1', 'c', 'x', 'y', 'z'], SYNTAX],
    [['XPENDING', '@s', 'g', 'IDLE', '5', '-', '+'], SYNTAX],
    [['XPENDING', '@s', 'g', 'IDLE', 'x', '-', '+'], NOT_INTEGER],
    [['XPENDING', '@s', 'g', 'bad', '+', 'x'], NOT_INTEGER],
    [['XPENDING', '@s', 'g', 'bad', '+', '1'], INVALID_ID],
    [['XPENDING', '@s', 'g', '(-', '+', '1'], INVALID_ID],
    [['XPENDING', '@s', 'g', '-', '(0-0', '1'], error('ERR invalid end ID for the interval')],
    [
      ['XPENDING', '@s', 'g', '(18446744073709551615-18446744073709551615', '+', '1'],
      error('ERR invalid start ID for the interval'),
    ],
    [['XPENDING', '@s', 'g', '-', '+', '1'], noGroup('@s', 'g')],
    [['XPENDING', '@s', 'g'], noGroup('@s', 'g')],
    ...fill('@s', 1),
    [['XPENDING', '@s', 'g'], noGroup('@s', 'g')],
    [['XGROUP', 'CREATE', '@s', 'g', '$'], OK],
    [
      ['XPENDING', '@s', 'g'],
      [0, null, null, null],
    ],
    [['XPENDING', '@s', 'g', '-', '+', '5'], []],
    [['SET', '@str', 'x'], OK],
    [['XPENDING', '@str', 'g', 'bad', '+', '1'], INVALID_ID],
    [['XPENDING', '@str', 'g'], WRONGTYPE],
    [['XPENDING', '@s'], error("ERR wrong number of arguments for 'xpending' command")],
  ],
});

describe('XPENDING rows with the clock', () => {
  it('shows idle time and delivery count, filters by IDLE and by consumer', () => {
    const { engine, clock } = freshEngine();
    for (const id of ['1-0', '2-0', '3-0']) call(engine, 'XADD', 's', id, 'f', 'v');
    call(engine, 'XGROUP', 'CREATE', 's', 'g', '0');
    call(engine, 'XREADGROUP', 'GROUP', 'g', 'alice', 'COUNT', '2', 'STREAMS', 's', '>');
    clock.advance(1000);
    call(engine, 'XREADGROUP', 'GROUP', 'g', 'bob', 'STREAMS', 's', '>');
    clock.advance(500);
    expect(call(engine, 'XPENDING', 's', 'g', '-', '+', '10')).toEqual([
      ['1-0', 'alice', 1500, 1],
      ['2-0', 'alice', 1500, 1],
      ['3-0', 'bob', 500, 1],
    ]);
    expect(call(engine, 'XPENDING', 's', 'g', 'IDLE', '1000', '-', '+', '10')).toEqual([
      ['1-0', 'alice', 1500, 1],
      ['2-0', 'alice', 1500, 1],
    ]);
    expect(call(engine, 'XPENDING', 's', 'g', 'IDLE', '501', '-', '+', '10', 'bob')).toEqual([]);
    expect(call(engine, 'XPENDING', 's', 'g', 'idle', '500', '(1-0', '+', '1', 'bob')).toEqual([
      ['3-0', 'bob', 500, 1],
    ]);
    expect(call(engine, 'XPENDING', 's', 'g', '2', '+', '1')).toEqual([['2-0', 'alice', 1500, 1]]);
  });

  it('never shows a negative idle time when the clock goes back', () => {
    const { engine, clock } = freshEngine();
    call(engine, 'XADD', 's', '1-0', 'f', 'v');
    call(engine, 'XGROUP', 'CREATE', 's', 'g', '0');
    call(engine, 'XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', 's', '>');
    clock.advance(-50);
    expect(call(engine, 'XPENDING', 's', 'g', '-', '+', '10')).toEqual([['1-0', 'c', 0, 1]]);
    // The IDLE filter uses the raw difference, as Redis does: -50 < 1 filters the row out.
    expect(call(engine, 'XPENDING', 's', 'g', 'IDLE', '1', '-', '+', '10')).toEqual([]);
  });

  it('does not refresh the seen-time of a consumer it lists', () => {
    const { engine, clock } = freshEngine();
    call(engine, 'XADD', 's', '1-0', 'f', 'v');
    call(engine, 'XGROUP', 'CREATE', 's', 'g', '0');
    call(engine, 'XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', 's', '>');
    clock.advance(300);
    call(engine, 'XPENDING', 's', 'g', '-', '+', '10', 'c');
    call(engine, 'XPENDING', 's', 'g');
    call(engine, 'XACK', 's', 'g', '1-0');
    expect(call(engine, 'XINFO', 'CONSUMERS', 's', 'g')).toEqual([['name', 'c', 'pending', 0, 'idle', 300]]);
  });
});
