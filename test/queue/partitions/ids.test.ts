/**
 * The arithmetic of lib/queue/partitions/ids.ts against plain models: ids that carry their partition,
 * range bounds that keep a merged read exact, group starts over partitions, and the key → partition
 * hash (stable across releases, moving only what growth must move).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  byPartition,
  compareIds,
  decodeId,
  encodeId,
  partitionBound,
  partitionOf,
  partitionStart,
  predecessor,
} from '../../../lib/queue/partitions/ids.ts';
import { STREAM_ID_RULE, U64_MAX } from '../../../lib/queue/rules.ts';

type Position = [ms: number, seq: number, partition: number];

function compare(a: Position, b: Position): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

function idOf([ms, seq, p]: Position): string {
  return encodeId(`${ms}-${seq}`, p);
}

/** XRANGE/XPENDING semantics of one bound on one partition's (ms, seq). */
function inside(bound: string, side: 'start' | 'end', [ms, seq]: Position): boolean {
  if (bound === '-' || bound === '+') return true;
  const exclusive = bound.startsWith('(');
  const [bms, bseq] = (exclusive ? bound.slice(1) : bound).split('-').map(Number) as [number, number];
  const c = ms - bms || seq - bseq;
  if (side === 'start') return exclusive ? c > 0 : c >= 0;
  return exclusive ? c < 0 : c <= 0;
}

const position = fc.tuple(fc.nat(4), fc.nat(4), fc.nat(5)) as fc.Arbitrary<Position>;

describe('message ids', () => {
  it('keeps partition 0 ids plain and puts the partition after the others', () => {
    expect(encodeId('1700000000000-0', 0)).toBe('1700000000000-0');
    expect(encodeId('1700000000000-0', 3)).toBe('1700000000000-0-3');
    expect(decodeId('1700000000000-0')).toEqual({ raw: '1700000000000-0', partition: 0 });
    expect(decodeId('1700000000000-5-255')).toEqual({ raw: '1700000000000-5', partition: 255 });
    expect(encodeId('delayed-4', 2)).toBe('delayed-4-2');
  });

  it('answers only ids the validation rule accepts back, and reads each back as written', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: BigInt(U64_MAX) }), fc.nat(255), (half, p) => {
        const id = encodeId(`${half}-${half}`, p);
        expect(STREAM_ID_RULE.pattern.test(id)).toBe(true);
        expect(decodeId(id)).toEqual({ raw: `${half}-${half}`, partition: p });
      }),
    );
    // And nothing else: no partition 0 suffix, none past 255, no leading zeros.
    for (const id of ['1-2-0', '1-2-256', '1-2-01', '1-2-', '1-2-3-4']) {
      expect(STREAM_ID_RULE.pattern.test(id), id).toBe(false);
    }
  });

  it('groups ids by partition in input order', () => {
    expect([...byPartition(['5-0-2', '1-0', '3-0-2', '2-0'])]).toEqual([
      [2, ['5-0', '3-0']],
      [0, ['1-0', '2-0']],
    ]);
  });

  it('orders ids by (ms, seq, partition), numerically', () => {
    fc.assert(
      fc.property(position, position, (a, b) => {
        expect(Math.sign(compareIds(idOf(a), idOf(b)))).toBe(Math.sign(compare(a, b)));
      }),
    );
    expect(compareIds('9-0', '10-0')).toBeLessThan(0);
    expect(compareIds(`${U64_MAX}-0`, '18446744073709551614-9')).toBeGreaterThan(0);
  });
});

describe('range bounds over partitions', () => {
  it('keeps a merged read exact: each partition reads what the merged order puts in range', () => {
    fc.assert(
      fc.property(
        fc.array(position, { maxLength: 30 }),
        position,
        fc.boolean(),
        position,
        fc.boolean(),
        (items, start, startExclusive, end, endExclusive) => {
          const from = `${startExclusive ? '(' : ''}${idOf(start)}`;
          const to = `${endExclusive ? '(' : ''}${idOf(end)}`;
          for (const item of items) {
            const c1 = compare(item, start);
            const c2 = compare(item, end);
            const expected = (startExclusive ? c1 > 0 : c1 >= 0) && (endExclusive ? c2 < 0 : c2 <= 0);
            const q = item[2];
            const got =
              inside(partitionBound(from, 'start', q), 'start', item) &&
              inside(partitionBound(to, 'end', q), 'end', item);
            expect(got).toBe(expected);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('leaves -, + and bare times alone', () => {
    for (const bound of ['-', '+', '1700000000000', '(1700000000000']) {
      expect(partitionBound(bound, 'start', 3)).toBe(bound);
    }
  });
});

describe('group starts over partitions', () => {
  it('starts after a position in the merged order on every partition', () => {
    fc.assert(
      fc.property(position, position, (start, item) => {
        fc.pre(start[0] > 0 || start[1] > 0);
        const q = item[2];
        const begin = partitionStart(idOf(start), q);
        // XGROUP CREATE <id>: the group receives entries after <id>; '0' is everything.
        const [bms, bseq] = begin === '0' ? [0, 0] : (begin.split('-').map(Number) as [number, number]);
        const receives = item[0] - bms || item[1] - bseq;
        expect(receives > 0).toBe(compare(item, start) > 0);
      }),
    );
    expect(partitionStart('$', 5)).toBe('$');
    expect(partitionStart('0', 5)).toBe('0');
  });

  it('steps back across a millisecond and refuses to go before 0-0', () => {
    expect(predecessor('5-0')).toBe(`4-${U64_MAX}`);
    expect(predecessor('5-3')).toBe('5-2');
    expect(predecessor('0-0')).toBeUndefined();
  });
});

describe('partitionOf', () => {
  it('places keys as every release placed them (the hash is part of the stored data)', () => {
    expect(['customer-42', 'a', 'orders/7', 'ü'].map((key) => partitionOf(key, 8))).toEqual([1, 2, 5, 5]);
    expect(['customer-42', 'a', 'orders/7', 'ü'].map((key) => partitionOf(key, 256))).toEqual([
      61, 163, 138, 129,
    ]);
    expect(partitionOf('anything', 1)).toBe(0);
  });

  it('spreads keys evenly', () => {
    const counts = Array(8).fill(0) as number[];
    for (let i = 0; i < 8000; i++) {
      const p = partitionOf(`key-${i}`, 8);
      counts[p] = (counts[p] ?? 0) + 1;
    }
    for (const n of counts) expect(Math.abs(n - 1000)).toBeLessThan(150);
  });

  it('moves a key only to a new partition when the queue grows', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.integer({ min: 1, max: 255 }),
        fc.integer({ min: 1, max: 255 }),
        (key, a, b) => {
          const [n, m] = a <= b ? [a, b] : [b, a];
          const before = partitionOf(key, n);
          const after = partitionOf(key, m);
          expect(before).toBeLessThan(n);
          expect(after === before || after >= n).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
