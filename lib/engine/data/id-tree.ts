/**
 * An ordered map from id keys to values, purpose-built for stream ids: a B+ tree whose nodes keep
 * each key's halves as float64 numbers in a typed array beside the key strings. A descent compares
 * numbers read from one contiguous array per node instead of dereferencing a key string per
 * probe, and no operation allocates except a node split and a tree's first leaf growing (it
 * starts with room for FIRST_LEAF keys: a consumer's PEL is one per consumer and mostly small). Halves at or below 2^53 are exact;
 * above that a tie on the rounded numbers falls back to comparing the key strings, so the order is
 * always exactly the keys' string order. Deleting never merges nodes: an emptied node leaves its
 * parent, which keeps every separator a lower bound of its subtree.
 *
 * Memory locality is the point of the layout: a node is three heap objects (itself, one typed
 * array of numbers, one array of references) whatever it holds. Slot i keeps `ns` numbers at
 * num[ns·i..] (ms, seq, then a record's fields) and `rs` references at ref[rs·i..] (the key
 * string, the value or child, as the kind has them). Few references per slot keep the shifts of
 * an insert or removal cheap: moving a reference costs a write barrier, moving a number does not.
 * Appending at the end of the tree splits the last node unevenly (63 + 1), so a tree built in id
 * order has full leaves and fewer of them. A node's used slots may start past index 0: a removal
 * or insert moves whichever side of it is shorter, so removing the oldest key of a leaf (a queue
 * acking in delivery order) moves nothing.
 *
 * Leaf kinds: a plain map (key, value); a set (key only: a consumer's PEL); a record tree (a
 * group's PEL), where each slot is a pending record inline: the stream entry as the value (its
 * key is the slot's key, so no key string is kept), a hint, and numbers for the delivery time,
 * the delivery count and the owner (an index the caller assigns). A range listing reads
 * consecutive slots of one leaf instead of one scattered object per row. The hint is the leaf of
 * the owner's PEL that held the key when the record was assigned: a record leaves its owner's PEL
 * without a descent while that leaf (or, after one split, the next) still holds it, and with one
 * O(log N) descent otherwise.
 */
import { decimal, formatKey, type IdKey, keyMs, keySeq } from './stream-id.ts';

const MAX_KEYS = 64;
/** Slots of a new tree's only leaf; it grows fourfold when full, up to MAX_KEYS, before it splits. */
const FIRST_LEAF = 8;
const HALF = MAX_KEYS >> 1;
const SAFE = Number.MAX_SAFE_INTEGER;
/** Record leaves: numbers per slot (ms, seq, delivery time, delivery count, owner). */
const RNS = 5;

/** Query key parts, set by `prepare` before every descent (no per-call object). */
let qMs = 0;
let qSeq = 0;
let qKey: IdKey = '';

function prepare(key: IdKey): void {
  if (key === qKey) return;
  qMs = keyMs(key);
  qSeq = keySeq(key);
  qKey = key;
}

/** Prepares the key of slot `i` of `node` from its halves (the key string is only referenced). */
function prepareSlot(node: IdNode, i: number): void {
  const at = node.ns * (node.start + i);
  qMs = node.num[at]!;
  qSeq = node.num[at + 1]!;
  qKey = node.key(i);
}

/** What a record tree's values are: they carry their key. */
interface Keyed {
  readonly key: IdKey;
}

abstract class IdNode {
  count = 0;
  /**
   * Where slot 0 is in the arrays: slots [start, start + count) are in use. A removal or insert
   * moves the shorter side, so removing the first key (a FIFO ack, a trim) moves nothing.
   */
  start = 0;
  /** Per slot i: ms at ns·i, seq at ns·i + 1, then (record leaves) time, count, owner. */
  num: Float64Array;
  /** Per slot i, from rs·i: the key string unless ko < 0, the value or child unless vo < 0. */
  ref: unknown[];

  constructor(
    /** Numbers per slot. */
    readonly ns: number,
    /** References per slot. */
    readonly rs: number,
    /** Offset of the key string in a slot's references; -1: the value's `key`. */
    readonly ko: number,
    /** Offset of the value (or child) in a slot's references; -1: no value. */
    readonly vo: number,
    /** Slots the arrays have room for: MAX_KEYS but in a new tree's first leaf. */
    public capacity: number,
  ) {
    this.num = new Float64Array(ns * capacity);
    this.ref = new Array<unknown>(rs * capacity).fill(undefined);
  }

  /** Makes room for more slots (up to MAX_KEYS), the used ones moved to the arrays' start. */
  private grow(): void {
    const capacity = Math.min(this.capacity * 4, MAX_KEYS);
    const num = new Float64Array(this.ns * capacity);
    num.set(this.num.subarray(this.ns * this.start, this.ns * (this.start + this.count)));
    const ref = new Array<unknown>(this.rs * capacity).fill(undefined);
    for (
      let j = this.rs * this.start, stop = this.rs * (this.start + this.count), to = 0;
      j < stop;
      j++, to++
    ) {
      ref[to] = this.ref[j];
    }
    this.num = num;
    this.ref = ref;
    this.start = 0;
    this.capacity = capacity;
  }

  key(i: number): IdKey {
    const ko = this.ko;
    const at = this.rs * (this.start + i);
    return ko >= 0 ? (this.ref[at + ko] as IdKey) : (this.ref[at] as Keyed).key;
  }

  /** The query key compared with key `i`: negative, zero or positive. */
  compareAt(i: number): number {
    const at = this.ns * (this.start + i);
    const m = this.num[at]!;
    if (qMs !== m) return qMs < m ? -1 : 1;
    if (qMs <= SAFE) {
      const s = this.num[at + 1]!;
      if (qSeq !== s) return qSeq < s ? -1 : 1;
      if (qSeq <= SAFE) return 0;
    }
    const k = this.key(i);
    return qKey < k ? -1 : qKey > k ? 1 : 0;
  }

  /** The first index whose key is >= the query (or > with `after`). */
  lowerBound(after: boolean): number {
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = this.compareAt(mid);
      if (c > 0 || (after && c === 0)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Sets slot i's key (and the key string where the node keeps it). */
  setKey(i: number, key: IdKey, ms: number, seq: number): void {
    const p = this.start + i;
    if (this.ko >= 0) this.ref[this.rs * p + this.ko] = key;
    this.num[this.ns * p] = ms;
    this.num[this.ns * p + 1] = seq;
  }

  /** Moves `length` physical slots from `from` to `to` (overlapping ranges allowed). */
  private moveSlots(to: number, from: number, length: number): void {
    if (length === 0) return;
    const ns = this.ns;
    const rs = this.rs;
    this.num.copyWithin(ns * to, ns * from, ns * (from + length));
    const ref = this.ref;
    const shift = rs * (to - from);
    if (to < from) {
      for (let j = rs * from, stop = rs * (from + length); j < stop; j++) ref[j + shift] = ref[j];
    } else {
      for (let j = rs * (from + length) - 1, stop = rs * from; j >= stop; j--) ref[j + shift] = ref[j];
    }
  }

  /** Clears the references of physical slot `p` (so a moved-out value is not kept alive). */
  private clearSlot(p: number): void {
    const ref = this.ref;
    for (let j = this.rs * p, stop = j + this.rs; j < stop; j++) ref[j] = undefined;
  }

  /** Opens slot `i`, moving the shorter side of it by one; count grows by one. Needs count < 64. */
  protected openSlot(i: number): void {
    const n = this.count;
    if (n === this.capacity) this.grow();
    const s = this.start;
    if (s > 0 && (i < n - i || s + n === this.capacity)) {
      this.moveSlots(s - 1, s, i);
      this.start = s - 1;
    } else {
      this.moveSlots(s + i + 1, s + i, n - i);
    }
    this.count = n + 1;
  }

  /** Closes slot `i`, moving the shorter side of it by one; count shrinks by one. */
  protected closeSlot(i: number): void {
    const n = this.count;
    const s = this.start;
    if (i < n - 1 - i) {
      this.moveSlots(s + 1, s, i);
      this.clearSlot(s);
      this.start = s + 1;
    } else {
      this.moveSlots(s + i, s + i + 1, n - 1 - i);
      this.clearSlot(s + n - 1);
    }
    this.count = n - 1;
    if (n === 1) this.start = 0;
  }

  /** Moves slots [at, count) into the empty node `right`, to its arrays' start. */
  protected moveUpperInto(right: IdNode, at: number): void {
    const n = this.count;
    const rs = this.rs;
    const ns = this.ns;
    const s = this.start;
    right.num.set(this.num.subarray(ns * (s + at), ns * (s + n)));
    const ref = this.ref;
    const rightRef = right.ref;
    for (let j = rs * (s + at), stop = rs * (s + n), to = 0; j < stop; j++, to++) {
      rightRef[to] = ref[j];
      ref[j] = undefined;
    }
    right.start = 0;
    right.count = n - at;
    this.count = at;
  }
}

/**
 * Tree kinds: a plain map; a set of keys (values are dropped); a group PEL whose leaves hold
 * pending records (values carry their key).
 */
export const PLAIN_TREE = 0;
export const SET_TREE = 1;
export const RECORD_TREE = 2;
export type TreeKind = typeof PLAIN_TREE | typeof SET_TREE | typeof RECORD_TREE;

class Leaf<V> extends IdNode {
  next: Leaf<V> | undefined;
  prev: Leaf<V> | undefined;

  readonly kind: TreeKind;

  constructor(kind: TreeKind, capacity = MAX_KEYS) {
    const record = kind === RECORD_TREE;
    const set = kind === SET_TREE;
    super(record ? RNS : 2, set ? 1 : 2, record ? -1 : 0, record ? 0 : set ? -1 : 1, capacity);
    this.kind = kind;
  }

  value(i: number): V {
    const vo = this.vo;
    return (vo >= 0 ? this.ref[this.rs * (this.start + i) + vo] : undefined) as V;
  }

  setValue(i: number, value: V): void {
    const vo = this.vo;
    if (vo >= 0) this.ref[this.rs * (this.start + i) + vo] = value;
  }

  /** Inserts the prepared query key with `value` at slot `i` (record fields zeroed). */
  insertAt(i: number, value: V): void {
    this.openSlot(i);
    this.setValue(i, value);
    this.setKey(i, qKey, qMs, qSeq);
    if (this.kind === RECORD_TREE) {
      const p = this.start + i;
      this.ref[2 * p + 1] = undefined;
      const num = this.num;
      num[RNS * p + 2] = 0;
      num[RNS * p + 3] = 0;
      num[RNS * p + 4] = 0;
    }
  }

  removeAt(i: number): void {
    this.closeSlot(i);
  }

  /** Moves slots [at, count) into a new leaf after this one. */
  split(at: number): Leaf<V> {
    const right = new Leaf<V>(this.kind);
    this.moveUpperInto(right, at);
    right.next = this.next;
    if (right.next !== undefined) right.next.prev = right;
    right.prev = this;
    this.next = right;
    return right;
  }
}

class Inner<V> extends IdNode {
  constructor() {
    super(2, 2, 0, 1, MAX_KEYS);
  }

  child(i: number): Inner<V> | Leaf<V> {
    return this.ref[2 * (this.start + i) + 1] as Inner<V> | Leaf<V>;
  }

  /** The child to descend into for the query: the last whose separator is <= it (else the first). */
  childIndex(): number {
    const i = this.lowerBound(true) - 1;
    return Math.max(i, 0);
  }

  insertChild(i: number, child: Inner<V> | Leaf<V>): void {
    this.openSlot(i);
    const first = child.ns * child.start;
    this.setKey(i, child.key(0), child.num[first]!, child.num[first + 1]!);
    this.ref[2 * (this.start + i) + 1] = child;
  }

  removeChild(i: number): void {
    this.closeSlot(i);
  }

  split(at: number): Inner<V> {
    const right = new Inner<V>();
    this.moveUpperInto(right, at);
    return right;
  }
}

type Node<V> = Inner<V> | Leaf<V>;

/** Descent path, reused: inner nodes and the child index taken in each. */
const pathNodes: Inner<unknown>[] = [];
const pathIndex: number[] = [];

/** Where a fresh cursor points: an empty leaf. */
const PLACEHOLDER = new Leaf<unknown>(PLAIN_TREE);

/** A slot of a tree: where a seek or insert left off. Reused, not allocated per row. */
export class Cursor<V> {
  leaf: Leaf<V> = PLACEHOLDER as Leaf<V>;
  i = 0;

  key(): IdKey {
    return this.leaf.key(this.i);
  }

  /** The slot's physical index in its leaf's arrays. */
  private slot(): number {
    return this.leaf.start + this.i;
  }

  /** The id as Redis prints it, from the key's halves (no string read while they are exact). */
  id(): string {
    const leaf = this.leaf;
    const num = leaf.num;
    const at = leaf.ns * (leaf.start + this.i);
    const ms = num[at]!;
    const seq = num[at + 1]!;
    return ms <= SAFE && seq <= SAFE ? `${decimal(ms)}-${decimal(seq)}` : formatKey(this.key());
  }

  value(): V {
    return this.leaf.value(this.i);
  }

  /** Record trees only from here on; a new value must have the slot's key. */
  setValue(value: V): void {
    this.leaf.ref[2 * this.slot()] = value;
  }

  /** The owner's index, as the caller assigned it. */
  owner(): number {
    return this.leaf.num[RNS * this.slot() + 4]!;
  }

  setOwner(owner: number): void {
    this.leaf.num[RNS * this.slot() + 4] = owner;
  }

  /** The leaf of the owner's PEL that held the key when last seen there (see IdTree.seekHinted). */
  hint(): unknown {
    return this.leaf.ref[2 * this.slot() + 1];
  }

  setHint(leaf: unknown): void {
    this.leaf.ref[2 * this.slot() + 1] = leaf;
  }

  time(): number {
    return this.leaf.num[RNS * this.slot() + 2]!;
  }

  setTime(time: number): void {
    this.leaf.num[RNS * this.slot() + 2] = time;
  }

  count(): number {
    return this.leaf.num[RNS * this.slot() + 3]!;
  }

  setCount(count: number): void {
    this.leaf.num[RNS * this.slot() + 3] = count;
  }

  /** Steps to the next slot in key order; false past the last. */
  next(): boolean {
    let leaf = this.leaf;
    let i = this.i + 1;
    while (i >= leaf.count) {
      const next = leaf.next;
      if (next === undefined) return false;
      leaf = next;
      i = 0;
    }
    this.leaf = leaf;
    this.i = i;
    return true;
  }

  /** True when the slot's key is above `key`. */
  isAbove(key: IdKey): boolean {
    prepare(key);
    return this.leaf.compareAt(this.i) < 0;
  }
}

export class IdTree<V> {
  private root: Node<V>;
  private first: Leaf<V>;
  private last: Leaf<V>;
  private depth = 0;
  size = 0;

  constructor(private readonly kind: TreeKind = PLAIN_TREE) {
    const leaf = new Leaf<V>(kind, FIRST_LEAF);
    this.root = leaf;
    this.first = leaf;
    this.last = leaf;
  }

  /** The leaf that would hold the prepared query key, recording the path. */
  private findLeaf(): Leaf<V> {
    let node = this.root;
    for (let level = 0; level < this.depth; level++) {
      const inner = node as Inner<V>;
      const i = inner.childIndex();
      pathNodes[level] = inner as Inner<unknown>;
      pathIndex[level] = i;
      node = inner.child(i);
    }
    return node as Leaf<V>;
  }

  get(key: IdKey): V | undefined {
    prepare(key);
    const leaf = this.findLeaf();
    const i = leaf.lowerBound(false);
    return i < leaf.count && leaf.compareAt(i) === 0 ? leaf.value(i) : undefined;
  }

  has(key: IdKey): boolean {
    prepare(key);
    const leaf = this.findLeaf();
    const i = leaf.lowerBound(false);
    return i < leaf.count && leaf.compareAt(i) === 0;
  }

  /** Sets `key`; without `overwrite` an existing value stays. True when the key was added. */
  set(key: IdKey, value: V, overwrite = true): boolean {
    prepare(key);
    const leaf = this.findLeaf();
    const i = leaf.lowerBound(false);
    if (i < leaf.count && leaf.compareAt(i) === 0) {
      if (overwrite) leaf.setValue(i, value);
      return false;
    }
    this.insertInto(leaf, i, value);
    return true;
  }

  /** Positions `c` at `key`; false when the key is absent. */
  seek(key: IdKey, c: Cursor<V>): boolean {
    prepare(key);
    return this.seekPrepared(c);
  }

  /** seek() of the key at slot `from` of another tree, read from its halves. */
  seekKeyOf(from: Cursor<unknown>, c: Cursor<V>): boolean {
    prepareSlot(from.leaf, from.i);
    return this.seekPrepared(c);
  }

  private seekPrepared(c: Cursor<V>): boolean {
    const leaf = this.findLeaf();
    const i = leaf.lowerBound(false);
    c.leaf = leaf;
    c.i = i;
    return i < leaf.count && leaf.compareAt(i) === 0;
  }

  /**
   * seekKeyOf() looking first in `hint`, a leaf of this tree that held the key (or an emptied one),
   * and in the leaf after it, where a split moves the upper half; descends only when both miss.
   */
  seekHinted(hint: unknown, from: Cursor<unknown>, c: Cursor<V>): boolean {
    prepareSlot(from.leaf, from.i);
    let leaf = hint as Leaf<V> | undefined;
    // An emptied leaf has left the tree (and never takes keys again): its `next` may be stale.
    if (leaf !== undefined && leaf.count > 0) {
      let i = leaf.lowerBound(false);
      if (i === leaf.count && leaf.next !== undefined) {
        leaf = leaf.next;
        i = leaf.lowerBound(false);
      }
      if (i < leaf.count && leaf.compareAt(i) === 0) {
        c.leaf = leaf;
        c.i = i;
        return true;
      }
    }
    return this.seekPrepared(c);
  }

  /** Positions `c` at the first key >= `key` (> with `after`); false when there is none. */
  seekFrom(key: IdKey, c: Cursor<V>, after: boolean): boolean {
    prepare(key);
    let leaf = this.findLeaf();
    let i = leaf.lowerBound(after);
    while (i >= leaf.count) {
      const next = leaf.next;
      if (next === undefined) return false;
      leaf = next;
      i = 0;
    }
    c.leaf = leaf;
    c.i = i;
    return true;
  }

  /** Inserts `key` with `value` unless present; `c` ends at its slot either way. True when added. */
  insert(key: IdKey, value: V, c: Cursor<V>): boolean {
    prepare(key);
    return this.insertPrepared(value, c);
  }

  /** insert() of the key at slot `from` of another tree, read from its halves. */
  insertKeyOf(from: Cursor<unknown>, value: V, c: Cursor<V>): boolean {
    prepareSlot(from.leaf, from.i);
    return this.insertPrepared(value, c);
  }

  private insertPrepared(value: V, c: Cursor<V>): boolean {
    const leaf = this.findLeaf();
    const i = leaf.lowerBound(false);
    if (i < leaf.count && leaf.compareAt(i) === 0) {
      c.leaf = leaf;
      c.i = i;
      return false;
    }
    const at = this.insertInto(leaf, i, value);
    if (i >= at) {
      c.leaf = leaf.next!;
      c.i = i - at;
    } else {
      c.leaf = leaf;
      c.i = i;
    }
    return true;
  }

  /**
   * Inserts the prepared key at slot `i` of `leaf` (the last descent's), splitting when full.
   * Returns the number of slots `leaf` kept when it split (the rest moved to leaf.next), else 64.
   */
  private insertInto(leaf: Leaf<V>, i: number, value: V): number {
    leaf.insertAt(i, value);
    this.size++;
    if (i === 0) this.lowerSeparators();
    if (leaf.count < MAX_KEYS) return MAX_KEYS;
    // Appending past the last key: keep the full leaf full (63 + 1) instead of halving it.
    const append = leaf === this.last && i === MAX_KEYS - 1;
    return this.splitUp(leaf, append);
  }

  /** A new first key of the found leaf becomes its separators' key where it lowers them. */
  private lowerSeparators(): void {
    for (let level = this.depth - 1; level >= 0; level--) {
      const parent = pathNodes[level]!;
      const i = pathIndex[level]!;
      if (parent.compareAt(i) >= 0) return;
      parent.setKey(i, qKey, qMs, qSeq);
      if (i !== 0) return;
    }
  }

  /** Splits a full node and its full ancestors; returns how many slots the first node kept. */
  private splitUp(full: Node<V>, append: boolean): number {
    let node: Node<V> = full;
    let kept = 0;
    for (let level = this.depth - 1; ; level--) {
      const at = append ? MAX_KEYS - 1 : HALF;
      if (node === full) kept = at;
      const right: Node<V> = node instanceof Leaf ? node.split(at) : (node as Inner<V>).split(at);
      if (node === this.last) this.last = right as Leaf<V>;
      if (level < 0) {
        const root = new Inner<V>();
        root.insertChild(0, node);
        root.insertChild(1, right);
        this.root = root;
        this.depth++;
        return kept;
      }
      const parent = pathNodes[level]! as Inner<V>;
      const index = pathIndex[level]! + 1;
      parent.insertChild(index, right);
      if (parent.count < MAX_KEYS) return kept;
      append = append && index === MAX_KEYS - 1;
      node = parent;
    }
  }

  /** Removes `key`; returns its value, or undefined when it was not there. */
  take(key: IdKey): V | undefined {
    prepare(key);
    const leaf = this.findLeaf();
    const i = leaf.lowerBound(false);
    if (i >= leaf.count || leaf.compareAt(i) !== 0) return undefined;
    const value = leaf.value(i);
    leaf.removeAt(i);
    this.size--;
    if (leaf.count === 0) this.removeEmpty(leaf);
    return value;
  }

  delete(key: IdKey): boolean {
    const before = this.size;
    this.take(key);
    return this.size !== before;
  }

  /**
   * Removes the slot at `c`. No descent unless it is the last key of its leaf (an emptied leaf
   * leaves its parent, which needs the path).
   */
  removeAt(c: Cursor<V>): void {
    const leaf = c.leaf;
    if (leaf.count === 1 && this.depth > 0) {
      this.take(leaf.key(c.i));
      return;
    }
    leaf.removeAt(c.i);
    this.size--;
  }

  private removeEmpty(leaf: Leaf<V>): void {
    if (this.depth === 0) return;
    if (leaf.prev !== undefined) leaf.prev.next = leaf.next;
    else this.first = leaf.next!;
    if (leaf.next !== undefined) leaf.next.prev = leaf.prev;
    else this.last = leaf.prev!;
    for (let level = this.depth - 1; level >= 0; level--) {
      const parent = pathNodes[level]! as Inner<V>;
      parent.removeChild(pathIndex[level]!);
      if (parent.count > 0) break;
    }
    if (this.size === 0) {
      const empty = new Leaf<V>(this.kind, FIRST_LEAF);
      this.root = empty;
      this.first = empty;
      this.last = empty;
      this.depth = 0;
      return;
    }
    // Collapse a root left with one child.
    while (this.depth > 0 && this.root.count === 1) {
      this.root = (this.root as Inner<V>).child(0);
      this.depth--;
    }
  }

  minKey(): IdKey | undefined {
    return this.size === 0 ? undefined : this.first.key(0);
  }

  maxKey(): IdKey | undefined {
    return this.size === 0 ? undefined : this.last.key(this.last.count - 1);
  }

  /** The entry with the largest key <= `key`, written into `out`. */
  getPairOrNextLower(key: IdKey, out: [IdKey, V]): [IdKey, V] | undefined {
    prepare(key);
    let leaf: Leaf<V> | undefined = this.findLeaf();
    let i = leaf.lowerBound(true) - 1;
    while (i < 0) {
      leaf = leaf.prev;
      if (leaf === undefined) return undefined;
      i = leaf.count - 1;
    }
    out[0] = leaf.key(i);
    out[1] = leaf.value(i);
    return out;
  }

  /** Entries with key >= `start` (all without it), ascending; `pair` is reused when given. */
  *entries(start?: IdKey, pair?: [IdKey, V]): Generator<[IdKey, V]> {
    let leaf: Leaf<V> | undefined;
    let i: number;
    if (start === undefined) {
      leaf = this.first;
      i = 0;
    } else {
      prepare(start);
      leaf = this.findLeaf();
      i = leaf.lowerBound(false);
    }
    while (leaf !== undefined) {
      if (i >= leaf.count) {
        leaf = leaf.next;
        i = 0;
        continue;
      }
      const key = leaf.key(i);
      const value = leaf.value(i);
      i++;
      if (pair === undefined) {
        yield [key, value];
      } else {
        pair[0] = key;
        pair[1] = value;
        yield pair;
      }
      // The leaf may have changed under the caller: find the position again by key.
      if (leaf.key(i - 1) !== key) {
        prepare(key);
        leaf = this.findLeaf();
        i = leaf.lowerBound(true);
      }
    }
  }

  *keys(): Generator<IdKey> {
    for (const [key] of this.entries()) yield key;
  }

  *values(): Generator<V> {
    for (const [, value] of this.entries()) yield value;
  }

  /** The tree's depth (inner levels) and number of leaves, for tests. */
  shape(): { depth: number; leaves: number } {
    let leaves = 0;
    for (let leaf: Leaf<V> | undefined = this.first; leaf !== undefined; leaf = leaf.next) leaves++;
    return { depth: this.depth, leaves };
  }

  keysArray(): IdKey[] {
    const out: IdKey[] = [];
    for (let leaf: Leaf<V> | undefined = this.first; leaf !== undefined; leaf = leaf.next) {
      for (let i = 0; i < leaf.count; i++) out.push(leaf.key(i));
    }
    return out;
  }
}
