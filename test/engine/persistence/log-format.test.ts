import { describe, expect, it } from 'vitest';
import type { WriteRecord } from '../../../lib/engine/engine.ts';
import { crc32 } from '../../../lib/engine/persistence/crc32.ts';
import { decodeLog, encodeLog, encodeRecord, LOG_MAGIC } from '../../../lib/engine/persistence/log-format.ts';

const records: WriteRecord[] = [
  { argv: ['SET', 'k', 'v'], now: 1 },
  { argv: ['HSET', 'h', 'field', 'välue \u0000 with "quotes"\n'], now: 1_700_000_000_000 },
  { argv: ['XADD', 's', '*', 'f', 'x'.repeat(3000)], now: 2 },
];

describe('log format', () => {
  it('computes the standard CRC-32', () => {
    expect(crc32(new TextEncoder().encode('123456789'))).toBe(0xcbf43926);
  });

  it('round-trips records, bytes and times intact', () => {
    const decoded = decodeLog(encodeLog(records));
    expect(decoded.records).toEqual(records);
    expect(decoded.droppedBytes).toBe(0);
  });

  it('drops a final record torn at any byte and keeps every earlier one', () => {
    const whole = encodeLog(records);
    const lastFrame = encodeRecord(records[2]!).length;
    const lastStart = whole.length - lastFrame;
    for (let cut = lastStart; cut < whole.length; cut++) {
      const decoded = decodeLog(whole.subarray(0, cut));
      expect(decoded.records).toEqual(records.slice(0, 2));
      expect(decoded.validLength).toBe(lastStart);
      expect(decoded.droppedBytes).toBe(cut - lastStart);
    }
  });

  it('drops a final record whose bytes never reached the disk (zeros of the right length)', () => {
    const whole = encodeLog(records);
    const lastFrame = encodeRecord(records[2]!).length;
    const damaged = new Uint8Array(whole);
    damaged.fill(0, whole.length - lastFrame + 8);
    const decoded = decodeLog(damaged);
    expect(decoded.records).toEqual(records.slice(0, 2));
    expect(decoded.droppedBytes).toBe(lastFrame);
  });

  it('treats a file cut inside its magic as empty and refuses foreign files', () => {
    expect(decodeLog(LOG_MAGIC.subarray(0, 3)).records).toEqual([]);
    expect(decodeLog(new Uint8Array(0)).validLength).toBe(0);
    expect(() => decodeLog(new TextEncoder().encode('REDIS0011...'))).toThrow(/not an engine data file/);
  });
});
