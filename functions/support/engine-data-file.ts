/**
 * `ENGINE_DATA_FILE`: the local engine backed by an append-only log file, for `npm start` and
 * `npm run engine`. Entry points call this instead of `createEngine` when a data file is set.
 */
import type { Clock } from '../../lib/clock.ts';
import type { Engine } from '../../lib/engine/engine.ts';
import { openDurable } from '../../lib/engine/persistence/logged-engine.ts';
import { createFileStorage } from './file-storage.ts';

export interface DurableEngineHandle {
  readonly engine: Engine;
  /** Records replayed from the file at start. */
  readonly replayed: number;
  /** Bytes of a torn final record dropped at start (a crash mid-write). */
  readonly droppedBytes: number;
  /** Rewrites the file as a snapshot now (it also happens by itself as the file grows). */
  compact(): boolean;
  /** Flushes and closes the file; call on shutdown. */
  close(): void;
}

/**
 * Opens (or creates) the data file at `path`, replays it into a fresh engine and logs every write
 * from then on.
 * @example
 * const { engine, close } = openDurableEngine({ path: '.data/engine.log' });
 * process.on('SIGTERM', close);
 */
export function openDurableEngine(options: {
  path: string;
  clock?: Clock;
  compactAfterBytes?: number;
  onError?: (error: Error) => void;
}): DurableEngineHandle {
  const durable = openDurable({
    storage: createFileStorage(options.path),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.compactAfterBytes === undefined ? {} : { compactAfterBytes: options.compactAfterBytes }),
    onError: options.onError ?? ((error) => console.warn(`[engine data file] ${error.message}`)),
  });
  return {
    engine: durable.engine,
    replayed: durable.replayed,
    droppedBytes: durable.droppedBytes,
    compact: durable.compact,
    close: durable.close,
  };
}
