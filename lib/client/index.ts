/**
 * The client's public surface (the package `edge-stream-queue-client`, and `edge-stream-queue/client`
 * in this repository): a typed fetch client for the API, a worker runtime, a cron-driven drain, and
 * the one error type. Runtime-agnostic: fetch, AbortSignal and timers only, so it runs in Workers,
 * Deno, browsers and Node 20.
 */
export {
  type CallOptions,
  createQueueClient,
  type DlqHandle,
  type GroupHandle,
  type QueueClient,
  type QueueClientOptions,
  type QueueHandle,
  type ScheduleHandle,
} from './client.ts';
export type { DrainOptions, DrainReport } from './drain.ts';
export {
  ClientErrorCode,
  isApiError,
  QueueApiError,
  type QueueApiErrorCode,
} from './errors.ts';
export {
  type AckAndProduceResult,
  type DeliveredMessage,
  Outputs,
  outputs,
} from './outputs.ts';
export { DEFAULT_RETRY, type RetryPolicy } from './retry.ts';
export type { RetryDelayOption } from './retry-delay.ts';
export { systemTimers, type Timers } from './timers.ts';
export type { FetchLike, FetchResponse } from './transport.ts';
export type * from './types.ts';
export {
  type Handler,
  type HandlerContext,
  LeaseLostError,
  MessageCancelledError,
  ShutdownError,
  type Worker,
  type WorkerErrorContext,
  type WorkerErrorSource,
  type WorkerEvent,
  type WorkerOptions,
  type WorkerStats,
} from './worker.ts';
