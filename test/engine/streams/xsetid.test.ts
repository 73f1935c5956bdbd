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
  SYNTAX,
  streamSummary,
  WRONGTYPE,
} from '../../support/command-script.ts';

const { describeScripts } = commandScripts({ placeholder: '@', keyTag: 'streamtest' });

const e = (id: string, value: string) => [id, ['f', value]];

describeScripts('XSETID', {
  'sets the last id, entries-added and max-deleted-entry-id': [
    ...fill('@s', 3),
    [['XSETID', '@s', '3'], OK],
    [['XSETID', '@s', '10-0', 'ENTRIESADDED', '50', 'maxdeletedid', '9-0'], OK],
    [
      ['XINFO', 'STREAM', '@s'],
      streamSummary(
        { length: 3, keys: 1, nodes: 2, last: '10-0', maxDeleted: '9-0', added: 50, first: '1-0' },
        { firstEntry: e('1-0', 'v1'), lastEntry: e('3-0', 'v3') },
      ),
    ],
    [
      ['XADD', '@s', '10-0', 'f', 'v'],
      error('ERR The ID specified in XADD is equal or smaller than the target stream top item'),
    ],
    [['XADD', '@s', '10-*', 'f', 'v'], '10-1'],
  ],
  'refuses an id below the last live entry, or entries-added below the length': [
    ...fill('@s', 3),
    [
      ['XSETID', '@s', '2-0'],
      error('ERR The ID specified in XSETID is smaller than the target stream top item'),
    ],
    [
      ['XSETID', '@s', '3-0', 'ENTRIESADDED', '2'],
      error('ERR The entries_added specified in XSETID is smaller than the target stream length'),
    ],
    [['XSETID', '@s', '3-0', 'ENTRIESADDED', '-1'], error('ERR entries_added must be positive')],
    [['XSETID', '@s', '3-0', 'ENTRIESADDED', 'x'], NOT_INTEGER],
    [
      ['XSETID', '@s', '3-0', 'MAXDELETEDID', '4-0'],
      error('ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id'),
    ],
    [['XSETID', '@s', '3-0', 'MAXDELETEDID', '-'], INVALID_ID],
    [['XSETID', '@s', '3-0', 'FOO'], SYNTAX],
    [['XSETID', '@s', '3-0', 'ENTRIESADDED'], SYNTAX],
    [['XSETID', '@s', '-'], INVALID_ID],
  ],
  'moves below deleted entries, and later ids keep their order': [
    ...fill('@s', 3),
    [['XDEL', '@s', '3-0'], 1],
    [['XSETID', '@s', '2-5'], OK],
    [['XADD', '@s', '2-6', 'f', 'v'], '2-6'],
    [
      ['XRANGE', '@s', '-', '+'],
      [e('1-0', 'v1'), e('2-0', 'v2'), e('2-6', 'v')],
    ],
    [['XREVRANGE', '@s', '+', '-', 'COUNT', '1'], [e('2-6', 'v')]],
    [
      ['XINFO', 'STREAM', '@s'],
      streamSummary(
        { length: 3, keys: 1, nodes: 2, last: '2-6', maxDeleted: '3-0', added: 4, first: '1-0' },
        { firstEntry: e('1-0', 'v1'), lastEntry: e('2-6', 'v') },
      ),
    ],
    [['XDEL', '@s', '1-0', '2-0', '2-6'], 3],
    [['XSETID', '@s', '0-1'], OK],
    [['XADD', '@s', '0-2', 'f', 'v'], '0-2'],
  ],
  'checks the id and options before the key': [
    [['XSETID', '@none', 'bad'], INVALID_ID],
    [['XSETID', '@none', '1-0'], error('ERR no such key')],
    [['SET', '@str', 'x'], OK],
    [['XSETID', '@str', '1-0', 'FOO'], SYNTAX],
    [['XSETID', '@str', '1-0'], WRONGTYPE],
    [['XSETID', '@str'], error("ERR wrong number of arguments for 'xsetid' command")],
  ],
});

describe('XSETID with the clock', () => {
  it('makes * continue from the id it set', () => {
    const { engine, clock } = freshEngine();
    call(engine, 'XADD', 's', '1-0', 'f', 'v');
    const future = clock.now() + 1000;
    expect(call(engine, 'XSETID', 's', `${future}-7`)).toEqual(OK);
    expect(call(engine, 'XADD', 's', '*', 'f', 'v')).toBe(`${future}-8`);
  });
});
