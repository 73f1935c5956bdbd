/** The rules every layer builds on: exact id ranges, code-point lengths, config defaults. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CONFIG_FIELD_NAMES,
  CONFIG_FIELDS,
  codePointLength,
  DEFAULT_CONFIG,
  decimalAtMost,
  NAME_RULE,
  RANGE_BOUND_RULE,
  STREAM_ID_RULE,
  U64_MAX,
} from '../../lib/queue/rules.ts';

describe('decimalAtMost', () => {
  it('accepts exactly the integers 0..max without leading zeros', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 22n }),
        fc.bigInt({ min: 0n, max: 10n ** 22n }),
        (max, n) => {
          const pattern = new RegExp(`^${decimalAtMost(String(max))}$`);
          expect(pattern.test(String(n))).toBe(n <= max);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('draws the line exactly at max, for values near it', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 22n }),
        fc.bigInt({ min: -1000n, max: 1000n }),
        (max, delta) => {
          const n = max + delta;
          fc.pre(n >= 0n);
          expect(new RegExp(`^${decimalAtMost(String(max))}$`).test(String(n))).toBe(delta <= 0n);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('refuses leading zeros, signs and empty strings', () => {
    const pattern = new RegExp(`^${decimalAtMost('1000')}$`);
    for (const text of ['01', '-1', '+1', '', '1e3', ' 1']) expect(pattern.test(text)).toBe(false);
    for (const text of ['0', '9', '999', '1000']) expect(pattern.test(text)).toBe(true);
  });
});

describe('patterns other tools can use', () => {
  it('have no lookaround, which many regex engines (and fast-check) do not take', () => {
    for (const rule of [NAME_RULE, STREAM_ID_RULE, RANGE_BOUND_RULE]) {
      expect(rule.pattern.source).not.toMatch(/\(\?[=!<]/);
    }
  });
});

describe('stream ids and range bounds', () => {
  it('takes each half up to 2^64-1 and nothing past it', () => {
    expect(STREAM_ID_RULE.pattern.test(`${U64_MAX}-${U64_MAX}`)).toBe(true);
    expect(STREAM_ID_RULE.pattern.test('18446744073709551616-0')).toBe(false);
    expect(STREAM_ID_RULE.pattern.test('0-18446744073709551616')).toBe(false);
    expect(STREAM_ID_RULE.pattern.test('99999999999999999999-0')).toBe(false);
    expect(STREAM_ID_RULE.pattern.test('12345')).toBe(false);
  });

  it('takes -, +, ids, bare times and exclusive forms as bounds', () => {
    for (const bound of ['-', '+', '1-0', '(1-0', '123', '(123', `(${U64_MAX}-${U64_MAX}`]) {
      expect(RANGE_BOUND_RULE.pattern.test(bound)).toBe(true);
    }
    for (const bound of ['(-', '(+', '((1-0', '1-', '-1', 'x', '18446744073709551616']) {
      expect(RANGE_BOUND_RULE.pattern.test(bound)).toBe(false);
    }
  });
});

describe('names and lengths', () => {
  it('takes exactly 1-100 characters of A-Z a-z 0-9 . _ -, except . and ..', () => {
    const chars = fc.constantFrom(...'aZ09._-'.split(''), ...'abc.'.split(''));
    fc.assert(
      fc.property(
        fc.array(chars, { minLength: 0, maxLength: 102 }).map((a) => a.join('')),
        (name) => {
          const expected = name.length >= 1 && name.length <= 100 && name !== '.' && name !== '..';
          expect(NAME_RULE.pattern.test(name)).toBe(expected);
        },
      ),
      { numRuns: 3000 },
    );
    for (const name of ['a b', 'a:b', '{q}', 'é']) expect(NAME_RULE.pattern.test(name)).toBe(false);
  });

  it('refuses . and .. but takes names that only contain dots among other characters', () => {
    expect(NAME_RULE.pattern.test('.')).toBe(false);
    expect(NAME_RULE.pattern.test('..')).toBe(false);
    expect(NAME_RULE.pattern.test('...')).toBe(true);
    expect(NAME_RULE.pattern.test('a.b')).toBe(true);
  });

  it('counts an emoji as one character', () => {
    expect(codePointLength('😀'.repeat(256))).toBe(256);
    expect('😀'.repeat(256).length).toBe(512);
  });
});

describe('config fields', () => {
  it('gives every field a default within its bounds and a QUEUE_ variable', () => {
    for (const name of CONFIG_FIELD_NAMES) {
      const field = CONFIG_FIELDS[name];
      expect(field.env).toMatch(/^QUEUE_[A-Z_]+$/);
      expect(DEFAULT_CONFIG[name]).toBe(field.default);
      if (field.kind === 'int') {
        expect(field.default).toBeGreaterThanOrEqual(field.min);
        expect(field.default).toBeLessThanOrEqual(field.max);
      }
    }
    expect(new Set(CONFIG_FIELD_NAMES.map((name) => CONFIG_FIELDS[name].env)).size).toBe(
      CONFIG_FIELD_NAMES.length,
    );
  });
});
