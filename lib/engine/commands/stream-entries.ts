/** Stream entry commands: XADD, XLEN, XRANGE, XREVRANGE, XDEL, XTRIM. */
import type { CommandContext, CommandSpec } from '../command.ts';
import { Stream, type TrimRule } from '../data/stream.ts';
import {
  type IdKey,
  MAX_KEY,
  MIN_KEY,
  type ParsedId,
  type PlainId,
  parsePlainId,
  strtoullCount,
} from '../data/stream-id.ts';
import { Errors, fail, OK, type Reply } from '../reply.ts';
import {
  entryReply,
  getStream,
  isKeyword,
  longArg,
  rangeEndArg,
  rangeStartArg,
  strictIdArg,
  xaddIdArg,
} from './stream-args.ts';

const NOT_GREATER = 'ERR The ID specified in XADD is equal or smaller than the target stream top item';

/** XADD's `~` trimming examines at most this many entries unless LIMIT says otherwise. */
const DEFAULT_APPROX_LIMIT = 10_000;

interface AddTrimArgs {
  readonly trim: TrimRule | undefined;
  readonly noMkStream: boolean;
  /** Where the id is (XADD); the fields follow it. */
  readonly idIndex: number;
  /** Undefined for `*`. */
  readonly id: ParsedId | undefined;
}

/** streamParseAddOrTrimArgsOrReply: the options XADD and XTRIM share, in Redis' error order. */
function parseAddOrTrim(argv: readonly string[], xadd: boolean): AddTrimArgs {
  let strategy: 'maxlen' | 'minid' | undefined;
  let approx = false;
  let maxlen = 0;
  let minid: IdKey = MIN_KEY;
  let limit = 0;
  let limitGiven = false;
  let noMkStream = false;
  let id: ParsedId | undefined;
  let i = 2;
  for (; i < argv.length; i++) {
    const more = argv.length - 1 - i;
    const option = argv[i]!;
    if (xadd && option === '*') break;
    if ((isKeyword(option, 'maxlen') || isKeyword(option, 'minid')) && more > 0) {
      if (strategy !== undefined) {
        fail('ERR syntax error, MAXLEN and MINID options at the same time are not compatible');
      }
      const next = argv[i + 1];
      approx = more >= 2 && next === '~';
      if (more >= 2 && (next === '~' || next === '=')) i++;
      if (isKeyword(option, 'maxlen')) {
        maxlen = longArg(argv[i + 1]);
        if (maxlen < 0) fail('ERR The MAXLEN argument must be >= 0.');
        strategy = 'maxlen';
      } else {
        minid = strictIdArg(argv[i + 1]!);
        strategy = 'minid';
      }
      i++;
    } else if (isKeyword(option, 'limit') && more > 0) {
      limit = longArg(argv[i + 1]);
      if (limit < 0) fail('ERR The LIMIT argument must be >= 0.');
      limitGiven = true;
      i++;
    } else if (xadd && isKeyword(option, 'nomkstream')) {
      noMkStream = true;
    } else if (xadd) {
      id = xaddIdArg(option);
      break;
    } else {
      fail(Errors.syntax);
    }
  }
  if (limit !== 0 && strategy === undefined) {
    fail('ERR syntax error, LIMIT cannot be used without specifying a trimming strategy');
  }
  if (!xadd && strategy === undefined)
    fail('ERR syntax error, XTRIM must be called with a trimming strategy');
  if (limitGiven && !approx) fail('ERR syntax error, LIMIT cannot be used without the special ~ option');
  if (!limitGiven) limit = approx ? DEFAULT_APPROX_LIMIT : 0;
  const trim: TrimRule | undefined =
    strategy === 'maxlen'
      ? { strategy, maxlen, approx, limit }
      : strategy === 'minid'
        ? { strategy, minid, approx, limit }
        : undefined;
  return { trim, noMkStream, idIndex: i, id };
}

/** What this engine's errno would hold, as far as the stream commands can tell (see xadd). */
function errnoOf(ctx: CommandContext): { edomAt: number } {
  return ctx.services.state('streams.errno', () => ({ edomAt: -1 }));
}

function xadd(ctx: CommandContext, argv: readonly string[]): Reply {
  const key = argv[1]!;
  // `XADD key ms-seq field value ...`, the common shape: an id of digits and a dash cannot be an
  // option, so parseAddOrTrim would take it as the id at once; skip the general parse.
  const plain = argv.length >= 5 ? parsePlainId(argv[2]!) : undefined;
  const args: AddTrimArgs =
    plain === undefined
      ? parseAddOrTrim(argv, true)
      : { trim: undefined, noMkStream: false, idIndex: 2, id: plain };
  const fieldsStart = args.idIndex + 1;
  const fieldArgs = argv.length - fieldsStart;
  if (fieldArgs < 2 || fieldArgs % 2 === 1) fail(Errors.arity('xadd'));
  // Checked before the key lookup, so a 0-0 never leaves an empty stream behind.
  if (args.id?.seqGiven && args.id.key === MIN_KEY)
    fail('ERR The ID specified in XADD must be greater than 0-0');

  let stream = getStream(ctx, key);
  if (stream === undefined) {
    if (args.noMkStream) return null;
    stream = new Stream();
    ctx.db.set(key, 'stream', stream);
  }
  if (stream.lastKey === MAX_KEY) {
    fail('ERR The stream has exhausted the last possible ID, unable to add more items');
  }
  let id: IdKey | undefined;
  let known: PlainId | undefined;
  if (args.id === undefined) id = stream.nextAutoKey(ctx.now);
  else if (args.id.seqGiven) {
    id = args.id.key;
    known = args.id.plain;
  } else {
    // Redis 7.0 fails `ms-*` past the last sequence without setting errno, then words the error
    // from whatever errno holds: EDOM if the last thing to set it was an XADD refusing an id,
    // otherwise (strtoull zeroes it when an id takes that path) "Elements are too large".
    id =
      stream.seqStarKey(args.id.key) ??
      fail(errnoOf(ctx).edomAt === strtoullCount() ? NOT_GREATER : 'ERR Elements are too large to be stored');
  }
  if (id === undefined || id <= stream.lastKey) {
    errnoOf(ctx).edomAt = strtoullCount();
    fail(NOT_GREATER);
  }
  const entry = stream.append(id, argv.slice(fieldsStart), known);
  if (args.trim !== undefined) stream.trim(args.trim);
  ctx.db.touch(key);
  return entry.id;
}

function xrange(ctx: CommandContext, argv: readonly string[], reverse: boolean): Reply {
  const start = rangeStartArg(reverse ? argv[3]! : argv[2]!);
  const end = rangeEndArg(reverse ? argv[2]! : argv[3]!);
  let count = -1;
  for (let j = 4; j < argv.length; j++) {
    if (!isKeyword(argv[j], 'count') || j + 1 >= argv.length) fail(Errors.syntax);
    count = Math.max(0, longArg(argv[j + 1]));
    j++;
  }
  const stream = getStream(ctx, argv[1]!);
  if (stream === undefined) return [];
  if (count === 0) return null;
  const limit = count === -1 ? 0 : count;
  const entries = reverse ? stream.rangeReverse(start, end, limit) : stream.range(start, end, limit);
  return entries.map(entryReply);
}

/** XSETID key last-id [ENTRIESADDED n] [MAXDELETEDID id]: what replication and snapshots use. */
function xsetid(ctx: CommandContext, argv: readonly string[]): Reply {
  const id = strictIdArg(argv[2]!);
  let entriesAdded = -1;
  let maxDeleted = MIN_KEY;
  for (let i = 3; i < argv.length; i += 2) {
    const more = i + 1 < argv.length;
    if (isKeyword(argv[i], 'entriesadded') && more) {
      entriesAdded = longArg(argv[i + 1]);
      if (entriesAdded < 0) fail('ERR entries_added must be positive');
    } else if (isKeyword(argv[i], 'maxdeletedid') && more) {
      maxDeleted = strictIdArg(argv[i + 1]!);
      if (id < maxDeleted)
        fail('ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id');
    } else {
      fail(Errors.syntax);
    }
  }
  const stream = getStream(ctx, argv[1]!) ?? fail('ERR no such key');
  if (stream.length > 0) {
    if (id < stream.lastLiveKey()!)
      fail('ERR The ID specified in XSETID is smaller than the target stream top item');
    if (entriesAdded !== -1 && stream.length > entriesAdded) {
      fail('ERR The entries_added specified in XSETID is smaller than the target stream length');
    }
  }
  stream.setLastId(id);
  if (entriesAdded !== -1) stream.entriesAdded = entriesAdded;
  if (maxDeleted !== MIN_KEY) stream.maxDeletedKey = maxDeleted;
  return OK;
}

export const streamEntryCommands: readonly CommandSpec[] = [
  { name: 'xadd', arity: -5, write: true, handler: xadd },
  {
    name: 'xlen',
    arity: 2,
    write: false,
    handler: (ctx, argv) => getStream(ctx, argv[1]!)?.length ?? 0,
  },
  { name: 'xrange', arity: -4, write: false, handler: (ctx, argv) => xrange(ctx, argv, false) },
  { name: 'xrevrange', arity: -4, write: false, handler: (ctx, argv) => xrange(ctx, argv, true) },
  {
    name: 'xdel',
    arity: -3,
    write: true,
    handler: (ctx, argv) => {
      // The key comes first: a missing key answers 0 whatever the ids look like.
      const stream = getStream(ctx, argv[1]!);
      if (stream === undefined) return 0;
      return stream.delete(argv.slice(2).map(strictIdArg));
    },
  },
  { name: 'xsetid', arity: -3, write: true, handler: xsetid },
  {
    name: 'xtrim',
    arity: -4,
    write: true,
    handler: (ctx, argv) => {
      const { trim } = parseAddOrTrim(argv, false);
      const stream = getStream(ctx, argv[1]!);
      return stream === undefined || trim === undefined ? 0 : stream.trim(trim);
    },
  },
];
