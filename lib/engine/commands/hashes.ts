/**
 * Hash commands: HSET/HMSET, HSETNX, HGET, HMGET, HGETALL, HDEL, HLEN, HEXISTS, HINCRBY, HKEYS,
 * HVALS. A Map keeps fields in insertion order, which is the order Redis' compact encoding
 * answers small hashes in. A hash left empty is deleted, as in Redis.
 */
import type { CommandContext, CommandSpec } from '../command.ts';
import { int64Arg } from '../data/arguments.ts';
import { INT64_MAX, INT64_MIN, parseInt64 } from '../data/numbers.ts';
import { Errors, fail, OK, type Reply } from '../reply.ts';

function writableHash(ctx: CommandContext, key: string): Map<string, string> {
  const hash = ctx.db.getOrCreate(key, 'hash', () => new Map());
  ctx.db.touch(key);
  return hash;
}

function readHash(ctx: CommandContext, argv: readonly string[]): Map<string, string> | undefined {
  return ctx.db.get(argv[1] ?? '', 'hash');
}

function hset(name: string, reply: (added: number) => Reply): CommandSpec {
  return {
    name,
    arity: -4,
    write: true,
    handler: (ctx, argv) => {
      if (argv.length % 2 !== 0) fail(Errors.arity(name));
      const hash = writableHash(ctx, argv[1] ?? '');
      let added = 0;
      // The size tells a new field from a replaced one: one lookup per field instead of two.
      for (let i = 2; i < argv.length; i += 2) {
        const size = hash.size;
        hash.set(argv[i] ?? '', argv[i + 1] ?? '');
        added += hash.size - size;
      }
      return reply(added);
    },
  };
}

export const hashesCommands: readonly CommandSpec[] = [
  hset('hset', (added) => added),
  hset('hmset', () => OK),
  {
    name: 'hsetnx',
    arity: 4,
    write: true,
    handler: (ctx, argv) => {
      const key = argv[1] ?? '';
      const field = argv[2] ?? '';
      if (readHash(ctx, argv)?.has(field)) return 0;
      writableHash(ctx, key).set(field, argv[3] ?? '');
      return 1;
    },
  },
  {
    name: 'hget',
    arity: 3,
    write: false,
    handler: (ctx, argv) => readHash(ctx, argv)?.get(argv[2] ?? '') ?? null,
  },
  {
    name: 'hmget',
    arity: -3,
    write: false,
    handler: (ctx, argv) => {
      const hash = readHash(ctx, argv);
      return argv.slice(2).map((field) => hash?.get(field) ?? null);
    },
  },
  {
    name: 'hgetall',
    arity: 2,
    write: false,
    handler: (ctx, argv) => [...(readHash(ctx, argv) ?? [])].flat(),
  },
  {
    name: 'hkeys',
    arity: 2,
    write: false,
    handler: (ctx, argv) => [...(readHash(ctx, argv)?.keys() ?? [])],
  },
  {
    name: 'hvals',
    arity: 2,
    write: false,
    handler: (ctx, argv) => [...(readHash(ctx, argv)?.values() ?? [])],
  },
  {
    name: 'hdel',
    arity: -3,
    write: true,
    handler: (ctx, argv) => {
      const key = argv[1] ?? '';
      const hash = readHash(ctx, argv);
      if (hash === undefined) return 0;
      let removed = 0;
      for (const field of argv.slice(2)) if (hash.delete(field)) removed++;
      if (hash.size === 0) ctx.db.delete(key);
      else if (removed > 0) ctx.db.touch(key);
      return removed;
    },
  },
  {
    name: 'hlen',
    arity: 2,
    write: false,
    handler: (ctx, argv) => readHash(ctx, argv)?.size ?? 0,
  },
  {
    name: 'hexists',
    arity: 3,
    write: false,
    handler: (ctx, argv) => (readHash(ctx, argv)?.has(argv[2] ?? '') ? 1 : 0),
  },
  {
    name: 'hincrby',
    arity: 4,
    write: true,
    handler: (ctx, argv) => {
      const increment = int64Arg(argv[3]);
      const field = argv[2] ?? '';
      const hash = writableHash(ctx, argv[1] ?? '');
      const stored = hash.get(field);
      const current = stored === undefined ? 0n : parseInt64(stored);
      if (current === undefined) fail('ERR hash value is not an integer');
      const result = current + increment;
      if (result > INT64_MAX || result < INT64_MIN) fail('ERR increment or decrement would overflow');
      hash.set(field, result.toString());
      // The stored text is exact; the reply is a JS number, which rounds past 2^53 (a Reply limit).
      return Number(result);
    },
  },
];
