import { describe, expect, it } from 'vitest';
import { StatusReply } from '../../../lib/engine/reply.ts';
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
  WRONGTYPE,
} from '../../support/command-script.ts';

const { describeScripts } = commandScripts({ placeholder: '@', keyTag: 'streamtest' });

const NEEDS_KEY = error(
  'ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically.',
);
const BUSYGROUP = error('BUSYGROUP Consumer Group name already exists');
const subSyntax = (sub: string) =>
  error(`ERR unknown subcommand or wrong number of arguments for '${sub}'. Try XGROUP HELP.`);
const noGroup = (group: string, key: string) =>
  error(`NOGROUP No such consumer group '${group}' for key name '${key}'`);
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

describeScripts('XGROUP CREATE', {
  'creates a group once; the second time answers BUSYGROUP': [
    ...fill('@s', 2),
    [['XGROUP', 'CREATE', '@s', 'g', '$'], OK],
    [['XGROUP', 'CREATE', '@s', 'g', '0'], BUSYGROUP],
    [['XGROUP', 'CREATE', '@s', 'g', '0', 'MKSTREAM'], BUSYGROUP],
    [['XINFO', 'GROUPS', '@s'], [group('g', 0, 0, '2-0', null, 0)]],
  ],
  'needs the key unless MKSTREAM, which makes an empty stream': [
    [['XGROUP', 'CREATE', '@s', 'g', '$'], NEEDS_KEY],
    [['EXISTS', '@s'], 0],
    [['XGROUP', 'CREATE', '@s', 'g', 'bad', 'MKSTREAM'], INVALID_ID],
    [['EXISTS', '@s'], 0],
    [['XGROUP', 'CREATE', '@s', 'g', '$', 'MKSTREAM'], OK],
    [['XLEN', '@s'], 0],
    [['XINFO', 'GROUPS', '@s'], [group('g', 0, 0, '0-0', null, 0)]],
  ],
  'takes $, strict ids up to the maximum, and ENTRIESREAD': [
    ...fill('@s', 5),
    [['XGROUP', 'CREATE', '@s', 'a', '0'], OK],
    [['XGROUP', 'CREATE', '@s', 'b', '3', 'ENTRIESREAD', '3'], OK],
    [['XGROUP', 'CREATE', '@s', 'c', MAX_ID], OK],
    [['XGROUP', 'CREATE', '@s', 'd', '$', 'ENTRIESREAD', '-1', 'MKSTREAM'], OK],
    [['XGROUP', 'CREATE', '@s', 'e', '-'], INVALID_ID],
    [['XGROUP', 'CREATE', '@s', 'e', '+'], INVALID_ID],
    [
      ['XINFO', 'GROUPS', '@s'],
      [
        group('a', 0, 0, '0-0', null, 5),
        group('b', 0, 0, '3-0', 3, 2),
        group('c', 0, 0, MAX_ID, null, null),
        group('d', 0, 0, '5-0', null, 0),
      ],
    ],
  ],
  'checks options, then the key type, then the key': [
    [['XGROUP', 'CREATE', '@s', 'g', '$', 'NOPE'], subSyntax('CREATE')],
    [['XGROUP', 'create', '@s', 'g', '$', 'ENTRIESREAD'], subSyntax('create')],
    [['XGROUP', 'CREATE', '@s', 'g', '$', 'ENTRIESREAD', 'x'], NOT_INTEGER],
    [
      ['XGROUP', 'CREATE', '@s', 'g', '$', 'ENTRIESREAD', '-2'],
      error('ERR value for ENTRIESREAD must be positive or -1'),
    ],
    [
      ['XGROUP', 'CREATE', '@s', 'g', '$', 'MKSTREAM', 'MKSTREAM', 'MKSTREAM', 'MKSTREAM'],
      subSyntax('CREATE'),
    ],
    [['XGROUP', 'CREATE', '@s', 'g', '$', 'MKSTREAM', 'MKSTREAM', 'MKSTREAM'], OK],
    [['SET', '@str', 'x'], OK],
    [['XGROUP', 'CREATE', '@str', 'g', '$', 'NOPE'], subSyntax('CREATE')],
    [['XGROUP', 'CREATE', '@str', 'g', '$', 'MKSTREAM'], WRONGTYPE],
    [['XGROUP', 'CREATE', '@s', 'g'], error("ERR wrong number of arguments for 'xgroup|create' command")],
  ],
});

describeScripts('XGROUP SETID, DESTROY, CREATECONSUMER, DELCONSUMER', {
  'SETID moves the last-delivered id and resets entries-read': [
    ...fill('@s', 5),
    [['XGROUP', 'CREATE', '@s', 'g', '0'], OK],
    [['XGROUP', 'SETID', '@s', 'g', '3'], OK],
    [['XINFO', 'GROUPS', '@s'], [group('g', 0, 0, '3-0', null, null)]],
    [['XGROUP', 'SETID', '@s', 'g', '$'], OK],
    [['XINFO', 'GROUPS', '@s'], [group('g', 0, 0, '5-0', null, 0)]],
    [['XGROUP', 'SETID', '@s', 'g', '2', 'ENTRIESREAD', '2'], OK],
    [['XINFO', 'GROUPS', '@s'], [group('g', 0, 0, '2-0', 2, 3)]],
    [['XGROUP', 'SETID', '@s', 'g', '-'], OK],
    [['XINFO', 'GROUPS', '@s'], [group('g', 0, 0, '0-0', null, 5)]],
    [['XGROUP', 'SETID', '@s', 'g', '+'], OK],
    [['XINFO', 'GROUPS', '@s'], [group('g', 0, 0, MAX_ID, null, null)]],
  ],
  'SETID needs the key and the group, and takes no MKSTREAM': [
    [['XGROUP', 'SETID', '@s', 'g', '$'], NEEDS_KEY],
    ...fill('@s', 1),
    [['XGROUP', 'SETID', '@s', 'g', '$'], noGroup('g', '@s')],
    [['XGROUP', 'CREATE', '@s', 'g', '$'], OK],
    [['XGROUP', 'SETID', '@s', 'g', '$', 'MKSTREAM'], subSyntax('SETID')],
    [['XGROUP', 'SETID', '@s', 'g', '$', 'ENTRIESREAD'], subSyntax('SETID')],
    [['XGROUP', 'SETID', '@s', 'g', 'bad'], INVALID_ID],
    [['XGROUP', 'SETID', '@s', 'g', '$', 'ENTRIESREAD', '1', 'ENTRIESREAD', '2'], subSyntax('SETID')],
  ],
  'DESTROY answers 1 for a group it removed and 0 otherwise': [
    [['XGROUP', 'DESTROY', '@s', 'g'], NEEDS_KEY],
    [['XGROUP', 'CREATE', '@s', 'g', '$', 'MKSTREAM'], OK],
    [['XGROUP', 'DESTROY', '@s', 'g'], 1],
    [['XGROUP', 'DESTROY', '@s', 'g'], 0],
    [['XINFO', 'GROUPS', '@s'], []],
    [
      ['XGROUP', 'DESTROY', '@s', 'g', 'x'],
      error("ERR wrong number of arguments for 'xgroup|destroy' command"),
    ],
  ],
  'CREATECONSUMER creates once; DELCONSUMER answers the pending count it dropped': [
    ...fill('@s', 3),
    [['XGROUP', 'CREATECONSUMER', '@s', 'g', 'alice'], noGroup('g', '@s')],
    [['XGROUP', 'CREATE', '@s', 'g', '0'], OK],
    [['XGROUP', 'CREATECONSUMER', '@s', 'g', 'alice'], 1],
    [['XGROUP', 'CREATECONSUMER', '@s', 'g', 'alice'], 0],
    [
      ['XREADGROUP', 'GROUP', 'g', 'bob', 'COUNT', '2', 'STREAMS', '@s', '>'],
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
    [['XREADGROUP', 'GROUP', 'g', 'alice', 'STREAMS', '@s', '>'], [['@s', [['3-0', ['f', 'v3']]]]]],
    [['XINFO', 'GROUPS', '@s'], [group('g', 2, 3, '3-0', 3, 0)]],
    [['XGROUP', 'DELCONSUMER', '@s', 'g', 'bob'], 2],
    [['XGROUP', 'DELCONSUMER', '@s', 'g', 'bob'], 0],
    [
      ['XPENDING', '@s', 'g'],
      [1, '3-0', '3-0', [['alice', '1']]],
    ],
    [['XGROUP', 'DELCONSUMER', '@s', 'nope', 'bob'], noGroup('nope', '@s')],
    [['XGROUP', 'DELCONSUMER', '@none', 'g', 'bob'], NEEDS_KEY],
  ],
  'answers unknown subcommands, wrong arity and HELP like Redis': [
    [['XGROUP'], error("ERR wrong number of arguments for 'xgroup' command")],
    [['XGROUP', 'NOPE', '@s'], error("ERR unknown subcommand 'NOPE'. Try XGROUP HELP.")],
    [
      ['XGROUP', 'CREATECONSUMER', '@s', 'g'],
      error("ERR wrong number of arguments for 'xgroup|createconsumer' command"),
    ],
    [['XGROUP', 'HELP', 'x'], error("ERR wrong number of arguments for 'xgroup|help' command")],
  ],
});

describe('XGROUP on the engine', () => {
  it('answers HELP with status lines', () => {
    const { engine } = freshEngine();
    const reply = engine.callSync(['XGROUP', 'HELP']) as StatusReply[];
    expect(reply.every((line) => line instanceof StatusReply)).toBe(true);
    expect(reply.map((line) => line.status)).toEqual([
      'XGROUP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:',
      'CREATE <key> <groupname> <id|$> [option]',
      '    Create a new consumer group. Options are:',
      '    * MKSTREAM',
      '      Create the empty stream if it does not exist.',
      '    * ENTRIESREAD entries_read',
      "      Set the group's entries_read counter (internal use).",
      'CREATECONSUMER <key> <groupname> <consumer>',
      '    Create a new consumer in the specified group.',
      'DELCONSUMER <key> <groupname> <consumer>',
      '    Remove the specified consumer.',
      'DESTROY <key> <groupname>',
      '    Remove the specified group.',
      'SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]',
      '    Set the current group ID and entries_read counter.',
      'HELP',
      '    Prints this help.',
    ]);
  });

  it('records CREATECONSUMER as a write with a seen-time of now', () => {
    const { engine, clock } = freshEngine();
    const written: string[] = [];
    engine.setWriteListener((record) => written.push(record.argv.join(' ')));
    call(engine, 'XGROUP', 'CREATE', 's', 'g', '$', 'MKSTREAM');
    clock.advance(10);
    expect(call(engine, 'XGROUP', 'CREATECONSUMER', 's', 'g', 'c')).toBe(1);
    clock.advance(25);
    expect(call(engine, 'XINFO', 'CONSUMERS', 's', 'g')).toEqual([['name', 'c', 'pending', 0, 'idle', 25]]);
    expect(written).toEqual(['XGROUP CREATE s g $ MKSTREAM', 'XGROUP CREATECONSUMER s g c']);
  });
});
