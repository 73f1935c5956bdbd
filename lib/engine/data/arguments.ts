/**
 * Reading command arguments the way Redis' getLongLongFromObjectOrReply and friends do, throwing
 * the exact error replies.
 */
import { Errors, fail } from '../reply.ts';
import { parseInt64 } from './numbers.ts';

/** A 64-bit integer argument, or `ERR value is not an integer or out of range`. */
export function int64Arg(text: string | undefined): bigint {
  const value = parseInt64(text ?? '');
  if (value === undefined) fail(Errors.notInteger);
  return value;
}

/**
 * A 64-bit integer argument as a JS number. Only for values compared with sizes and indexes,
 * where values past 2^53 behave the same after rounding.
 */
export function integerArg(text: string | undefined): number {
  return Number(int64Arg(text));
}

/** Case-insensitive keyword test. */
export function isWord(arg: string | undefined, word: string): boolean {
  return arg !== undefined && arg.toLowerCase() === word;
}
