import { describe, expect, it } from 'vitest';
import { StatusReply } from '../../../lib/engine/reply.ts';
import {
  call,
  commandScripts,
  type Expected,
  error,
  fill,
  freshEngine,
  MAX_ID,
  NOT_INTEGER,
  OK,
  type Step,
  streamFull,
  streamSummary,
  WRONGTYPE,
} from '../../support/command-script.ts';

const { describeScripts } = commandScripts({ placeholder: '@', keyTag: 'streamtest' });

const NO_KEY = error('ERR no such key');
const subSyntax = (sub: string) =>
  error(`ERR unknown subcommand or wrong number of arguments for '${sub}'. Try XINFO HELP.`);
const e = (id: string, value: string) => [id, ['f', value]];

const big = (n: number) => 'x'.repeat(n);
/** Ids whose 16-byte keys branch at many different bytes. */
const SPREAD_IDS = [
  '1-0',
  '255-0',
  '256-0',
  '257-1',
  '65535-0',
  '65536-0',
  '4294967295-0',
  '4294967296-0',
  '4294967296-1',
  '4294967296-256',
  '1099511627776-5',
  '1700000000000-0',
  '1700000000000-1',
  '1700000000001-0',
  '18446744073709551615-0',
  MAX_ID,
];
// 5000-byte values overflow a node by themselves, so every entry gets a node of its own.
const spreadEntries: Step[] = SPREAD_IDS.map((id): Step => [['XADD', '@s', id, 'f', big(5000)], id]);

const twelve = (count: number) => Array.from({ length: count }, (_, i) => e(`${i + 1}-0`, `v${i + 1}`));
const twelveHead = { length: 12, keys: 1, nodes: 2, last: '12-0', added: 12, first: '1-0' };
const bigEntry = (id: string) => [id, ['f', big(5000)]];

describeScripts('XINFO STREAM', {
  'needs the key before anything else, then the stream type': [
    [['XINFO', 'STREAM', '@none'], NO_KEY],
    [['XINFO', 'STREAM', '@none', 'NOPE'], NO_KEY],
    [['XINFO', 'GROUPS', '@none'], NO_KEY],
    [['XINFO', 'CONSUMERS', '@none', 'g'], NO_KEY],
    [['SET', '@str', 'x'], OK],
    [['XINFO', 'STREAM', '@str', 'NOPE'], WRONGTYPE],
    [['XINFO', 'GROUPS', '@str'], WRONGTYPE],
    [['XINFO', 'STREAM'], error("ERR wrong number of arguments for 'xinfo|stream' command")],
    [['XINFO'], error("ERR wrong number of arguments for 'xinfo' command")],
    [['XINFO', 'NOPE', '@s'], error("ERR unknown subcommand 'NOPE'. Try XINFO HELP.")],
  ],
  'describes a stream with its first and last entries, nil ones when empty': [
    [['XGROUP', 'CREATE', '@s', 'g', '$', 'MKSTREAM'], OK],
    [
      ['XINFO', 'STREAM', '@s'],
      streamSummary(
        { length: 0, keys: 0, nodes: 1, last: '0-0', added: 0, first: '0-0' },
        { groups: 1, firstEntry: null, lastEntry: null },
      ),
    ],
    ...fill('@s', 3),
    [
      ['XINFO', 'STREAM', '@s'],
      streamSummary(
        { length: 3, keys: 1, nodes: 2, last: '3-0', added: 3, first: '1-0' },
        { groups: 1, firstEntry: e('1-0', 'v1'), lastEntry: e('3-0', 'v3') },
      ),
    ],
  ],
  'lists 10 entries with FULL, or COUNT of them (0 for all, negative for 10)': [
    ...fill('@s', 12),
    [['XINFO', 'STREAM', '@s', 'FULL'], streamFull(twelveHead, twelve(10))],
    [['XINFO', 'STREAM', '@s', 'full', 'count', '2'], streamFull(twelveHead, twelve(2))],
    [['XINFO', 'STREAM', '@s', 'FULL', 'COUNT', '-1'], streamFull(twelveHead, twelve(10))],
    [['XINFO', 'STREAM', '@s', 'FULL', 'COUNT', '0'], streamFull(twelveHead, twelve(12))],
  ],
  'refuses other options with the subcommand syntax error': [
    ...fill('@s', 1),
    [['XINFO', 'STREAM', '@s', 'NOPE'], subSyntax('STREAM')],
    [['XINFO', 'stream', '@s', 'FULL', 'COUNT'], subSyntax('stream')],
    [['XINFO', 'STREAM', '@s', 'FULL', 'NOPE', '1'], subSyntax('STREAM')],
    [['XINFO', 'STREAM', '@s', 'FULL', 'COUNT', '1', 'x'], subSyntax('STREAM')],
    [['XINFO', 'STREAM', '@s', 'FULL', 'COUNT', 'x'], NOT_INTEGER],
  ],
  'closes a node at 100 entries': [
    ...fill('@s', 205),
    [
      ['XINFO', 'STREAM', '@s'],
      streamSummary(
        { length: 205, keys: 3, nodes: 8, last: '205-0', added: 205, first: '1-0' },
        { firstEntry: e('1-0', 'v1'), lastEntry: e('205-0', 'v205') },
      ),
    ],
  ],
  'closes a node when its listpack reaches 4096 bytes': [
    ...Array.from(
      { length: 10 },
      (_, i): Step => [['XADD', '@s', `${i + 1}-0`, 'f', big(1000)], `${i + 1}-0`],
    ),
    [
      ['XINFO', 'STREAM', '@s'],
      streamSummary(
        { length: 10, keys: 3, nodes: 8, last: '10-0', added: 10, first: '1-0' },
        { firstEntry: e('1-0', big(1000)), lastEntry: e('10-0', big(1000)) },
      ),
    ],
    [['XTRIM', '@s', 'MAXLEN', '~', '5'], 4],
    [['XLEN', '@s'], 6],
  ],
  'counts the radix tree nodes Redis would hold for node keys branching at any byte': [
    ...spreadEntries,
    [
      ['XINFO', 'STREAM', '@s'],
      streamSummary(
        { length: 16, keys: 16, nodes: 47, last: MAX_ID, added: 16, first: '1-0' },
        { firstEntry: bigEntry('1-0'), lastEntry: bigEntry(MAX_ID) },
      ),
    ],
    [['XDEL', '@s', '256-0', '4294967296-1', '1700000000000-0'], 3],
    [
      ['XINFO', 'STREAM', '@s'],
      streamSummary(
        {
          length: 13,
          keys: 13,
          nodes: 41,
          last: MAX_ID,
          maxDeleted: '1700000000000-0',
          added: 16,
          first: '1-0',
        },
        { firstEntry: bigEntry('1-0'), lastEntry: bigEntry(MAX_ID) },
      ),
    ],
    [['XTRIM', '@s', 'MINID', '65536'], 4],
    [
      ['XINFO', 'STREAM', '@s'],
      streamSummary(
        {
          length: 9,
          keys: 9,
          nodes: 30,
          last: MAX_ID,
          maxDeleted: '1700000000000-0',
          added: 16,
          first: '65536-0',
        },
        { firstEntry: bigEntry('65536-0'), lastEntry: bigEntry(MAX_ID) },
      ),
    ],
  ],
});

describeScripts('XINFO GROUPS and CONSUMERS', {
  'lists groups in byte order with their counters': [
    ...fill('@s', 3),
    [['XGROUP', 'CREATE', '@s', 'g8', '0'], OK],
    [['XGROUP', 'CREATE', '@s', 'g10', '$'], OK],
    [['XGROUP', 'CREATE', '@s', 'g5', '1-0', 'ENTRIESREAD', '1'], OK],
    [['XGROUP', 'CREATE', '@s', 'G', '2-0'], OK],
    [
      ['XREADGROUP', 'GROUP', 'g8', 'c', 'COUNT', '2', 'STREAMS', '@s', '>'],
      [['@s', [e('1-0', 'v1'), e('2-0', 'v2')]]],
    ],
    [
      ['XINFO', 'GROUPS', '@s'],
      [
        [
          'name',
          'G',
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
        [
          'name',
          'g10',
          'consumers',
          0,
          'pending',
          0,
          'last-delivered-id',
          '3-0',
          'entries-read',
          null,
          'lag',
          0,
        ],
        ['name', 'g5', 'consumers', 0, 'pending', 0, 'last-delivered-id', '1-0', 'entries-read', 1, 'lag', 2],
        ['name', 'g8', 'consumers', 1, 'pending', 2, 'last-delivered-id', '2-0', 'entries-read', 2, 'lag', 1],
      ],
    ],
    [['XINFO', 'GROUPS', '@s', 'x'], error("ERR wrong number of arguments for 'xinfo|groups' command")],
  ],
  'needs the group for CONSUMERS': [
    ...fill('@s', 1),
    [['XINFO', 'CONSUMERS', '@s', 'g'], error("NOGROUP No such consumer group 'g' for key name '@s'")],
    [['XGROUP', 'CREATE', '@s', 'g', '$'], OK],
    [['XINFO', 'CONSUMERS', '@s', 'g'], []],
    [['XINFO', 'CONSUMERS', '@s'], error("ERR wrong number of arguments for 'xinfo|consumers' command")],
  ],
});

describe('XINFO with the clock', () => {
  it('shows consumers in byte order with pending counts and idle times', () => {
    const { engine, clock } = freshEngine();
    call(engine, 'XADD', 's', '1-0', 'f', 'v');
    call(engine, 'XADD', 's', '2-0', 'f', 'v');
    call(engine, 'XGROUP', 'CREATE', 's', 'g', '0');
    call(engine, 'XREADGROUP', 'GROUP', 'g', 'bob', 'COUNT', '1', 'STREAMS', 's', '>');
    clock.advance(40);
    call(engine, 'XREADGROUP', 'GROUP', 'g', 'Al', 'STREAMS', 's', '>');
    call(engine, 'XGROUP', 'CREATECONSUMER', 's', 'g', 'al');
    clock.advance(2);
    expect(call(engine, 'XINFO', 'CONSUMERS', 's', 'g')).toEqual([
      ['name', 'Al', 'pending', 1, 'idle', 2],
      ['name', 'al', 'pending', 0, 'idle', 2],
      ['name', 'bob', 'pending', 1, 'idle', 42],
    ]);
  });

  it('shows PELs with delivery times and counts in STREAM FULL, COUNT bounding each list', () => {
    const { engine, clock } = freshEngine();
    const t0 = clock.now();
    for (let i = 1; i <= 4; i++) call(engine, 'XADD', 's', `${i}-0`, 'f', `v${i}`);
    call(engine, 'XGROUP', 'CREATE', 's', 'g', '0');
    call(engine, 'XGROUP', 'CREATE', 's', 'empty', '$');
    call(engine, 'XREADGROUP', 'GROUP', 'g', 'zed', 'COUNT', '2', 'STREAMS', 's', '>');
    clock.advance(5);
    call(engine, 'XREADGROUP', 'GROUP', 'g', 'amy', 'STREAMS', 's', '>');
    call(engine, 'XREADGROUP', 'GROUP', 'g', 'amy', 'STREAMS', 's', '0');
    call(engine, 'XDEL', 's', '3-0');
    const emptyGroup = ['name', 'empty', 'last-delivered-id', '4-0', 'entries-read', null, 'lag', 0];
    expect(call(engine, 'XINFO', 'STREAM', 's', 'FULL', 'COUNT', '1')).toEqual(
      streamFull(
        { length: 3, keys: 1, nodes: 2, last: '4-0', maxDeleted: '3-0', added: 4, first: '1-0' },
        [e('1-0', 'v1')],
        [
          [...emptyGroup, 'pel-count', 0, 'pending', [], 'consumers', []],
          [
            ...['name', 'g', 'last-delivered-id', '4-0', 'entries-read', 4, 'lag', 0, 'pel-count', 4],
            ...['pending', [['1-0', 'zed', t0, 1]]],
            'consumers',
            [
              ['name', 'amy', 'seen-time', t0 + 5, 'pel-count', 2, 'pending', [['3-0', t0 + 5, 2]]],
              ['name', 'zed', 'seen-time', t0, 'pel-count', 2, 'pending', [['1-0', t0, 1]]],
            ],
          ],
        ],
      ),
    );
    const full = call(engine, 'XINFO', 'STREAM', 's', 'FULL', 'COUNT', '0') as Expected[];
    const group = (full[17] as Expected[][])[1] as Expected[];
    expect(group[11]).toEqual([
      ['1-0', 'zed', t0, 1],
      ['2-0', 'zed', t0, 1],
      ['3-0', 'amy', t0 + 5, 2],
      ['4-0', 'amy', t0 + 5, 2],
    ]);
  });

  it('answers HELP with status lines', () => {
    const { engine } = freshEngine();
    const reply = engine.callSync(['XINFO', 'HELP']) as StatusReply[];
    expect(reply.map((line) => (line instanceof StatusReply ? line.status : line))).toEqual([
      'XINFO <subcommand> [<arg> [value] [opt] ...]. Subcommands are:',
      'CONSUMERS <key> <groupname>',
      '    Show consumers of <groupname>.',
      'GROUPS <key>',
      '    Show the stream consumer groups.',
      'STREAM <key> [FULL [COUNT <count>]',
      '    Show information about the stream.',
      'HELP',
      '    Prints this help.',
    ]);
  });
});
