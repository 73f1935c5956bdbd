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
  const small = shortInteger(text, true);
  if (small !== undefined) return BigInt(small);
  if (text.length === 0 || text.length > 20 || !INTEGER.test(text)) return undefined;
  const value = BigInt(text);
  return value > INT64_MAX || value < INT64_MIN ? undefined : value;
}

/**
 * `text` as a number when it is an optional `-` and 1 to 15 digits (always exact as a double), and
 * `strict` rules out what string2ll refuses (leading zeros, `-0`); undefined otherwise, for the
 * full parse to decide. Arguments are mostly such small integers (counts, times, scores), and a
 * loop over their characters costs less than the regular expressions.
 */
function shortInteger(text: string, strict: boolean): number | undefined {
  const length = text.length;
  const sign = text.charCodeAt(0) === 45 ? 1 : 0;
  if (length === sign || length - sign > 15) return undefined;
  if (strict && text.charCodeAt(sign) === 48 && length > 1) return undefined;
  for (let j = sign; j < length; j++) {
    const code = text.charCodeAt(j);
    if (code < 48 || code > 57) return undefined;
  }
  return Number(text);
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
  const small = shortInteger(text, false);
  if (small !== undefined) return small;
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
  // Up to 2^53 an integer has at most 16 digits, which %.17g prints exactly, as JS does.
  if (Number.isSafeInteger(value)) return String(value);
  const sign = value < 0 ? '-' : '';
  const { digits, exponent } = significantDigits(Math.abs(value));
  const trimmed = digits.replace(/0+$/, '');
  if (exponent < -4 || exponent >= 17) {
    const fraction = trimmed.length > 1 ? `.${trimmed.slice(1)}` : '';
    const expSign = exponent < 0 ? '-' : '+';
    return `${sign}${trimmed[0]}${fraction}e${expSign}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${trimmed}`;
  const whole = trimmed.slice(0, exponent + 1).padEnd(exponent + 1, '0');
  const fraction = trimmed.slice(exponent + 1);
  return `${sign}${whole}${fraction === '' ? '' : `.${fraction}`}`;
}

/**
 * The 17 significant digits of a positive finite double and the decimal exponent of the first,
 * rounded like glibc's printf: to nearest, ties to even. JS's toExponential breaks ties upward,
 * so values whose 18th digit is a 5 are redone from their exact decimal expansion.
 */
function significantDigits(value: number): { digits: string; exponent: number } {
  const [mantissa = '', exponentText = '0'] = value.toExponential(16).split('e');
  const fast = { digits: mantissa.replace('.', ''), exponent: Number(exponentText) };
  const wider = value.toExponential(17).split('e')[0] ?? '';
  if (!wider.endsWith('5')) return fast;
  const exact = exactDecimal(value);
  const exponent = exact.digits.length - 1 + exact.scale;
  if (exact.digits.length <= 17) return { digits: exact.digits.padEnd(17, '0'), exponent };
  let kept = BigInt(exact.digits.slice(0, 17));
  const rest = exact.digits.slice(17);
  const half = `5${'0'.repeat(rest.length - 1)}`;
  if (rest > half || (rest === half && kept % 2n === 1n)) kept += 1n;
  const digits = kept.toString();
  return digits.length > 17 ? { digits: digits.slice(0, 17), exponent: exponent + 1 } : { digits, exponent };
}

/** The exact value of a positive finite double as `digits × 10^scale` (doubles are dyadic). */
function exactDecimal(value: number): { digits: string; scale: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value);
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & 0xfffffffffffffn;
  const significand = biased === 0 ? fraction : fraction | (1n << 52n);
  const power = (biased === 0 ? 1 : biased) - 1075;
  if (power >= 0) return { digits: (significand << BigInt(power)).toString(), scale: 0 };
  // m / 2^k = m·5^k / 10^k
  return { digits: (significand * 5n ** BigInt(-power)).toString(), scale: power };
}
