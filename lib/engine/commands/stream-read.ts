/**
 * XREAD and XREADGROUP, including BLOCK: a read that finds nothing returns a BlockRequest whose
 * retry re-checks the woken key as Redis 7.0's serveClientsBlockedOnStreamKey does (new entries
 * past the id the reader waits after; for a group, past its last-delivered id; only that key is
 * answered, with COUNT or 1000 entries). Inside MULTI the read answers nil at once; BLOCK inside a
 * script is an error.
 */
import type { BlockRequest, CommandContext, CommandSpec } from '../command.ts';
import type { Stream } from '../data/stream.ts';
import type { ConsumerGroup, HistoryRow } from '../data/stream-group.ts';
import { type IdKey, MAX_KEY, MIN_KEY } from '../data/stream-id.ts';
import { Errors, fail, RedisError, type Reply } from '../reply.ts';
import { entryReply, getStream, isKeyword, longArg, strictIdArg } from './stream-args.ts';

/** How many entries a woken reader gets when it gave no COUNT. */
const WOKEN_DEFAULT_COUNT = 1000;
/** Longest wait a JS timer can express; longer BLOCK times are capped to it. */
const MAX_TIMER_MS = 2_147_483_647;
/** `>` is represented as the maximum id, as Redis does (so that id given explicitly means `>` too). */
const NEW_ENTRIES = MAX_KEY;

interface ReadRequest {
  readonly keys: readonly string[];
  /** Per key: the stream found while parsing (a read looks each key up once). */
  readonly streams: readonly (Stream | undefined)[];
  /** Per key: the id to read after, or NEW_ENTRIES. */
  readonly ids: readonly IdKey[];
  readonly count: number;
  /** -1 without BLOCK. */
  readonly timeout: number;
  readonly group: { readonly name: string; readonly consumer: string; readonly noack: boolean } | undefined;
}

function parseRead(ctx: CommandContext, argv: readonly string[], withGroup: boolean): ReadRequest {
  let timeout = -1;
  let count = 0;
  let streamsAt = 0;
  let noack = false;
  let groupName: string | undefined;
  let consumer = '';
  for (let i = 1; i < argv.length; i++) {
    const more = argv.length - i - 1;
    const option = argv[i];
    if (isKeyword(option, 'block') && more > 0) {
      if (ctx.inScript) fail(`ERR ${argv[0]} command is not allowed with BLOCK option from scripts`);
      i++;
      timeout = longArg(argv[i], 'ERR timeout is not an integer or out of range');
      if (timeout < 0) fail('ERR timeout is negative');
    } else if (isKeyword(option, 'count') && more > 0) {
      i++;
      count = Math.max(0, longArg(argv[i]));
    } else if (isKeyword(option, 'streams') && more > 0) {
      streamsAt = i + 1;
      if ((argv.length - streamsAt) % 2 !== 0) {
        fail("ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.");
      }
      break;
    } else if (isKeyword(option, 'group') && more >= 2) {
      if (!withGroup) fail('ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.');
      groupName = argv[i + 1]!;
      consumer = argv[i + 2]!;
      i += 2;
    } else if (isKeyword(option, 'noack')) {
      if (!withGroup) fail('ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.');
      noack = true;
    } else {
      fail(Errors.syntax);
    }
  }
  if (streamsAt === 0) fail(Errors.syntax);
  if (withGroup && groupName === undefined) fail('ERR Missing GROUP option for XREADGROUP');

  const half = (argv.length - streamsAt) / 2;
  const keys = argv.slice(streamsAt, streamsAt + half);
  // Sized up front: an empty array's first push reserves 17 slots, and this runs per read.
  const ids = new Array<IdKey>(half);
  const streams = new Array<Stream | undefined>(half);
  for (let i = 0; i < half; i++) {
    const key = keys[i]!;
    const stream = getStream(ctx, key);
    streams[i] = stream;
    if (groupName !== undefined && stream?.groups.get(groupName) === undefined) {
      fail(`NOGROUP No such key '${key}' or consumer group '${groupName}' in XREADGROUP with GROUP option`);
    }
    const arg = argv[streamsAt + half + i]!;
    if (arg === '$') {
      if (withGroup) {
        fail(
          'ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of ' +
            'this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would ' +
            'just return an empty result set.',
        );
      }
      ids[i] = stream?.lastKey ?? MIN_KEY;
    } else if (arg === '>') {
      if (!withGroup) {
        fail(
          'ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option.',
        );
      }
      ids[i] = NEW_ENTRIES;
    } else {
      ids[i] = strictIdArg(arg);
    }
  }
  const group = groupName === undefined ? undefined : { name: groupName, consumer, noack };
  return { keys, streams, ids, count, timeout, group };
}

function historyReply(rows: readonly HistoryRow[]): Reply {
  return rows.map((row) => (row.entry === undefined ? [row.id, null] : entryReply(row.entry)));
}

/** Serves one stream of a read, or answers undefined when it has nothing for the reader. */
function serve(
  ctx: CommandContext,
  request: ReadRequest,
  stream: Stream,
  group: ConsumerGroup | undefined,
  after: IdKey,
): Reply | undefined {
  const { count } = request;
  if (group === undefined || request.group === undefined) {
    const last = stream.length > 0 ? stream.lastLiveKey() : undefined;
    if (last === undefined || last <= after) return undefined;
    return stream.range(after, MAX_KEY, count, true).map(entryReply);
  }
  if (after !== NEW_ENTRIES) {
    const consumer = group.consumer(request.group.consumer, ctx.now);
    return historyReply(group.readHistory(stream, consumer, after, count, ctx.now));
  }
  return serveNew(ctx, stream, group, request.group.consumer, count, request.group.noack);
}

/** A group read of `>`: the entries after the group's last-delivered id, or undefined if none. */
function serveNew(
  ctx: CommandContext,
  stream: Stream,
  group: ConsumerGroup,
  consumerName: string,
  count: number,
  noack: boolean,
): Reply | undefined {
  const last = stream.length > 0 ? stream.lastLiveKey() : undefined;
  if (last === undefined || last <= group.lastKey) return undefined;
  const consumer = group.consumer(consumerName, ctx.now);
  return group.deliverNew(stream, consumer, count, noack, ctx.now).map(entryReply);
}

/** isKeyword, answering the two usual spellings by comparison first. */
function keyword(arg: string | undefined, upper: string, lower: string): boolean {
  return arg === upper || arg === lower || isKeyword(arg, lower);
}

/**
 * The shape a worker sends in a loop, `XREADGROUP GROUP g c [COUNT n] STREAMS key >`, answered
 * without building a request: the same checks in the same order as parseRead and read, for
 * this shape only. Undefined for any other shape.
 */
function readGroupNewFast(ctx: CommandContext, argv: readonly string[]): Reply | undefined {
  const argc = argv.length;
  if (argv[argc - 1] !== '>' || !keyword(argv[1], 'GROUP', 'group')) return undefined;
  let count = 0;
  if (argc === 9 && keyword(argv[4], 'COUNT', 'count') && keyword(argv[6], 'STREAMS', 'streams')) {
    count = Math.max(0, longArg(argv[5]));
  } else if (argc !== 7 || !keyword(argv[4], 'STREAMS', 'streams')) {
    return undefined;
  }
  const groupName = argv[2]!;
  const key = argv[argc - 2]!;
  const stream = getStream(ctx, key);
  const group = stream?.groups.get(groupName);
  if (stream === undefined || group === undefined) {
    fail(`NOGROUP No such key '${key}' or consumer group '${groupName}' in XREADGROUP with GROUP option`);
  }
  const rows = serveNew(ctx, stream, group, argv[3]!, count, false);
  return rows === undefined ? null : [[key, rows]];
}

function read(ctx: CommandContext, argv: readonly string[], withGroup: boolean): Reply | BlockRequest {
  const request = parseRead(ctx, argv, withGroup);
  const replies = new Array<Reply>(request.keys.length);
  let served = 0;
  for (let i = 0; i < request.keys.length; i++) {
    const key = request.keys[i]!;
    const stream = request.streams[i];
    if (stream === undefined) continue;
    const group = request.group === undefined ? undefined : stream.groups.get(request.group.name);
    const rows = serve(ctx, request, stream, group, request.ids[i]!);
    if (rows !== undefined) replies[served++] = [key, rows];
  }
  if (served > 0) {
    replies.length = served;
    return replies;
  }
  if (request.timeout === -1 || ctx.inMulti || ctx.inScript) return null;
  return blockRequest(request);
}

/** Waits for new entries on the request's keys; see the module comment for what a wake does. */
function blockRequest(request: ReadRequest): BlockRequest {
  // A key named twice waits after the id given first, as Redis keeps the first.
  const waitAfter = new Map<string, IdKey>();
  request.keys.forEach((key, i) => {
    if (!waitAfter.has(key)) waitAfter.set(key, request.ids[i]!);
  });
  const count = request.count === 0 ? WOKEN_DEFAULT_COUNT : request.count;
  const group = request.group;
  // A delivery on wake changes the group, so the durability log needs it as a command.
  const effect =
    group === undefined
      ? {}
      : {
          effect: (key: string) => [
            'XREADGROUP',
            'GROUP',
            group.name,
            group.consumer,
            'COUNT',
            String(count),
            ...(group.noack ? ['NOACK'] : []),
            'STREAMS',
            key,
            '>',
          ],
        };
  return {
    ...effect,
    kind: 'block',
    keys: [...waitAfter.keys()],
    timeoutMs: Math.min(request.timeout, MAX_TIMER_MS),
    onTimeout: () => null,
    retry(ctx, key) {
      const entry = ctx.db.entry(key);
      if (entry === undefined || entry.type !== 'stream') {
        return request.group === undefined
          ? undefined
          : new RedisError('UNBLOCKED the stream key no longer exists');
      }
      const stream = entry.value;
      let after = waitAfter.get(key)!;
      let group: ConsumerGroup | undefined;
      if (request.group !== undefined) {
        group = stream.groups.get(request.group.name);
        if (group === undefined) {
          return new RedisError('NOGROUP the consumer group this client was blocked on no longer exists');
        }
        after = group.lastKey;
      }
      // Redis compares with the last id ever added here, not the last live one.
      if (stream.lastKey <= after) return undefined;
      if (group === undefined || request.group === undefined) {
        return [[key, stream.range(after, MAX_KEY, count, true).map(entryReply)]];
      }
      const consumer = group.consumer(request.group.consumer, ctx.now);
      return [[key, group.deliverNew(stream, consumer, count, request.group.noack, ctx.now).map(entryReply)]];
    },
  };
}

export const streamReadCommands: readonly CommandSpec[] = [
  { name: 'xread', arity: -4, write: false, handler: (ctx, argv) => read(ctx, argv, false) },
  {
    name: 'xreadgroup',
    arity: -7,
    write: true,
    handler: (ctx, argv) => {
      const fast = readGroupNewFast(ctx, argv);
      return fast === undefined ? read(ctx, argv, true) : fast;
    },
  },
];
