/** Consumer-group commands: XGROUP, XACK, XPENDING, XCLAIM, XAUTOCLAIM. */
import type { CommandContext, CommandSpec } from '../command.ts';
import { compareBytes } from '../data/byte-order.ts';
import { parseInt64 } from '../data/numbers.ts';
import { Stream } from '../data/stream.ts';
import { ConsumerGroup, INVALID_ENTRIES_READ, type PendingRow } from '../data/stream-group.ts';
import { formatKey, type IdKey, MIN_KEY, parseId } from '../data/stream-id.ts';
import { Errors, fail, OK, type Reply } from '../reply.ts';
import {
  entryReply,
  getStream,
  isKeyword,
  longArg,
  looseIdArg,
  rangeEndArg,
  rangeStartArg,
  requireGroup,
  StreamErrors,
  strictIdArg,
} from './stream-args.ts';
import { helpReply, subcommandArity } from './stream-help.ts';

type XgroupSub = 'create' | 'setid' | 'destroy' | 'createconsumer' | 'delconsumer';

interface XgroupTarget {
  readonly stream: Stream | undefined;
  readonly group: ConsumerGroup | undefined;
  readonly entriesRead: number;
}

/**
 * What every XGROUP subcommand does first, in Redis' order: CREATE/SETID options, WRONGTYPE,
 * the key must exist (unless MKSTREAM), the group must exist (except CREATE and DESTROY).
 */
function xgroupTarget(ctx: CommandContext, argv: readonly string[], sub: XgroupSub): XgroupTarget {
  let mkstream = false;
  let entriesRead = INVALID_ENTRIES_READ;
  if (sub === 'create' || sub === 'setid') {
    for (let i = 5; i < argv.length; ) {
      if (sub === 'create' && isKeyword(argv[i], 'mkstream')) {
        mkstream = true;
        i++;
      } else if (isKeyword(argv[i], 'entriesread') && i + 1 < argv.length) {
        entriesRead = longArg(argv[i + 1]);
        if (entriesRead < 0 && entriesRead !== INVALID_ENTRIES_READ) {
          fail('ERR value for ENTRIESREAD must be positive or -1');
        }
        i += 2;
      } else {
        fail(StreamErrors.subcommandSyntax('XGROUP', argv[1]!));
      }
    }
  }
  const key = argv[2]!;
  const name = argv[3]!;
  const stream = getStream(ctx, key);
  const group = stream?.groups.get(name);
  if (!mkstream) {
    if (stream === undefined) {
      fail(
        'ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use ' +
          'the MKSTREAM option to create an empty stream automatically.',
      );
    }
    if (group === undefined && sub !== 'create' && sub !== 'destroy') {
      fail(`NOGROUP No such consumer group '${name}' for key name '${key}'`);
    }
  }
  return { stream, group, entriesRead };
}

function xgroupCreate(ctx: CommandContext, argv: readonly string[]): Reply {
  const target = xgroupTarget(ctx, argv, 'create');
  if (argv.length > 8) fail(StreamErrors.subcommandSyntax('XGROUP', argv[1]!));
  let stream = target.stream;
  const id = argv[4] === '$' ? (stream?.lastKey ?? MIN_KEY) : strictIdArg(argv[4]!);
  if (stream === undefined) {
    stream = new Stream();
    ctx.db.set(argv[2]!, 'stream', stream);
  }
  const name = argv[3]!;
  if (stream.groups.has(name)) fail('BUSYGROUP Consumer Group name already exists');
  stream.groups.set(name, new ConsumerGroup(id, target.entriesRead));
  return OK;
}

function xgroupSetId(ctx: CommandContext, argv: readonly string[]): Reply {
  const { stream, group, entriesRead } = xgroupTarget(ctx, argv, 'setid');
  if (argv.length !== 5 && argv.length !== 7) fail(StreamErrors.subcommandSyntax('XGROUP', argv[1]!));
  const id = argv[4] === '$' ? stream!.lastKey : looseIdArg(argv[4]!);
  group!.lastKey = id;
  group!.entriesRead = entriesRead;
  return OK;
}

const XGROUP_HELP = [
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
];

const xgroup: CommandSpec = {
  name: 'xgroup',
  arity: -2,
  write: true,
  subcommands: [
    { name: 'create', arity: subcommandArity(-5), write: true, handler: xgroupCreate },
    { name: 'setid', arity: subcommandArity(-5), write: true, handler: xgroupSetId },
    {
      name: 'destroy',
      arity: subcommandArity(4),
      write: true,
      handler: (ctx, argv) => {
        const { stream } = xgroupTarget(ctx, argv, 'destroy');
        if (!stream!.groups.delete(argv[3]!)) return 0;
        // Readers blocked on this group wake up to a NOGROUP error.
        ctx.db.touch(argv[2]!);
        return 1;
      },
    },
    {
      name: 'createconsumer',
      arity: subcommandArity(5),
      write: true,
      handler: (ctx, argv) => {
        const { group } = xgroupTarget(ctx, argv, 'createconsumer');
        if (group!.consumers.has(argv[4]!)) return 0;
        group!.consumer(argv[4]!, ctx.now);
        return 1;
      },
    },
    {
      name: 'delconsumer',
      arity: subcommandArity(5),
      write: true,
      handler: (ctx, argv) => xgroupTarget(ctx, argv, 'delconsumer').group!.deleteConsumer(argv[4]!),
    },
    {
      name: 'help',
      arity: subcommandArity(2),
      write: false,
      handler: () => helpReply('XGROUP', XGROUP_HELP),
    },
  ],
};

function xack(ctx: CommandContext, argv: readonly string[]): Reply {
  const group = getStream(ctx, argv[1]!)?.groups.get(argv[2]!);
  // No key or group: nothing to acknowledge, and the ids are not even parsed.
  if (group === undefined) return 0;
  // Every id is parsed before any is acknowledged: one invalid id fails the whole command.
  const keys = new Array<IdKey>(argv.length - 3);
  for (let i = 3; i < argv.length; i++) keys[i - 3] = strictIdArg(argv[i]!);
  return group.ack(keys);
}

function pendingRow(pending: PendingRow, now: number): Reply {
  return [pending.id, pending.consumer.name, Math.max(0, now - pending.deliveryTime), pending.deliveryCount];
}

function xpending(ctx: CommandContext, argv: readonly string[]): Reply {
  const argc = argv.length;
  if (argc !== 3 && (argc < 6 || argc > 9)) fail(Errors.syntax);
  let range: { start: IdKey; end: IdKey; count: number; minIdle: number; consumer?: string } | undefined;
  if (argc >= 6) {
    let at = 3;
    let minIdle = 0;
    if (isKeyword(argv[3], 'idle')) {
      minIdle = longArg(argv[4]);
      if (argc < 8) fail(Errors.syntax);
      at += 2;
    }
    const count = Math.max(0, longArg(argv[at + 2]));
    const start = rangeStartArg(argv[at]!);
    const end = rangeEndArg(argv[at + 1]!);
    const consumer = argv[at + 3];
    range =
      consumer === undefined ? { start, end, count, minIdle } : { start, end, count, minIdle, consumer };
  }
  const [, group] = requireGroup(ctx, argv[1]!, argv[2]!);

  if (range === undefined) {
    if (group.pel.size === 0) return [0, null, null, null];
    const consumers = [...group.consumers.values()]
      .filter((consumer) => consumer.pel.size > 0)
      .sort((a, b) => compareBytes(a.name, b.name))
      .map((consumer): Reply => [consumer.name, String(consumer.pel.size)]);
    return [group.pel.size, formatKey(group.pel.minKey()!), formatKey(group.pel.maxKey()!), consumers];
  }
  const consumer = range.consumer === undefined ? undefined : group.consumers.get(range.consumer);
  // A named consumer that does not exist has nothing pending.
  if (range.consumer !== undefined && consumer === undefined) return [];
  return group
    .pendingRange(range.start, range.end, range.count, range.minIdle, ctx.now, consumer)
    .map((pending) => pendingRow(pending, ctx.now));
}

/** XCLAIM's option values: IDLE, TIME and RETRYCOUNT each with its own error text. */
function claimLong(text: string | undefined, option: string): number {
  return longArg(text, `ERR Invalid ${option} option argument for XCLAIM`);
}

function xclaim(ctx: CommandContext, argv: readonly string[]): Reply {
  const [stream, group] = requireGroup(ctx, argv[1]!, argv[2]!);
  const minIdle = Math.max(0, longArg(argv[4], 'ERR Invalid min-idle-time argument for XCLAIM'));
  // Ids run until the first argument that does not parse as one; options follow.
  const keys: IdKey[] = [];
  let j = 5;
  for (; j < argv.length; j++) {
    const parsed = parseId(argv[j]!, { strict: true });
    if (parsed === undefined) break;
    keys.push(parsed.key);
  }
  const now = ctx.now;
  let deliveryTime = -1;
  let retryCount = -1;
  let force = false;
  let justId = false;
  let lastId = MIN_KEY;
  for (; j < argv.length; j++) {
    const more = argv.length - 1 - j > 0;
    const option = argv[j]!;
    if (isKeyword(option, 'force')) force = true;
    else if (isKeyword(option, 'justid')) justId = true;
    else if (isKeyword(option, 'idle') && more) deliveryTime = now - claimLong(argv[++j], 'IDLE');
    else if (isKeyword(option, 'time') && more) deliveryTime = claimLong(argv[++j], 'TIME');
    else if (isKeyword(option, 'retrycount') && more) retryCount = claimLong(argv[++j], 'RETRYCOUNT');
    else if (isKeyword(option, 'lastid') && more) lastId = strictIdArg(argv[++j]!);
    else fail(`ERR Unrecognized XCLAIM option '${option}'`);
  }
  // A delivery time in the future or before the epoch is taken as now, as Redis does.
  if (deliveryTime < 0 || deliveryTime > now) deliveryTime = now;
  if (lastId > group.lastKey) group.lastKey = lastId;
  const claimed = group.claim(
    stream,
    argv[3]!,
    keys,
    { minIdle, deliveryTime, retryCount, force, justId },
    now,
  );
  return claimed.map(({ id, entry }) => (justId ? id : entryReply(entry)));
}

/** COUNT must fit Redis' bound LONG_MAX / 16 (the size of a stream id). */
const AUTOCLAIM_MAX_COUNT = 576460752303423487n;
/**
 * Redis allocates COUNT stream ids up front and answers "Insufficient memory" when that fails;
 * on a 64-bit Linux host the allocation fails from about 2^41.3 ids (40 TB). The bound below is
 * this emulation's stand-in for that host-dependent limit.
 */
const AUTOCLAIM_ALLOCATABLE_COUNT = 2 ** 41;

function xautoclaim(ctx: CommandContext, argv: readonly string[]): Reply {
  const minIdle = Math.max(0, longArg(argv[4], 'ERR Invalid min-idle-time argument for XAUTOCLAIM'));
  const start = rangeStartArg(argv[5]!);
  let count = 100;
  let justId = false;
  for (let j = 6; j < argv.length; j++) {
    if (isKeyword(argv[j], 'count') && j + 1 < argv.length) {
      const value = parseInt64(argv[++j]!);
      if (value === undefined || value < 1n || value > AUTOCLAIM_MAX_COUNT) fail('ERR COUNT must be > 0');
      count = Number(value);
    } else if (isKeyword(argv[j], 'justid')) {
      justId = true;
    } else {
      fail(Errors.syntax);
    }
  }
  const [stream, group] = requireGroup(ctx, argv[1]!, argv[2]!);
  if (count >= AUTOCLAIM_ALLOCATABLE_COUNT) {
    fail('ERR Insufficient memory, failed allocating transient memory, COUNT too high.');
  }
  const result = group.autoClaim(stream, argv[3]!, start, count, minIdle, justId, ctx.now);
  const claimed = result.claimed.map(({ id, entry }) => (justId ? id : entryReply(entry)));
  return [formatKey(result.next), claimed, [...result.deleted]];
}

export const streamGroupCommands: readonly CommandSpec[] = [
  xgroup,
  { name: 'xack', arity: -4, write: true, handler: xack },
  { name: 'xpending', arity: -3, write: false, handler: xpending },
  { name: 'xclaim', arity: -6, write: true, handler: xclaim },
  { name: 'xautoclaim', arity: -6, write: true, handler: xautoclaim },
];
