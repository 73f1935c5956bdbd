/**
 * The values a command answers with, shaped like RESP2 so every front (REST, Lua, tests) can render
 * them exactly: bulk strings are JS strings, integers are numbers, nil (bulk or array) is null,
 * status replies and errors are their own classes so nobody confuses "OK" with a bulk "OK".
 */

/** A RESP simple-string (status) reply such as `+OK`. */
export class StatusReply {
  constructor(readonly status: string) {}
}

/**
 * A Redis error reply. Command handlers throw it; the engine turns it into a reply value, so it
 * also appears inside arrays (EXEC results, pipelines, Lua `pcall`). `message` is the full text
 * including the prefix, e.g. `ERR syntax error` or `WRONGTYPE Operation against ...`.
 */
export class RedisError extends Error {
  override name = 'RedisError';
}

export type Reply = string | number | null | StatusReply | RedisError | Reply[];

export const OK = new StatusReply('OK');
export const QUEUED = new StatusReply('QUEUED');

/** Exact error texts shared by many commands (Redis 7.0). */
export const Errors = {
  wrongType: 'WRONGTYPE Operation against a key holding the wrong kind of value',
  syntax: 'ERR syntax error',
  notInteger: 'ERR value is not an integer or out of range',
  notFloat: 'ERR value is not a valid float',
  arity: (name: string) => `ERR wrong number of arguments for '${name.toLowerCase()}' command`,
  unknownCommand,
} as const;

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

/** The first `bytes` bytes of `text`'s UTF-8 form, as C's `%.*s` prints them. */
function clip(text: string, bytes: number): string {
  const encoded = utf8.encode(text);
  return encoded.length <= bytes ? text : fromUtf8.decode(encoded.subarray(0, bytes));
}

/**
 * Redis quotes at most 128 bytes of the name, and arguments only until 128 bytes of quoted text
 * (quotes and spaces included) are written, cutting the last one to fit; CR and LF become spaces
 * so the error stays one protocol line.
 */
function unknownCommand(name: string, args: readonly string[]): string {
  let quoted = '';
  let quotedBytes = 0;
  for (const arg of args) {
    if (quotedBytes >= 128) break;
    const piece = `'${clip(arg, 128 - quotedBytes)}' `;
    quoted += piece;
    quotedBytes += utf8.encode(piece).length;
  }
  const text = `ERR unknown command '${clip(name, 128)}', with args beginning with: ${quoted}`;
  return text.replace(/[\r\n]/g, ' ');
}

/** Throws a RedisError with the given text. */
export function fail(message: string): never {
  throw new RedisError(message);
}
