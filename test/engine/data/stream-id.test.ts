import { describe, expect, it } from 'vitest';
import {
  decimal,
  formatKey,
  keyMs,
  keyOf,
  keyOfBig,
  keyParts,
  keySeq,
  MAX_KEY,
  MIN_KEY,
  parseId,
} from '../../../lib/engine/data/stream-id.ts';

const STRICT = { strict: true } as const;
const U64_MAX = 18446744073709551615n;

/** Halves spread over the whole unsigned 64-bit range, including every 16-bit digit boundary. */
const HALVES: bigint[] = [0n, 1n, 65535n, 65536n, 2n ** 32n - 1n, 2n ** 32n, 2n ** 48n - 1n, 2n ** 48n];
HALVES.push(2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n, 2n ** 63n - 1n, 2n ** 63n, U64_MAX - 1n, U64_MAX);

describe('id keys', () => {
  it('order like the ids they stand for, across the whole range', () => {
    const ids: [bigint, bigint][] = [];
    for (const ms of HALVES) for (const seq of HALVES) ids.push([ms, seq]);
    const keys = ids.map(([ms, seq]) => keyOfBig(ms, seq));
    for (let i = 1; i < keys.length; i++) {
      expect(keys[i - 1]! < keys[i]!, formatKey(keys[i]!)).toBe(true);
    }
    expect(keys[0]).toBe(MIN_KEY);
    expect(keys[keys.length - 1]).toBe(MAX_KEY);
  });

  it('round-trip through keyParts and formatKey', () => {
    for (const ms of HALVES) {
      for (const seq of [0n, 7n, U64_MAX]) {
        const key = keyOfBig(ms, seq);
        expect(keyParts(key)).toEqual([ms, seq]);
        expect(formatKey(key)).toBe(`${ms}-${seq}`);
      }
    }
    expect(keyOf(1700000000123, 42)).toBe(keyOfBig(1700000000123n, 42n));
  });

  it('read back as numbers exactly up to 2^53, in order and never below 2^53 above it', () => {
    expect(keyMs(keyOf(1700000000123, 42))).toBe(1700000000123);
    expect(keySeq(keyOf(1700000000123, 42))).toBe(42);
    expect(keyMs(keyOf(Number.MAX_SAFE_INTEGER, 0))).toBe(Number.MAX_SAFE_INTEGER);
    const numbers = HALVES.map((half) => keyMs(keyOfBig(half, 0n)));
    const seqs = HALVES.map((half) => keySeq(keyOfBig(0n, half)));
    expect(seqs).toEqual(numbers);
    for (let i = 1; i < numbers.length; i++) expect(numbers[i]!).toBeGreaterThanOrEqual(numbers[i - 1]!);
    for (const [i, half] of HALVES.entries()) {
      if (half <= BigInt(Number.MAX_SAFE_INTEGER)) expect(numbers[i]).toBe(Number(half));
      else expect(numbers[i]!).toBeGreaterThan(Number.MAX_SAFE_INTEGER);
    }
  });
});

describe('decimal', () => {
  it('writes safe integers in decimal as String does', () => {
    let state = 21;
    const next = () => {
      state = (state * 1_664_525 + 1_013_904_223) >>> 0;
      return state / 2 ** 32;
    };
    const values = [
      0,
      9,
      2 ** 31 - 1,
      2 ** 31,
      1e8,
      1e8 - 1,
      1e8 + 1,
      1700000000000,
      2 ** 53 - 1,
      2 ** 53 - 2,
    ];
    for (let k = 1; k < 2 ** 53 / 1e8; k *= 3) values.push(k * 1e8, k * 1e8 - 1, k * 1e8 + 1);
    for (let i = 0; i < 20000; i++) values.push(Math.floor(next() * 2 ** 53), Math.floor(next() * 2e12));
    for (const value of values) expect(decimal(value)).toBe(String(value));
  });
});

describe('parseId on the plain ms-seq form', () => {
  it('hands over the halves exactly as keyMs and keySeq read them from the key, past 2^53 too', () => {
    const samples = [
      '1-0',
      '0-1',
      '1700000000000-0',
      '9007199254740993-7',
      '18446744073709551-9007199254740993',
      '1234567890123456789-9999999999999999999',
    ];
    for (const text of samples) {
      const parsed = parseId(text, STRICT);
      expect(parsed?.plain, text).toBeDefined();
      expect(parsed?.plain?.ms, text).toBe(keyMs(parsed!.key));
      expect(parsed?.plain?.seq, text).toBe(keySeq(parsed!.key));
      expect(formatKey(parsed!.key)).toBe(text);
    }
  });

  it('offers the argument as the printed id only when it has no leading zeros', () => {
    expect(parseId('12-0', STRICT)?.plain?.canonical).toBe('12-0');
    expect(parseId('0-0', STRICT)?.plain?.canonical).toBe('0-0');
    expect(parseId('0-5', STRICT)?.plain?.canonical).toBe('0-5');
    expect(parseId('012-0', STRICT)?.plain?.canonical).toBeUndefined();
    expect(parseId('12-00', STRICT)?.plain?.canonical).toBeUndefined();
    expect(parseId('12-05', STRICT)?.plain?.canonical).toBeUndefined();
    expect(formatKey(parseId('012-05', STRICT)!.key)).toBe('12-5');
  });

  it('gives no plain form for ids it parses another way', () => {
    expect(parseId('12', STRICT)?.plain).toBeUndefined();
    expect(parseId('+', { strict: false })?.plain).toBeUndefined();
    expect(formatKey(parseId('12', STRICT)!.key)).toBe('12-0');
    expect(formatKey(parseId('12', { strict: false, missingSeqMax: true })!.key)).toBe(`12-${U64_MAX}`);
  });
});
