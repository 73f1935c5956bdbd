/**
 * The keyspace expressed as write commands: what compaction writes instead of the history that
 * led to it. Strings, hashes and sets are read from the keyspace directly; sorted sets through
 * their rank iterator; streams through XINFO STREAM FULL, which carries everything a restart must
 * keep — entries, last-generated-id, entries-added, max-deleted-id, groups with their
 * last-delivered-id and entries-read, consumers with their seen-time, and each pending entry's
 * owner, delivery time and delivery count. Each record carries the time its command must see, so
 * for example a consumer's seen-time comes back as it was.
 */
import type { Engine, WriteRecord } from '../engine.ts';
import { RedisError, type Reply } from '../reply.ts';
import { formatG } from '../scripting/number-format.ts';

/** Members or field pairs per record, so no single record grows huge. */
const CHUNK = 512;

/** Commands that rebuild the current keyspace, in key order. Throws when a key cannot be read. */
export function snapshotRecords(
  engine: Pick<Engine, 'db' | 'callSync' | 'clock'>,
  now = engine.clock.now(),
): WriteRecord[] {
  const records: WriteRecord[] = [];
  const push = (argv: string[], at = now) => records.push({ argv, now: at });
  for (const key of engine.db.keys()) {
    const entry = engine.db.entry(key);
    if (entry === undefined) continue;
    switch (entry.type) {
      case 'string':
        push(['SET', key, entry.value]);
        break;
      case 'hash':
        for (const chunk of chunks([...entry.value].flat())) push(['HSET', key, ...chunk]);
        break;
      case 'set':
        for (const chunk of chunks([...entry.value])) push(['SADD', key, ...chunk]);
        break;
      case 'zset': {
        const pairs: string[] = [];
        for (const { member, score } of entry.value.byRank(0, entry.value.size - 1, false)) {
          pairs.push(formatG(score, 17), member);
        }
        for (const chunk of chunks(pairs)) push(['ZADD', key, ...chunk]);
        break;
      }
      case 'stream':
        streamRecords(engine, key, push);
        break;
    }
    if (entry.expiresAt !== undefined) push(['PEXPIREAT', key, String(entry.expiresAt)]);
  }
  return records;
}

function chunks(items: string[]): string[][] {
  const out: string[][] = [];
  for (let i = 0; i < items.length; i += CHUNK * 2) out.push(items.slice(i, i + CHUNK * 2));
  return out;
}

/** A flat [name, value, ...] reply as a map. */
function fields(reply: Reply): Map<string, Reply> {
  if (!Array.isArray(reply)) throw new Error('unexpected XINFO reply shape');
  const map = new Map<string, Reply>();
  for (let i = 0; i + 1 < reply.length; i += 2) map.set(String(reply[i]), reply[i + 1]!);
  return map;
}

function list(reply: Reply | undefined): Reply[] {
  return Array.isArray(reply) ? reply : [];
}

/** Orders stream ids numerically (ms, then sequence). */
function compareIds(a: string, b: string): number {
  const [am = '0', as = '0'] = a.split('-');
  const [bm = '0', bs = '0'] = b.split('-');
  const ms = BigInt(am) - BigInt(bm);
  if (ms !== 0n) return ms < 0n ? -1 : 1;
  const seq = BigInt(as) - BigInt(bs);
  return seq === 0n ? 0 : seq < 0n ? -1 : 1;
}

/** The field a placeholder entry carries; it is deleted again before the snapshot ends. */
const GHOST_FIELD = '\u0000snapshot-ghost';

/**
 * A stream: its entries; placeholder ("ghost") entries for pending ids whose message was deleted
 * or trimmed, so XCLAIM can put them back in the PEL (it ignores ids not in the stream) before
 * they are deleted again; the groups, consumers and PEL; and last XSETID, which restores
 * last-generated-id, entries-added and max-deleted-id over whatever the ghosts changed.
 */
function streamRecords(
  engine: Pick<Engine, 'callSync'>,
  key: string,
  push: (argv: string[], at?: number) => void,
): void {
  const info = engine.callSync(['XINFO', 'STREAM', key, 'FULL', 'COUNT', '0']);
  if (info instanceof RedisError) throw new Error(`cannot snapshot stream ${key}: ${info.message}`);
  const stream = fields(info);
  const entries = list(stream.get('entries')).map((row) => {
    const [id, values] = list(row);
    return { id: String(id), values: list(values).map(String) };
  });
  const groups = list(stream.get('groups')).map(fields);
  const live = new Set(entries.map((entry) => entry.id));
  const ghosts = new Set<string>();
  for (const group of groups) {
    for (const pending of list(group.get('pending'))) {
      const id = String(list(pending)[0]);
      if (!live.has(id)) ghosts.add(id);
    }
  }
  const rows = [...entries, ...[...ghosts].map((id) => ({ id, values: [GHOST_FIELD, ''] }))];
  rows.sort((a, b) => compareIds(a.id, b.id));
  if (rows.length === 0) {
    // A stream with no entries (all deleted or trimmed, or made by MKSTREAM) still exists.
    push(['XGROUP', 'CREATE', key, '\u0000snapshot', '0', 'MKSTREAM']);
    push(['XGROUP', 'DESTROY', key, '\u0000snapshot']);
  }
  for (const row of rows) push(['XADD', key, row.id, ...row.values]);
  for (const group of groups) groupRecords(key, group, push);
  if (ghosts.size > 0) push(['XDEL', key, ...ghosts]);
  push([
    'XSETID',
    key,
    String(stream.get('last-generated-id')),
    'ENTRIESADDED',
    String(stream.get('entries-added')),
    'MAXDELETEDID',
    String(stream.get('max-deleted-entry-id')),
  ]);
}

function groupRecords(
  key: string,
  group: Map<string, Reply>,
  push: (argv: string[], at?: number) => void,
): void {
  const name = String(group.get('name'));
  const entriesRead = group.get('entries-read');
  push([
    'XGROUP',
    'CREATE',
    key,
    name,
    String(group.get('last-delivered-id')),
    ...(typeof entriesRead === 'number' ? ['ENTRIESREAD', String(entriesRead)] : []),
  ]);
  const seen = new Map<string, number>();
  for (const consumerReply of list(group.get('consumers'))) {
    const consumer = fields(consumerReply);
    const consumerName = String(consumer.get('name'));
    const seenTime = Number(consumer.get('seen-time'));
    seen.set(consumerName, seenTime);
    push(['XGROUP', 'CREATECONSUMER', key, name, consumerName], seenTime);
  }
  for (const pendingReply of list(group.get('pending'))) {
    const [id = '', owner = '', deliveryTime = '0', deliveryCount = '0'] = list(pendingReply).map(String);
    // XCLAIM refreshes the owner's seen-time, so it runs at the time the owner was last seen.
    push(
      [
        'XCLAIM',
        key,
        name,
        owner,
        '0',
        id,
        'TIME',
        deliveryTime,
        'RETRYCOUNT',
        deliveryCount,
        'FORCE',
        'JUSTID',
      ],
      seen.get(owner),
    );
  }
}
