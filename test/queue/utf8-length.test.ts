/** utf8Length counts what TextEncoder would write, without encoding (the produce size check). */
import { expect, it } from 'vitest';
import { utf8Length } from '../../lib/queue/validate.ts';

const encoder = new TextEncoder();

it.each([
  ['empty', ''],
  ['ASCII', '{"order":42,"items":["a","b"]}'],
  ['two-byte characters', 'héllo wörld ß'],
  ['three-byte characters', '日本語のテキスト €'],
  ['a surrogate pair (4 bytes)', 'emoji 😀 and 🎉'],
  ['a lone high surrogate in the middle', 'a\ud83db'],
  ['a lone high surrogate at the end', 'ab\ud83d'],
  ['a lone low surrogate', 'a\ude00b'],
  ['a low before a high surrogate', '\ude00\ud83d'],
  ['the edges of each range', '\u007f\u0080\u07ff\u0800\uffff\u{10000}\u{10ffff}'],
])('%s: the same length as TextEncoder', (_, text) => {
  expect(utf8Length(text)).toBe(encoder.encode(text).length);
});

it('agrees with TextEncoder on random UTF-16 (lone surrogates included)', () => {
  let seed = 7;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  for (let n = 0; n < 500; n++) {
    const units = Array.from({ length: Math.floor(random() * 40) }, () => {
      const pick = random();
      if (pick < 0.4) return Math.floor(random() * 0x80);
      if (pick < 0.6) return 0x80 + Math.floor(random() * 0x780);
      if (pick < 0.8) return 0xd800 + Math.floor(random() * 0x800);
      return 0x800 + Math.floor(random() * 0xf7ff);
    });
    const text = String.fromCharCode(...units);
    expect(utf8Length(text)).toBe(encoder.encode(text).length);
  }
});
