/**
 * An engine whose writes survive a restart: on open it replays the log (dropping a torn final
 * record and cutting it off the storage), then appends every write the engine reports — nested
 * writes inside scripts included, each with the time the script saw, so replay reproduces a
 * script's effects without running Lua again. When the log has grown past a threshold and doubled
 * since the last compaction, it is rewritten as a snapshot of the keyspace; the snapshot is first
 * replayed into a scratch engine and compared, and the log is kept as it is if they differ.
 */
import { type Clock, systemClock } from '../../clock.ts';
import { createEngine, type Engine, type WriteRecord } from '../engine.ts';
import { RedisError } from '../reply.ts';
import { decodeLog, encodeLog, encodeRecord, LOG_MAGIC } from './log-format.ts';
import type { LogStorage } from './log-storage.ts';
import { snapshotRecords } from './snapshot.ts';

export interface DurableEngineOptions {
  readonly storage: LogStorage;
  readonly clock?: Clock;
  /** Compaction starts once the log is at least this big (and twice its size after the last one). */
  readonly compactAfterBytes?: number;
  /** How a compaction is deferred out of the write that triggered it (default: next macrotask). */
  readonly schedule?: (task: () => void) => void;
  /** Told when a compaction is skipped or a replayed record fails. */
  readonly onError?: (error: Error) => void;
}

export interface DurableEngine {
  readonly engine: Engine;
  /** Records replayed when the log was opened. */
  readonly replayed: number;
  /** Bytes of a torn or corrupt tail dropped when the log was opened. */
  readonly droppedBytes: number;
  /** The log's current size in bytes. */
  logBytes(): number;
  /** Rewrites the log as a snapshot now; false (log untouched) when the snapshot did not verify. */
  compact(): boolean;
  /** Stops logging and closes the storage. */
  close(): void;
}

export const DEFAULT_COMPACT_AFTER_BYTES = 64 * 1024 * 1024;

/**
 * @example
 * const { engine, close } = openDurable({ storage: createMemoryStorage() });
 * engine.callSync(['SET', 'k', 'v']);
 */
export function openDurable(options: DurableEngineOptions): DurableEngine {
  const { storage } = options;
  const clock = options.clock ?? systemClock;
  const compactAfter = options.compactAfterBytes ?? DEFAULT_COMPACT_AFTER_BYTES;
  const schedule = options.schedule ?? ((task: () => void) => void setTimeout(task, 0));
  const onError = options.onError ?? (() => {});

  const engine = createEngine({ clock });
  const existing = storage.read() ?? new Uint8Array(0);
  const log = decodeLog(existing);
  for (const record of log.records) {
    const reply = engine.replay(record);
    if (reply instanceof RedisError) {
      onError(new Error(`replayed record ${JSON.stringify(record.argv)} failed: ${reply.message}`));
    }
  }
  let size = log.validLength;
  if (size === 0) {
    storage.replace(LOG_MAGIC);
    size = LOG_MAGIC.length;
  } else if (log.droppedBytes > 0) {
    storage.truncate(size);
  }

  let baseSize = size;
  let pending = false;
  let closed = false;

  function compact(): boolean {
    pending = false;
    if (closed) return false;
    try {
      const now = clock.now();
      const records = snapshotRecords(engine, now);
      verify(records, clock, now);
      const bytes = encodeLog(records);
      storage.replace(bytes);
      size = bytes.length;
      baseSize = size;
      return true;
    } catch (error) {
      // Keep the full log; try again only after it doubles once more.
      baseSize = size;
      onError(error instanceof Error ? error : new Error(String(error)));
      return false;
    }
  }

  engine.setWriteListener((record: WriteRecord) => {
    const frame = encodeRecord(record);
    storage.append(frame);
    size += frame.length;
    if (!pending && size >= compactAfter && size >= baseSize * 2) {
      pending = true;
      schedule(compact);
    }
  });

  return {
    engine,
    replayed: log.records.length,
    droppedBytes: log.droppedBytes,
    logBytes: () => size,
    compact,
    close() {
      if (closed) return;
      closed = true;
      engine.setWriteListener(undefined);
      storage.close();
    },
  };
}

/** Replays a snapshot into a scratch engine and checks it snapshots back to the same records. */
function verify(records: readonly WriteRecord[], clock: Clock, now: number): void {
  const scratch = createEngine({ clock });
  for (const record of records) {
    const reply = scratch.replay(record);
    if (reply instanceof RedisError) {
      throw new Error(
        `compaction skipped: ${JSON.stringify(record.argv.slice(0, 3))} failed: ${reply.message}`,
      );
    }
  }
  if (JSON.stringify(snapshotRecords(scratch, now)) !== JSON.stringify(records)) {
    throw new Error('compaction skipped: the snapshot does not rebuild the same keyspace');
  }
}
