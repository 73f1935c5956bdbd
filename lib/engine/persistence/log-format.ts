/**
 * The append-only log's byte format. The file starts with an 8-byte magic; each record is
 * `u32 length | u32 crc32(payload) | payload`, big-endian, the payload being the UTF-8 JSON
 * `[now, ...argv]` of one write. Length plus checksum is what tells a torn final record (power
 * lost mid-write: short, or bytes that never reached the disk) from a complete one.
 */
import type { WriteRecord } from '../engine.ts';
import { crc32 } from './crc32.ts';

export const LOG_MAGIC = new TextEncoder().encode('ESQLOG1\n');
const HEADER_BYTES = 8;
/** A record longer than this is corrupt framing, not data (Upstash's own record cap is 100 MB). */
const MAX_RECORD_BYTES = 512 * 1024 * 1024;

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** One framed record, ready to append. */
export function encodeRecord(record: WriteRecord): Uint8Array {
  const payload = encoder.encode(JSON.stringify([record.now, ...record.argv]));
  const frame = new Uint8Array(HEADER_BYTES + payload.length);
  const view = new DataView(frame.buffer);
  view.setUint32(0, payload.length);
  view.setUint32(4, crc32(payload));
  frame.set(payload, HEADER_BYTES);
  return frame;
}

/** A whole log: the magic followed by each record's frame. */
export function encodeLog(records: Iterable<WriteRecord>): Uint8Array {
  const frames: Uint8Array[] = [LOG_MAGIC];
  let size = LOG_MAGIC.length;
  for (const record of records) {
    const frame = encodeRecord(record);
    frames.push(frame);
    size += frame.length;
  }
  const out = new Uint8Array(size);
  let offset = 0;
  for (const frame of frames) {
    out.set(frame, offset);
    offset += frame.length;
  }
  return out;
}

export interface DecodedLog {
  readonly records: WriteRecord[];
  /** Bytes up to the end of the last good record; the storage is cut back to this. */
  readonly validLength: number;
  /** Bytes after `validLength` that did not form a complete, intact record. */
  readonly droppedBytes: number;
}

/** Reads every intact record; stops at the first torn or corrupt one and reports what it dropped. */
export function decodeLog(bytes: Uint8Array): DecodedLog {
  if (bytes.length === 0) return { records: [], validLength: 0, droppedBytes: 0 };
  const head = bytes.subarray(0, LOG_MAGIC.length);
  if (!LOG_MAGIC.subarray(0, head.length).every((byte, i) => head[i] === byte)) {
    throw new Error('not an engine data file (bad magic); refusing to overwrite it');
  }
  // A file cut inside its own magic holds nothing yet.
  if (bytes.length < LOG_MAGIC.length) return { records: [], validLength: 0, droppedBytes: bytes.length };

  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const records: WriteRecord[] = [];
  let offset = LOG_MAGIC.length;
  while (offset < bytes.length) {
    const record = readRecord(bytes, view, offset);
    if (record === undefined) break;
    records.push(record.value);
    offset = record.end;
  }
  return { records, validLength: offset, droppedBytes: bytes.length - offset };
}

function readRecord(
  bytes: Uint8Array,
  view: DataView,
  offset: number,
): { value: WriteRecord; end: number } | undefined {
  if (bytes.length - offset < HEADER_BYTES) return undefined;
  const length = view.getUint32(offset);
  const checksum = view.getUint32(offset + 4);
  const start = offset + HEADER_BYTES;
  if (length > MAX_RECORD_BYTES || start + length > bytes.length) return undefined;
  const payload = bytes.subarray(start, start + length);
  if (crc32(payload) !== checksum) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(decoder.decode(payload));
  } catch {
    return undefined;
  }
  if (
    !Array.isArray(parsed) ||
    typeof parsed[0] !== 'number' ||
    !parsed.slice(1).every((a) => typeof a === 'string')
  ) {
    return undefined;
  }
  return { value: { now: parsed[0], argv: parsed.slice(1) as string[] }, end: start + length };
}
