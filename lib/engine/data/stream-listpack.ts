/**
 * Byte sizes of Redis 7.0's listpack encoding, for the stream node model: a stream node is closed
 * when its listpack's bytes plus the next entry's field and value bytes reach
 * stream-node-max-bytes, so matching Redis' node boundaries (and with them XLEN after `~`
 * trimming and XINFO's radix-tree figures) needs the exact size of every element. Strings are
 * measured in UTF-8 bytes, as they travel on the wire.
 */

/** stream-node-max-bytes and stream-node-max-entries, Redis' defaults. */
export const NODE_MAX_BYTES = 4096;
export const NODE_MAX_ENTRIES = 100;

/** lpNew: 6 header bytes and the end byte. */
export const LISTPACK_EMPTY_BYTES = 7;

/** UTF-8 length of `text` (a lone surrogate counts as U+FFFD, 3 bytes). */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) continue;
    if (unit < 0x800) {
      bytes += 1;
      continue;
    }
    // Three bytes, or four for a surrogate pair (whose two units already count two).
    bytes += 2;
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
  }
  return bytes;
}

/** Bytes of an integer element: its encoding plus the one-byte backlen. */
export function intElementBytes(value: number): number {
  if (value >= 0 && value <= 127) return 2;
  if (value >= -4096 && value <= 4095) return 3;
  if (value >= -32768 && value <= 32767) return 4;
  if (value >= -8388608 && value <= 8388607) return 5;
  if (value >= -2147483648 && value <= 2147483647) return 6;
  return 10;
}

/** Bytes of an int64 element whose value is given exactly as a BigInt. */
export function bigIntElementBytes(value: bigint): number {
  return value >= -2147483648n && value <= 2147483647n ? intElementBytes(Number(value)) : 10;
}

function backlenBytes(encoded: number): number {
  if (encoded <= 127) return 1;
  if (encoded < 16383) return 2;
  if (encoded < 2097151) return 3;
  if (encoded < 268435455) return 4;
  return 5;
}

const INT64_TEXT = /^(?:0|-?[1-9][0-9]{0,18})$/;

/**
 * Bytes of a string element. Like lpAppend, a string that lpStringToInt64 reads as an int64
 * (canonical decimal, no `+`, no leading zeros, no `-0`) is stored as an integer.
 */
export function stringElementBytes(text: string, byteLength: number): number {
  // Only a digit or '-' can start an integer: most field names and values never reach the regex.
  const first = text.charCodeAt(0);
  if (text.length <= 20 && ((first >= 48 && first <= 57) || first === 45) && INT64_TEXT.test(text)) {
    if (text.length < 19) return intElementBytes(Number(text));
    const value = BigInt(text);
    // Nineteen digits are all far past the 32-bit range: in int64 range they take 10 bytes.
    if (value <= 9223372036854775807n && value >= -9223372036854775808n) return 10;
  }
  const encoded = byteLength < 64 ? 1 + byteLength : byteLength < 4096 ? 2 + byteLength : 5 + byteLength;
  return encoded + backlenBytes(encoded);
}
