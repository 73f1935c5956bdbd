/**
 * Number parsing and formatting with Redis' exact rules: 64-bit integers as string2ll accepts
 * them, doubles as strtod reads them, and doubles printed like Redis 7.0 (`%.17g`).
 */

export const INT64_MAX = 9223372036854775807n;
export const INT64_MIN = -9223372036854775808n;

const INTEGER = /^(?:0|-?[1-9][0-9]*)$/;

/**
 * A signed 64-bit integer in Redis' strict form (no spaces, no `+`, no leading zeros, no `-0`),
 * or undefined.
 */
export function parseInt64(text: string): bigint | undefined {
  if (text.length === 0 || text.length > 20 || !INTEGER.test(text)) return undefined;
  const value = BigInt(text);
  return value > INT64_MAX || value < INT64_MIN ? undefined : value;
}

const SPACE = /^[ \t\n\v\f\r]*/;
const DECIMAL = /^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?/;
const HEX = /^([+-]?)0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?(?:[pP]([+-]?[0-9]+))?/;
const SPECIAL = /^([+-]?)(inf(?:inity)?|nan(?:\([0-9A-Za-z_]*\))?)/i;

/** What C's strtod makes of `text`: the value, how many characters it used, and ERANGE. */
export interface StrtodResult {
  value: number;
  end: number;
  /** Overflow to ±inf or underflow to zero (strtod sets errno = ERANGE). */
  range: boolean;
}

/** C's strtod: skips leading white space, reads the longest number prefix (0 and end 0 if none). */
export function strtod(text: string): StrtodResult {
  const start = SPACE.exec(text)?.[0].length ?? 0;
  const rest = text.slice(start);
  const special = SPECIAL.exec(rest);
  if (special !== null) {
    const word = (special[2] ?? '').toLowerCase();
    const sign = special[1] === '-' ? -1 : 1;
    const value = word.startsWith('nan') ? Number.NaN : sign * Number.POSITIVE_INFINITY;
    return { value, end: start + special[0].length, range: false };
  }
  const hex = HEX.exec(rest);
  if (hex !== null && ((hex[2] ?? '') !== '' || (hex[3] ?? '') !== '')) {
    const digits = `${hex[2] ?? ''}${hex[3] ?? ''}`;
    const exponent = Number(hex[4] ?? '0') - 4 * (hex[3] ?? '').length;
    const magnitude = Number.parseInt(digits, 16) * 2 ** exponent;
    const value = hex[1] === '-' ? -magnitude : magnitude;
    return { value, end: start + hex[0].length, range: !Number.isFinite(value) };
  }
  const decimal = DECIMAL.exec(rest);
  if (decimal === null) return { value: 0, end: 0, range: false };
  const value = Number(decimal[0]);
  const mantissa = decimal[0].replace(/[eE].*$/, '');
  const underflow = value === 0 && /[1-9]/.test(mantissa);
  return { value, end: start + decimal[0].length, range: !Number.isFinite(value) || underflow };
}

/** A double argument as Redis' getDoubleFromObject accepts it (ZADD scores, ZINCRBY), or undefined. */
export function parseDouble(text: string): number | undefined {
  if (text.length === 0 || SPACE.exec(text)?.[0] !== '') return undefined;
  const { value, end, range } = strtod(text);
  if (end !== text.length || range || Number.isNaN(value)) return undefined;
  return value;
}

/** A double formatted as Redis 7.0 replies with it: `inf`, `-inf`, otherwise printf's `%.17g`. */
export function formatDouble(value: number): string {
  if (value === Number.POSITIVE_INFINITY) return 'inf';
  if (value === Number.NEGATIVE_INFINITY) return '-inf';
  if (Number.isNaN(value)) return 'nan';
  if (value === 0) return Object.is(value, -0) ? '-0' : '0';
  const [mantissa = '', exponentText = '0'] = value.toExponential(16).split('e');
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 17) {
    const digits = stripZeros(mantissa);
    const sign = exponent < 0 ? '-' : '+';
    return `${digits}e${sign}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  return stripZeros(value.toFixed(Math.max(0, 16 - exponent)));
}

/** %g drops trailing zeros of the fraction, and the point when nothing follows it. */
function stripZeros(text: string): string {
  return text.includes('.') ? text.replace(/\.?0+$/, '') : text;
}
