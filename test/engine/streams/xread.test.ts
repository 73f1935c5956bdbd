import { describe, expect, it } from 'vitest';
import {
  call,
  commandScripts,
  error,
  fill,
  freshEngine,
  INVALID_ID,
  MAX_ID,
  NOT_INTEGER,
  OK,
  SYNTAX,
  WRONGTYPE,
} from '../../support/command-script.ts';

const { describeScripts } = commandScripts({ placeholder: '@', keyTag: 'streamtest' });

const e = (id: string, value: string) => [id, ['f', value]];
const UNBALANCED = error(
  "ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.",
);
const noGroup = (key: string, group: string) =>
  error(`NOGROUP No such key '${key}' or consumer group '${group}' in XREADGROUP with GROUP option`);
/** XINFO GROUPS row: name, consumers, pending, last-delivered-id, entries-read, lag. */
const group = (
  name: string,
  consumers: number,
  pending: number,
  last: string,
  read: number | null,
  lag: number | null,
) => [
  'name',
  name,
  'consumers',
  consumers,
  'pending',
  pending,
  'last-delivered-id',
  last,
  'entries-read',
  read,
  'lag',
  lag,
];

describeScripts('XREAD', {
  'reads entries after the given ids, per stream in argument order, skipping empty ones': [
    ...fill('@a', 3),
    ...fill('@b', 2),
    [
      ['XREAD', 'STREAMS', '@a', '@b', '1-0', '0'],
      [
        ['@a', [e('2-0', 'v2'), e('3-0', 'v3')]],
        ['@b', [e('1-0', 'v1'), e('2-0', 'v2')]],
      ],
    ],
    [
      ['XREAD', 'COUNT', '1', 'STREAMS', '@a', '@none', '@b', '0', '0', '1'],
      [
        ['@a', [e('1-0', 'v1')]],
        ['@b', [e('2-0', 'v2')]],
      ],
    ],
    [['XREAD', 'STREAMS', '@a', '@b', '3', '2-0'], null],
    [['XREAD', 'STREAMS', '@a', '$'], null],
    [['XREAD', 'COUNT', '-5', 'STREAMS', '@a', '1'], [['@a', [e('2-0', 'v2'), e('3-0', 'v3')]]]],
    [
      ['XREAD', 'STREAMS', '@a', '@a', '2', '1'],
      [
        ['@a', [e('3-0', 'v3')]],
        ['@a', [e('2-0', 'v2'), e('3-0', 'v3')]],
      ],
    ],
    [['XDEL', '@a', '3-0'], 1],
    [['XREAD', 'STREAMS', '@a', '2'], null],
    [['XREAD', 'BLOCK', '0', 'COUNT', '5', 'streams', '@a', '0'], [['@a', [e('1-0', 'v1'), e('2-0', 'v2')]]]],
  ],
  'reports parse errors before anything else, then WRONGTYPE': [
    [['XREAD', 'STREAMS', '@a', '@b', '0'], UNBALANCED],
    [['XREAD', 'COUNT', '1', '@a', '0'], SYNTAX],
    [['XREAD', 'COUNT', 'x', 'STREAMS', '@a', '0'], NOT_INTEGER],
    [['XREAD', 'BLOCK', 'x', 'STREAMS', '@a', '0'], error('ERR timeout is not an integer or out of range')],
    [['XREAD', 'BLOCK', '-1', 'STREAMS', '@a', '0'], error('ERR timeout is negative')],
    [
      ['XREAD', 'GROUP', 'g', 'c', 'STREAMS', '@a', '0'],
      error('ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.'),
    ],
    [
      ['XREAD', 'NOACK', 'STREAMS', '@a', '0'],
      error('ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.'),
    ],
    [
      ['XREAD', 'STREAMS', '@a', '>'],
      error(
        'ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option.',
      ),
    ],
    [['XREAD', 'STREAMS', '@a', '-'], INVALID_ID],
    [['XREAD', 'STREAMS', '@a', '@b', '0', 'x'], INVALID_ID],
    [['SET', '@str', 'x'], OK],
    [['XREAD', 'STREAMS', '@str', '@a', '0', 'x'], WRONGTYPE],
    [['XREAD', 'STREAMS', '@a', '@str', 'x', '0'], INVALID_ID],
    [['XREAD', 'STREAMS', '@a'], error("ERR wrong number of arguments for 'xread' command")],
  ],
});

describeScripts('XREADGROUP', {
  'delivers new entries with >, then the consumer history with an id': [
    ...fill('@s', 4),
    [['XGROUP', 'CREATE', '@s', 'g', '0'], OK],
    [
      ['XREADGROUP', 'GROUP', 'g', 'alice', 'COUNT', '2', 'STREAMS', '@s', '>'],
      [['@s', [e('1-0', 'v1'), e('2-0', 'v2')]]],
    ],
    [['XREADGROUP', 'GROUP', 'g', 'bob', 'STREAMS', '@s', '>'], [['@s', [e('3-0', 'v3'), e('4-0', 'v4')]]]],
    [['XREADGROUP', 'GROUP', 'g', 'bob', 'STREAMS', '@s', '>'], null],
    [['XREADGROUP', 'GROUP', 'g', 'alice', 'STREAMS', '@s', '0'], [['@s', [e('1-0', 'v1'), e('2-0', 'v2')]]]],
    [['XREADGROUP', 'GROUP', 'g', 'alice', 'COUNT', '1', 'STREAMS', '@s', '1-0'], [['@s', [e('2-0', 'v2')]]]],
    [['XREADGROUP', 'GROUP', 'g', 'bob', 'STREAMS', '@s', '4'], [['@s', []]]],
    [['XREADGROUP', 'GROUP', 'g', 'carol', 'STREAMS', '@s', '0'], [['@s', []]]],
    [['XINFO', 'GROUPS', '@s'], [group('g', 3, 4, '4-0', 4, 0)]],
  ],
  'creates no consumer when > finds nothing': [
    [['XGROUP', 'CREATE', '@s', 'g', '$', 'MKSTREAM'], OK],
    [['XREADGROUP', 'GROUP', 'g', 'alice', 'STREAMS', '@s', '>'], null],
    [['XINFO', 'GROUPS', '@s'], [group('g', 0, 0, '0-0', null, 0)]],
  ],
  'shows deleted entries of the history as [id, nil] and keeps them pending': [
    ...fill('@s', 3),
    [['XGROUP', 'CREATE', '@s', 'g', '0'], OK],
    [
      ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', '@s', '>'],
      [['@s', [e('1-0', 'v1'), e('2-0', 'v2'), e('3-0', 'v3')]]],
    ],
    [['XDEL', '@s', '2-0'], 1],
    [['XADD', '@s', 'MAXLEN', '1', '4-0', 'f', 'v4'], '4-0'],
    [
      ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', '@s', '0'],
      [
        [
          '@s',
          [
            ['1-0', null],
            ['2-0', null],
            ['3-0', null],
          ],
        ],
      ],
    ],
    [
      ['XPENDING', '@s', 'g'],
      [3, '1-0', '3-0', [['c', '3']]],
    ],
  ],
  'with NOACK advances the group without filling the PEL': [
    ...fill('@s', 3),
    [['XGROUP', 'CREATE', '@s', 'g', '0'], OK],
    [
      ['XREADGROUP', 'GROUP', 'g', 'c', 'NOACK', 'COUNT', '2', 'STREAMS', '@s', '>'],
      [['@s', [e('1-0', 'v1'), e('2-0', 'v2')]]],
    ],
    [
      ['XPENDING', '@s', 'g'],
      [0, null, null, null],
    ],
    [['XINFO', 'GROUPS', '@s'], [group('g', 1, 0, '2-0', 2, 1)]],
  ],
  'hands entries back with count 1 to the next > reader after SETID moves the group back': [
    ...fill('@s', 2),
    [['XGROUP', 'CREATE', '@s', 'g', '0'], OK],
    [['XREADGROUP', 'GROUP', 'g', 'alice', 'STREAMS', '@s', '>'], [['@s', [e('1-0', 'v1'), e('2-0', 'v2')]]]],
    [['XREADGROUP', 'GROUP', 'g', 'alice', 'STREAMS', '@s', '0'], [['@s', [e('1-0', 'v1'), e('2-0', 'v2')]]]],
    [['XGROUP', 'SETID', '@s', 'g', '-'], OK],
    [['XREADGROUP', 'GROUP', 'g', 'bob', 'COUNT', '1', 'STREAMS', '@s', '>'], [['@s', [e('1-0', 'v1')]]]],
    [
      ['XPENDING', '@s', 'g'],
      [
        2,
        '1-0',
        '2-0',
        [
          ['alice', '1'],
          ['bob', '1'],
        ],
      ],
    ],
    [['XREADGROUP', 'GROUP', 'g', 'alice', 'STREAMS', '@s', '0'], [['@s', [e('2-0', 'v2')]]]],
  ],
  'treats the maximum id as > and reads several streams at once': [
    ...fill('@a', 2),
    ...fill('@b', 1),
    [['XGROUP', 'CREATE', '@a', 'g', '0'], OK],
    [['XGROUP', 'CREATE', '@b', 'g', '$'], OK],
    [
      ['XREADGROUP', 'GROUP', 'g', 'c', 'COUNT', '1', 'STREAMS', '@a', '@b', MAX_ID, '>'],
      [['@a', [e('1-0', 'v1')]]],
    ],
    [['XADD', '@b', '2-0', 'f', 'v2'], '2-0'],
    [
      ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', '@a', '@b', '0', '>'],
      [
        ['@a', [e('1-0', 'v1')]],
        ['@b', [e('2-0', 'v2')]],
      ],
    ],
  ],
  'tracks entries-read and lag through reads and deletions': [
    ...fill('@s', 5),
    [['XGROUP', 'CREATE', '@s', 'g', '0'], OK],
    [['XINFO', 'GROUPS', '@s'], [group('g', 0, 0, '0-0', null, 5)]],
    [['XREADGROUP', 'GROUP', 'g', 'c', 'COUNT', '1', 'STREAMS', '@s', '>'], [['@s', [e('1-0', 'v1')]]]],
    [['XINFO', 'GROUPS', '@s'], [group('g', 1, 1, '1-0', 1, 4)]],
    [['XDEL', '@s', '4-0'], 1],
    [['XINFO', 'GROUPS', '@s'], [group('g', 1, 1, '1-0', 1, null)]],
    [['XREADGROUP', 'GROUP', 'g', 'c', 'COUNT', '1', 'STREAMS', '@s', '>'], [['@s', [e('2-0', 'v2')]]]],
    [['XINFO', 'GROUPS', '@s'], [group('g', 1, 2, '2-0', null, null)]],
    [['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', '@s', '>'], [['@s', [e('3-0', 'v3'), e('5-0', 'v5')]]]],
    [['XINFO', 'GROUPS', '@s'], [group('g', 1, 4, '5-0', 5, 0)]],
    [['XADD', '@s', '6-0', 'f', 'v6'], '6-0'],
    [['XINFO', 'GROUPS', '@s'], [group('g', 1, 4, '5-0', 5, 1)]],
  ],
  'reports parse errors, then WRONGTYPE and NOGROUP per stream': [
    [
      ['XREADGROUP', 'COUNT', '1', 'STREAMS', '@s', '>'],
      error("ERR wrong number of arguments for 'xreadgroup' command"),
    ],
    [
      ['XREADGROUP', 'COUNT', '1', 'NOACK', 'STREAMS', '@s', '>'],
      error('ERR Missing GROUP option for XREADGROUP'),
    ],
    [['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', '@s', '>', '0'], UNBALANCED],
    [['XREADGROUP', 'GROUP', 'g', 'STREAMS', '@s', '@t', '>'], SYNTAX],
    [['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', '@s', '>'], noGroup('@s', 'g')],
    ...fill('@s', 1),
    [['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', '@s', '>'], noGroup('@s', 'g')],
    [['XGROUP', 'CREATE', '@s', 'g', '0'], OK],
    [
      ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', '@s', '$'],
      error(
        'ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would just return an empty result set.',
      ),
    ],
    [['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', '@s', '+'], INVALID_ID],
    [['SET', '@str', 'x'], OK],
    [['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', '@str', '@s', '>', '>'], WRONGTYPE],
    [['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', '@s', '@none', '>', '>'], noGroup('@none', 'g')],
    [['XINFO', 'GROUPS', '@s'], [group('g', 0, 0, '0-0', null, 1)]],
  ],
});

describe('XREAD and XREADGROUP with the clock', () => {
  it('stamps deliveries and seen-times with the command time', () => {
    const { engine, clock } = freshEngine();
    const t0 = clock.now();
    call(engine, 'XADD', 's', '1-0', 'f', 'v');
    call(engine, 'XGROUP', 'CREATE', 's', 'g', '0');
    call(engine, 'XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', 's', '>');
    clock.advance(100);
    expect(call(engine, 'XPENDING', 's', 'g', '-', '+', '10')).toEqual([['1-0', 'c', 100, 1]]);
    call(engine, 'XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', 's', '0');
    clock.advance(7);
    expect(call(engine, 'XPENDING', 's', 'g', '-', '+', '10')).toEqual([['1-0', 'c', 7, 2]]);
    expect(call(engine, 'XINFO', 'CONSUMERS', 's', 'g')).toEqual([['name', 'c', 'pending', 1, 'idle', 7]]);
    call(engine, 'XDEL', 's', '1-0');
    clock.advance(5);
    // A history read of a deleted entry changes neither its time nor its count; it still counts as seen.
    expect(call(engine, 'XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', 's', '0')).toEqual([
      ['s', [['1-0', null]]],
    ]);
    expect(call(engine, 'XPENDING', 's', 'g', '-', '+', '10')).toEqual([['1-0', 'c', 12, 2]]);
    expect(call(engine, 'XINFO', 'CONSUMERS', 's', 'g')).toEqual([['name', 'c', 'pending', 1, 'idle', 0]]);
    expect(t0 + 112).toBe(clock.now());
  });

  it('is recorded as a write even when it reads history only', () => {
    const { engine } = freshEngine();
    const written: string[] = [];
    engine.setWriteListener((record) => written.push(record.argv[0] ?? ''));
    call(engine, 'XGROUP', 'CREATE', 's', 'g', '$', 'MKSTREAM');
    call(engine, 'XREAD', 'STREAMS', 's', '0');
    call(engine, 'XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', 's', '0');
    expect(written).toEqual(['XGROUP', 'XREADGROUP']);
  });
});
