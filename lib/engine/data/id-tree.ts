/**
 * An ordered map from id keys to values, purpose-built for stream ids: a B+ tree whose nodes keep
 * each key's halves as float64 numbers in typed arrays beside the key strings. A descent compares
 * numbers read from one contiguous array per node instead of dereferencing a 40-character string
 * per probe, and no operation allocates except a node split. Halves at or below 2^53 are exact;
 * above that a tie on the rounded numbers falls back to comparing the key strings, so the order is
 * always exactly the keys' string order. Deleting never merges nodes: an emptied node leaves its
 * parent, which keeps every separator a lower bound of its subtree.
 */
import { type IdKey, keyMs, keySeq } from './stream-id.ts';

const MAX_KEYS = 64;
const HALF = MAX_KEYS >> 1;
const SAFE = Number.MAX_SAFE_INTEGER;

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

abstract class IdNode {
  count = 0;
  readonly ms = new Float64Array(MAX_KEYS);
  readonly seq = new Float64Array(MAX_KEYS);
  readonly keys: IdKey[] = new Array<IdKey>(MAX_KEYS).fill('');

  /** The query key compared with key `i`: negative, zero or positive. */
  compareAt(i: number): number {
    const m = this.ms[i]!;
    if (qMs !== m) return qMs < m ? -1 : 1;
    if (qMs <= SAFE) {
      const s = this.seq[i]!;
      if (qSeq !== s) return qSeq < s ? -1 : 1;
      if (qSeq <= SAFE) return 0;
    }
    const k = this.keys[i]!;
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

  protected setKey(i: number, key: IdKey, ms: number, seq: number): void {
    this.keys[i] = key;
    this.ms[i] = ms;
    this.seq[i] = seq;
  }

  protected shiftRight(from: number): void {
    const n = this.count;
    this.ms.copyWithin(from + 1, from, n);
    this.seq.copyWithin(from + 1, from, n);
    const keys = this.keys;
    for (let i = n; i > from; i--) keys[i] = keys[i - 1]!;
  }

  protected shiftLeft(from: number): void {
    const n = this.count;
    this.ms.copyWithin(from, from + 1, n);
    this.seq.copyWithin(from, from + 1, n);
    const keys = this.keys;
    for (let i = from; i < n - 1; i++) keys[i] = keys[i + 1]!;
    keys[n - 1] = '';
  }

  /** Moves keys [HALF, count) into `right`. */
  protected splitKeysInto(right: IdNode): void {
    const n = this.count;
    right.ms.set(this.ms.subarray(HALF, n));
    right.seq.set(this.seq.subarray(HALF, n));
    for (let i = HALF; i < n; i++) {
      right.keys[i - HALF] = this.keys[i]!;
      this.keys[i] = '';
    }
    right.count = n - HALF;
    this.count = HALF;
  }
}

const NO_VALUE = undefined as unknown;

class Leaf<V> extends IdNode {
  readonly values: V[] = new Array<V>(MAX_KEYS).fill(NO_VALUE as V);
  next: Leaf<V> | undefined;
  prev: Leaf<V> | undefined;

  insertAt(i: number, key: IdKey, value: V): void {
    this.shiftRight(i);
    const values = this.values;
    for (let j = this.count; j > i; j--) values[j] = values[j - 1]!;
    values[i] = value;
    this.setKey(i, key, qMs, qSeq);
    this.count++;
  }

  removeAt(i: number): void {
    this.shiftLeft(i);
    const values = this.values;
    const n = this.count;
    for (let j = i; j < n - 1; j++) values[j] = values[j + 1]!;
    values[n - 1] = NO_VALUE as V;
    this.count--;
  }

  split(): Leaf<V> {
    const right = new Leaf<V>();
    const n = this.count;
    for (let i = HALF; i < n; i++) {
      right.values[i - HALF] = this.values[i]!;
      this.values[i] = NO_VALUE as V;
    }
    this.splitKeysInto(right);
    right.next = this.next;
    if (right.next !== undefined) right.next.prev = right;
    right.prev = this;
    this.next = right;
    return right;
  }
}

class Inner<V> extends IdNode {
  readonly children: (Inner<V> | Leaf<V> | undefined)[] = new Array(MAX_KEYS).fill(undefined);

  /** The child to descend into for the query: the last whose separator is <= it (else the first). */
  childIndex(): number {
    const i = this.lowerBound(true) - 1;
    return Math.max(i, 0);
  }

  insertChild(i: number, child: Inner<V> | Leaf<V>): void {
    this.shiftRight(i);
    const children = this.children;
    for (let j = this.count; j > i; j--) children[j] = children[j - 1];
    children[i] = child;
    this.setKey(i, child.keys[0]!, child.ms[0]!, child.seq[0]!);
    this.count++;
  }

  removeChild(i: number): void {
    this.shiftLeft(i);
    const children = this.children;
    const n = this.count;
    for (let j = i; j < n - 1; j++) children[j] = children[j + 1];
    children[n - 1] = undefined;
    this.count--;
  }

  split(): Inner<V> {
    const right = new Inner<V>();
    const n = this.count;
    for (let i = HALF; i < n; i++) {
      right.children[i - HALF] = this.children[i];
      this.children[i] = undefined;
    }
    this.splitKeysInto(right);
    return right;
  }
}

type Node<V> = Inner<V> | Leaf<V>;

/** Descent path, reused: inner nodes and the child index taken in each. */
const pathNodes: Inner<unknown>[] = [];
const pathIndex: number[] = [];

export class IdTree<V> {
  private root: Node<V> = new Leaf<V>();
  private first: Leaf<V> = this.root as Leaf<V>;
  private last: Leaf<V> = this.root as Leaf<V>;
  private depth = 0;
  size = 0;

  /** The leaf that would hold the prepared query key, recording the path. */
  private findLeaf(): Leaf<V> {
    let node = this.root;
    for (let level = 0; level < this.depth; level++) {
      const inner = node as Inner<V>;
      const i = inner.childIndex();
      pathNodes[level] = inner as Inner<unknown>;
      pathIndex[level] = i;
      node = inner.children[i]!;
    }
    return node as Leaf<V>;
  }

  get(key: IdKey): V | undefined {
    prepare(key);
    const leaf = this.findLeaf();
    const i = leaf.lowerBound(false);
    return i < leaf.count && leaf.compareAt(i) === 0 ? leaf.values[i] : undefined;
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
      if (overwrite) leaf.values[i] = value;
      return false;
    }
    leaf.insertAt(i, key, value);
    this.size++;
    if (i === 0) this.lowerSeparators(leaf);
    if (leaf.count === MAX_KEYS) this.splitUp(leaf);
    return true;
  }

  /** A new first key of `leaf` becomes its separators' key where it lowers them. */
  private lowerSeparators(leaf: Leaf<V>): void {
    for (let level = this.depth - 1; level >= 0; level--) {
      const parent = pathNodes[level]!;
      const i = pathIndex[level]!;
      if (parent.compareAt(i) >= 0) return;
      parent.keys[i] = qKey;
      parent.ms[i] = qMs;
      parent.seq[i] = qSeq;
      if (i !== 0) return;
    }
    void leaf;
  }

  private splitUp(full: Node<V>): void {
    let node: Node<V> = full;
    for (let level = this.depth - 1; ; level--) {
      const right: Node<V> = node instanceof Leaf ? node.split() : (node as Inner<V>).split();
      if (node === this.last) this.last = right as Leaf<V>;
      if (level < 0) {
        const root = new Inner<V>();
        root.insertChild(0, node);
        root.insertChild(1, right);
        this.root = root;
        this.depth++;
        return;
      }
      const parent = pathNodes[level]! as Inner<V>;
      parent.insertChild(pathIndex[level]! + 1, right);
      if (parent.count < MAX_KEYS) return;
      node = parent;
    }
  }

  /** Removes `key`; returns its value, or undefined when it was not there. */
  take(key: IdKey): V | undefined {
    prepare(key);
    const leaf = this.findLeaf();
    const i = leaf.lowerBound(false);
    if (i >= leaf.count || leaf.compareAt(i) !== 0) return undefined;
    const value = leaf.values[i]!;
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
      const empty = new Leaf<V>();
      this.root = empty;
      this.first = empty;
      this.last = empty;
      this.depth = 0;
      return;
    }
    // Collapse a root left with one child.
    while (this.depth > 0 && this.root.count === 1) {
      this.root = (this.root as Inner<V>).children[0]!;
      this.depth--;
    }
  }

  minKey(): IdKey | undefined {
    return this.size === 0 ? undefined : this.first.keys[0];
  }

  maxKey(): IdKey | undefined {
    return this.size === 0 ? undefined : this.last.keys[this.last.count - 1];
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
    out[0] = leaf.keys[i]!;
    out[1] = leaf.values[i]!;
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
      const key = leaf.keys[i]!;
      const value = leaf.values[i]!;
      i++;
      if (pair === undefined) {
        yield [key, value];
      } else {
        pair[0] = key;
        pair[1] = value;
        yield pair;
      }
      // The leaf may have changed under the caller: find the position again by key.
      if (leaf.keys[i - 1] !== key) {
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

  keysArray(): IdKey[] {
    const out: IdKey[] = [];
    for (let leaf: Leaf<V> | undefined = this.first; leaf !== undefined; leaf = leaf.next) {
      for (let i = 0; i < leaf.count; i++) out.push(leaf.keys[i]!);
    }
    return out;
  }
}
