/**
 * The engine's single database: keys mapped to typed values, with lazy expiry against the
 * injected clock. Every read of a key goes through here so WRONGTYPE and expiry are handled in
 * one place.
 */
import type { SortedSet } from './data/sorted-set.ts';
import type { Stream } from './data/stream.ts';
import { Errors, fail } from './reply.ts';

/** What each Redis type name stores. */
export interface ValueTypes {
  string: string;
  hash: Map<string, string>;
  set: Set<string>;
  zset: SortedSet;
  stream: Stream;
}

export type ValueType = keyof ValueTypes;

export type KeyEntry = {
  [T in ValueType]: { type: T; value: ValueTypes[T]; expiresAt: number | undefined };
}[ValueType];

export class Keyspace {
  private readonly entries = new Map<string, KeyEntry>();
  /** Keys written since the engine last drained them; used to wake blocked readers. */
  readonly touched = new Set<string>();
  /**
   * Whether writes are recorded in `touched`: the engine sets it while a caller is blocked. With
   * nobody waiting the keys would only be thrown away, and Set.prototype.clear allocates a new
   * table each time (a tenth of an XADD → XREADGROUP → XACK cycle went there).
   */
  trackTouches = false;

  /** `now` is the time the running command sees (fixed during a script or a replayed record). */
  constructor(private readonly now: () => number) {}

  /** The live entry at `key`, removing it first if it has expired. */
  entry(key: string): KeyEntry | undefined {
    const entry = this.entries.get(key);
    if (entry?.expiresAt !== undefined && entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      this.markTouched(key);
      return undefined;
    }
    return entry;
  }

  /** The value at `key` if it holds `type`; undefined when missing; throws WRONGTYPE otherwise. */
  get<T extends ValueType>(key: string, type: T): ValueTypes[T] | undefined {
    const entry = this.entry(key);
    if (entry === undefined) return undefined;
    if (entry.type !== type) fail(Errors.wrongType);
    return entry.value as ValueTypes[T];
  }

  /** Like `get`, but creates the value with `create` when the key is missing. */
  getOrCreate<T extends ValueType>(key: string, type: T, create: () => ValueTypes[T]): ValueTypes[T] {
    const existing = this.get(key, type);
    if (existing !== undefined) return existing;
    const value = create();
    this.set(key, type, value);
    return value;
  }

  /** Stores `value` at `key`, replacing whatever was there and clearing any expiry. */
  set<T extends ValueType>(key: string, type: T, value: ValueTypes[T], expiresAt?: number): void {
    this.entries.set(key, { type, value, expiresAt } as KeyEntry);
    this.markTouched(key);
  }

  delete(key: string): boolean {
    const existed = this.entry(key) !== undefined;
    this.entries.delete(key);
    if (existed) this.markTouched(key);
    return existed;
  }

  /** Marks a key as written in place (for example XADD), so blocked readers re-check it. */
  touch(key: string): void {
    this.markTouched(key);
  }

  private markTouched(key: string): void {
    if (this.trackTouches) this.touched.add(key);
  }

  /** Sets or clears the expiry of an existing key; returns false when the key is missing. */
  setExpiry(key: string, expiresAt: number | undefined): boolean {
    const entry = this.entry(key);
    if (entry === undefined) return false;
    entry.expiresAt = expiresAt;
    return true;
  }

  /** Live keys (expired ones are skipped and removed). */
  *keys(): IterableIterator<string> {
    for (const key of [...this.entries.keys()]) {
      if (this.entry(key) !== undefined) yield key;
    }
  }

  get size(): number {
    return this.entries.size;
  }

  flush(): void {
    if (this.trackTouches) for (const key of this.entries.keys()) this.touched.add(key);
    this.entries.clear();
  }
}
