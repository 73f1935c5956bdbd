/** XINFO STREAM [FULL [COUNT n]], XINFO GROUPS, XINFO CONSUMERS, XINFO HELP (Redis 7.0 fields). */
import type { CommandContext, CommandSpec } from '../command.ts';
import { compareBytes } from '../data/byte-order.ts';
import type { Stream } from '../data/stream.ts';
import { type ConsumerGroup, INVALID_ENTRIES_READ } from '../data/stream-group.ts';
import { formatKey, MAX_KEY, MIN_KEY } from '../data/stream-id.ts';
import { fail, type Reply } from '../reply.ts';
import { entryReply, getStream, isKeyword, longArg, StreamErrors } from './stream-args.ts';
import { helpReply, subcommandArity } from './stream-help.ts';

/** The stream for every subcommand but HELP: `ERR no such key` when missing. */
function infoStream(ctx: CommandContext, key: string): Stream {
  return getStream(ctx, key) ?? fail('ERR no such key');
}

function sortedByName<T extends { readonly name: string }>(items: Iterable<T>): T[] {
  return [...items].sort((a, b) => compareBytes(a.name, b.name));
}

function namedGroups(stream: Stream): { name: string; group: ConsumerGroup }[] {
  return sortedByName([...stream.groups].map(([name, group]) => ({ name, group })));
}

function entriesReadReply(group: ConsumerGroup): Reply {
  return group.entriesRead === INVALID_ENTRIES_READ ? null : group.entriesRead;
}

/** streamReplyWithCGLag: entries the group has yet to read, or nil when tombstones hide it. */
function lagReply(stream: Stream, group: ConsumerGroup): Reply {
  if (stream.entriesAdded === 0) return 0;
  if (group.entriesRead !== INVALID_ENTRIES_READ && !stream.hasTombstonesFrom(group.lastKey)) {
    return stream.entriesAdded - group.entriesRead;
  }
  const estimate = stream.estimateEntriesRead(group.lastKey);
  return estimate === INVALID_ENTRIES_READ ? null : stream.entriesAdded - estimate;
}

function xinfoStream(ctx: CommandContext, argv: readonly string[]): Reply {
  const stream = infoStream(ctx, argv[2]!);
  const options = argv.length - 3;
  let count = 10;
  if (options !== 0) {
    const syntax = StreamErrors.subcommandSyntax('XINFO', argv[1]!);
    if ((options !== 1 && options !== 3) || !isKeyword(argv[3], 'full')) fail(syntax);
    if (options === 3) {
      if (!isKeyword(argv[4], 'count')) fail(syntax);
      count = longArg(argv[5]);
      if (count < 0) count = 10;
    }
  }
  const reply: Reply[] = [
    'length',
    stream.length,
    'radix-tree-keys',
    stream.nodeCount,
    'radix-tree-nodes',
    stream.raxNodes(),
    'last-generated-id',
    formatKey(stream.lastKey),
    'max-deleted-entry-id',
    formatKey(stream.maxDeletedKey),
    'entries-added',
    stream.entriesAdded,
    'recorded-first-entry-id',
    formatKey(stream.firstKey),
  ];
  if (options === 0) {
    const first = stream.range(MIN_KEY, MAX_KEY, 1)[0];
    const last = stream.rangeReverse(MIN_KEY, MAX_KEY, 1)[0];
    reply.push(
      'groups',
      stream.groups.size,
      'first-entry',
      first === undefined ? null : entryReply(first),
      'last-entry',
      last === undefined ? null : entryReply(last),
    );
    return reply;
  }
  const groups = namedGroups(stream).map(({ name, group }): Reply => {
    const consumers = sortedByName(group.consumers.values()).map(
      (consumer): Reply => [
        'name',
        consumer.name,
        'seen-time',
        consumer.seenTime,
        'pel-count',
        consumer.pel.size,
        'pending',
        group.firstPending(count, consumer).map((p): Reply => [p.id, p.deliveryTime, p.deliveryCount]),
      ],
    );
    return [
      'name',
      name,
      'last-delivered-id',
      formatKey(group.lastKey),
      'entries-read',
      entriesReadReply(group),
      'lag',
      lagReply(stream, group),
      'pel-count',
      group.pel.size,
      'pending',
      group.firstPending(count).map((p): Reply => [p.id, p.consumer.name, p.deliveryTime, p.deliveryCount]),
      'consumers',
      consumers,
    ];
  });
  reply.push('entries', stream.range(MIN_KEY, MAX_KEY, count).map(entryReply), 'groups', groups);
  return reply;
}

const XINFO_HELP = [
  'CONSUMERS <key> <groupname>',
  '    Show consumers of <groupname>.',
  'GROUPS <key>',
  '    Show the stream consumer groups.',
  'STREAM <key> [FULL [COUNT <count>]',
  '    Show information about the stream.',
];

export const streamInfoCommands: readonly CommandSpec[] = [
  {
    name: 'xinfo',
    arity: -2,
    write: false,
    subcommands: [
      { name: 'stream', arity: subcommandArity(-3), write: false, handler: xinfoStream },
      {
        name: 'groups',
        arity: subcommandArity(3),
        write: false,
        handler: (ctx, argv) => {
          const stream = infoStream(ctx, argv[2]!);
          return namedGroups(stream).map(
            ({ name, group }): Reply => [
              'name',
              name,
              'consumers',
              group.consumers.size,
              'pending',
              group.pel.size,
              'last-delivered-id',
              formatKey(group.lastKey),
              'entries-read',
              entriesReadReply(group),
              'lag',
              lagReply(stream, group),
            ],
          );
        },
      },
      {
        name: 'consumers',
        arity: subcommandArity(4),
        write: false,
        handler: (ctx, argv) => {
          const key = argv[2]!;
          const name = argv[3]!;
          const group = infoStream(ctx, key).groups.get(name);
          if (group === undefined) fail(`NOGROUP No such consumer group '${name}' for key name '${key}'`);
          return sortedByName(group.consumers.values()).map(
            (consumer): Reply => [
              'name',
              consumer.name,
              'pending',
              consumer.pel.size,
              'idle',
              Math.max(0, ctx.now - consumer.seenTime),
            ],
          );
        },
      },
      {
        name: 'help',
        arity: subcommandArity(2),
        write: false,
        handler: () => helpReply('XINFO', XINFO_HELP),
      },
    ],
  },
];
