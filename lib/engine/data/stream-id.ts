/**
 * Stream ids: two unsigned 64-bit numbers `ms-seq`. Inside the engine an id is its *key*: eight
 * UTF-16 code units, each half as four big-endian 16-bit digits. Keys are exact up to 2^64-1 and
 * compare with plain `<` in id order (strings compare code unit by code unit). Eight units are
 * below V8's threshold for rope strings, so building a key makes one flat string, and the halves
 * read back as numbers in four steps. Nothing outside this file knows the layout: ids reach
 * replies only through formatKey. Parsing follows Redis 7.0's streamGenericParseIDOrReply,
 * strtoull oddities included.
 */
import { utf8Length } from './stream-listpack.ts';

/** A stream id in sortable form: each half as four big-endian 16-bit code units. */
export type IdKey = string;

const U64_MAX_BIG = 18446744073709551615n;
const U64_SPAN = 18446744073709551616n;
const INT64_MIN_MAGNITUDE = 9223372036854775808n;
const SAFE = Number.MAX_SAFE_INTEGER;

/** One half of a key: 0 and the largest unsigned 64-bit value. */
const HALF_ZERO = '\u0000\u0000\u0000\u0000';
const HALF_MAX = '\uffff\uffff\uffff\uffff';

export const MIN_KEY: IdKey = HALF_ZERO + HALF_ZERO;
export const MAX_KEY: IdKey = HALF_MAX + HALF_MAX;

/*
 * The units of a safe integer (below 2^53), exact with doubles: floor(value / 2^48),
 * floor(value / 2^32) % 2^16, floor(value / 2^16) % 2^16 and value % 2^16. Written out where
 * used: returning them as an array was an allocation per key.
 */
const P16 = 2 ** 16;
const P32 = 2 ** 32;
const P48 = 2 ** 48;

/** One half for a safe integer. */
function halfOf(value: number): string {
  return String.fromCharCode(
    Math.floor(value / P48),
    Math.floor(value / P32) % P16,
    Math.floor(value / P16) % P16,
    value % P16,
  );
}

/** One half for any unsigned 64-bit value. */
function halfOfBig(value: bigint): string {
  return String.fromCharCode(
    Number((value >> 48n) & 0xffffn),
    Number((value >> 32n) & 0xffffn),
    Number((value >> 16n) & 0xffffn),
    Number(value & 0xffffn),
  );
}

/** One half for 1 to 20 decimal digits (no sign) of a value below 2^64. */
function halfOfDigits(digits: string): string {
  return digits.length <= 15 ? halfOf(Number(digits)) : halfOfBig(BigInt(digits));
}

/** The key of `ms-seq` for safe integers (both below 2^53). */
export function keyOf(ms: number, seq: number): IdKey {
  return String.fromCharCode(
    Math.floor(ms / P48),
    Math.floor(ms / P32) % P16,
    Math.floor(ms / P16) % P16,
    ms % P16,
    Math.floor(seq / P48),
    Math.floor(seq / P32) % P16,
    Math.floor(seq / P16) % P16,
    seq % P16,
  );
}

/** The key of `ms-seq` for any unsigned 64-bit values. */
export function keyOfBig(ms: bigint, seq: bigint): IdKey {
  return halfOfBig(ms) + halfOfBig(seq);
}

/**
 * The `ms` half of a key as a number: exact up to 2^53; above it rounded, but never out of order
 * (multiplying by 2^16 is exact and rounding is monotonic) and never below 2^53.
 */
export function keyMs(key: IdKey): number {
  return ((key.charCodeAt(0) * P16 + key.charCodeAt(1)) * P16 + key.charCodeAt(2)) * P16 + key.charCodeAt(3);
}

/** The `seq` half of a key as a number, as keyMs. */
export function keySeq(key: IdKey): number {
  return ((key.charCodeAt(4) * P16 + key.charCodeAt(5)) * P16 + key.charCodeAt(6)) * P16 + key.charCodeAt(7);
}

/** The key's halves as BigInts. */
export function keyParts(key: IdKey): [bigint, bigint] {
  return [bigHalf(key, 0), bigHalf(key, 4)];
}

function bigHalf(key: IdKey, from: number): bigint {
  return (
    (BigInt(key.charCodeAt(from)) << 48n) |
    (BigInt(key.charCodeAt(from + 1)) << 32n) |
    (BigInt(key.charCodeAt(from + 2)) << 16n) |
    BigInt(key.charCodeAt(from + 3))
  );
}

const ZERO_PADS = ['', '0', '00', '000', '0000', '00000', '000000', '0000000'];

/**
 * A safe integer in decimal. V8 formats a small integer fast (and caches it), but a larger one,
 * such as a millisecond timestamp, as a double: about 3x the cost of two small halves.
 */
export function decimal(n: number): string {
  if (n <= 0x7fffffff) return `${n}`;
  let high = Math.floor(n / 1e8);
  let low = n - high * 1e8;
  // The division may round up to the next multiple (or, in principle, down).
  if (low < 0) {
    high--;
    low += 1e8;
  } else if (low >= 1e8) {
    high++;
    low -= 1e8;
  }
  const digits = `${low}`;
  return `${high}${ZERO_PADS[8 - digits.length]}${digits}`;
}

/** The id as Redis prints it, `ms-seq`. */
export function formatKey(key: IdKey): string {
  const ms = keyMs(key);
  const seq = keySeq(key);
  if (ms <= SAFE && seq <= SAFE) return `${decimal(ms)}-${decimal(seq)}`;
  const [bigMs, bigSeq] = keyParts(key);
  return `${bigMs}-${bigSeq}`;
}

/** The `ms` half, comparable with another key's. */
export function msHalf(key: IdKey): string {
  return key.slice(0, 4);
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
 * on overflow. Returns the value as a key half, or undefined.
 */
function parseU64(text: string): string | undefined {
  if (PLAIN.test(text)) {
    countPlainFallback(text);
    return halfOfDigits(text);
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
  return halfOfBig(value);
}

/** The halves of an id parsed from the plain `ms-seq` form, and its printed form if canonical. */
export interface PlainId {
  /** The argument itself when it is already the id as Redis prints it (`12-0`, not `012-0`). */
  readonly canonical: string | undefined;
  /** The halves as keyMs and keySeq read them from the key. */
  readonly ms: number;
  readonly seq: number;
}

/**
 * What parsing an id argument produced. `seqGiven` is false only for XADD's `ms-*`. A class, not
 * an object literal: XADD and XACK parse one per message, and one shape keeps that cheap.
 */
export class ParsedId {
  constructor(
    readonly key: IdKey,
    readonly seqGiven: boolean,
    /**
     * For the common `ms-seq` form: its halves and printed form, so appending needs no second
     * pass over the key.
     */
    readonly plain: PlainId | undefined = undefined,
  ) {}
}

/** A PlainId as parsePlainId makes it (a class for the same reason as ParsedId). */
class PlainHalves implements PlainId {
  constructor(
    readonly canonical: string | undefined,
    readonly ms: number,
    readonly seq: number,
  ) {}
}

/** The halves of the last key plainKey returned, as keyMs and keySeq read them. */
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
  const seqDigits = length - dash - 1;
  if (dash < 1 || dash > 19 || seqDigits > 19 || seqDigits === 0) return undefined;
  if (dash <= 15 && seqDigits <= 15) {
    // countPlainFallback without slicing: at 15 digits only a leading zero sends a half on.
    if (dash > 1 && arg.charCodeAt(0) === 48) strtoullRuns++;
    if (seqDigits > 1 && arg.charCodeAt(dash + 1) === 48) strtoullRuns++;
    // Up to 15 digits the digit-by-digit sums are exact.
    plainMs = msValue;
    plainSeq = seqValue;
    return keyOf(msValue, seqValue);
  }
  const ms = arg.slice(0, dash);
  const seq = arg.slice(dash + 1);
  countPlainFallback(ms);
  countPlainFallback(seq);
  const key = halfOfDigits(ms) + halfOfDigits(seq);
  plainMs = keyMs(key);
  plainSeq = keySeq(key);
  return key;
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
  return new ParsedId(plain, true, new PlainHalves(canonical, plainMs, plainSeq));
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
    return new ParsedId(text === '-' ? MIN_KEY : MAX_KEY, true);
  }
  const dash = text.indexOf('-');
  const ms = parseU64(dash < 0 ? text : text.slice(0, dash));
  if (ms === undefined) return undefined;
  if (dash < 0) return new ParsedId(ms + (options.missingSeqMax ? HALF_MAX : HALF_ZERO), true);
  const seqText = text.slice(dash + 1);
  if (options.seqStar && seqText === '*') return new ParsedId(ms + HALF_ZERO, false);
  const seq = parseU64(seqText);
  return seq === undefined ? undefined : new ParsedId(ms + seq, true);
}
