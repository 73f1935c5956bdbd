/**
 * C's `%.<p>g` for doubles. Redis 7.0 turns Lua numbers passed to redis.call into strings with
 * `%.17g` and cjson prints with `%.14g`; JS has no such format, and Lua 5.4's own conversion
 * (which appends ".0" to integral floats) would differ from Redis' Lua 5.1.
 */

/** Formats `value` like printf("%.<precision>g"). */
export function formatG(value: number, precision: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (value === Number.POSITIVE_INFINITY) return 'inf';
  if (value === Number.NEGATIVE_INFINITY) return '-inf';
  if (value === 0) return Object.is(value, -0) ? '-0' : '0';
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
