/**
 * The sorted-set value: members ordered by (score, member in byte order), kept in a B+ tree so
 * ZADD and ZREM cost O(log N) and a score range costs O(log N + M), plus a member → score map
 * for ZSCORE. The queue's delayed jobs live in one of these, so backlogs can be large.
 */
import { BTree } from './btree.ts';
import { compareBytes } from './byte-order.ts';

/**
 * A tree key. `edge` makes a probe that sorts below (-1) or above (+1) every member with the
 * same score, so exclusive and inclusive score bounds are single seeks.
 */
interface Key {
  readonly score: number;
  readonly member: string;
  readonly edge?: -1 | 1;
}

function compareKeys(a: Key, b: Key): number {
  if (a.score < b.score) return -1;
  if (a.score > b.score) return 1;
  const edge = (a.edge ?? 0) - (b.edge ?? 0);
  if (edge !== 0 || a.edge !== undefined) return edge;
  return compareBytes(a.member, b.member);
}

/** One end of a score interval, as ZRANGEBYSCORE's `min`/`max` (`(` makes it exclusive). */
export interface ScoreBound {
  readonly value: number;
  readonly exclusive: boolean;
}

/** One end of a lex interval: `-`/`+` are the open ends, otherwise `[` or `(` and a string. */
export type LexBound = { readonly kind: 'min' } | { readonly kind: 'max' } | LexValue;
interface LexValue {
  readonly kind: 'value';
  readonly value: string;
  readonly exclusive: boolean;
}

export interface ScoredMember {
  readonly member: string;
  readonly score: number;
}

/** Redis 7.0's defaults for its compact (listpack) encoding: zset-max-listpack-entries/-value. */
const COMPACT_MAX_ENTRIES = 128;
const COMPACT_MAX_VALUE_BYTES = 64;
const utf8 = new TextEncoder();

export class SortedSet {
  private readonly tree = new BTree<Key, undefined>(undefined, compareKeys);
  private readonly scores = new Map<string, number>();
  /**
   * Whether Redis would still hold this set in its compact encoding. It matters for one visible
   * detail: the compact form stores a score of -0 as 0, the skiplist keeps -0. Like Redis, a set
   * never goes back to compact once converted.
   */
  private compact = true;

  get size(): number {
    return this.scores.size;
  }

  score(member: string): number | undefined {
    return this.scores.get(member);
  }

  /** Adds or moves `member`; true when it was new. */
  set(member: string, score: number): boolean {
    return this.place(member, score, this.scores.get(member));
  }

  /** `set` for a member whose score the caller just read (`current`; undefined: not a member). */
  place(member: string, score: number, current: number | undefined): boolean {
    if (current === undefined && this.compact) {
      const tooLong =
        member.length > COMPACT_MAX_VALUE_BYTES / 3 && utf8.encode(member).length > COMPACT_MAX_VALUE_BYTES;
      if (this.scores.size + 1 > COMPACT_MAX_ENTRIES || tooLong) this.compact = false;
    }
    const normalized = this.compact && score === 0 ? 0 : score;
    if (current !== undefined) {
      if (current === normalized) return false;
      this.tree.delete({ score: current, member });
    }
    this.tree.set({ score: normalized, member }, undefined);
    this.scores.set(member, normalized);
    return current === undefined;
  }

  delete(member: string): boolean {
    const current = this.scores.get(member);
    if (current === undefined) return false;
    this.tree.delete({ score: current, member });
    this.scores.delete(member);
    return true;
  }

  /** Members by rank, lowest score first (or highest first when `reverse`), `start..end` inclusive. */
  *byRank(start: number, end: number, reverse: boolean): IterableIterator<ScoredMember> {
    const keys = reverse ? this.tree.entriesReversed() : this.tree.entries();
    let index = 0;
    for (const [key] of keys) {
      if (index > end) return;
      if (index >= start) yield { member: key.member, score: key.score };
      index++;
    }
  }

  /** Members whose score lies within [min, max], ascending, or descending from max when `reverse`. */
  *byScore(min: ScoreBound, max: ScoreBound, reverse: boolean): IterableIterator<ScoredMember> {
    if (!reverse) {
      const from: Key = { score: min.value, member: '', edge: min.exclusive ? 1 : -1 };
      for (const [key] of this.tree.entries(from)) {
        if (!belowMax(key.score, max)) return;
        yield { member: key.member, score: key.score };
      }
    } else {
      const from: Key = { score: max.value, member: '', edge: max.exclusive ? -1 : 1 };
      for (const [key] of this.tree.entriesReversed(from)) {
        if (!aboveMin(key.score, min)) return;
        yield { member: key.member, score: key.score };
      }
    }
  }

  /** How many members have a score within [min, max]. */
  countByScore(min: ScoreBound, max: ScoreBound): number {
    let count = 0;
    for (const _ of this.byScore(min, max, false)) count++;
    return count;
  }

  /**
   * Members within a lex interval, for sets whose members all share one score (what BYLEX is
   * for). With mixed scores Redis' answer depends on its encoding; this follows the compact
   * encoding: scan in set order from the first member >= min, stop at the first one > max.
   */
  *byLex(min: LexBound, max: LexBound, reverse: boolean): IterableIterator<ScoredMember> {
    if (this.size === 0 || lexEmpty(min, max)) return;
    const first = this.tree.minKey();
    const last = this.tree.maxKey();
    if (first === undefined || last === undefined) return;
    // Redis first checks the range against the set's two ends, before any scan.
    if (!lexAboveMin(last.member, min) || !lexBelowMax(first.member, max)) return;
    const uniform = first.score === last.score;
    if (!reverse) {
      let started = false;
      const from: Key | undefined =
        uniform && min.kind === 'value' ? { score: first.score, member: min.value } : undefined;
      for (const [key] of from === undefined ? this.tree.entries() : this.tree.entries(from)) {
        if (!started) {
          if (!lexAboveMin(key.member, min)) continue;
          started = true;
        }
        if (!lexBelowMax(key.member, max)) return;
        yield { member: key.member, score: key.score };
      }
    } else {
      let started = false;
      const from: Key | undefined =
        uniform && max.kind === 'value' ? { score: last.score, member: max.value } : undefined;
      for (const [key] of from === undefined
        ? this.tree.entriesReversed()
        : this.tree.entriesReversed(from)) {
        if (!started) {
          if (!lexBelowMax(key.member, max)) continue;
          started = true;
        }
        if (!lexAboveMin(key.member, min)) return;
        yield { member: key.member, score: key.score };
      }
    }
  }

  /** Removes every member with a score in [min, max]; returns how many went. */
  deleteByScore(min: ScoreBound, max: ScoreBound): number {
    const doomed = [...this.byScore(min, max, false)];
    for (const { member, score } of doomed) {
      this.tree.delete({ score, member });
      this.scores.delete(member);
    }
    return doomed.length;
  }

  /** Every member in order (for tests and debugging). */
  *entries(): IterableIterator<ScoredMember> {
    for (const [key] of this.tree.entries()) yield { member: key.member, score: key.score };
  }
}

function belowMax(score: number, max: ScoreBound): boolean {
  return max.exclusive ? score < max.value : score <= max.value;
}

function aboveMin(score: number, min: ScoreBound): boolean {
  return min.exclusive ? score > min.value : score >= min.value;
}

function lexAboveMin(member: string, min: LexBound): boolean {
  if (min.kind === 'min') return true;
  if (min.kind === 'max') return false;
  const cmp = compareBytes(member, min.value);
  return min.exclusive ? cmp > 0 : cmp >= 0;
}

function lexBelowMax(member: string, max: LexBound): boolean {
  if (max.kind === 'max') return true;
  if (max.kind === 'min') return false;
  const cmp = compareBytes(member, max.value);
  return max.exclusive ? cmp < 0 : cmp <= 0;
}

/** Redis answers an empty range at once when min > max (or they meet with an exclusive end). */
function lexEmpty(min: LexBound, max: LexBound): boolean {
  if (min.kind === 'max' || max.kind === 'min') return true;
  if (min.kind === 'min' || max.kind === 'max') return false;
  const cmp = compareBytes(min.value, max.value);
  return cmp > 0 || (cmp === 0 && (min.exclusive || max.exclusive));
}
