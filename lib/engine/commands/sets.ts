/**
 * Set commands: SADD, SREM, SMEMBERS, SISMEMBER, SCARD. A set left empty is deleted, as in Redis.
 */
import type { CommandContext, CommandSpec } from '../command.ts';
import { parseInt64 } from '../data/numbers.ts';

function readSet(ctx: CommandContext, argv: readonly string[]): Set<string> | undefined {
  return ctx.db.get(argv[1] ?? '', 'set');
}

/** Redis 7.0 keeps a set of at most 512 integers as a sorted intset, so SMEMBERS lists it in order. */
const INTSET_MAX_ENTRIES = 512;

function members(set: Set<string>): string[] {
  const all = [...set];
  if (all.length > INTSET_MAX_ENTRIES) return all;
  const numbers: bigint[] = [];
  for (const member of all) {
    const value = parseInt64(member);
    if (value === undefined) return all;
    numbers.push(value);
  }
  return numbers.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).map(String);
}

export const setsCommands: readonly CommandSpec[] = [
  {
    name: 'sadd',
    arity: -3,
    write: true,
    handler: (ctx, argv) => {
      const key = argv[1] ?? '';
      const set = ctx.db.getOrCreate(key, 'set', () => new Set());
      const before = set.size;
      for (const member of argv.slice(2)) set.add(member);
      if (set.size > before) ctx.db.touch(key);
      return set.size - before;
    },
  },
  {
    name: 'srem',
    arity: -3,
    write: true,
    handler: (ctx, argv) => {
      const key = argv[1] ?? '';
      const set = readSet(ctx, argv);
      if (set === undefined) return 0;
      let removed = 0;
      for (const member of argv.slice(2)) if (set.delete(member)) removed++;
      if (set.size === 0) ctx.db.delete(key);
      else if (removed > 0) ctx.db.touch(key);
      return removed;
    },
  },
  {
    name: 'smembers',
    arity: 2,
    write: false,
    handler: (ctx, argv) => {
      const set = readSet(ctx, argv);
      return set === undefined ? [] : members(set);
    },
  },
  {
    name: 'sismember',
    arity: 3,
    write: false,
    handler: (ctx, argv) => (readSet(ctx, argv)?.has(argv[2] ?? '') ? 1 : 0),
  },
  {
    name: 'scard',
    arity: 2,
    write: false,
    handler: (ctx, argv) => readSet(ctx, argv)?.size ?? 0,
  },
];
