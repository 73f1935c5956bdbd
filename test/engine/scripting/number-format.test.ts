import { describe, expect, it } from 'vitest';
import { formatG } from '../../../lib/engine/scripting/number-format.ts';

describe('formatG', () => {
  it("prints integers as C's %.17g does, exact up to 2^53 and rounded to 17 digits past it", () => {
    expect(formatG(1764800000123, 17)).toBe('1764800000123');
    expect(formatG(-42, 17)).toBe('-42');
    expect(formatG(2 ** 53 - 1, 17)).toBe('9007199254740991');
    expect(formatG(2 ** 56, 17)).toBe('72057594037927936');
    expect(formatG(1e17, 17)).toBe('1e+17');
    expect(formatG(-0, 17)).toBe('-0');
  });

  it('switches to an exponent past the precision, as %.14g does for cjson', () => {
    expect(formatG(12345678901234, 14)).toBe('12345678901234');
    expect(formatG(123456789012346, 14)).toBe('1.2345678901235e+14');
    expect(formatG(0.1, 17)).toBe('0.10000000000000001');
    expect(formatG(1.5, 14)).toBe('1.5');
  });
});
