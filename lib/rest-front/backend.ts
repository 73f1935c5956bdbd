/**
 * The seam between the REST front and whatever executes commands: the in-memory engine or a real
 * Redis over TCP. Replies use the engine's RESP2-shaped `Reply` values, so the front renders every
 * backend identically.
 */
import type { RedisError, Reply } from '../engine/reply.ts';

export interface CallOptions {
  /**
   * Aborted when the HTTP client goes away. A backend that can should then drop a blocked call
   * without delivering anything, as Redis does for a client that disconnects while blocked.
   */
  readonly signal?: AbortSignal;
}

export interface Backend {
  /**
   * Runs one command as a client connection would. Redis errors resolve as `RedisError` values;
   * a rejection means the backend itself failed (for example a lost TCP connection).
   * Implementations start executing synchronously, so calls issued in order run in order.
   */
  call(argv: string[], options?: CallOptions): Promise<Reply>;
  /**
   * MULTI/EXEC in one atomic step: the per-command replies (errors included), or a single
   * `RedisError` when the whole transaction was refused (EXECABORT).
   */
  exec(commands: string[][]): Promise<Reply[] | RedisError>;
}
