import { describe, expect, it } from 'vitest';
import { Cursor, IdTree, RECORD_TREE, SET_TREE } from '../../../lib/engine/data/id-tree.ts';
import { keyMs, keyOf, keyOfBig, keySeq, MAX_KEY, MIN_KEY } from '../../../lib/engine/data/stream-id.ts';

/** A small deterministic PRNG so failures reproduce. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function randomKey(next: () => number): string {
  const kind = next();
  if (kind < 0.6) return keyOf(Math.floor(next() * 300), Math.floor(next() * 5));
  if (kind < 0.8) {
    // Halves past 2^53, where the float parts round and ties fall back to the strings.
    const base = 2n ** 60n;
    return keyOfBig(base + BigInt(Math.floor(next() * 4)), base + BigInt(Math.floor(next() * 4)));
  }
  if (kind < 0.9)
    return keyOfBig(18446744073709551615n - BigInt(Math.floor(next() * 3)), BigInt(Math.floor(next() * 3)));
  return keyOf(Math.floor(next() * 2 ** 52), Math.floor(next() * 2 ** 52));
}

describe('IdTree', () => {
  it('matches a sorted reference under random inserts, deletes and lookups', () => {
    for (const seed of [1, 2, 3]) {
      const next = rng(seed);
      const tree = new IdTree<number>();
      const ref = new Map<string, number>();
      for (let step = 0; step < 30000; step++) {
        const key = randomKey(next);
        const op = next();
        if (op < 0.5) {
          const added = tree.set(key, step, next() < 0.5);
          expect(added).toBe(!ref.has(key));
          if (added) ref.set(key, step);
          else if (tree.get(key) === step) ref.set(key, step);
        } else if (op < 0.8) {
          expect(tree.take(key)).toBe(ref.get(key));
          ref.delete(key);
        } else {
          expect(tree.get(key)).toBe(ref.get(key));
          expect(tree.has(key)).toBe(ref.has(key));
        }
        expect(tree.size).toBe(ref.size);
        if (step % 1000 === 0) {
          const sorted = [...ref.keys()].sort();
          expect(tree.keysArray()).toEqual(sorted);
          expect([...tree.keys()]).toEqual(sorted);
          expect([...tree.values()]).toEqual(sorted.map((k) => ref.get(k)));
          expect(tree.minKey()).toBe(sorted[0]);
          expect(tree.maxKey()).toBe(sorted[sorted.length - 1]);
          const probe = randomKey(next);
          const from = sorted.filter((k) => k >= probe);
          expect([...tree.entries(probe)].map(([k]) => k)).toEqual(from);
          const pair: [string, number] = [MIN_KEY, 0];
          expect([...tree.entries(probe, pair)].length).toBe(from.length);
          const lower = sorted.filter((k) => k <= probe).pop();
          expect(tree.getPairOrNextLower(probe, pair)?.[0]).toBe(lower);
        }
      }
    }
  });

  it('grows and shrinks through several levels', () => {
    const tree = new IdTree<number>();
    const n = 50000;
    for (let i = n - 1; i >= 0; i--) tree.set(keyOf(i, 0), i);
    expect(tree.size).toBe(n);
    expect(tree.minKey()).toBe(keyOf(0, 0));
    expect(tree.getPairOrNextLower(MAX_KEY, [MIN_KEY, 0])?.[1]).toBe(n - 1);
    for (let i = 0; i < n; i += 2) expect(tree.delete(keyOf(i, 0))).toBe(true);
    expect([...tree.values()]).toEqual(Array.from({ length: n / 2 }, (_, i) => i * 2 + 1));
    for (let i = 1; i < n; i += 2) expect(tree.take(keyOf(i, 0))).toBe(i);
    expect(tree.size).toBe(0);
    expect(tree.minKey()).toBeUndefined();
    expect([...tree.entries()]).toEqual([]);
    tree.set(keyOf(5, 5), 1);
    expect(tree.keysArray()).toEqual([keyOf(5, 5)]);
  });

  it('keeps iterating in order while the walked map changes', () => {
    const tree = new IdTree<number>();
    for (let i = 0; i < 1000; i++) tree.set(keyOf(i * 2, 0), i);
    const seen: number[] = [];
    for (const [key, value] of tree.entries(keyOf(0, 0))) {
      seen.push(value);
      tree.delete(key);
      if (value % 3 === 0) tree.set(keyOf(value * 2 + 1, 0), -1);
    }
    expect(seen.filter((v) => v >= 0)).toEqual(Array.from({ length: 1000 }, (_, i) => i));
  });
});

describe('keyMs and keySeq', () => {
  it('is exact up to 2^53 and keeps the order above it', () => {
    expect(keyMs(keyOf(1700000000123, 42))).toBe(1700000000123);
    expect(keySeq(keyOf(1700000000123, 42))).toBe(42);
    expect(keyMs(keyOf(Number.MAX_SAFE_INTEGER, 0))).toBe(Number.MAX_SAFE_INTEGER);
    const values = [
      2n ** 53n - 1n,
      2n ** 53n,
      2n ** 53n + 1n,
      2n ** 60n + 3n,
      2n ** 63n,
      18446744073709551615n,
    ];
    const halves = values.map((v) => keyMs(keyOfBig(v, 0n)));
    for (let i = 1; i < halves.length; i++) expect(halves[i]!).toBeGreaterThanOrEqual(halves[i - 1]!);
    expect(halves[1]!).toBeGreaterThan(Number.MAX_SAFE_INTEGER);
  });
});

describe('IdTree record trees and cursors', () => {
  /** A record tree's value: it carries its key. */
  type Row = { key: string; n: number };

  /** Slot contents as plain values: key, value, owner, time, count. */
  function slotOf(c: Cursor<Row>): [string, number, number, number, number] {
    expect(c.value().key).toBe(c.key());
    return [c.key(), c.value().n, c.owner(), c.time(), c.count()];
  }

  it('keeps each record inline through splits, removals and emptied leaves', () => {
    for (const seed of [4, 5]) {
      const next = rng(seed);
      const tree = new IdTree<Row>(RECORD_TREE);
      const ref = new Map<string, [number, number, number, number]>();
      const c = new Cursor<Row>();
      for (let step = 0; step < 20000; step++) {
        const key = keyOf(Math.floor(next() * 3000), Math.floor(next() * 2));
        const op = next();
        if (op < 0.55) {
          const added = tree.insert(key, { key, n: step }, c);
          expect(added).toBe(!ref.has(key));
          expect(c.key()).toBe(key);
          if (added) {
            expect([c.owner(), c.time(), c.count(), c.hint()]).toEqual([0, 0, 0, undefined]);
            c.setOwner(step % 3);
            c.setTime(step * 10);
            c.setCount(step % 7);
            c.setHint(tree);
            ref.set(key, [step, step % 3, step * 10, step % 7]);
          } else {
            expect(slotOf(c)).toEqual([key, ...ref.get(key)!]);
            expect(c.hint()).toBe(tree);
          }
        } else if (op < 0.9) {
          const found = tree.seek(key, c);
          expect(found).toBe(ref.has(key));
          if (found) {
            expect(slotOf(c)).toEqual([key, ...ref.get(key)!]);
            tree.removeAt(c);
            ref.delete(key);
          }
        } else if (tree.seekFrom(key, c, next() < 0.5) && next() < 0.5) {
          c.setCount(c.count() + 1);
          const record = ref.get(c.key())!;
          record[3]++;
        }
        expect(tree.size).toBe(ref.size);
        if (step % 500 === 0 || step === 19999) {
          const sorted = [...ref.keys()].sort();
          const seen: [string, number, number, number, number][] = [];
          if (tree.seekFrom(MIN_KEY, c, false)) {
            do seen.push(slotOf(c));
            while (c.next());
          }
          expect(seen).toEqual(sorted.map((k) => [k, ...ref.get(k)!]));
          expect(tree.keysArray()).toEqual(sorted);
          expect(tree.minKey()).toBe(sorted[0]);
          expect(tree.maxKey()).toBe(sorted[sorted.length - 1]);
        }
      }
      // Emptying the tree by cursor goes through leaves left with one key (removeAt's descent).
      for (const key of [...ref.keys()].sort().reverse()) {
        expect(tree.seek(key, c)).toBe(true);
        tree.removeAt(c);
      }
      expect(tree.size).toBe(0);
      expect(tree.shape()).toEqual({ depth: 0, leaves: 1 });
      expect(tree.seekFrom(MIN_KEY, c, false)).toBe(false);
    }
  });

  it('compares keys past 2^53 by their strings, taken from the values in record trees', () => {
    const tree = new IdTree<Row>(RECORD_TREE);
    const c = new Cursor<Row>();
    const base = 2n ** 60n;
    // Halves that round to the same float64: only the strings order them.
    const keys = Array.from({ length: 200 }, (_, i) => keyOfBig(base + BigInt(i % 7), base + BigInt(i)));
    for (const key of keys) tree.insert(key, { key, n: 0 }, c);
    expect(tree.keysArray()).toEqual([...new Set(keys)].sort());
    for (const key of keys) {
      expect(tree.seek(key, c)).toBe(true);
      expect(c.key()).toBe(key);
    }
  });

  it('formats ids from the halves, exactly past 2^53 too', () => {
    const tree = new IdTree<Row>(RECORD_TREE);
    const c = new Cursor<Row>();
    const keys = [keyOf(1700000000123, 7), keyOfBig(2n ** 60n + 1n, 3n), keyOfBig(5n, 2n ** 64n - 1n)];
    for (const key of keys) tree.insert(key, { key, n: 0 }, c);
    const ids: string[] = [];
    tree.seekFrom(MIN_KEY, c, false);
    do ids.push(c.id());
    while (c.next());
    expect(ids).toEqual(['5-18446744073709551615', '1700000000123-7', '1152921504606846977-3']);
  });

  it('fills leaves when keys are appended in order, and halves them otherwise', () => {
    const appended = new IdTree<number>();
    for (let i = 0; i < 63 * 100; i++) appended.set(keyOf(i, 0), i);
    expect(appended.shape().leaves).toBe(100);
    expect([...appended.values()]).toEqual(Array.from({ length: 6300 }, (_, i) => i));
    // Descending inserts split at the front: half-full leaves.
    const reversed = new IdTree<number>();
    for (let i = 6299; i >= 0; i--) reversed.set(keyOf(i, 0), i);
    expect(reversed.shape().leaves).toBeGreaterThan(190);
    expect(reversed.keysArray()).toEqual(appended.keysArray());
    // A cursor insert that splits the last leaf lands on the new key.
    const tree = new IdTree<Row>(RECORD_TREE);
    const c = new Cursor<Row>();
    for (let i = 0; i < 64 * 64 + 1; i++) {
      const key = keyOf(i, 0);
      tree.insert(key, { key, n: i }, c);
      expect(c.value().n).toBe(i);
      expect(c.key()).toBe(key);
    }
    expect(tree.shape().depth).toBe(2);
  });

  it('keeps order when slots move down from the front (FIFO removal) and fill back up', () => {
    const tree = new IdTree<number>();
    const ref = new Map<string, number>();
    const put = (n: number) => {
      tree.set(keyOf(n, 0), n);
      ref.set(keyOf(n, 0), n);
    };
    const check = () => {
      const sorted = [...ref.keys()].sort();
      expect(tree.keysArray()).toEqual(sorted);
      expect([...tree.values()]).toEqual(sorted.map((k) => ref.get(k)));
      for (const k of sorted) expect(tree.get(k)).toBe(ref.get(k));
    };
    // One leaf: drop the first ten keys, then refill past the arrays' end, so inserts at the end
    // must move the front side back down, then split.
    for (let n = 0; n < 60; n++) put(n * 10);
    for (let n = 0; n < 10; n++) {
      expect(tree.take(keyOf(n * 10, 0))).toBe(n * 10);
      ref.delete(keyOf(n * 10, 0));
    }
    check();
    for (let n = 60; n < 70; n++) put(n * 10);
    put(95);
    put(605);
    check();
    expect(tree.shape()).toEqual({ depth: 0, leaves: 1 });
    put(1000);
    put(1010);
    check();
    expect(tree.shape().leaves).toBe(2);
    // A queue: take the oldest, append the newest, and now and then insert or take in the middle.
    const next = rng(17);
    let head = 0;
    let tail = 2000;
    for (let n = 0; n < 2000; n++) put(n * 10);
    for (let step = 0; step < 20000; step++) {
      const oldest = [...ref.keys()].length > 0 ? keyOf(head * 10, 0) : undefined;
      if (oldest !== undefined && ref.has(oldest)) {
        expect(tree.take(oldest)).toBe(ref.get(oldest));
        ref.delete(oldest);
      }
      head++;
      put(tail++ * 10);
      if (next() < 0.2) put(Math.floor(head + next() * (tail - head)) * 10 + 5);
      if (next() < 0.2) {
        const victim = keyOf(Math.floor(head + next() * (tail - head)) * 10, 0);
        expect(tree.take(victim)).toBe(ref.get(victim));
        ref.delete(victim);
      }
      if (step % 2000 === 0) check();
    }
    check();
  });

  it('keeps a set tree of keys only', () => {
    const set = new IdTree<undefined>(SET_TREE);
    const c = new Cursor<undefined>();
    for (let i = 999; i >= 0; i--) expect(set.insert(keyOf(i * 3, 1), undefined, c)).toBe(true);
    expect(set.insert(keyOf(3, 1), undefined, c)).toBe(false);
    expect(set.keysArray()).toEqual(Array.from({ length: 1000 }, (_, i) => keyOf(i * 3, 1)));
    expect([...set.values()].every((v) => v === undefined)).toBe(true);
    expect(set.take(keyOf(6, 1))).toBeUndefined();
    expect(set.has(keyOf(6, 1))).toBe(false);
    expect(set.size).toBe(999);
  });

  it('finds a key through a hint, after the hinted leaf split, and after it emptied', () => {
    const tree = new IdTree<undefined>(SET_TREE);
    const c = new Cursor<undefined>();
    const from = new Cursor<Row>();
    const other = new IdTree<Row>(RECORD_TREE);
    const hints = new Map<string, unknown>();
    // Keys inserted in shuffled order: every split is a middle split that moves half the slots.
    const next = rng(9);
    const order = Array.from({ length: 5000 }, (_, i) => i).sort(() => next() - 0.5);
    for (const i of order) {
      const key = keyOf(i * 2, 0);
      tree.insert(key, undefined, c);
      hints.set(key, c.leaf);
      other.insert(key, { key, n: i }, from);
    }
    for (const [key, hint] of hints) {
      expect(other.seek(key, from)).toBe(true);
      expect(tree.seekHinted(hint, from, c)).toBe(true);
      expect(c.key()).toBe(key);
    }
    // A key absent from the tree is reported absent whatever the hint.
    const absent = keyOf(1, 0);
    other.insert(absent, { key: absent, n: -1 }, from);
    expect(tree.seekHinted(hints.get(keyOf(0, 0)), from, c)).toBe(false);
    expect(tree.seekHinted(hints.get(keyOf(2, 0)), from, c)).toBe(false);
    // Empty the leaf holding key 0 (and its neighbours), then look a remaining key up through it.
    expect(tree.seek(keyOf(0, 0), c)).toBe(true);
    const emptied = c.leaf;
    const inLeaf: string[] = [];
    for (let i = 0; i < emptied.count; i++) inLeaf.push(emptied.key(i));
    for (const key of inLeaf) expect(tree.delete(key)).toBe(true);
    expect(emptied.count).toBe(0);
    const survivor = keyOf(9998, 0);
    expect(other.seek(survivor, from)).toBe(true);
    expect(tree.seekHinted(emptied, from, c)).toBe(true);
    expect(c.key()).toBe(survivor);
    // removeAt through a found slot.
    tree.removeAt(c);
    expect(tree.has(survivor)).toBe(false);
    expect(tree.size).toBe(5000 - inLeaf.length - 1);
  });
});
