/**
 * What makes a queue partitioned, apart from its keys (lib/queue/keys.ts): the message ids that
 * carry their partition, the range bounds that stay exact over several partitions, and where a
 * message goes. Each partition is its own Redis stream with its own ids, so an id alone is only
 * unique within its partition; the queue answers `<ms>-<seq>` for partition 0 (the plain Redis id,
 * as before partitions existed) and `<ms>-<seq>-<p>` for partition p, and takes those back.
 * Ordered over all partitions, ids sort by (ms, seq, partition).
 */
import { U64_MAX } from '../rules.ts';

/** A message id split into the Redis id in its partition and the partition. */
export interface PartitionedId {
  /** The id (or delayed token) inside the partition, as Redis knows it. */
  raw: string;
  partition: number;
}

/**
 * @example encodeId('1700000000000-0', 0) // '1700000000000-0'
 * @example encodeId('1700000000000-0', 3) // '1700000000000-0-3'
 */
export function encodeId(raw: string, partition: number): string {
  return partition === 0 ? raw : `${raw}-${partition}`;
}

/** The inverse of encodeId for an id the rules accepted (STREAM_ID_RULE). */
export function decodeId(id: string): PartitionedId {
  // Exactly two dashes: `<ms>-<seq>-<p>` (found by position: a split made an array per id, and an
  // ack decodes every id it names).
  const first = id.indexOf('-');
  const second = first < 0 ? -1 : id.indexOf('-', first + 1);
  if (second >= 0 && id.indexOf('-', second + 1) < 0) {
    return { raw: id.slice(0, second), partition: Number(id.slice(second + 1)) };
  }
  return { raw: id, partition: 0 };
}

/** Groups ids by partition, keeping each partition's ids in input order. */
export function byPartition(ids: readonly string[]): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const id of ids) {
    const { raw, partition } = decodeId(id);
    const list = out.get(partition);
    if (list === undefined) out.set(partition, [raw]);
    else list.push(raw);
  }
  return out;
}

function compareDecimal(a: string, b: string): number {
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Orders encoded ids by (ms, seq, partition): the order of a merged read over every partition. */
export function compareIds(a: string, b: string): number {
  const [am = '0', as = '0', ap = '0'] = a.split('-');
  const [bm = '0', bs = '0', bp = '0'] = b.split('-');
  return compareDecimal(am, bm) || compareDecimal(as, bs) || Number(ap) - Number(bp);
}

/**
 * The XRANGE/XPENDING bound for partition `q` that keeps a merged read exact. A bound naming a
 * position (ms, seq, p) includes or excludes the same id in other partitions by where they sort:
 * an inclusive start at (ms, seq, 2) takes `ms-seq` itself in partitions 2 and later and starts
 * after it in partitions 0 and 1. `-`, `+` and bare millisecond times mean the same everywhere.
 */
export function partitionBound(bound: string, side: 'start' | 'end', q: number): string {
  const exclusive = bound.startsWith('(');
  const body = exclusive ? bound.slice(1) : bound;
  if (body === '-' || body === '+' || !body.includes('-')) return bound;
  const { raw, partition: p } = decodeId(body);
  // Whether ids equal to `raw` in partition q are inside the range.
  const inside = side === 'start' ? (exclusive ? q > p : q >= p) : exclusive ? q < p : q <= p;
  return inside ? raw : `(${raw}`;
}

/** The largest id before `raw`, or undefined for 0-0 (a group start "after" it means everything). */
export function predecessor(raw: string): string | undefined {
  const [ms = '0', seq = '0'] = raw.split('-');
  if (seq !== '0') return `${ms}-${(BigInt(seq) - 1n).toString()}`;
  if (ms === '0') return undefined;
  return `${(BigInt(ms) - 1n).toString()}-${U64_MAX}`;
}

/**
 * The group start for partition q when a group starts after the message id `start` (a position
 * in the merged order): after `raw` in its own partition and those before it, and at `raw` itself
 * (after its predecessor) in later ones. `0` and `$` mean the same in every partition.
 */
export function partitionStart(start: string, q: number): string {
  if (start === '0' || start === '$') return start;
  const { raw, partition: p } = decodeId(start);
  if (q <= p) return raw;
  return predecessor(raw) ?? '0';
}

const MASK64 = (1n << 64n) - 1n;

/** FNV-1a, 64 bits, of the key's UTF-8 bytes: stable across runtimes and releases. */
function hash64(key: string): bigint {
  let hash = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(key)) {
    hash ^= BigInt(byte);
    hash = (hash * 0x100000001b3n) & MASK64;
  }
  return hash;
}

/**
 * The partition of a partitionKey among `count`: Lamping and Veach's jump consistent hash, so that
 * growing from n to m partitions moves only the keys that now belong to the new partitions (a
 * fraction (m − n) / m of them) and every other key stays where it was.
 * @example partitionOf('customer-42', 8) // the same number on every call, runtime and release
 */
export function partitionOf(key: string, count: number): number {
  if (count <= 1) return 0;
  let k = hash64(key);
  let b = -1;
  let j = 0;
  while (j < count) {
    b = j;
    k = (k * 2862933555777941757n + 1n) & MASK64;
    j = Math.floor((b + 1) * (2 ** 31 / Number((k >> 33n) + 1n)));
  }
  return b;
}

/**
 * Bounds that exclude every id: an exclusive start at the largest id, an exclusive end at 0-0.
 * Redis refuses them (`ERR invalid start ID for the interval`); the answer is an empty range.
 */
const EMPTY_START = `(${U64_MAX}-${U64_MAX}`;
const EMPTY_END = '(0-0';

/**
 * A range of the merged order as partition p reads it (partitionBound), and whether it holds no id
 * there (Redis refuses such bounds; the read is then an empty one).
 */
export function rangeIn(from: string, to: string, p: number): { start: string; end: string; empty: boolean } {
  const start = partitionBound(from, 'start', p);
  const end = partitionBound(to, 'end', p);
  return { start, end, empty: start === EMPTY_START || end === EMPTY_END };
}

/** The first `n` items of a merged read over partitions, in id order (ms, seq, partition). */
export function merged<T extends { id: string }>(items: T[], n: number): T[] {
  return items.sort((a, b) => compareIds(a.id, b.id)).slice(0, n);
}
