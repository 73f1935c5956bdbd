/**
 * Consumer groups, with Redis 7.0's bookkeeping: a group PEL and one PEL per consumer sharing the
 * same pending-entry records, both ordered maps so acking, claiming and range listings cost
 * O(log N) however long the backlog; the last-delivered id and the entries-read counter that
 * XINFO's lag comes from. The command files parse arguments and shape replies; the state changes
 * live here.
 */
import type { Stream, StreamEntry } from './stream.ts';
import { INVALID_ENTRIES_READ } from './stream.ts';
import { createIdMap, type IdMap } from './stream-btree.ts';
import { type IdKey, MAX_KEY, MIN_KEY } from './stream-id.ts';

/** A delivered, not yet acknowledged entry (a NACK in Redis' terms). */
export interface PendingEntry {
  readonly key: IdKey;
  readonly id: string;
  consumer: Consumer;
  /** When it was last delivered, ms. */
  deliveryTime: number;
  deliveryCount: number;
  /**
   * The stream entry it stands for, so claims need no O(log N) seek of the stream (on a large
   * stream, a dozen cache misses). Stream marks every entry it drops as deleted, so while this
   * one is not deleted it is the stream's live entry for `key`; see liveEntry.
   */
  readonly entry: StreamEntry;
}

/** The live stream entry for a pending record, or undefined when it was deleted from the stream. */
function liveEntry(stream: Stream, pending: PendingEntry): StreamEntry | undefined {
  const entry = pending.entry;
  // Deleted: an XSETID moved back and an XADD may have reused the id, so ask the stream.
  return entry.deleted ? stream.get(pending.key) : entry;
}

export class Consumer {
  readonly pel: IdMap<PendingEntry> = createIdMap();

  constructor(
    readonly name: string,
    /** Last time the consumer read or claimed (or was created), ms. */
    public seenTime: number,
  ) {}
}

/** A history read's row: the entry, or just the id of a pending entry deleted from the stream. */
export type HistoryRow = { readonly id: string; readonly entry: StreamEntry | undefined };

/** XCLAIM's options after parsing. */
export interface ClaimOptions {
  readonly minIdle: number;
  /** Delivery time to set (already clamped to [0, now]). */
  readonly deliveryTime: number;
  /** RETRYCOUNT, or -1. */
  readonly retryCount: number;
  readonly force: boolean;
  readonly justId: boolean;
}

/** A claimed pending record and the stream entry it stands for. */
export interface Claimed {
  readonly pending: PendingEntry;
  readonly entry: StreamEntry;
}

/** What XAUTOCLAIM did: the cursor, the claimed entries and the ids it found deleted. */
export interface AutoClaimResult {
  readonly next: IdKey;
  readonly claimed: readonly Claimed[];
  readonly deleted: readonly string[];
}

/** Reused by the PEL iterators, which otherwise allocate a pair per row. */
const pair: [IdKey, PendingEntry] = [MIN_KEY, undefined as unknown as PendingEntry];

/** Removes `key` from `pel` and returns its record, in one descent of the tree. */
function takePending(pel: IdMap<PendingEntry>, key: IdKey): PendingEntry | undefined {
  return pel.take(key);
}

export class ConsumerGroup {
  readonly pel: IdMap<PendingEntry> = createIdMap();
  readonly consumers = new Map<string, Consumer>();

  constructor(
    /** Last delivered id. */
    public lastKey: IdKey,
    /** Logical entries read up to lastKey, or INVALID_ENTRIES_READ. */
    public entriesRead: number,
  ) {}

  /** The consumer by name, its seen-time refreshed; created when missing. */
  consumer(name: string, now: number): Consumer {
    let consumer = this.consumers.get(name);
    if (consumer === undefined) {
      consumer = new Consumer(name, now);
      this.consumers.set(name, consumer);
    } else {
      consumer.seenTime = now;
    }
    return consumer;
  }

  /**
   * Delivers entries after the last-delivered id (`>`), at most `count` (0 = all): advances the
   * last-delivered id and entries-read, and unless `noack` records each in the PELs, taking over
   * any pending record for the same id (after XGROUP SETID moved the group back).
   */
  deliverNew(stream: Stream, consumer: Consumer, count: number, noack: boolean, now: number): StreamEntry[] {
    const entries = stream.range(this.lastKey, MAX_KEY, count, true);
    for (const entry of entries) {
      if (this.entriesRead !== INVALID_ENTRIES_READ && !stream.hasTombstonesFrom(entry.key)) {
        this.entriesRead++;
      } else if (stream.entriesAdded > 0) {
        this.entriesRead = stream.estimateEntriesRead(entry.key);
      }
      this.lastKey = entry.key;
      if (noack) continue;
      const pending: PendingEntry = {
        key: entry.key,
        id: entry.id,
        consumer,
        deliveryTime: now,
        deliveryCount: 1,
        entry,
      };
      if (this.pel.set(entry.key, pending, false)) {
        consumer.pel.set(entry.key, pending);
        continue;
      }
      const existing = this.pel.get(entry.key)!;
      existing.consumer.pel.delete(entry.key);
      existing.consumer = consumer;
      existing.deliveryTime = now;
      existing.deliveryCount = 1;
      consumer.pel.set(entry.key, existing);
    }
    return entries;
  }

  /**
   * The consumer's own pending entries after `after`, at most `count` (0 = all). Entries still
   * in the stream count as delivered again; deleted ones come back without fields, unchanged.
   */
  readHistory(stream: Stream, consumer: Consumer, after: IdKey, count: number, now: number): HistoryRow[] {
    const rows: HistoryRow[] = [];
    for (const [key, pending] of consumer.pel.entries(after)) {
      if (key === after) continue;
      if (count > 0 && rows.length === count) break;
      const entry = liveEntry(stream, pending);
      if (entry !== undefined) {
        pending.deliveryTime = now;
        pending.deliveryCount++;
      }
      rows.push({ id: pending.id, entry });
    }
    return rows;
  }

  /** XACK: drops each id from the PELs; returns how many were pending. */
  ack(keys: readonly IdKey[]): number {
    let acked = 0;
    for (const key of keys) {
      const pending = takePending(this.pel, key);
      if (pending === undefined) continue;
      pending.consumer.pel.delete(key);
      acked++;
    }
    return acked;
  }

  /** XGROUP DELCONSUMER: removes the consumer and its pending entries; returns how many it had. */
  deleteConsumer(name: string): number {
    const consumer = this.consumers.get(name);
    if (consumer === undefined) return 0;
    const pending = consumer.pel.size;
    for (const key of consumer.pel.keys()) this.pel.delete(key);
    this.consumers.delete(name);
    return pending;
  }

  /** Pending entries from `start` to `end` inclusive (of one consumer if given), idle >= minIdle. */
  pendingRange(
    start: IdKey,
    end: IdKey,
    count: number,
    minIdle: number,
    now: number,
    consumer?: Consumer,
  ): PendingEntry[] {
    const rows: PendingEntry[] = [];
    if (count <= 0) return rows;
    // An iterator descends the tree once; forRange binary-searches every level for `end` too,
    // which on a large PEL doubles the cache misses of the descent.
    for (const [key, pending] of (consumer ?? this).pel.entries(start, pair)) {
      if (key > end) break;
      if (minIdle !== 0 && now - pending.deliveryTime < minIdle) continue;
      rows.push(pending);
      if (rows.length === count) break;
    }
    return rows;
  }

  /**
   * XCLAIM, id by id in argument order: an id gone from the stream leaves the PEL; with FORCE a
   * missing PEL record is created; an owned record idle less than minIdle is skipped; the rest
   * move to `name` (created on first claim) with the new delivery time and count.
   */
  claim(stream: Stream, name: string, keys: readonly IdKey[], options: ClaimOptions, now: number): Claimed[] {
    const claimed: Claimed[] = [];
    let consumer: Consumer | undefined;
    for (const key of keys) {
      let pending = this.pel.get(key);
      const entry = pending === undefined ? stream.get(key) : liveEntry(stream, pending);
      if (entry === undefined) {
        if (pending !== undefined) {
          this.pel.delete(key);
          pending.consumer.pel.delete(key);
        }
        continue;
      }
      let owned = true;
      if (pending === undefined) {
        if (!options.force) continue;
        consumer ??= this.consumer(name, now);
        // streamCreateNACK starts the count at 1, so FORCE without JUSTID answers with 2.
        pending = { key, id: entry.id, consumer, deliveryTime: now, deliveryCount: 1, entry };
        this.pel.set(key, pending);
        owned = false;
      } else if (options.minIdle !== 0 && now - pending.deliveryTime < options.minIdle) {
        continue;
      }
      consumer ??= this.consumer(name, now);
      pending.deliveryTime = options.deliveryTime;
      if (options.retryCount >= 0) pending.deliveryCount = options.retryCount;
      else if (!options.justId) pending.deliveryCount++;
      this.moveTo(pending, consumer, owned);
      claimed.push({ pending, entry });
    }
    return claimed;
  }

  /**
   * XAUTOCLAIM: scans the PEL from `start`, at most `count` results and count×10 records looked
   * at; deleted entries are dropped and reported, entries idle at least minIdle are claimed. The
   * cursor is the first record not looked at (0-0 at the end).
   */
  autoClaim(
    stream: Stream,
    name: string,
    start: IdKey,
    count: number,
    minIdle: number,
    justId: boolean,
    now: number,
  ): AutoClaimResult {
    const claimed: Claimed[] = [];
    const deleted: string[] = [];
    let consumer: Consumer | undefined;
    let attempts = count * 10;
    let left = count;
    let next = MIN_KEY;
    const deletedKeys: IdKey[] = [];
    // One read-only walk of the PEL; records of deleted entries leave the group PEL after it.
    // (editRange up to MAX_KEY would, on the way out, check every child right of the start at
    // each level for merging: dozens of cache misses per call on a large PEL.)
    for (const [key, pending] of this.pel.entries(start, pair)) {
      if (attempts === 0 || left === 0) {
        next = key;
        break;
      }
      attempts--;
      const entry = liveEntry(stream, pending);
      if (entry === undefined) {
        pending.consumer.pel.delete(key);
        deleted.push(pending.id);
        deletedKeys.push(key);
        left--;
        continue;
      }
      if (minIdle !== 0 && now - pending.deliveryTime < minIdle) continue;
      consumer ??= this.consumer(name, now);
      pending.deliveryTime = now;
      if (!justId) pending.deliveryCount++;
      this.moveTo(pending, consumer, true);
      claimed.push({ pending, entry });
      left--;
    }
    for (const key of deletedKeys) this.pel.delete(key);
    return { next, claimed, deleted };
  }

  /** Hands a pending record to `consumer`; `owned` when it is still in its old owner's PEL. */
  private moveTo(pending: PendingEntry, consumer: Consumer, owned: boolean): void {
    if (owned && pending.consumer === consumer) return;
    if (owned) pending.consumer.pel.delete(pending.key);
    pending.consumer = consumer;
    consumer.pel.set(pending.key, pending);
  }
}
