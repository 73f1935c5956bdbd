/**
 * String commands: GET, SET (with every option), SETNX, GETDEL, MGET and the INCR family.
 * Counters are 64-bit like Redis, so arithmetic runs on BigInt and overflow is reported exactly.
 */
import type { CommandContext, CommandSpec } from '../command.ts';
import { int64Arg } from '../data/arguments.ts';
import { INT64_MAX, INT64_MIN, parseInt64 } from '../data/numbers.ts';
import { Errors, fail, OK, type Reply } from '../reply.ts';

interface SetOptions {
  nx: boolean;
  xx: boolean;
  get: boolean;
  keepTtl: boolean;
  expire: { kind: 'ex' | 'px' | 'exat' | 'pxat'; value: string } | undefined;
}

/**
 * SET's options as Redis parses them: a flag that conflicts with one already seen is a syntax
 * error (so `NX XX` and `EX 1 PX 1` fail), while repeating the same flag is accepted.
 */
function parseSetOptions(argv: readonly string[]): SetOptions {
  const options: SetOptions = { nx: false, xx: false, get: false, keepTtl: false, expire: undefined };
  for (let i = 3; i < argv.length; i++) {
    const word = (argv[i] ?? '').toLowerCase();
    const next = argv[i + 1];
    const expireKind = options.expire?.kind;
    if (word === 'nx' && !options.xx) options.nx = true;
    else if (word === 'xx' && !options.nx) options.xx = true;
    else if (word === 'get') options.get = true;
    else if (word === 'keepttl' && expireKind === undefined) options.keepTtl = true;
    else if (
      (word === 'ex' || word === 'px' || word === 'exat' || word === 'pxat') &&
      !options.keepTtl &&
      (expireKind === undefined || expireKind === word) &&
      next !== undefined
    ) {
      options.expire = { kind: word, value: next };
      i++;
    } else {
      fail(Errors.syntax);
    }
  }
  return options;
}

/** The absolute expiry time SET's EX/PX/EXAT/PXAT asks for, checked like Redis does. */
function expireTime(now: number, expire: NonNullable<SetOptions['expire']>): number {
  const invalid = "ERR invalid expire time in 'set' command";
  let when = int64Arg(expire.value);
  const seconds = expire.kind === 'ex' || expire.kind === 'exat';
  if (when <= 0n || (seconds && when > INT64_MAX / 1000n)) fail(invalid);
  if (seconds) when *= 1000n;
  if (expire.kind === 'ex' || expire.kind === 'px') when += BigInt(now);
  // Redis adds in signed 64 bits; a sum past the maximum wraps negative and is refused.
  if (when > INT64_MAX) fail(invalid);
  return Number(when);
}

function set(ctx: CommandContext, argv: readonly string[]): Reply {
  const key = argv[1] ?? '';
  const value = argv[2] ?? '';
  const options = parseSetOptions(argv);
  const expiresAt = options.expire === undefined ? undefined : expireTime(ctx.now, options.expire);
  const entry = ctx.db.entry(key);
  let previous: string | null = null;
  if (options.get && entry !== undefined) {
    if (entry.type !== 'string') fail(Errors.wrongType);
    previous = entry.value;
  }
  if ((options.nx && entry !== undefined) || (options.xx && entry === undefined)) {
    return options.get ? previous : null;
  }
  const keep = options.keepTtl ? entry?.expiresAt : undefined;
  ctx.db.set(key, 'string', value, expiresAt ?? keep);
  return options.get ? previous : OK;
}

/** INCR/DECR/INCRBY/DECRBY: the stored value must be a strict 64-bit integer; the TTL is kept. */
function incrementBy(ctx: CommandContext, key: string, increment: bigint): number {
  const entry = ctx.db.entry(key);
  let current = 0n;
  if (entry !== undefined) {
    if (entry.type !== 'string') fail(Errors.wrongType);
    const parsed = parseInt64(entry.value);
    if (parsed === undefined) fail(Errors.notInteger);
    current = parsed;
  }
  const result = current + increment;
  if (result > INT64_MAX || result < INT64_MIN) fail('ERR increment or decrement would overflow');
  ctx.db.set(key, 'string', result.toString(), entry?.expiresAt);
  // The stored text is exact; the reply is a JS number, which rounds past 2^53 (a Reply limit).
  return Number(result);
}

export const stringsCommands: readonly CommandSpec[] = [
  {
    name: 'get',
    arity: 2,
    write: false,
    handler: (ctx, argv) => ctx.db.get(argv[1] ?? '', 'string') ?? null,
  },
  { name: 'set', arity: -3, write: true, handler: set },
  {
    name: 'setnx',
    arity: 3,
    write: true,
    handler: (ctx, argv) => {
      const key = argv[1] ?? '';
      if (ctx.db.entry(key) !== undefined) return 0;
      ctx.db.set(key, 'string', argv[2] ?? '');
      return 1;
    },
  },
  {
    name: 'getdel',
    arity: 2,
    write: true,
    handler: (ctx, argv) => {
      const key = argv[1] ?? '';
      const value = ctx.db.get(key, 'string');
      if (value === undefined) return null;
      ctx.db.delete(key);
      return value;
    },
  },
  {
    name: 'mget',
    arity: -2,
    write: false,
    handler: (ctx, argv) =>
      argv.slice(1).map((key) => {
        // MGET answers nil for a key of another type instead of WRONGTYPE.
        const entry = ctx.db.entry(key);
        return entry?.type === 'string' ? entry.value : null;
      }),
  },
  { name: 'incr', arity: 2, write: true, handler: (ctx, argv) => incrementBy(ctx, argv[1] ?? '', 1n) },
  { name: 'decr', arity: 2, write: true, handler: (ctx, argv) => incrementBy(ctx, argv[1] ?? '', -1n) },
  {
    name: 'incrby',
    arity: 3,
    write: true,
    handler: (ctx, argv) => incrementBy(ctx, argv[1] ?? '', int64Arg(argv[2])),
  },
  {
    name: 'decrby',
    arity: 3,
    write: true,
    handler: (ctx, argv) => {
      const decrement = int64Arg(argv[2]);
      if (decrement === INT64_MIN) fail('ERR decrement would overflow');
      return incrementBy(ctx, argv[1] ?? '', -decrement);
    },
  },
];
