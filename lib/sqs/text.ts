/**
 * What SQS accepts as message text: the XML character set (no lone surrogates, no control
 * characters but tab, LF and CR), and sizes counted in UTF-8 bytes as SQS counts them.
 */

const encoder = new TextEncoder();

/** True when every character is one SQS accepts in a body or attribute value. */
export function isSqsText(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x20 && c < 0xd800) continue;
    if (c === 0x9 || c === 0xa || c === 0xd) continue;
    if (c >= 0xe000 && c <= 0xfffd) continue;
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
    }
    return false;
  }
  return true;
}

/** UTF-8 bytes of a string with no lone surrogates, without encoding it. */
export function utf8Length(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}
