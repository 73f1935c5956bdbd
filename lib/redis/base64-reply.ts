/**
 * Decoding a reply sent with `Upstash-Encoding: base64`, string for string as `@upstash/redis`
 * 1.39 decodes it (its `decode` in pkg/http.ts), so an adapter on our own requester reads exactly
 * what the library's own client reads: every bulk string is base64 of its UTF-8 bytes, decoded
 * with the replacement character for invalid sequences; a string that is not valid base64 stays as
 * it is; the top-level "OK" stays "OK" (a status reply), and so does an "OK" nested two levels deep;
 * numbers and nil pass through. What differs is the cost: one decoder for every string instead of
 * a `TextDecoder` per string, and none at all for a string whose bytes are ASCII (ids, numbers,
 * field names, most JSON), which `atob` already gives as the answer.
 */

/** Stateless between calls (no `stream` option), so one serves every string. */
const utf8 = new TextDecoder();
const nonAscii = /[^\x00-\x7f]/;

/** One base64 string's UTF-8 text; the string itself when it is not base64 (as the library does). */
export function decodeBase64String(b64: string): string {
  let binary: string;
  try {
    binary = atob(b64);
  } catch {
    return b64;
  }
  // Each character of `binary` is one byte: bytes below 0x80 are their own UTF-8 text.
  if (!nonAscii.test(binary)) return binary;
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return utf8.decode(bytes);
}

/**
 * One command's `result` decoded. The shape follows the library's: strings in the top-level array
 * are decoded as they are; deeper arrays go through this function again, which keeps "OK" as "OK".
 */
export function decodeBase64Result(raw: unknown): unknown {
  switch (typeof raw) {
    case 'undefined':
    case 'number':
      return raw;
    case 'string':
      return raw === 'OK' ? 'OK' : decodeBase64String(raw);
    case 'object':
      if (!Array.isArray(raw)) return null;
      return raw.map((item: unknown) =>
        typeof item === 'string'
          ? decodeBase64String(item)
          : Array.isArray(item)
            ? item.map((element: unknown) => decodeBase64Result(element))
            : item,
      );
    default:
      return undefined;
  }
}
