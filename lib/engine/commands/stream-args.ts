/**
 * What every stream command shares: Redis 7.0's error texts, id arguments (strict, interval and
 * exclusive forms), integer arguments with a command's own error text, and the entry reply shape.
 */
import type { CommandContext } from '../command.ts';
import { parseInt64 } from '../data/numbers.ts';
import type { Stream } from '../data/stream.ts';
import type { StreamEntry } from '../data/stream-entry.ts';
import type { ConsumerGroup } from '../data/stream-group.ts';
import {
  decrKey,
  type IdKey,
  type IdParseOptions,
  incrKey,
  type ParsedId,
  parseId,
  parseStrictKey,
} from '../data/stream-id.ts';
import { Errors, fail, type Reply } from '../reply.ts';

export const StreamErrors = {
  invalidId: 'ERR Invalid stream ID specified as stream command argument',
  invalidStart: 'ERR invalid start ID for the interval',
  invalidEnd: 'ERR invalid end ID for the interval',
  noGroup: (key: string, group: string) => `NOGROUP No such key '${key}' or consumer group '${group}'`,
  subcommandSyntax: (command: string, sub: string) =>
    `ERR unknown subcommand or wrong number of arguments for '${sub}'. Try ${command} HELP.`,
} as const;

/** A strict id (no `-`/`+`): XADD, XDEL, XACK, XCLAIM, XREAD ids, XGROUP CREATE, MINID. */
export function strictIdArg(text: string): IdKey {
  return parseStrictKey(text) ?? fail(StreamErrors.invalidId);
}

const XADD_ID: IdParseOptions = { strict: true, seqStar: true };

/** XADD's id: strict, and `ms-*` is allowed (then `seqGiven` is false). */
export function xaddIdArg(text: string): ParsedId {
  return parseId(text, XADD_ID) ?? fail(StreamErrors.invalidId);
}

/** A range bound as streamParseIntervalIDOrReply reads it: `(` makes it exclusive. */
function intervalArg(text: string, missingSeqMax: boolean): { key: IdKey; exclusive: boolean } {
  const exclusive = text.length > 1 && text[0] === '(';
  const parsed = exclusive
    ? parseId(text.slice(1), { strict: true, missingSeqMax })
    : parseId(text, { strict: false, missingSeqMax });
  if (parsed === undefined) fail(StreamErrors.invalidId);
  return { key: parsed.key, exclusive };
}

/** The lower bound of a range (XRANGE, XPENDING, XAUTOCLAIM), made inclusive. */
export function rangeStartArg(text: string): IdKey {
  const { key, exclusive } = intervalArg(text, false);
  return exclusive ? (incrKey(key) ?? fail(StreamErrors.invalidStart)) : key;
}

/** The upper bound of a range, made inclusive; a missing sequence means the largest. */
export function rangeEndArg(text: string): IdKey {
  const { key, exclusive } = intervalArg(text, true);
  return exclusive ? (decrKey(key) ?? fail(StreamErrors.invalidEnd)) : key;
}

/** A non-strict id (`-` and `+` allowed), as XGROUP SETID reads it. */
export function looseIdArg(text: string): IdKey {
  return parseId(text, { strict: false })?.key ?? fail(StreamErrors.invalidId);
}

/**
 * A canonical decimal of at most 15 characters (`0`, or an optional `-` and digits without a
 * leading zero) as a number, else undefined. Digit by digit: a regex test cost twice as much.
 */
function shortInteger(text: string): number | undefined {
  const length = text.length;
  if (length === 0 || length > 15) return undefined;
  const negative = text.charCodeAt(0) === 45;
  let i = negative ? 1 : 0;
  if (i === length) return undefined;
  if (text.charCodeAt(i) === 48) return length === 1 ? 0 : undefined;
  let value = 0;
  for (; i < length; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return undefined;
    value = value * 10 + digit;
  }
  return negative ? -value : value;
}

/**
 * A keyword test that allocates nothing (commands run per message): `word` is lower-case
 * letters, and `arg` matches it in any case.
 */
export function isKeyword(arg: string | undefined, word: string): boolean {
  if (arg === undefined || arg.length !== word.length) return false;
  for (let i = 0; i < word.length; i++) {
    if ((arg.charCodeAt(i) | 0x20) !== word.charCodeAt(i)) return false;
  }
  return true;
}

/**
 * A signed 64-bit integer as a number (counts and times, where rounding past 2^53 changes
 * nothing), failing with the command's own `message` as getLongLongFromObjectOrReply does.
 */
export function longArg(text: string | undefined, message: string = Errors.notInteger): number {
  // Up to 15 digits a double is exact: skip the BigInt round trip on the common path.
  const short = text === undefined ? undefined : shortInteger(text);
  if (short !== undefined) return short;
  const value = parseInt64(text ?? '');
  if (value === undefined) fail(message);
  return Number(value);
}

/**
 * An entry as stream replies show it: `[id, [field, value, ...]]`. The field array is the stored
 * one, not a copy: replies are read, never changed, by whoever renders them.
 */
export function entryReply(entry: StreamEntry): Reply {
  return [entry.id, entry.fields as string[]];
}

/** The stream at `key` (WRONGTYPE for another type). */
export function getStream(ctx: CommandContext, key: string): Stream | undefined {
  return ctx.db.get(key, 'stream');
}

/** The stream and group, or `NOGROUP No such key 'k' or consumer group 'g'`. */
export function requireGroup(ctx: CommandContext, key: string, name: string): [Stream, ConsumerGroup] {
  const stream = getStream(ctx, key);
  const group = stream?.groups.get(name);
  if (stream === undefined || group === undefined) fail(StreamErrors.noGroup(key, name));
  return [stream, group];
}
