import { describe, expect, it } from 'vitest';
import { formatKey, keyHalf, parseId } from '../../../lib/engine/data/stream-id.ts';

const STRICT = { strict: true } as const;

describe('parseId on the plain ms-seq form', () => {
  it('hands over the halves exactly as keyHalf reads them from the key, past 2^53 too', () => {
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
      expect(parsed?.plain?.ms, text).toBe(keyHalf(parsed!.key, 0));
      expect(parsed?.plain?.seq, text).toBe(keyHalf(parsed!.key, 20));
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
    expect(parseId(' 12-1', STRICT)?.plain).toBeUndefined();
    expect(parseId('+', { strict: false })?.plain).toBeUndefined();
  });
});
