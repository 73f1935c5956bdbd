import { describe, expect, it } from 'vitest';
import {
  call,
  commandScripts,
  error,
  fill,
  freshEngine,
  INVALID_ID,
  MAX_ID,
  OK,
  type Step,
  SYNTAX,
  WRONGTYPE,
} from '../../support/command-script.ts';

const { describeScripts } = commandScripts({ placeholder: '@', keyTag: 'streamtest' });

const noGroup = (key: string, group: string) =>
  error(`NOGROUP No such key '${key}' or consumer group '${group}'`);
const e = (id: string, value: string) => [id, ['f', value]];
const HOUR = '3600000';
const COUNT_ERROR = error('ERR COUNT must be > 0');

/** `n` entries all read by `alice` in group g of `@s`. */
const pending = (n: number): Step[] => [
  ...fill('@s', n),
  [['XGROUP', 'CREATE', '@s', 'g', '0'], OK],
  [
    ['XREADGROUP', 'GROUP', 'g', 'alice', 'STREAMS', '@s', '>'],
    [['@s', Array.from({ length: n }, (_, i) => e(`${i + 1}-0`, `v${i + 1}`))]],
  ],
];

describeScripts('XCLAIM', {
  'moves entries to the claiming consumer and silently drops ids deleted from the stream': [
    ...pending(3),
    [['XDEL', '@s', '2-0'], 1],
    [
      ['XCLAIM', '@s', 'g', 'bob', '0', '1-0', '2-0', '3-0', '9-0'],
      [e('1-0', 'v1'), e('3-0', 'v3')],
    ],
    [
      ['XPENDING', '@s', 'g'],
      [2, '1-0', '3-0', [['bob', '2']]],
    ],
    [['XCLAIM', '@s', 'g', 'carol', '0', '1-0', 'JUSTID'], ['1-0']],
    [
      ['XPENDING', '@s', 'g'],
      [
        2,
        '1-0',
        '3-0',
        [
          ['bob', '1'],
          ['carol', '1'],
        ],
      ],
    ],
  ],
  'skips entries idle less than min-idle, and claims none without creating the consumer': [
    ...pending(2),
    [['XCLAIM', '@s', 'g', 'bob', HOUR, '1-0', '2-0'], []],
    [
      ['XINFO', 'GROUPS', '@s'],
      [['name', 'g', 'consumers', 1, 'pending', 2, 'last-delivered-id', '2-0', 'entries-read', 2, 'lag', 0]],
    ],
    [['XCLAIM', '@s', 'g', 'bob', HOUR, '1-0', 'IDLE', '7200000', 'JUSTID'], []],
    [['XCLAIM', '@s', 'g', 'bob', '-5', '1-0', 'JUSTID'], ['1-0']],
  ],
  'creates missing PEL entries with FORCE, for entries that exist': [
    ...fill('@s', 3),
    [['XGROUP', 'CREATE', '@s', 'g', '$'], OK],
    [['XCLAIM', '@s', 'g', 'bob', HOUR, '1-0', '9-0', 'FORCE', 'JUSTID'], ['1-0']],
    [['XCLAIM', '@s', 'g', 'bob', '0', '2-0'], []],
    [
      ['XPENDING', '@s', 'g'],
      [1, '1-0', '1-0', [['bob', '1']]],
    ],
    [
      ['XINFO', 'GROUPS', '@s'],
      [
        [
          'name',
          'g',
          'consumers',
          1,
          'pending',
          1,
          'last-delivered-id',
          '3-0',
          'entries-read',
          null,
          'lag',
          0,
        ],
      ],
    ],
  ],
  'moves the last-delivered id forward with LASTID, even when nothing is claimed': [
    ...fill('@s', 3),
    [['XGROUP', 'CREATE', '@s', 'g', '0'], OK],
    [['XCLAIM', '@s', 'g', 'bob', '0', '1-0', 'LASTID', '2-0'], []],
    [
      ['XINFO', 'GROUPS', '@s'],
      [
        [
          'name',
          'g',
          'consumers',
          0,
          'pending',
          0,
          'last-delivered-id',
          '2-0',
          'entries-read',
          null,
          'lag',
          null,
        ],
      ],
    ],
    [['XCLAIM', '@s', 'g', 'bob', '0', '1-0', 'LASTID', '1-0'], []],
    [
      ['XINFO', 'GROUPS', '@s'],
      [
        [
          'name',
          'g',
          'consumers',
          0,
          'pending',
          0,
          'last-delivered-id',
          '2-0',
          'entries-read',
          null,
          'lag',
          null,
        ],
      ],
    ],
    [['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', '@s', '>'], [['@s', [e('3-0', 'v3')]]]],
  ],
  'reads ids up to the first non-id, then options, each with its own error': [
    ...pending(1),
    [['XCLAIM', '@s', 'g', 'bob', '0', '1-0', 'NOPE'], error("ERR Unrecognized XCLAIM option 'NOPE'")],
    [
      ['XCLAIM', '@s', 'g', 'bob', '0', '1-0', 'JUSTID', '2-0'],
      error("ERR Unrecognized XCLAIM option '2-0'"),
    ],
    [['XCLAIM', '@s', 'g', 'bob', '0', '1-0', 'IDLE'], error("ERR Unrecognized XCLAIM option 'IDLE'")],
    [
      ['XCLAIM', '@s', 'g', 'bob', '0', '1-0', 'IDLE', 'x'],
      error('ERR Invalid IDLE option argument for XCLAIM'),
    ],
    [
      ['XCLAIM', '@s', 'g', 'bob', '0', '1-0', 'TIME', 'x'],
      error('ERR Invalid TIME option argument for XCLAIM'),
    ],
    [
      ['XCLAIM', '@s', 'g', 'bob', '0', '1-0', 'RETRYCOUNT', 'x'],
      error('ERR Invalid RETRYCOUNT option argument for XCLAIM'),
    ],
    [['XCLAIM', '@s', 'g', 'bob', '0', '1-0', 'LASTID', '-'], INVALID_ID],
    [['XCLAIM', '@s', 'g', 'bob', 'x', '1-0'], error('ERR Invalid min-idle-time argument for XCLAIM')],
    [['XCLAIM', '@s', 'g', 'bob', '0', 'FORCE'], []],
    [
      ['XPENDING', '@s', 'g'],
      [1, '1-0', '1-0', [['alice', '1']]],
    ],
  ],
  'checks WRONGTYPE and NOGROUP before its arguments': [
    [['XCLAIM', '@s', 'g', 'bob', 'x', '1-0'], noGroup('@s', 'g')],
    ...fill('@s', 1),
    [['XCLAIM', '@s', 'g', 'bob', 'x', '1-0'], noGroup('@s', 'g')],
    [['SET', '@str', 'x'], OK],
    [['XCLAIM', '@str', 'g', 'bob', 'x', '1-0'], WRONGTYPE],
    [['XCLAIM', '@s', 'g', 'bob', '0'], error("ERR wrong number of arguments for 'xclaim' command")],
  ],
});

describeScripts('XAUTOCLAIM', {
  'claims from a start id with a cursor, listing and dropping deleted entries': [
    ...pending(5),
    [['XDEL', '@s', '2-0', '4-0'], 2],
    [
      ['XAUTOCLAIM', '@s', 'g', 'bob', '0', '-', 'COUNT', '1'],
      ['2-0', [e('1-0', 'v1')], []],
    ],
    [
      ['XAUTOCLAIM', '@s', 'g', 'bob', '0', '2-0', 'COUNT', '1'],
      ['3-0', [], ['2-0']],
    ],
    [
      ['XAUTOCLAIM', '@s', 'g', 'bob', '0', '3-0', 'COUNT', '3'],
      ['0-0', [e('3-0', 'v3'), e('5-0', 'v5')], ['4-0']],
    ],
    [
      ['XPENDING', '@s', 'g'],
      [3, '1-0', '5-0', [['bob', '3']]],
    ],
    [
      ['XAUTOCLAIM', '@s', 'g', 'carol', '0', '(1-0', 'JUSTID'],
      ['0-0', ['3-0', '5-0'], []],
    ],
    [
      ['XPENDING', '@s', 'g'],
      [
        3,
        '1-0',
        '5-0',
        [
          ['bob', '1'],
          ['carol', '2'],
        ],
      ],
    ],
  ],
  'skips entries idle less than min-idle, spending attempts but not count': [
    ...pending(3),
    [
      ['XAUTOCLAIM', '@s', 'g', 'bob', HOUR, '-'],
      ['0-0', [], []],
    ],
    [
      ['XAUTOCLAIM', '@s', 'g', 'bob', HOUR, '-', 'COUNT', '1'],
      ['0-0', [], []],
    ],
    [
      ['XINFO', 'GROUPS', '@s'],
      [['name', 'g', 'consumers', 1, 'pending', 3, 'last-delivered-id', '3-0', 'entries-read', 3, 'lag', 0]],
    ],
  ],
  'stops after count×10 PEL entries looked at': [
    ...pending(25),
    [
      ['XAUTOCLAIM', '@s', 'g', 'bob', HOUR, '-', 'COUNT', '2'],
      ['21-0', [], []],
    ],
    [
      ['XAUTOCLAIM', '@s', 'g', 'bob', HOUR, '21', 'COUNT', '2'],
      ['0-0', [], []],
    ],
    [
      ['XAUTOCLAIM', '@s', 'g', 'bob', '0', '24', 'COUNT', '1', 'JUSTID'],
      ['25-0', ['24-0'], []],
    ],
  ],
  'checks its arguments before WRONGTYPE and NOGROUP': [
    [['XAUTOCLAIM', '@s', 'g', 'bob', 'x', '-'], error('ERR Invalid min-idle-time argument for XAUTOCLAIM')],
    [['XAUTOCLAIM', '@s', 'g', 'bob', '0', 'x'], INVALID_ID],
    [['XAUTOCLAIM', '@s', 'g', 'bob', '0', '(-'], INVALID_ID],
    [['XAUTOCLAIM', '@s', 'g', 'bob', '0', `(${MAX_ID}`], error('ERR invalid start ID for the interval')],
    [['XAUTOCLAIM', '@s', 'g', 'bob', '0', '-', 'COUNT', '0'], COUNT_ERROR],
    [['XAUTOCLAIM', '@s', 'g', 'bob', '0', '-', 'COUNT', '-1'], COUNT_ERROR],
    [['XAUTOCLAIM', '@s', 'g', 'bob', '0', '-', 'COUNT', 'x'], COUNT_ERROR],
    [['XAUTOCLAIM', '@s', 'g', 'bob', '0', '-', 'COUNT', '576460752303423488'], COUNT_ERROR],
    [['XAUTOCLAIM', '@s', 'g', 'bob', '0', '-', 'COUNT'], SYNTAX],
    [['XAUTOCLAIM', '@s', 'g', 'bob', '0', '-', 'NOPE'], SYNTAX],
    [['XAUTOCLAIM', '@s', 'g', 'bob', '0', '-', 'JUSTID'], noGroup('@s', 'g')],
    [['SET', '@str', 'x'], OK],
    [['XAUTOCLAIM', '@str', 'g', 'bob', '0', '-'], WRONGTYPE],
    [['XAUTOCLAIM', '@str', 'g', 'bob', '0', '-', 'COUNT', '0'], COUNT_ERROR],
    ...fill('@s', 1),
    [['XAUTOCLAIM', '@s', 'g', 'bob', '0', '-'], noGroup('@s', 'g')],
    [['XGROUP', 'CREATE', '@s', 'g', '0'], OK],
    [
      ['XAUTOCLAIM', '@s', 'g', 'bob', '0', '-', 'COUNT', '576460752303423487'],
      error('ERR Insufficient memory, failed allocating transient memory, COUNT too high.'),
    ],
    [
      ['XAUTOCLAIM', '@s', 'g', 'bob', '0', '-', 'COUNT', '1000000'],
      ['0-0', [], []],
    ],
    [['XAUTOCLAIM', '@s', 'g', 'bob', '0'], error("ERR wrong number of arguments for 'xautoclaim' command")],
  ],
});

/** Entry 1-0 read by alice at the clock's start, in group g of stream s. */
function readByAlice() {
  const { engine, clock } = freshEngine();
  call(engine, 'XADD', 's', '1-0', 'f', 'v');
  call(engine, 'XADD', 's', '2-0', 'f', 'w');
  call(engine, 'XGROUP', 'CREATE', 's', 'g', '0');
  call(engine, 'XREADGROUP', 'GROUP', 'g', 'alice', 'STREAMS', 's', '>');
  return { engine, clock, start: clock.now() };
}

describe('XCLAIM with the clock', () => {
  it('raises the delivery count, except with JUSTID, and takes RETRYCOUNT as given', () => {
    const { engine, clock } = readByAlice();
    clock.advance(100);
    expect(call(engine, 'XCLAIM', 's', 'g', 'bob', '50', '1-0')).toEqual([['1-0', ['f', 'v']]]);
    expect(call(engine, 'XCLAIM', 's', 'g', 'bob', '0', '2-0', 'JUSTID')).toEqual(['2-0']);
    expect(call(engine, 'XPENDING', 's', 'g', '-', '+', '10')).toEqual([
      ['1-0', 'bob', 0, 2],
      ['2-0', 'bob', 0, 1],
    ]);
    // Re-claiming one's own entry still counts and re-stamps it.
    clock.advance(10);
    call(engine, 'XCLAIM', 's', 'g', 'bob', '0', '1-0', 'RETRYCOUNT', '7');
    call(engine, 'XCLAIM', 's', 'g', 'bob', '0', '2-0', 'RETRYCOUNT', '-1');
    expect(call(engine, 'XPENDING', 's', 'g', '-', '+', '10')).toEqual([
      ['1-0', 'bob', 0, 7],
      ['2-0', 'bob', 0, 2],
    ]);
  });

  it('skips an entry idle less than min-idle, and processes a repeated id twice', () => {
    const { engine, clock } = readByAlice();
    clock.advance(100);
    expect(call(engine, 'XCLAIM', 's', 'g', 'bob', '101', '1-0')).toEqual([]);
    expect(call(engine, 'XCLAIM', 's', 'g', 'bob', '100', '1-0', '1-0', 'IDLE', '500', 'JUSTID')).toEqual([
      '1-0',
      '1-0',
    ]);
    expect(call(engine, 'XPENDING', 's', 'g', '-', '+', '10', 'bob')).toEqual([['1-0', 'bob', 500, 1]]);
  });

  it('sets the delivery time from IDLE or TIME, and takes now for one in the future or negative', () => {
    const { engine, clock, start } = readByAlice();
    clock.advance(1000);
    call(engine, 'XCLAIM', 's', 'g', 'bob', '0', '1-0', 'IDLE', '300');
    call(engine, 'XCLAIM', 's', 'g', 'bob', '0', '2-0', 'TIME', String(start + 100));
    expect(call(engine, 'XPENDING', 's', 'g', '-', '+', '10')).toEqual([
      ['1-0', 'bob', 300, 2],
      ['2-0', 'bob', 900, 2],
    ]);
    call(engine, 'XCLAIM', 's', 'g', 'bob', '0', '1-0', 'TIME', String(clock.now() + 5000));
    call(engine, 'XCLAIM', 's', 'g', 'bob', '0', '2-0', 'IDLE', '-5', 'IDLE', String(clock.now() + 1));
    expect(call(engine, 'XPENDING', 's', 'g', '-', '+', '10')).toEqual([
      ['1-0', 'bob', 0, 3],
      ['2-0', 'bob', 0, 3],
    ]);
  });

  it('starts a FORCE-created entry at count 1, so it shows 2 without JUSTID', () => {
    const { engine } = freshEngine();
    call(engine, 'XADD', 's', '1-0', 'f', 'v');
    call(engine, 'XGROUP', 'CREATE', 's', 'g', '$');
    expect(call(engine, 'XCLAIM', 's', 'g', 'bob', '0', '1-0', 'FORCE')).toEqual([['1-0', ['f', 'v']]]);
    expect(call(engine, 'XPENDING', 's', 'g', '-', '+', '10')).toEqual([['1-0', 'bob', 0, 2]]);
  });

  it('refreshes the claimer seen-time only when it claims something', () => {
    const { engine, clock } = readByAlice();
    call(engine, 'XGROUP', 'CREATECONSUMER', 's', 'g', 'bob');
    clock.advance(100);
    call(engine, 'XCLAIM', 's', 'g', 'bob', '1000', '1-0');
    call(engine, 'XAUTOCLAIM', 's', 'g', 'bob', '1000', '-');
    expect(call(engine, 'XINFO', 'CONSUMERS', 's', 'g')).toEqual([
      ['name', 'alice', 'pending', 2, 'idle', 100],
      ['name', 'bob', 'pending', 0, 'idle', 100],
    ]);
    call(engine, 'XAUTOCLAIM', 's', 'g', 'bob', '50', '-', 'COUNT', '1');
    expect(call(engine, 'XINFO', 'CONSUMERS', 's', 'g')).toEqual([
      ['name', 'alice', 'pending', 1, 'idle', 100],
      ['name', 'bob', 'pending', 1, 'idle', 0],
    ]);
  });
});

describe('XAUTOCLAIM with the clock', () => {
  it('claims only entries idle at least min-idle, stamping them now and counting the delivery', () => {
    const { engine, clock } = readByAlice();
    clock.advance(100);
    call(engine, 'XCLAIM', 's', 'g', 'alice', '0', '2-0', 'JUSTID');
    clock.advance(50);
    expect(call(engine, 'XAUTOCLAIM', 's', 'g', 'bob', '100', '-')).toEqual([
      '0-0',
      [['1-0', ['f', 'v']]],
      [],
    ]);
    expect(call(engine, 'XPENDING', 's', 'g', '-', '+', '10')).toEqual([
      ['1-0', 'bob', 0, 2],
      ['2-0', 'alice', 50, 1],
    ]);
    clock.advance(100);
    expect(call(engine, 'XAUTOCLAIM', 's', 'g', 'carol', '100', '-', 'JUSTID')).toEqual([
      '0-0',
      ['1-0', '2-0'],
      [],
    ]);
    expect(call(engine, 'XPENDING', 's', 'g', '-', '+', '10')).toEqual([
      ['1-0', 'carol', 0, 2],
      ['2-0', 'carol', 0, 1],
    ]);
  });
});
