/**
 * Redis Cluster's key slots: which of the 16,384 slots a key hashes to. Every script call of the
 * queue passes keys of one slot, except ack-and-produce, which checks with this whether its two
 * partitions share one (lib/queue/ops/ack-produce.ts).
 */

/** CRC16/XMODEM (poly 0x1021, init 0), the checksum Redis Cluster hashes keys with. */
export function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++)
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** The key's slot: the hash tag's content when the key has a non-empty `{...}`, else the whole key. */
export function keySlot(key: string): number {
  const open = key.indexOf('{');
  let hashed = key;
  if (open !== -1) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) hashed = key.slice(open + 1, close);
  }
  return crc16(new TextEncoder().encode(hashed)) % 16384;
}
