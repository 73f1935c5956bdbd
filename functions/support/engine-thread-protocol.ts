/**
 * The messages between the API's thread and the local engine's own thread
 * (engine-thread.ts, engine-thread-worker.ts). Calls travel in batches, one message per tick each
 * way: a message costs more than the argv it carries.
 */
import type { RedisValue } from '../../lib/redis/client.ts';

/** What the engine thread is started with (its `workerData`). */
export interface EngineThreadData {
  /** The append-only data file to replay and keep (ENGINE_DATA_FILE); none for memory only. */
  readonly dataFile: string | undefined;
}

/** A command for the engine: a script call (answered at once) or a blocking read. */
export interface EngineCall {
  readonly id: number;
  readonly argv: readonly string[];
  /** A blocking read: answered when data arrives, its time passes or it is cancelled. */
  readonly blocking?: true;
}

/** Withdraws a blocking read, as a Redis client that disconnects while blocked. */
export interface EngineCancel {
  readonly id: number;
  readonly cancel: true;
}

export type ToEngine = { readonly calls: readonly (EngineCall | EngineCancel)[] } | { readonly close: true };

export type EngineAnswer =
  | { readonly id: number; readonly value: RedisValue }
  /** `reply`: Redis answered with this error (RedisReplyError); else the engine failed. */
  | { readonly id: number; readonly error: string; readonly reply: boolean };

export type FromEngine =
  | { readonly ready: true; readonly replayed: number }
  | { readonly failed: string }
  | { readonly answers: readonly EngineAnswer[] }
  | { readonly closed: true };
