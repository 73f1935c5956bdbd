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

/**
 * The calls of one tick, as parallel arrays: call i has id `ids[i]` and runs `argvs[i]`, or, where
 * that is null, withdraws the blocking read with that id (as a Redis client that disconnects while
 * blocked). `blocking` lists the ids of blocking reads, answered when data arrives, their time
 * passes or they are withdrawn; every other call is a script call, answered at once. Arrays
 * rather than an object per call: a structured clone writes each object's property names.
 */
export interface EngineCalls {
  readonly ids: readonly number[];
  readonly argvs: readonly (readonly string[] | null)[];
  readonly blocking?: readonly number[];
}

export type ToEngine = { readonly calls: EngineCalls } | { readonly close: true };

/** Why a call failed; `reply`: Redis answered with this error (RedisReplyError), else the engine failed. */
export interface EngineFailure {
  /** The index of the failed call in `ids` (its value there is null). */
  readonly at: number;
  readonly error: string;
  readonly reply: boolean;
}

/** Answers, as parallel arrays: call `ids[i]` answered `values[i]`, but for those in `failures`. */
export interface EngineAnswers {
  readonly ids: readonly number[];
  readonly values: readonly RedisValue[];
  /** In the order of `at`; absent when every call succeeded. */
  readonly failures?: readonly EngineFailure[];
}

export type FromEngine =
  | { readonly ready: true; readonly replayed: number }
  | { readonly failed: string }
  | { readonly answers: EngineAnswers }
  | { readonly closed: true };
