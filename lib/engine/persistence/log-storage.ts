/**
 * Where the log lives. The engine's write listener is synchronous (it runs inside the command
 * that wrote), so the storage is too: a record is handed to the OS before the command's reply
 * leaves. The Node file implementation is functions/support/file-storage.ts; tests use the
 * in-memory one below.
 */

export interface LogStorage {
  /** The whole log, or undefined when there is none yet. */
  read(): Uint8Array | undefined;
  /** Adds bytes at the end. */
  append(bytes: Uint8Array): void;
  /** Cuts the log to its first `length` bytes (drops a torn tail before appending after it). */
  truncate(length: number): void;
  /** Replaces the whole log at once (compaction): afterwards it is the old log or the new one, never a mix. */
  replace(bytes: Uint8Array): void;
  /** Makes appended bytes durable and releases the storage. */
  close(): void;
}

/** A storage held in memory, for tests and for simulating crashes at any byte. */
export interface MemoryStorage extends LogStorage {
  /** The bytes as they stand. */
  bytes(): Uint8Array;
}

export function createMemoryStorage(initial?: Uint8Array): MemoryStorage {
  let data = initial === undefined ? undefined : new Uint8Array(initial);
  return {
    read: () => (data === undefined ? undefined : new Uint8Array(data)),
    append(bytes) {
      const before = data ?? new Uint8Array(0);
      const next = new Uint8Array(before.length + bytes.length);
      next.set(before);
      next.set(bytes, before.length);
      data = next;
    },
    truncate(length) {
      data = (data ?? new Uint8Array(0)).slice(0, length);
    },
    replace(bytes) {
      data = new Uint8Array(bytes);
    },
    close() {},
    bytes: () => new Uint8Array(data ?? new Uint8Array(0)),
  };
}
