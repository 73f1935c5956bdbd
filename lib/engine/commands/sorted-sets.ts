/**
 * Sorted-set commands: ZADD (NX, XX, GT, LT, CH, INCR), ZINCRBY, ZREM, ZCARD, ZSCORE, ZCOUNT,
 * ZRANGE (BYSCORE, BYLEX, REV, LIMIT, WITHSCORES), ZREVRANGE, ZRANGEBYSCORE, ZREVRANGEBYSCORE,
 * ZRANGEBYLEX, ZREVRANGEBYLEX, ZREMRANGEBYSCORE. Option parsing and error order follow
 * Redis 7.0's t_zset.c so that odd argument lists fail with the same text.
 */
import type { CommandContext, CommandSpec } from '../command.ts';
import { integerArg } from '../data/arguments.ts';
import { formatDouble, parseDouble, strtod } from '../data/numbers.ts';
import { type LexBound, type ScoreBound, type ScoredMember, SortedSet } from '../data/sorted-set.ts';
import { Errors, fail, type Reply } from '../reply.ts';

const NAN_SCORE = 'ERR resulting score is not a number (NaN)';
const BAD_SCORE_RANGE = 'ERR min or max is not a float';
const BAD_LEX_RANGE = 'ERR min or max not valid string range item';

function readZset(ctx: CommandContext, key: string): SortedSet | undefined {
  return ctx.db.get(key, 'zset');
}

/** ZADD and ZINCRBY (which is ZADD with INCR set, and parses ZADD's options too, as Redis does). */
function zadd(ctx: CommandContext, argv: readonly string[], incrCommand: boolean): Reply {
  const key = argv[1] ?? '';
  const flags = { nx: false, xx: false, gt: false, lt: false, ch: false, incr: incrCommand };
  let index = 2;
  for (; index < argv.length; index++) {
    const word = (argv[index] ?? '').toLowerCase();
    if (
      word === 'nx' ||
      word === 'xx' ||
      word === 'gt' ||
      word === 'lt' ||
      word === 'ch' ||
      word === 'incr'
    ) {
      flags[word] = true;
    } else {
      break;
    }
  }
  const rest = argv.length - index;
  if (rest === 0 || rest % 2 !== 0) fail(Errors.syntax);
  if (flags.nx && flags.xx) fail('ERR XX and NX options at the same time are not compatible');
  if ((flags.gt && flags.nx) || (flags.lt && flags.nx) || (flags.gt && flags.lt)) {
    fail('ERR GT, LT, and/or NX options at the same time are not compatible');
  }
  if (flags.incr && rest > 2) fail('ERR INCR option supports a single increment-element pair');
  // Every score is checked before anything changes: the command runs fully or not at all.
  const pairs: { score: number; member: string }[] = [];
  for (let i = index; i < argv.length; i += 2) {
    const score = parseDouble(argv[i] ?? '');
    if (score === undefined) fail(Errors.notFloat);
    pairs.push({ score, member: argv[i + 1] ?? '' });
  }
  let zset = readZset(ctx, key);
  if (zset === undefined) {
    if (flags.xx) return flags.incr ? null : 0;
    zset = new SortedSet();
    ctx.db.set(key, 'zset', zset);
  }
  let added = 0;
  let updated = 0;
  let result: number | undefined;
  for (const { score: given, member } of pairs) {
    const current = zset.score(member);
    if (current === undefined) {
      if (flags.xx) continue;
      zset.place(member, given, undefined);
      added++;
      result = given;
      continue;
    }
    if (flags.nx) continue;
    const score = flags.incr ? current + given : given;
    if (Number.isNaN(score)) fail(NAN_SCORE);
    if ((flags.lt && score >= current) || (flags.gt && score <= current)) continue;
    result = score;
    if (score !== current) {
      zset.place(member, score, current);
      updated++;
    }
  }
  if (added + updated > 0) ctx.db.touch(key);
  if (flags.incr) return result === undefined ? null : formatDouble(result);
  return flags.ch ? added + updated : added;
}

/** A ZRANGEBYSCORE bound: `(` makes it exclusive; the number is read with strtod's leniency. */
function parseScoreBound(text: string): ScoreBound {
  const exclusive = text.startsWith('(');
  const body = exclusive ? text.slice(1) : text;
  const { value, end } = strtod(body);
  if (end !== body.length || Number.isNaN(value)) fail(BAD_SCORE_RANGE);
  return { value, exclusive };
}

function parseLexBound(text: string): LexBound {
  if (text === '+') return { kind: 'max' };
  if (text === '-') return { kind: 'min' };
  if (text.startsWith('(')) return { kind: 'value', value: text.slice(1), exclusive: true };
  if (text.startsWith('[')) return { kind: 'value', value: text.slice(1), exclusive: false };
  fail(BAD_LEX_RANGE);
}

type RangeType = 'rank' | 'score' | 'lex';

interface RangeVariant {
  /** Fixed by the command name (ZRANGEBYSCORE...); undefined lets ZRANGE's BYSCORE/BYLEX choose. */
  readonly type: RangeType | undefined;
  readonly reverse: boolean | undefined;
}

/** Redis' zrangeGenericCommand: the shared parser and walker of every ZRANGE-like read. */
function zrange(ctx: CommandContext, argv: readonly string[], variant: RangeVariant): Reply {
  let type = variant.type;
  let reverse = variant.reverse;
  let withScores = false;
  let offset = 0;
  let limit = -1;
  for (let i = 4; i < argv.length; i++) {
    const word = (argv[i] ?? '').toLowerCase();
    if (word === 'withscores') {
      withScores = true;
    } else if (word === 'limit' && argv.length - i - 1 >= 2) {
      offset = integerArg(argv[i + 1]);
      limit = integerArg(argv[i + 2]);
      i += 2;
    } else if (reverse === undefined && word === 'rev') {
      reverse = true;
    } else if (type === undefined && word === 'bylex') {
      type = 'lex';
    } else if (type === undefined && word === 'byscore') {
      type = 'score';
    } else {
      fail(Errors.syntax);
    }
  }
  const rangeType = type ?? 'rank';
  const backwards = reverse ?? false;
  if (limit !== -1 && rangeType === 'rank') {
    fail('ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX');
  }
  if (withScores && rangeType === 'lex') {
    fail('ERR syntax error, WITHSCORES not supported in combination with BYLEX');
  }
  // Reversed score and lex ranges are written max first.
  const [lowText, highText] =
    backwards && rangeType !== 'rank' ? [argv[3] ?? '', argv[2] ?? ''] : [argv[2] ?? '', argv[3] ?? ''];
  let walk: (zset: SortedSet) => Iterable<ScoredMember>;
  if (rangeType === 'rank') {
    const start = integerArg(lowText);
    const end = integerArg(highText);
    walk = (zset) => rankRange(zset, start, end, backwards);
  } else if (rangeType === 'score') {
    const min = parseScoreBound(lowText);
    const max = parseScoreBound(highText);
    walk = (zset) => limited(zset, zset.byScore(min, max, backwards), offset, limit);
  } else {
    const min = parseLexBound(lowText);
    const max = parseLexBound(highText);
    walk = (zset) => limited(zset, zset.byLex(min, max, backwards), offset, limit);
  }
  const zset = readZset(ctx, argv[1] ?? '');
  if (zset === undefined) return [];
  const reply: Reply[] = [];
  for (const { member, score } of walk(zset)) {
    reply.push(member);
    if (withScores) reply.push(formatDouble(score));
  }
  return reply;
}

function rankRange(zset: SortedSet, start: number, end: number, reverse: boolean): Iterable<ScoredMember> {
  const length = zset.size;
  if (start < 0) start += length;
  if (end < 0) end += length;
  if (start < 0) start = 0;
  if (start > end || start >= length) return [];
  return zset.byRank(start, Math.min(end, length - 1), reverse);
}

/**
 * LIMIT as Redis applies it: an offset past the set's size answers nothing, a negative offset
 * skips everything, and a negative count means no limit.
 */
function* limited(
  zset: SortedSet,
  members: Iterable<ScoredMember>,
  offset: number,
  limit: number,
): Iterable<ScoredMember> {
  if (offset < 0 || (offset > 0 && offset >= zset.size) || limit === 0) return;
  let skipped = 0;
  let emitted = 0;
  for (const item of members) {
    if (skipped < offset) {
      skipped++;
      continue;
    }
    yield item;
    emitted++;
    if (limit > 0 && emitted >= limit) return;
  }
}

function rangeCommand(name: string, arity: number, variant: RangeVariant): CommandSpec {
  return { name, arity, write: false, handler: (ctx, argv) => zrange(ctx, argv, variant) };
}

export const sortedSetsCommands: readonly CommandSpec[] = [
  { name: 'zadd', arity: -4, write: true, handler: (ctx, argv) => zadd(ctx, argv, false) },
  { name: 'zincrby', arity: 4, write: true, handler: (ctx, argv) => zadd(ctx, argv, true) },
  {
    name: 'zrem',
    arity: -3,
    write: true,
    handler: (ctx, argv) => {
      const key = argv[1] ?? '';
      const zset = readZset(ctx, key);
      if (zset === undefined) return 0;
      let removed = 0;
      for (const member of argv.slice(2)) if (zset.delete(member)) removed++;
      if (zset.size === 0) ctx.db.delete(key);
      else if (removed > 0) ctx.db.touch(key);
      return removed;
    },
  },
  {
    name: 'zcard',
    arity: 2,
    write: false,
    handler: (ctx, argv) => readZset(ctx, argv[1] ?? '')?.size ?? 0,
  },
  {
    name: 'zscore',
    arity: 3,
    write: false,
    handler: (ctx, argv) => {
      const score = readZset(ctx, argv[1] ?? '')?.score(argv[2] ?? '');
      return score === undefined ? null : formatDouble(score);
    },
  },
  {
    name: 'zcount',
    arity: 4,
    write: false,
    handler: (ctx, argv) => {
      const min = parseScoreBound(argv[2] ?? '');
      const max = parseScoreBound(argv[3] ?? '');
      return readZset(ctx, argv[1] ?? '')?.countByScore(min, max) ?? 0;
    },
  },
  rangeCommand('zrange', -4, { type: undefined, reverse: undefined }),
  rangeCommand('zrevrange', -4, { type: 'rank', reverse: true }),
  rangeCommand('zrangebyscore', -4, { type: 'score', reverse: false }),
  rangeCommand('zrevrangebyscore', -4, { type: 'score', reverse: true }),
  rangeCommand('zrangebylex', -4, { type: 'lex', reverse: false }),
  rangeCommand('zrevrangebylex', -4, { type: 'lex', reverse: true }),
  {
    name: 'zremrangebyscore',
    arity: 4,
    write: true,
    handler: (ctx, argv) => {
      const key = argv[1] ?? '';
      const min = parseScoreBound(argv[2] ?? '');
      const max = parseScoreBound(argv[3] ?? '');
      const zset = readZset(ctx, key);
      if (zset === undefined) return 0;
      const removed = zset.deleteByScore(min, max);
      if (zset.size === 0) ctx.db.delete(key);
      else if (removed > 0) ctx.db.touch(key);
      return removed;
    },
  },
];
