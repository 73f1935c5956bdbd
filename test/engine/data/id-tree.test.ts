import { describe, expect, it } from 'vitest';
import { IdTree } from '../../../lib/engine/data/id-tree.ts';
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
