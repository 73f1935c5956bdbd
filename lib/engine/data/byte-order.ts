/**
 * Redis compares strings with memcmp over their bytes. Members here are JS strings, so this
 * orders them by code point, which is exactly the byte order of their UTF-8 encoding.
 */

/** Negative, zero or positive as `a` sorts before, with, or after `b` in Redis byte order. */
export function compareBytes(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codeUnitRank(x) - codeUnitRank(y);
  }
  return a.length - b.length;
}

/** Moves surrogates (astral code points, 4 UTF-8 bytes) above U+E000..U+FFFF, as UTF-8 orders them. */
function codeUnitRank(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  if (unit >= 0xe000) return unit - 0x800;
  return unit;
}
