/** Base64 of a string's UTF-8 bytes, as `Upstash-Encoding: base64` replies carry every string. */

const encoder = new TextEncoder();
/** Bytes per `String.fromCharCode` call: stays far below engines' argument-count limits. */
const CHUNK = 0x8000;

export function utf8ToBase64(text: string): string {
  // ASCII (the common case: IDs, field names, numbers) needs no UTF-8 pass.
  if (isAscii(text)) return btoa(text);
  const bytes = encoder.encode(text);
  let binary = '';
  for (let i = 0; i < bytes.length; i += CHUNK) {
    binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  }
  return btoa(binary);
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) > 0x7f) return false;
  }
  return true;
}
