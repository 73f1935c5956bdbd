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
  unknownCommand: (name: string, args: readonly string[]) =>
    `ERR unknown command '${name}', with args beginning with: ${args.map((a) => `'${a}' `).join('')}`,
} as const;

/** Throws a RedisError with the given text. */
export function fail(message: string): never {
  throw new RedisError(message);
}

export function isError(reply: Reply): reply is RedisError {
  return reply instanceof RedisError;
}
