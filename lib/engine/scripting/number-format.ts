/**
 * C's `%.<p>g` for doubles. Redis 7.0 turns Lua numbers passed to redis.call into strings with
 * `%.17g` and cjson prints with `%.14g`; JS has no such format, and Lua 5.4's own conversion
 * (which appends ".0" to integral floats) would differ from Redis' Lua 5.1.
 */

/** Per precision p, the bound under which integers print exactly with p significant digits. */
const EXACT_BELOW = Array.from({ length: 18 }, (_, p) => Math.min(10 ** p, 2 ** 53));

/** Formats `value` like printf("%.<precision>g"). */
export function formatG(value: number, precision: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (value === Number.POSITIVE_INFINITY) return 'inf';
  if (value === Number.NEGATIVE_INFINITY) return '-inf';
  if (value === 0) return Object.is(value, -0) ? '-0' : '0';
  // An integer of at most `precision` digits prints as itself (scripts pass times and counts).
  // Past 2^53 JS prints the shortest text that reads back, not the exact digits C prints.
  if (Number.isSafeInteger(value) && Math.abs(value) < (EXACT_BELOW[precision] ?? 0)) return String(value);
  const exponential = value.toExponential(precision - 1);
  const [mantissa = '', exponentText = '0'] = exponential.split('e');
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= precision) {
    const sign = exponent < 0 ? '-' : '+';
    const digits = String(Math.abs(exponent)).padStart(2, '0');
    return `${stripZeros(mantissa)}e${sign}${digits}`;
  }
  return stripZeros(value.toFixed(precision - 1 - exponent));
}

function stripZeros(text: string): string {
  if (!text.includes('.')) return text;
  return text.replace(/0+$/, '').replace(/\.$/, '');
}
