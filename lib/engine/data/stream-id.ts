/**
 * Stream ids: two unsigned 64-bit numbers `ms-seq`. Inside the engine an id is its *key*: both
 * halves as 20-digit zero-padded decimals, 40 characters. Keys are exact up to 2^64-1, compare with
 * plain `<` in id order, and need no BigInt on the hot paths (an argument's digits are just padded).
 * Parsing follows Redis 7.0's streamGenericParseIDOrReply, strtoull oddities included.
 */
import { utf8Length } from './stream-listpack.ts';

/** A stream id in sortable form: `ms` and `seq` as 20-digit zero-padded decimals. */
export type IdKey = string;

const ZEROS = '00000000000000000000';
const U64_MAX = '18446744073709551615';
const U64_MAX_BIG = 18446744073709551615n;
const U64_SPAN = 18446744073709551616n;
const INT64_MIN_MAGNITUDE = 9223372036854775808n;

export const MIN_KEY: IdKey = ZEROS + ZEROS;
export const MAX_KEY: IdKey = U64_MAX + U64_MAX;

/** ZERO_PADS[n] is n zeros: padding without slicing a new string each time. */
const ZERO_PADS = Array.from({ length: 21 }, (_, n) => ZEROS.slice(0, n));

/** `digits` (1 to 20 decimal digits, no sign) padded to 20. */
function pad(digits: string): string {
  return ZERO_PADS[20 - digits.length] + digits;
}

/** The key of `ms-seq` for safe integers (both below 2^53). */
export function keyOf(ms: number, seq: number): IdKey {
  return pad(String(ms)) + pad(String(seq));
}

/** The key of `ms-seq` for any unsigned 64-bit values. */
export function keyOfBig(ms: bigint, seq: bigint): IdKey {
  return pad(ms.toString()) + pad(seq.toString());
}

function trimHalf(half: string): string {
  let i = 0;
  while (i < 19 && half.charCodeAt(i) === 48) i++;
  return i === 0 ? half : half.slice(i);
}

/**
 * One 20-digit half of a key (`from` 0 for ms, 20 for seq) as a number, digit by digit without
 * slicing: exact up to 2^53; above it rounded, but never out of order (each step's exact value
 * is at least 10 away from any other prefix's) and never below 2^53.
 */
export function keyHalf(key: IdKey, from: number): number {
  let value = 0;
  for (let i = from; i < from + 20; i++) value = value * 10 + (key.charCodeAt(i) - 48);
  return value;
}

/** The id as Redis prints it, `ms-seq`. */
export function formatKey(key: IdKey): string {
  return `${trimHalf(key.slice(0, 20))}-${trimHalf(key.slice(20))}`;
}

/** The `ms` half as a padded string. */
export function msHalf(key: IdKey): string {
  return key.slice(0, 20);
}

/** The key's halves as BigInts. */
export function keyParts(key: IdKey): [bigint, bigint] {
  return [BigInt(key.slice(0, 20)), BigInt(key.slice(20))];
}

/** The next id (streamIncrID), or undefined past the maximum id. */
export function incrKey(key: IdKey): IdKey | undefined {
  const [ms, seq] = keyParts(key);
  if (seq < U64_MAX_BIG) return keyOfBig(ms, seq + 1n);
  if (ms < U64_MAX_BIG) return keyOfBig(ms + 1n, 0n);
  return undefined;
}

/** The previous id (streamDecrID), or undefined below 0-0. */
export function decrKey(key: IdKey): IdKey | undefined {
  const [ms, seq] = keyParts(key);
  if (seq > 0n) return keyOfBig(ms, seq - 1n);
  if (ms > 0n) return keyOfBig(ms - 1n, U64_MAX_BIG);
  return undefined;
}

const PLAIN = /^[0-9]{1,19}$/;
const INT64_MAX_TEXT = '9223372036854775807';

let strtoullRuns = 0;

/**
 * How many id halves so far went through strtoull, which zeroes errno in Redis. XADD reads a stale
 * errno in one error path (see stream-entries.ts); this lets it tell whether anything reset errno
 * since its last EDOM failure.
 */
export function strtoullCount(): number {
  return strtoullRuns;
}

/** Plain digits that string2ll refuses (leading zero, or past INT64_MAX) go on to strtoull. */
function countPlainFallback(digits: string): void {
  if (
    (digits.length > 1 && digits.charCodeAt(0) === 48) ||
    (digits.length === 19 && digits > INT64_MAX_TEXT)
  ) {
    strtoullRuns++;
  }
}
const CANONICAL_NEGATIVE = /^-[1-9][0-9]*$/;
const STRTOULL = /^[ \t\n\v\f\r]*([+-]?)([0-9]+)$/;

/**
 * One half of an id as Redis' string2ull reads it: string2ll first (a negative result is
 * rejected), then strtoull, which skips white space, takes a sign (negating modulo 2^64) and fails
 * on overflow. Returns the value padded to 20 digits, or undefined.
 */
export function parseU64(text: string): string | undefined {
  if (PLAIN.test(text)) {
    countPlainFallback(text);
    return pad(text);
  }
  if (CANONICAL_NEGATIVE.test(text) && text.length <= 20 && BigInt(text.slice(1)) <= INT64_MIN_MAGNITUDE) {
    return undefined;
  }
  strtoullRuns++;
  const match = STRTOULL.exec(text);
  if (match === null) return undefined;
  const magnitude = BigInt(match[2] ?? '');
  if (magnitude > U64_MAX_BIG) return undefined;
  const value = match[1] === '-' ? (U64_SPAN - magnitude) % U64_SPAN : magnitude;
  return pad(value.toString());
}

/** What parsing an id argument produced. `seqGiven` is false only for XADD's `ms-*`. */
export interface ParsedId {
  readonly key: IdKey;
  readonly seqGiven: boolean;
  /**
   * For the common `ms-seq` form: the argument itself when it is already the id as Redis prints
   * it (`12-0`, not `012-0`), and the halves as numbers (as keyHalf reads them), so appending
   * needs no second pass over the key.
   */
  readonly plain?: { readonly canonical: string | undefined; readonly ms: number; readonly seq: number };
}

/** The halves of the last key plainKey returned, as keyHalf would read them. */
let plainMs = 0;
let plainSeq = 0;

export interface IdParseOptions {
  /** Strict parsing rejects `-` and `+`; otherwise they mean 0-0 and the maximum id. */
  readonly strict: boolean;
  /** The sequence used when the argument has none: 0, or the maximum for a range end. */
  readonly missingSeqMax?: boolean;
  /** XADD only: accept `ms-*`. */
  readonly seqStar?: boolean;
}

/**
 * The key of an argument of the common form `ms-seq` (each half 1 to 19 digits), undefined for
 * anything else. No regex and no intermediate object: XACK and XADD parse ids per message.
 */
function plainKey(arg: string): IdKey | undefined {
  const length = arg.length;
  if (length < 3 || length > 39) return undefined;
  let dash = -1;
  let msValue = 0;
  let seqValue = 0;
  for (let i = 0; i < length; i++) {
    const code = arg.charCodeAt(i);
    if (code === 45 && dash < 0) dash = i;
    else if (code < 48 || code > 57) return undefined;
    else if (dash < 0) msValue = msValue * 10 + (code - 48);
    else seqValue = seqValue * 10 + (code - 48);
  }
  // The same digit-by-digit arithmetic as keyHalf (leading zeros add nothing): the same numbers.
  plainMs = msValue;
  plainSeq = seqValue;
  if (dash < 1 || dash > 19 || length - dash - 1 > 19 || dash === length - 1) return undefined;
  const ms = arg.slice(0, dash);
  const seq = arg.slice(dash + 1);
  countPlainFallback(ms);
  countPlainFallback(seq);
  return ZERO_PADS[20 - ms.length] + ms + ZERO_PADS[20 - seq.length] + seq;
}

/** Whether a plain `ms-seq` argument has no leading zeros, so it prints as itself. */
function isCanonical(arg: string): boolean {
  if (arg.charCodeAt(0) === 48 && arg.charCodeAt(1) !== 45) return false;
  const dash = arg.indexOf('-');
  return arg.charCodeAt(dash + 1) !== 48 || dash + 2 === arg.length;
}

/** A strict id argument's key (no `-`/`+`, missing sequence 0), or undefined when invalid. */
export function parseStrictKey(arg: string): IdKey | undefined {
  return plainKey(arg) ?? parseId(arg, { strict: true })?.key;
}

/** The plain `ms-seq` form only (what parseId answers for it), else undefined. */
export function parsePlainId(arg: string): ParsedId | undefined {
  const plain = plainKey(arg);
  if (plain === undefined) return undefined;
  const canonical = isCanonical(arg) ? arg : undefined;
  return { key: plain, seqGiven: true, plain: { canonical, ms: plainMs, seq: plainSeq } };
}

/** Parses a stream id argument; undefined when Redis would answer "Invalid stream ID". */
export function parseId(arg: string, options: IdParseOptions): ParsedId | undefined {
  const plain = parsePlainId(arg);
  if (plain !== undefined) return plain;
  if (arg.length > 127 && utf8Length(arg) > 127) return undefined;
  // Redis copies the argument into a C string: everything from a NUL byte on is invisible.
  const nul = arg.indexOf('\0');
  const text = nul < 0 ? arg : arg.slice(0, nul);
  if (text === '-' || text === '+') {
    if (options.strict) return undefined;
    return { key: text === '-' ? MIN_KEY : MAX_KEY, seqGiven: true };
  }
  const dash = text.indexOf('-');
  const ms = parseU64(dash < 0 ? text : text.slice(0, dash));
  if (ms === undefined) return undefined;
  if (dash < 0) return { key: ms + (options.missingSeqMax ? U64_MAX : ZEROS), seqGiven: true };
  const seqText = text.slice(dash + 1);
  if (options.seqStar && seqText === '*') return { key: ms + ZEROS, seqGiven: false };
  const seq = parseU64(seqText);
  return seq === undefined ? undefined : { key: ms + seq, seqGiven: true };
}
