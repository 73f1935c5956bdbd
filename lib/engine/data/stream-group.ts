/**
 * Consumer groups, with Redis 7.0's bookkeeping: a group PEL and one PEL per consumer, both
 * ordered by id so acking, claiming and range listings cost O(log N) however long the backlog;
 * the last-delivered id and the entries-read counter that XINFO's lag comes from. The command
 * files parse arguments and shape replies; the state changes live here.
 *
 * A pending record (a NACK in Redis' terms) has no object of its own: it lives in a slot of the
 * group PEL's leaves (id-tree.ts's record tree): the stream entry it stands for as the slot's
 * value, its owner (an index into the group's consumer table), its delivery time and count beside
 * it, and a hint to the leaf of the owner's PEL holding the same key. A record changes owner or
 * is acked with one descent of the group PEL (the old owner's PEL is usually reached through the
 * hint), and a range listing reads consecutive slots instead of one scattered object per row.
 */
import { Cursor, IdTree, RECORD_TREE, SET_TREE } from './id-tree.ts';
import type { StreamEntry } from './stream-entry.ts';
import { type IdKey, MAX_KEY, MIN_KEY } from './stream-id.ts';

/** Unset entries-read counter (Redis' SCG_INVALID_ENTRIES_READ). */
export const INVALID_ENTRIES_READ = -1;

/**
 * What a group reads of the stream it belongs to. Stream (stream.ts) implements it; declaring it
 * here lets the stream own its groups without the two modules importing each other.
 */
export interface GroupStream {
  /** Entries ever added (`entries-added`). */
  readonly entriesAdded: number;
  get(key: IdKey): StreamEntry | undefined;
  range(start: IdKey, end: IdKey, count: number, startAfter?: boolean): StreamEntry[];
  hasTombstonesFrom(start: IdKey): boolean;
  estimateEntriesRead(key: IdKey): number;
}

/**
 * The live stream entry for a pending record, or undefined when it was deleted from the stream.
 * The record holds the entry it was delivered as, so claims need no O(log N) seek of the stream;
 * Stream marks every entry it drops as deleted, so while this one is not deleted it is the live
 * entry for its key.
 */
function liveEntry(stream: GroupStream, entry: StreamEntry): StreamEntry | undefined {
  // Deleted: an XSETID moved back and an XADD may have reused the id, so ask the stream.
  return entry.deleted ? stream.get(entry.key) : entry;
}

/** A consumer's PEL: the keys of its pending records (which live in the group PEL). */
export type ConsumerPel = IdTree<undefined>;
/** A group PEL: the pending records, each slot's value the stream entry it stands for. */
export type GroupPel = IdTree<StreamEntry>;

export class Consumer {
  readonly pel: ConsumerPel = new IdTree<undefined>(SET_TREE);

  constructor(
    readonly name: string,
    /** Last time the consumer read or claimed (or was created), ms. */
    public seenTime: number,
    /** Its index in the group's consumer table, which pending records name their owner by. */
    readonly index: number,
  ) {}
}

/** One pending record as XPENDING and XINFO list it. */
export interface PendingRow {
  readonly id: string;
  readonly consumer: Consumer;
  /** When it was last delivered, ms. */
  readonly deliveryTime: number;
  readonly deliveryCount: number;
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

/** A claimed pending record's id and the stream entry it stands for. */
export interface Claimed {
  readonly id: string;
  readonly entry: StreamEntry;
}

/** What XAUTOCLAIM did: the cursor, the claimed entries and the ids it found deleted. */
export interface AutoClaimResult {
  readonly next: IdKey;
  readonly claimed: readonly Claimed[];
  readonly deleted: readonly string[];
}

/** Cursors reused by every group (the engine runs one command at a time). */
const groupSlot = new Cursor<StreamEntry>();
const ownerSlot = new Cursor<undefined>();

function lost(): never {
  throw new Error('PEL: a consumer PEL and the group PEL disagree');
}

export class ConsumerGroup {
  readonly pel: GroupPel = new IdTree<StreamEntry>(RECORD_TREE);
  readonly consumers = new Map<string, Consumer>();
  /** Consumers by index; a deleted consumer's index is reused. */
  private readonly owners: (Consumer | undefined)[] = [];
  private readonly freeIndexes: number[] = [];

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
      const index = this.freeIndexes.pop() ?? this.owners.length;
      consumer = new Consumer(name, now, index);
      this.owners[index] = consumer;
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
  deliverNew(
    stream: GroupStream,
    consumer: Consumer,
    count: number,
    noack: boolean,
    now: number,
  ): StreamEntry[] {
    const entries = stream.range(this.lastKey, MAX_KEY, count, true);
    for (const entry of entries) {
      if (this.entriesRead !== INVALID_ENTRIES_READ && !stream.hasTombstonesFrom(entry.key)) {
        this.entriesRead++;
      } else if (stream.entriesAdded > 0) {
        this.entriesRead = stream.estimateEntriesRead(entry.key);
      }
      this.lastKey = entry.key;
      if (noack) continue;
      const slot = groupSlot;
      if (!this.pel.insert(entry.key, entry, slot)) {
        slot.setValue(entry);
        this.release(slot);
      }
      slot.setTime(now);
      slot.setCount(1);
      this.assign(slot, consumer);
    }
    return entries;
  }

  /**
   * The consumer's own pending entries after `after`, at most `count` (0 = all). Entries still
   * in the stream count as delivered again; deleted ones come back without fields, unchanged.
   */
  readHistory(
    stream: GroupStream,
    consumer: Consumer,
    after: IdKey,
    count: number,
    now: number,
  ): HistoryRow[] {
    const rows: HistoryRow[] = [];
    const own = ownerSlot;
    const slot = groupSlot;
    if (!consumer.pel.seekFrom(after, own, true)) return rows;
    do {
      if (count > 0 && rows.length === count) break;
      if (!this.pel.seekKeyOf(own, slot)) lost();
      const entry = liveEntry(stream, slot.value());
      if (entry !== undefined) {
        slot.setTime(now);
        slot.setCount(slot.count() + 1);
      }
      rows.push({ id: slot.value().id, entry });
    } while (own.next());
    return rows;
  }

  /** XACK: drops each id from the PELs; returns how many were pending. */
  ack(keys: readonly IdKey[]): number {
    let acked = 0;
    const slot = groupSlot;
    for (const key of keys) {
      if (!this.pel.seek(key, slot)) continue;
      this.drop(slot);
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
    this.owners[consumer.index] = undefined;
    this.freeIndexes.push(consumer.index);
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
  ): PendingRow[] {
    if (count <= 0) return [];
    return this.rows(start, end, count, minIdle, now, consumer);
  }

  /** The first `count` pending records (0 = all), of one consumer if given: XINFO STREAM FULL. */
  firstPending(count: number, consumer?: Consumer): PendingRow[] {
    return this.rows(MIN_KEY, MAX_KEY, count, 0, 0, consumer);
  }

  /** Records from `start` to `end`, at most `limit` (0 = all), idle >= minIdle. */
  private rows(
    start: IdKey,
    end: IdKey,
    limit: number,
    minIdle: number,
    now: number,
    consumer: Consumer | undefined,
  ): PendingRow[] {
    const rows: PendingRow[] = [];
    const slot = groupSlot;
    if (consumer === undefined) {
      if (!this.pel.seekFrom(start, slot, false)) return rows;
      do {
        if (slot.isAbove(end)) break;
        const time = slot.time();
        if (minIdle !== 0 && now - time < minIdle) continue;
        rows.push({
          id: slot.id(),
          consumer: this.ownerOf(slot),
          deliveryTime: time,
          deliveryCount: slot.count(),
        });
        if (rows.length === limit) break;
      } while (slot.next());
      return rows;
    }
    const own = ownerSlot;
    if (!consumer.pel.seekFrom(start, own, false)) return rows;
    do {
      if (own.isAbove(end)) break;
      if (!this.pel.seekKeyOf(own, slot)) lost();
      const time = slot.time();
      if (minIdle !== 0 && now - time < minIdle) continue;
      rows.push({ id: slot.id(), consumer, deliveryTime: time, deliveryCount: slot.count() });
      if (rows.length === limit) break;
    } while (own.next());
    return rows;
  }

  /**
   * XCLAIM, id by id in argument order: an id gone from the stream leaves the PEL; with FORCE a
   * missing PEL record is created; an owned record idle less than minIdle is skipped; the rest
   * move to `name` (created on first claim) with the new delivery time and count.
   */
  claim(
    stream: GroupStream,
    name: string,
    keys: readonly IdKey[],
    options: ClaimOptions,
    now: number,
  ): Claimed[] {
    const claimed: Claimed[] = [];
    let consumer: Consumer | undefined;
    const slot = groupSlot;
    for (const key of keys) {
      const found = this.pel.seek(key, slot);
      const entry = found ? liveEntry(stream, slot.value()) : stream.get(key);
      if (entry === undefined) {
        if (found) this.drop(slot);
        continue;
      }
      if (!found) {
        if (!options.force) continue;
        consumer ??= this.consumer(name, now);
        this.pel.insert(key, entry, slot);
        // streamCreateNACK starts the count at 1, so FORCE without JUSTID answers with 2.
        slot.setCount(1);
      } else if (options.minIdle !== 0 && now - slot.time() < options.minIdle) {
        continue;
      } else {
        consumer ??= this.consumer(name, now);
      }
      slot.setTime(options.deliveryTime);
      if (options.retryCount >= 0) slot.setCount(options.retryCount);
      else if (!options.justId) slot.setCount(slot.count() + 1);
      if (!found) this.assign(slot, consumer);
      else if (slot.owner() !== consumer.index) this.reassign(slot, consumer);
      claimed.push({ id: entry.id, entry });
    }
    return claimed;
  }

  /**
   * XAUTOCLAIM: scans the PEL from `start`, at most `count` results and count×10 records looked
   * at; deleted entries are dropped and reported, entries idle at least minIdle are claimed. The
   * cursor is the first record not looked at (0-0 at the end).
   */
  autoClaim(
    stream: GroupStream,
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
    const slot = groupSlot;
    // One walk of the group PEL, which only the owners' PELs change under; records of deleted
    // entries leave the group PEL after it.
    if (this.pel.seekFrom(start, slot, false)) {
      do {
        if (attempts === 0 || left === 0) {
          next = slot.key();
          break;
        }
        attempts--;
        const entry = liveEntry(stream, slot.value());
        if (entry === undefined) {
          this.release(slot);
          deleted.push(slot.value().id);
          deletedKeys.push(slot.key());
          left--;
          continue;
        }
        if (minIdle !== 0 && now - slot.time() < minIdle) continue;
        consumer ??= this.consumer(name, now);
        slot.setTime(now);
        if (!justId) slot.setCount(slot.count() + 1);
        if (slot.owner() !== consumer.index) this.reassign(slot, consumer);
        claimed.push({ id: entry.id, entry });
        left--;
      } while (slot.next());
    }
    for (const key of deletedKeys) this.pel.delete(key);
    return { next, claimed, deleted };
  }

  /** The owner of the record at `slot`. */
  private ownerOf(slot: Cursor<StreamEntry>): Consumer {
    return this.owners[slot.owner()] ?? lost();
  }

  /** Removes the record at `slot` from both PELs. */
  private drop(slot: Cursor<StreamEntry>): void {
    const owner = this.ownerOf(slot);
    const own = this.ownerSlotOf(slot);
    this.pel.removeAt(slot);
    owner.pel.removeAt(own);
  }

  /** The slot of the record at `slot` in its owner's PEL, found through the hint when it holds. */
  private ownerSlotOf(slot: Cursor<StreamEntry>): Cursor<undefined> {
    const own = ownerSlot;
    if (!this.ownerOf(slot).pel.seekHinted(slot.hint(), slot, own)) lost();
    return own;
  }

  /** Takes the record at `slot` out of its owner's PEL (the group PEL keeps it). */
  private release(slot: Cursor<StreamEntry>): void {
    this.ownerOf(slot).pel.removeAt(this.ownerSlotOf(slot));
  }

  /** Gives the record at `slot`, in no consumer's PEL, to `consumer`. */
  private assign(slot: Cursor<StreamEntry>, consumer: Consumer): void {
    const own = ownerSlot;
    slot.setOwner(consumer.index);
    consumer.pel.insertKeyOf(slot, undefined, own);
    slot.setHint(own.leaf);
  }

  /** Moves the record at `slot` from its owner's PEL to `consumer`'s. */
  private reassign(slot: Cursor<StreamEntry>, consumer: Consumer): void {
    this.release(slot);
    this.assign(slot, consumer);
  }
}
