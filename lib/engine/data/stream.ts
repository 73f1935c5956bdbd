/**
 * The stream value, laid out like Redis 7.0's: entries live in nodes (Redis' listpacks) of at most
 * 100 entries or about 4 KB, indexed by their first ("master") id in an IdTree, and a deleted
 * entry stays in its node as a tombstone until the whole node goes. Keeping Redis' node boundaries
 * is what makes `~` trimming remove exactly what Redis removes, and XINFO's radix-tree figures
 * agree. Appending is O(1), finding an id O(log N), trimming O(log N) per node dropped.
 * Consumer groups (stream-group.ts) hang off the stream by name.
 */
import { IdTree } from './id-tree.ts';
import type { StreamEntry } from './stream-entry.ts';
import { type ConsumerGroup, type GroupStream, INVALID_ENTRIES_READ } from './stream-group.ts';
import {
  decimal,
  formatKey,
  type IdKey,
  keyMs,
  keyOf,
  keyOfBig,
  keyParts,
  keySeq,
  MAX_KEY,
  MIN_KEY,
  msHalf,
  type PlainId,
} from './stream-id.ts';
import {
  bigIntElementBytes,
  intElementBytes,
  LISTPACK_EMPTY_BYTES,
  NODE_MAX_BYTES,
  NODE_MAX_ENTRIES,
  stringElementBytes,
  utf8Length,
} from './stream-listpack.ts';
import { raxNodeCount } from './stream-rax.ts';

/**
 * A StreamEntry as the stream creates it: a class rather than an object literal, so every entry
 * shares one shape from the start and allocation takes V8's plain constructor path.
 */
class Entry implements StreamEntry {
  deleted = false;

  constructor(
    readonly key: IdKey,
    readonly id: string,
    readonly fields: readonly string[],
  ) {}
}

/** How XADD/XTRIM trim: to a length, or below an id; `~` only drops whole nodes. */
export type TrimRule =
  | { readonly strategy: 'maxlen'; readonly maxlen: number; readonly approx: boolean; readonly limit: number }
  | { readonly strategy: 'minid'; readonly minid: IdKey; readonly approx: boolean; readonly limit: number };

const U64_SPAN = 18446744073709551616n;
const INT64_LIMIT = 9223372036854775808n;

/** A listpack node: entries in id order, tombstones included, and the listpack's byte size. */
class StreamNode {
  readonly entries: StreamEntry[] = [];
  /** The entries' keys alongside, so a seek reads one array instead of one object per probe. */
  readonly keys: IdKey[] = [];
  /** Entries not deleted. */
  live = 0;
  /** Entries ever appended, live or deleted: Redis closes a node at 100 of them. */
  slots = 0;
  prev: StreamNode | undefined;
  next: StreamNode | undefined;
  /** The master id's halves when both are below 2^53 (NaN otherwise), for entry id deltas. */
  readonly masterMs: number;
  readonly masterSeq: number;

  constructor(
    readonly masterKey: IdKey,
    ms: number,
    seq: number,
    /** The first entry's field names, which later entries with the same fields reference. */
    readonly masterFields: readonly string[],
    /** lpBytes of the listpack Redis would hold. */
    public bytes: number,
  ) {
    const safe = ms <= Number.MAX_SAFE_INTEGER && seq <= Number.MAX_SAFE_INTEGER;
    this.masterMs = safe ? ms : Number.NaN;
    this.masterSeq = safe ? seq : Number.NaN;
  }

  lastKey(): IdKey {
    return this.entries[this.entries.length - 1]!.key;
  }

  /** Bytes of the two id-delta integers an entry stores relative to the master id. */
  deltaBytes(key: IdKey, ms: number, seq: number): number {
    if (ms <= Number.MAX_SAFE_INTEGER && seq <= Number.MAX_SAFE_INTEGER && !Number.isNaN(this.masterMs)) {
      return intElementBytes(ms - this.masterMs) + intElementBytes(seq - this.masterSeq);
    }
    // Redis subtracts as uint64 and stores the result as int64.
    const [a, b] = keyParts(key);
    const [c, d] = keyParts(this.masterKey);
    return bigIntElementBytes(asInt64(a - c)) + bigIntElementBytes(asInt64(b - d));
  }
}

/** `out` cut to its first `length` elements (it may have been sized for more). */
function trimmed<T>(out: T[], length: number): T[] {
  if (out.length !== length) out.length = length;
  return out;
}

/** Whether `probe` comes before the first key a seek for `key` stops at (see seekIndex). */
function before(probe: IdKey, key: IdKey, after: boolean): boolean {
  return probe === key ? after : probe < key;
}

/** Index of the first entry with key >= `key` (> when `after`). */
function seekIndex(keys: readonly IdKey[], key: IdKey, after: boolean): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const probe = keys[mid]!;
    if (probe < key || (after && probe === key)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function asInt64(difference: bigint): bigint {
  const wrapped = ((difference % U64_SPAN) + U64_SPAN) % U64_SPAN;
  return wrapped >= INT64_LIMIT ? wrapped - U64_SPAN : wrapped;
}

export class Stream implements GroupStream {
  /** Nodes by master id, for seeks; `head`/`tail` and the node links are for walking. */
  private readonly nodes = new IdTree<StreamNode>();
  private head: StreamNode | undefined;
  private tail: StreamNode | undefined;
  private readonly probe: [IdKey, StreamNode] = [MIN_KEY, undefined as unknown as StreamNode];

  /** Live entries. */
  length = 0;
  /** The last id ever added (or set), `last-generated-id`. */
  lastKey: IdKey = MIN_KEY;
  /** `recorded-first-entry-id`: 0-0 when empty. */
  firstKey: IdKey = MIN_KEY;
  maxDeletedKey: IdKey = MIN_KEY;
  entriesAdded = 0;
  /** Consumer groups by name (listed in byte order by the commands). */
  readonly groups = new Map<string, ConsumerGroup>();

  /** `last-generated-id` as safe integers, for `*` ids without parsing; NaN past 2^53. */
  private lastMs = 0;
  private lastSeq = 0;

  /** The id `*` generates at `now`, or undefined when the sequence would run out. */
  nextAutoKey(now: number): IdKey | undefined {
    if (now > this.lastMs) return keyOf(now, 0);
    if (this.lastSeq < Number.MAX_SAFE_INTEGER && this.lastMs <= Number.MAX_SAFE_INTEGER) {
      return keyOf(this.lastMs, this.lastSeq + 1);
    }
    // The last id is past 2^53 somewhere: increment it as Redis does, rolling into the next ms.
    const [ms, seq] = keyParts(this.lastKey);
    if (seq < U64_SPAN - 1n) return keyOfBig(ms, seq + 1n);
    if (ms < U64_SPAN - 1n) return keyOfBig(ms + 1n, 0n);
    return undefined;
  }

  /**
   * The id for XADD `ms-*`: the next sequence within the last ms, else `ms-0`. Undefined when
   * the last id already has the maximum sequence in that ms.
   */
  seqStarKey(msKey: IdKey): IdKey | undefined {
    if (msHalf(msKey) !== msHalf(this.lastKey)) return msKey;
    const [ms, seq] = keyParts(this.lastKey);
    return seq < U64_SPAN - 1n ? keyOfBig(ms, seq + 1n) : undefined;
  }

  /**
   * Appends an entry whose id is above `lastKey` (checked by the caller). `known`, when the
   * caller parsed the id from an argument, saves reading the key's halves and formatting it.
   */
  append(key: IdKey, fields: readonly string[], known?: PlainId): StreamEntry {
    const ms = known === undefined ? keyMs(key) : known.ms;
    const seq = known === undefined ? keySeq(key) : known.seq;
    const exact = ms <= Number.MAX_SAFE_INTEGER && seq <= Number.MAX_SAFE_INTEGER;
    const printed = known?.canonical ?? (exact ? `${decimal(ms)}-${decimal(seq)}` : formatKey(key));
    const entry: StreamEntry = new Entry(key, printed, fields);
    const fieldCount = fields.length / 2;
    let payload = 0;
    let fieldBytes = 0;
    let valueBytes = 0;
    for (let i = 0; i < fields.length; i++) {
      const text = fields[i]!;
      const length = utf8Length(text);
      payload += length;
      if (i % 2 === 0) fieldBytes += stringElementBytes(text, length);
      else valueBytes += stringElementBytes(text, length);
    }

    let node = this.tail;
    if (node !== undefined && (node.bytes + payload >= NODE_MAX_BYTES || node.slots >= NODE_MAX_ENTRIES)) {
      node = undefined;
    }
    let sameFields = true;
    if (node === undefined) {
      const names: string[] = [];
      for (let i = 0; i < fields.length; i += 2) names.push(fields[i]!);
      // Master entry: live count, deleted count, field count, the fields, a zero terminator.
      const bytes = LISTPACK_EMPTY_BYTES + 2 + 2 + intElementBytes(fieldCount) + fieldBytes + 2;
      node = new StreamNode(key, ms, seq, names, bytes);
      this.linkTail(node);
    } else {
      const master = node.masterFields;
      sameFields = master.length === fieldCount;
      for (let i = 0; sameFields && i < fieldCount; i++) sameFields = master[i] === fields[i * 2];
    }
    // flags, ms delta, seq delta, [field count, fields], values, lp-count.
    const pieces = fieldCount + 3 + (sameFields ? 0 : fieldCount + 1);
    node.bytes +=
      2 +
      node.deltaBytes(key, ms, seq) +
      (sameFields ? 0 : intElementBytes(fieldCount) + fieldBytes) +
      valueBytes +
      intElementBytes(pieces);
    node.entries.push(entry);
    node.keys.push(key);
    node.live++;
    node.slots++;

    this.length++;
    this.entriesAdded++;
    this.setLast(key, ms, seq);
    if (this.length === 1) this.firstKey = key;
    return entry;
  }

  private setLast(key: IdKey, ms: number, seq: number): void {
    this.lastKey = key;
    this.lastMs = ms <= Number.MAX_SAFE_INTEGER ? ms : Number.NaN;
    this.lastSeq = seq;
  }

  /**
   * XSETID: sets last-generated-id, which the caller has checked is not below the last live
   * entry. Tombstones above it are dropped so that later ids still append in order (Redis keeps
   * them in its listpack; only a node's byte and slot counts remember them here).
   */
  setLastId(key: IdKey): void {
    this.setLast(key, keyMs(key), keySeq(key));
    for (let node = this.tail; node !== undefined && node.lastKey() > key; node = this.tail) {
      node.entries.pop()!.deleted = true; // already a tombstone; see dropNode
      node.keys.pop();
      if (node.entries.length === 0) this.unlink(node);
    }
  }

  private linkTail(node: StreamNode): void {
    node.prev = this.tail;
    if (this.tail === undefined) this.head = node;
    else this.tail.next = node;
    this.tail = node;
    this.nodes.set(node.masterKey, node);
  }

  private unlink(node: StreamNode): void {
    if (node.prev === undefined) this.head = node.next;
    else node.prev.next = node.next;
    if (node.next === undefined) this.tail = node.prev;
    else node.next.prev = node.prev;
    // A dropped node sits in the old generation until a full collection; a link from it to a
    // newer node would keep that node and its entries alive through every young collection, so
    // a trimmed stream's entries were all promoted and copied (a third of an XADD's time).
    node.prev = undefined;
    node.next = undefined;
    this.nodes.delete(node.masterKey);
  }

  /**
   * Unlinks a node trimmed away, marking its entries deleted: a pending record holds its entry
   * and takes `deleted` as "no longer in the stream" (stream-group.ts).
   */
  private dropNode(node: StreamNode): void {
    for (const entry of node.entries) entry.deleted = true;
    this.unlink(node);
  }

  /** The node whose entries would hold `key`: the last one whose master id is <= key. */
  private nodeFor(key: IdKey): StreamNode | undefined {
    return this.nodes.getPairOrNextLower(key, this.probe)?.[1];
  }

  /** The live entry with this id. */
  get(key: IdKey): StreamEntry | undefined {
    const node = this.nodeFor(key);
    if (node === undefined) return undefined;
    const entry = node.entries[seekIndex(node.keys, key, false)];
    return entry !== undefined && entry.key === key && !entry.deleted ? entry : undefined;
  }

  /**
   * Live entries from `start` to `end` inclusive, ascending, at most `count` (0 = all).
   * With `startAfter` the start is exclusive.
   */
  range(start: IdKey, end: IdKey, count: number, startAfter = false): StreamEntry[] {
    // A small COUNT sizes the array up front: an empty array's first push reserves 17 slots.
    const out: StreamEntry[] = count > 0 && count <= 16 ? new Array<StreamEntry>(count) : [];
    let found = 0;
    // Readers that keep up start in the tail node: no seek needed.
    const tail = this.tail;
    let node: StreamNode | undefined;
    let index = 0;
    if (tail !== undefined && tail.masterKey <= start) {
      node = tail;
      // A reader that keeps up starts at the last entry or two: look there before a binary search.
      const keys = tail.keys;
      const n = keys.length;
      if (n >= 2 && before(keys[n - 2]!, start, startAfter)) {
        index = before(keys[n - 1]!, start, startAfter) ? n : n - 1;
      } else {
        index = seekIndex(keys, start, startAfter);
      }
    } else {
      node = this.nodeFor(start) ?? this.head;
      if (node !== undefined) index = seekIndex(node.keys, start, startAfter);
    }
    while (node !== undefined) {
      const entries = node.entries;
      for (; index < entries.length; index++) {
        const entry = entries[index]!;
        // Tombstones are skipped before the bound is checked, as Redis' iterator does.
        if (entry.deleted) continue;
        if (entry.key > end) return trimmed(out, found);
        out[found++] = entry;
        if (found === count) return out;
      }
      node = node.next;
      index = 0;
    }
    return trimmed(out, found);
  }

  /** Live entries from `end` down to `start` inclusive, at most `count` (0 = all). */
  rangeReverse(start: IdKey, end: IdKey, count: number): StreamEntry[] {
    const out: StreamEntry[] = [];
    let node = this.nodeFor(end);
    let index = node === undefined ? -1 : seekIndex(node.keys, end, true) - 1;
    while (node !== undefined) {
      const entries = node.entries;
      for (; index >= 0; index--) {
        const entry = entries[index]!;
        if (entry.deleted) continue;
        if (entry.key < start) return out;
        out.push(entry);
        if (out.length === count) return out;
      }
      node = node.prev;
      index = node === undefined ? -1 : node.entries.length - 1;
    }
    return out;
  }

  /** The first live entry's id, if any. */
  firstLiveKey(): IdKey | undefined {
    for (let node = this.head; node !== undefined; node = node.next) {
      if (node.live === 0) continue;
      for (const entry of node.entries) if (!entry.deleted) return entry.key;
    }
    return undefined;
  }

  /** The last live entry's id, if any (streamLastValidID). */
  lastLiveKey(): IdKey | undefined {
    for (let node = this.tail; node !== undefined; node = node.prev) {
      if (node.live === 0) continue;
      const entries = node.entries;
      for (let i = entries.length - 1; i >= 0; i--) if (!entries[i]!.deleted) return entries[i]!.key;
    }
    return undefined;
  }

  /**
   * XDEL: tombstones each live id (a node goes when its last live entry does), raises
   * max-deleted-entry-id and moves the first id on. Returns how many were deleted.
   */
  delete(keys: readonly IdKey[]): number {
    let deleted = 0;
    let firstDeleted = false;
    for (const key of keys) {
      const node = this.nodeFor(key);
      if (node === undefined) continue;
      const entry = node.entries[seekIndex(node.keys, key, false)];
      if (entry === undefined || entry.key !== key || entry.deleted) continue;
      entry.deleted = true;
      this.length--;
      if (--node.live === 0) this.unlink(node);
      if (key === this.firstKey) firstDeleted = true;
      if (key > this.maxDeletedKey) this.maxDeletedKey = key;
      deleted++;
    }
    if (deleted > 0) {
      if (this.length === 0) this.firstKey = MIN_KEY;
      else if (firstDeleted) this.firstKey = this.firstLiveKey() ?? MAX_KEY;
    }
    return deleted;
  }

  /**
   * streamTrim: drops whole nodes from the head while the rule allows; then, unless approximate,
   * tombstones entries inside the next node. `limit` (0 = none) caps the live entries removed.
   * Returns the number of entries removed.
   */
  trim(rule: TrimRule): number {
    let deleted = 0;
    let node = this.head;
    while (node !== undefined) {
      if (rule.strategy === 'maxlen' && this.length <= rule.maxlen) break;
      const live = node.live;
      if (rule.limit > 0 && deleted + live > rule.limit) break;
      const removeNode =
        rule.strategy === 'maxlen' ? this.length - live >= rule.maxlen : node.lastKey() < rule.minid;
      if (removeNode) {
        const next = node.next;
        this.dropNode(node);
        this.length -= live;
        deleted += live;
        node = next;
        continue;
      }
      if (rule.approx) break;
      for (const entry of node.entries) {
        const stop = rule.strategy === 'maxlen' ? this.length <= rule.maxlen : entry.key >= rule.minid;
        if (stop) break;
        if (entry.deleted) continue;
        entry.deleted = true;
        node.live--;
        this.length--;
        deleted++;
      }
      break;
    }
    if (this.length === 0) this.firstKey = MIN_KEY;
    else if (deleted > 0) this.firstKey = this.firstLiveKey() ?? MAX_KEY;
    return deleted;
  }

  /** `radix-tree-keys`: the number of nodes. */
  get nodeCount(): number {
    return this.nodes.size;
  }

  /** `radix-tree-nodes`: rax nodes Redis would hold for these node keys. */
  raxNodes(): number {
    return raxNodeCount(this.nodes.keysArray());
  }

  /** streamRangeHasTombstones(s, start, NULL): could an entry at or after `start` be deleted? */
  hasTombstonesFrom(start: IdKey): boolean {
    if (this.length === 0 || this.maxDeletedKey === MIN_KEY) return false;
    if (this.firstKey > this.maxDeletedKey) return false;
    return start <= this.maxDeletedKey;
  }

  /** streamEstimateDistanceFromFirstEverEntry: the entries-read counter at `key`, or -1. */
  estimateEntriesRead(key: IdKey): number {
    if (this.entriesAdded === 0) return 0;
    if (this.length === 0 && key <= this.lastKey) return this.entriesAdded;
    if (key === this.lastKey) return this.entriesAdded;
    if (key > this.lastKey) return INVALID_ENTRIES_READ;
    if (this.maxDeletedKey === MIN_KEY || this.maxDeletedKey < this.firstKey) {
      if (key < this.firstKey) return this.entriesAdded - this.length;
      if (key === this.firstKey) return this.entriesAdded - this.length + 1;
    }
    return INVALID_ENTRIES_READ;
  }
}
