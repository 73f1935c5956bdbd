/**
 * The worker runtime: a consume loop that long-polls for messages, runs at most `concurrency`
 * handlers at once, keeps the leases of every message it holds alive (a heartbeat every third of
 * the queue's visibility timeout), acks successes in batches, nacks failures with their retry
 * delay, and stops gracefully: no new polls, running handlers get `shutdownGraceMs` to finish
 * (and are acked), and whatever it fetched but did not start goes back at once (nack, delay 0),
 * so after `stop()` its consumer holds nothing and nothing waits for a lease to expire.
 *
 * Nothing here rejects unobserved: every call's failure is reported through `onError`/`onEvent`,
 * and `done` (which rejects only when the worker stops on an error no retry can fix) carries a
 * handler of its own, so leaving it unawaited is safe.
 */
import { CALL_RULES } from '../queue/rules.ts';
import { type Batcher, createBatcher } from './batcher.ts';
import { QueueApiError } from './errors.ts';
import { type Heartbeat, startHeartbeat } from './heartbeat.ts';
import { Outputs } from './outputs.ts';
import { backoffMs, DEFAULT_RETRY } from './retry.ts';
import { type RetryDelayOption, retryDelayFor } from './retry-delay.ts';
import { sleepOn, systemTimers, type Timers } from './timers.ts';
import type { AckProduce, Message, PendingEntry, QueueConfig } from './types.ts';

/** What the handler gets besides the message. */
export interface HandlerContext {
  /**
   * Aborts when the message is no longer this worker's: its lease was lost (another consumer may
   * have it), it was cancelled (cancelMessage; the reason is a MessageCancelledError, and the
   * message is acked when the handler returns), or the worker is stopping and the shutdown grace
   * ran out. Pass it to your I/O.
   */
  readonly signal: AbortSignal;
  /** Renews the lease now (the heartbeat also does); false when it was lost (the signal aborts). */
  extend(): Promise<boolean>;
  /** The consumer name this worker holds the message as. */
  readonly consumer: string;
}

/**
 * Resolve to ack the message; throw to nack it (redelivered after the retry delay). Resolve to
 * `outputs(queue, messages)` to ack it and send those results to the next queue in the same step
 * (ack-and-produce, lib/client/outputs.ts); any other value acks as before.
 */
export type Handler = (message: Message, context: HandlerContext) => unknown;

/** Where a reported error happened. */
export type WorkerErrorSource =
  | 'handler'
  | 'config'
  | 'consume'
  | 'ack'
  | 'nack'
  | 'extend'
  | 'cleanup'
  | 'hook';

export interface WorkerErrorContext {
  during: WorkerErrorSource;
  /** The message whose handler threw (during 'handler'). */
  message?: Message;
}

/** Everything a worker does, for logs and metrics. */
export type WorkerEvent =
  | { type: 'ready'; consumer: string; visibilityTimeoutMs: number; heartbeatMs: number }
  | { type: 'fetched'; ids: string[] }
  | { type: 'started'; message: Message }
  | { type: 'succeeded'; message: Message; durationMs: number }
  | {
      type: 'failed';
      message: Message;
      error: unknown;
      durationMs: number;
      /** Undefined when the queue's retry backoff (its retryBackoff config) chooses the delay. */
      retryDelayMs: number | undefined;
    }
  | { type: 'acked'; ids: string[] }
  | {
      type: 'nacked';
      ids: string[];
      /** Undefined when the queue's retry backoff chose the delay. */
      delayMs: number | undefined;
      /** failed: the handler threw; unstarted: fetched, never run (stop); abandoned: ran past the grace; orphaned: leased by an aborted poll. */
      reason: 'failed' | 'unstarted' | 'abandoned' | 'orphaned';
    }
  | { type: 'extended'; ids: string[] }
  | { type: 'lost'; ids: string[] }
  /** Cancelled (cancelMessage) while held: handlers' signals aborted; acked when they return. */
  | { type: 'cancelled'; ids: string[] }
  | { type: 'error'; error: unknown; during: WorkerErrorSource }
  | { type: 'stopping' }
  | { type: 'stopped'; error?: unknown };

export interface WorkerOptions {
  /** The consumer name; unique per running worker (default `w-<random uuid>`). */
  consumer?: string;
  /** Handlers running at once (default 1). */
  concurrency?: number;
  /**
   * Messages asked for per consume, at most 1000. The worker holds at most concurrency + batch
   * besides the finished ones whose ack is on its way: the running ones and a prefetched batch,
   * whose leases it renews too. By default it adapts, from max(concurrency, 10) up to 100, to
   * what the handlers get through in two consume round trips: quick handlers get large batches
   * (fewer requests), slow ones small (nothing hoarded that other workers could run).
   */
  batch?: number;
  /** Long poll of each consume in ms (default 5000, at most 20000). */
  waitMs?: number;
  /**
   * How long a finished message's ack waits for others to go with it, in ms (default 20; 0: the
   * next tick). Messages that finish one at a time a few ms apart then share an ack request
   * instead of one each; acks go at once when the worker stops.
   */
  ackLingerMs?: number;
  /**
   * How long the next consume waits after one that brought some messages but fewer than asked, in
   * ms (default 10; 0: at once). Such an answer drained the queue: messages produced one at a time
   * a few ms apart then share a consume instead of one each (and a long poll's wake-up each). A
   * consume that brought none, or a full batch, is followed at once, so an idle worker still
   * wakes as soon as a message arrives.
   */
  pollLingerMs?: number;
  /** Aborting it stops the worker as `stop()` does. */
  signal?: AbortSignal;
  /** How long `stop()` lets running handlers finish (default 10 s); then they are aborted and nacked. */
  shutdownGraceMs?: number;
  /** The queue's visibility timeout, if known; otherwise read from the queue's config at start. */
  visibilityTimeoutMs?: number;
  /** The nack delay of a failed message when its error names none (default: the queue's, else 0). */
  retryDelayMs?: RetryDelayOption;
  /** Handler failures and the worker's own failed calls; the worker carries on unless `done` says otherwise. */
  onError?: (error: unknown, context: WorkerErrorContext) => void;
  onEvent?: (event: WorkerEvent) => void;
  /**
   * The clock and timers of the heartbeat, the shutdown grace, backoffs and durations (default:
   * the runtime's). Tests pass manual ones to check time-driven behaviour without waiting.
   */
  timers?: Timers;
}

export interface WorkerStats {
  fetched: number;
  started: number;
  succeeded: number;
  failed: number;
  acked: number;
  nacked: number;
  /** Fetched and never started, given back when stopping. */
  returned: number;
  lost: number;
  /** Cancelled (cancelMessage) while held. */
  cancelled: number;
  running: number;
  /** Messages held now: prefetched, running, or waiting for their ack or nack. */
  held: number;
}

export interface Worker {
  readonly consumer: string;
  /** Stops gracefully (see the module comment); resolves when stopped, never rejects. Idempotent. */
  stop(): Promise<void>;
  /**
   * Settles when the worker has stopped: resolves after `stop()` or the signal, rejects with the
   * error when a call failed in a way no retry can fix (no such group, a refused token).
   */
  readonly done: Promise<void>;
  /** Counters so far. */
  stats(): WorkerStats;
}

/** The calls a worker makes; the client's GroupHandle is one. */
export interface WorkerGroup {
  readonly queue: string;
  readonly name: string;
  consume(options: {
    consumer: string;
    count: number;
    waitMs: number;
    signal?: AbortSignal;
  }): Promise<Message[]>;
  /** The worker names its consumer: only what it still holds is acked or given back. */
  ack(ids: string[], options: { consumer: string }): Promise<number>;
  /** For handlers that return outputs (a group without it nacks those messages). */
  ackAndProduce?(ids: string[], produce: AckProduce, options: { consumer: string }): Promise<unknown>;
  nack(ids: string[], options: { delayMs?: number; consumer: string }): Promise<number>;
  extend(
    consumer: string,
    ids: string[],
    options?: { signal?: AbortSignal },
  ): Promise<{ extended: string[]; lost: string[]; cancelled?: string[] }>;
  pending(range: { consumer: string; count: number }): Promise<PendingEntry[]>;
  /** The queue's config (the client reads GET /v1/queues/:queue/config). */
  queueConfig(options?: { signal?: AbortSignal }): Promise<QueueConfig>;
}

type HeldState = 'buffered' | 'running' | 'acking' | 'nacking';

interface Held {
  readonly message: Message;
  state: HeldState;
  readonly controller: AbortController;
  lost: boolean;
  /** Cancelled (cancelMessage) while held: acked once its handler returns, whatever it does. */
  cancelled?: boolean;
  /** Nacked after the shutdown grace while its handler still ran; its outcome is ignored. */
  abandoned: boolean;
  /** Resolves when the handler has returned or thrown (never rejects). */
  settled?: Promise<void>;
}

/** The largest default batch: past it, fewer requests per message save little. */
const ADAPTIVE_BATCH_MAX = 100;

/**
 * The default ack linger: with one message per produce request, a worker that acked each message
 * on its own spent a third of the API's requests on acks (bench/client.ts).
 */
const DEFAULT_ACK_LINGER_MS = 20;

/**
 * The default poll linger: with one message per produce request, a worker that consumed again at
 * once took each message in a consume of its own (bench/client.ts).
 */
const DEFAULT_POLL_LINGER_MS = 10;

/** Thrown into a handler's signal when its lease is gone. */
export class LeaseLostError extends Error {
  override name = 'LeaseLostError';
}

/** Thrown into a handler's signal when its message was cancelled (cancelMessage). */
export class MessageCancelledError extends Error {
  override name = 'MessageCancelledError';
}

/** Thrown into a handler's signal when it outran the shutdown grace. */
export class ShutdownError extends Error {
  override name = 'ShutdownError';
}

function checkInt(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`${name} must be an integer from ${min} to ${max}`);
  }
  return value;
}

/** Errors a later attempt can fix; anything else stops the worker. */
const isTransient = (error: unknown) => error instanceof QueueApiError && error.transient;

/**
 * Starts working `group` at once; see GroupHandle.work.
 * @example
 * const worker = createWorker(group, async (m) => handle(m.body), { concurrency: 8 });
 * await worker.stop();
 */
export function createWorker(group: WorkerGroup, handler: Handler, options: WorkerOptions = {}): Worker {
  const timers = options.timers ?? systemTimers;
  const sleep = (ms: number, signal?: AbortSignal) => sleepOn(timers, ms, signal);
  const consumer = options.consumer ?? `w-${crypto.randomUUID()}`;
  const concurrency = checkInt('concurrency', options.concurrency ?? 1, 1, 10_000);
  const fixedBatch =
    options.batch === undefined
      ? undefined
      : checkInt('batch', options.batch, CALL_RULES.count.min, CALL_RULES.count.max);
  const smallestBatch = fixedBatch ?? Math.min(CALL_RULES.count.max, Math.max(concurrency, 10));
  const largestBatch = fixedBatch ?? Math.max(smallestBatch, ADAPTIVE_BATCH_MAX);
  const waitMs = checkInt('waitMs', options.waitMs ?? 5000, CALL_RULES.waitMs.min, CALL_RULES.waitMs.max);
  const graceMs = checkInt('shutdownGraceMs', options.shutdownGraceMs ?? 10_000, 0, 2 ** 31 - 1);
  const ackLingerMs = checkInt('ackLingerMs', options.ackLingerMs ?? DEFAULT_ACK_LINGER_MS, 0, 60_000);
  const pollLingerMs = checkInt('pollLingerMs', options.pollLingerMs ?? DEFAULT_POLL_LINGER_MS, 0, 60_000);
  const givenVisibilityTimeoutMs =
    options.visibilityTimeoutMs === undefined
      ? undefined
      : checkInt('visibilityTimeoutMs', options.visibilityTimeoutMs, 1, 2 ** 31 - 1);
  /** Running averages (ms) of a handler's run and of a consume that brought messages. */
  let handlerMs: number | undefined;
  let pollMs: number | undefined;
  const average = (previous: number | undefined, sample: number) =>
    previous === undefined ? sample : previous + (sample - previous) * 0.2;
  /** Enough messages to keep every slot busy for two consume round trips, within the bounds. */
  const batchNow = () => {
    if (fixedBatch !== undefined || handlerMs === undefined || pollMs === undefined) return smallestBatch;
    const wanted = Math.ceil((2 * concurrency * pollMs) / Math.max(handlerMs, 0.01));
    return Math.min(largestBatch, Math.max(smallestBatch, wanted));
  };

  const held = new Map<string, Held>();
  const buffer: Held[] = [];
  let running = 0;
  /** Held messages whose handler succeeded and whose ack is on its way. */
  let acking = 0;
  const counters = {
    fetched: 0,
    started: 0,
    succeeded: 0,
    failed: 0,
    acked: 0,
    nacked: 0,
    returned: 0,
    lost: 0,
    cancelled: 0,
  };
  let config: QueueConfig | undefined;
  let heartbeat: Heartbeat | undefined;
  let stopping = false;
  let fatal: unknown;
  const stopController = new AbortController();
  let pollController: AbortController | undefined;
  let polling = false;
  /** A consume was in flight when the stop came: its answer may have leased messages nobody saw. */
  let abortedPoll = false;

  let waiters: (() => void)[] = [];
  const changed = () => new Promise<void>((resolve) => waiters.push(resolve));
  const wake = () => {
    const woken = waiters;
    waiters = [];
    for (const resolve of woken) resolve();
  };

  const emit = (event: WorkerEvent) => {
    if (options.onEvent === undefined) return;
    try {
      options.onEvent(event);
    } catch (error) {
      reportHookError(error);
    }
  };
  function reportHookError(error: unknown) {
    try {
      options.onError?.(error, { during: 'hook' });
    } catch {
      // A hook that throws about a hook that threw: nothing left to tell.
    }
  }
  const report = (error: unknown, context: WorkerErrorContext) => {
    if (context.during !== 'handler') emit({ type: 'error', error, during: context.during });
    if (options.onError === undefined) return;
    try {
      options.onError(error, context);
    } catch (hookError) {
      if (context.during !== 'hook') reportHookError(hookError);
    }
  };

  /** Forgets `id` if it is still in `state` (a redelivery to this worker may have replaced it). */
  const release = (id: string, state: HeldState) => {
    if (held.get(id)?.state !== state) return;
    held.delete(id);
    wake();
  };

  const acks: Batcher = createBatcher(
    async (ids) => {
      try {
        // Its consumer: an ack after the lease moved to another worker changes nothing.
        await group.ack(ids, { consumer });
        counters.acked += ids.length;
        emit({ type: 'acked', ids });
      } catch (error) {
        // Not acked: the messages come back after their lease, at least once as promised.
        report(error, { during: 'ack' });
      } finally {
        for (const id of ids) {
          if (held.get(id)?.state === 'acking') acking--;
          release(id, 'acking');
        }
      }
    },
    CALL_RULES.ids.max,
    timers,
    ackLingerMs,
  );

  /**
   * Acks one message with its results (not batched: each carries its own). A failure leaves it
   * held by this worker until its lease ends: then it comes back, and the repeat's results are
   * deduplicated against whatever the failed call may have sent.
   */
  const ackAndProduce = async (id: string, results: Outputs) => {
    try {
      if (group.ackAndProduce === undefined) throw new Error('this group cannot ack-and-produce');
      await group.ackAndProduce([id], { queue: results.queue, messages: results.messages }, { consumer });
      counters.acked++;
      emit({ type: 'acked', ids: [id] });
    } catch (error) {
      report(error, { during: 'ack' });
    } finally {
      if (held.get(id)?.state === 'acking') acking--;
      release(id, 'acking');
    }
  };

  const nackers = new Map<string, Batcher>();
  const nack = (id: string, delayMs: number | undefined, reason: 'failed' | 'unstarted' | 'abandoned') => {
    const key = `${delayMs ?? 'backoff'}:${reason}`;
    let batcher = nackers.get(key);
    if (batcher === undefined) {
      batcher = createBatcher(
        async (ids) => {
          try {
            await group.nack(ids, delayMs === undefined ? { consumer } : { delayMs, consumer });
            counters.nacked += ids.length;
            if (reason === 'unstarted') counters.returned += ids.length;
            emit({ type: 'nacked', ids, delayMs, reason });
          } catch (error) {
            report(error, { during: 'nack' });
          } finally {
            for (const id of ids) release(id, 'nacking');
          }
        },
        CALL_RULES.ids.max,
        timers,
      );
      nackers.set(key, batcher);
    }
    batcher.add(id);
    // One batcher per delay while it has work: a worker that names many delays keeps none of them.
    const current = batcher;
    void current.idle().then(() => {
      if (!current.busy() && nackers.get(key) === current) nackers.delete(key);
    });
  };

  const markLost = (ids: string[]) => {
    const gone: string[] = [];
    for (const id of ids) {
      const entry = held.get(id);
      // An id whose ack is on its way may read as lost once the ack landed; it is not.
      if (entry === undefined || entry.lost || (entry.state !== 'buffered' && entry.state !== 'running'))
        continue;
      entry.lost = true;
      gone.push(id);
      if (entry.state === 'buffered') {
        const at = buffer.indexOf(entry);
        if (at >= 0) buffer.splice(at, 1);
        release(id, 'buffered');
      } else {
        entry.controller.abort(new LeaseLostError(`the lease of ${id} was lost`));
      }
    }
    if (gone.length > 0) {
      counters.lost += gone.length;
      emit({ type: 'lost', ids: gone });
    }
  };

  // Cancelled while held: a buffered one is acked unstarted, a running one's signal aborts and it
  // is acked when its handler returns (a cancelled message is done; the service accepts its ack).
  const markCancelled = (ids: string[]) => {
    const hit: string[] = [];
    for (const id of ids) {
      const entry = held.get(id);
      if (entry === undefined || entry.lost || entry.cancelled === true) continue;
      if (entry.state !== 'buffered' && entry.state !== 'running') continue;
      entry.cancelled = true;
      hit.push(id);
      if (entry.state === 'buffered') {
        const at = buffer.indexOf(entry);
        if (at >= 0) buffer.splice(at, 1);
        entry.state = 'acking';
        acking++;
        acks.add(id);
      } else {
        entry.controller.abort(new MessageCancelledError(`message ${id} was cancelled`));
      }
    }
    if (hit.length > 0) {
      counters.cancelled += hit.length;
      emit({ type: 'cancelled', ids: hit });
    }
  };

  const extendOne = async (entry: Held): Promise<boolean> => {
    if (entry.lost || entry.cancelled === true) return false;
    const { lost, cancelled = [] } = await group.extend(consumer, [entry.message.id]);
    if (lost.includes(entry.message.id)) markLost([entry.message.id]);
    if (cancelled.includes(entry.message.id)) markCancelled([entry.message.id]);
    return !(entry.lost || entry.cancelled);
  };

  const runHandler = async (entry: Held) => {
    const { message } = entry;
    const started = timers.now();
    let failure: { error: unknown } | undefined;
    let results: Outputs | undefined;
    try {
      const returned = await handler(message, {
        signal: entry.controller.signal,
        consumer,
        extend: () => extendOne(entry),
      });
      if (returned instanceof Outputs) results = returned;
    } catch (error) {
      failure = { error };
    }
    running--;
    const elapsed = timers.now() - started;
    const durationMs = Math.round(elapsed);
    handlerMs = average(handlerMs, elapsed);
    if (entry.abandoned) return;
    if (entry.lost) {
      // Someone else may hold it now: neither ack nor nack what is not ours.
      release(message.id, 'running');
    } else if (entry.cancelled === true) {
      entry.state = 'acking';
      acking++;
      acks.add(message.id);
    } else if (failure === undefined && results !== undefined) {
      counters.succeeded++;
      emit({ type: 'succeeded', message, durationMs });
      entry.state = 'acking';
      acking++;
      void ackAndProduce(message.id, results);
    } else if (failure === undefined) {
      counters.succeeded++;
      emit({ type: 'succeeded', message, durationMs });
      entry.state = 'acking';
      acking++;
      acks.add(message.id);
    } else {
      counters.failed++;
      let retryDelayMs: number | undefined = 0;
      try {
        retryDelayMs = retryDelayFor(failure.error, message, options.retryDelayMs, config);
      } catch (error) {
        // A retryDelayMs function that throws: retry at once rather than lose the nack.
        report(error, { during: 'hook' });
      }
      emit({ type: 'failed', message, error: failure.error, durationMs, retryDelayMs });
      report(failure.error, { during: 'handler', message });
      entry.state = 'nacking';
      nack(message.id, retryDelayMs, 'failed');
    }
    pump();
    wake();
  };

  const pump = () => {
    while (!stopping && running < concurrency && buffer.length > 0) {
      const entry = buffer.shift() as Held;
      entry.state = 'running';
      running++;
      counters.started++;
      emit({ type: 'started', message: entry.message });
      entry.settled = runHandler(entry).catch((error: unknown) => report(error, { during: 'hook' }));
    }
  };

  const renewable = () => {
    const ids: string[] = [];
    for (const [id, entry] of held) if (!entry.lost && entry.state !== 'nacking') ids.push(id);
    return ids;
  };

  /** Reads the visibility timeout, retrying transient failures until it works or the worker stops. */
  const prepare = async (): Promise<number | undefined> => {
    if (givenVisibilityTimeoutMs !== undefined) return givenVisibilityTimeoutMs;
    for (let failures = 1; !stopping; failures++) {
      try {
        config = await group.queueConfig({ signal: stopController.signal });
        return config.visibilityTimeoutMs;
      } catch (error) {
        if (stopping) return undefined;
        report(error, { during: 'config' });
        if (!isTransient(error)) {
          fatal = error;
          return undefined;
        }
        await sleep(backoffMs(DEFAULT_RETRY, failures), stopController.signal);
      }
    }
    return undefined;
  };

  const pollLoop = async () => {
    let failures = 0;
    while (!stopping) {
      // Finished messages whose ack is on its way take no room: acks are batched on their own.
      const batch = batchNow();
      const room = concurrency + batch - (held.size - acking);
      if (room < batch && !(buffer.length === 0 && room > 0)) {
        await changed();
        continue;
      }
      pollController = new AbortController();
      polling = true;
      let messages: Message[];
      const pollStarted = timers.now();
      const count = Math.min(batch, room);
      try {
        messages = await group.consume({
          consumer,
          count,
          waitMs,
          signal: pollController.signal,
        });
        failures = 0;
      } catch (error) {
        if (stopping) break;
        report(error, { during: 'consume' });
        if (!isTransient(error)) {
          fatal = error;
          break;
        }
        failures++;
        await sleep(backoffMs(DEFAULT_RETRY, failures), stopController.signal);
        continue;
      } finally {
        polling = false;
      }
      if (messages.length > 0) pollMs = average(pollMs, timers.now() - pollStarted);
      counters.fetched += messages.length;
      emit({ type: 'fetched', ids: messages.map((message) => message.id) });
      for (const message of messages) {
        // Delivered again while this worker still holds it (its lease lapsed, the same consumer
        // took it back): the new lease is ours, the running handler goes on, no second one starts.
        const state = held.get(message.id)?.state;
        if (state === 'buffered' || state === 'running' || state === 'acking') continue;
        const entry: Held = {
          message,
          state: 'buffered',
          controller: new AbortController(),
          lost: false,
          abandoned: false,
        };
        held.set(message.id, entry);
        buffer.push(entry);
      }
      // After stop these stay buffered, and the shutdown gives them back.
      pump();
      // A short answer drained the queue: let the next messages gather for one consume.
      if (pollLingerMs > 0 && messages.length > 0 && messages.length < count && !stopping) {
        await sleep(pollLingerMs, stopController.signal);
      }
    }
  };

  /** Nacks what this consumer holds leased but the worker never saw: the answer of an aborted poll. */
  const releaseOrphans = async () => {
    try {
      const entries = await group.pending({ consumer, count: CALL_RULES.count.max });
      const orphans = entries.filter((e) => e.state === 'leased' && !held.has(e.id)).map((e) => e.id);
      if (orphans.length === 0) return;
      await group.nack(orphans, { delayMs: 0, consumer });
      counters.nacked += orphans.length;
      emit({ type: 'nacked', ids: orphans, delayMs: 0, reason: 'orphaned' });
    } catch (error) {
      report(error, { during: 'cleanup' });
    }
  };

  const settleAll = async () => {
    for (;;) {
      await acks.idle();
      await Promise.all([...nackers.values()].map((batcher) => batcher.idle()));
      if (held.size === 0) return;
      await changed();
    }
  };

  let beginStop: () => void = () => {};
  const stopRequested = new Promise<void>((resolve) => {
    beginStop = resolve;
  });
  const requestStop = () => {
    if (!stopping && polling) abortedPoll = true;
    stopping = true;
    // From here acks go without lingering: stop() waits for them.
    acks.flush();
    pollController?.abort();
    stopController.abort();
    wake();
    beginStop();
  };

  const lifecycle = async (): Promise<void> => {
    const visibilityTimeoutMs = await prepare();
    let loop: Promise<void> = Promise.resolve();
    if (visibilityTimeoutMs !== undefined && !stopping) {
      const heartbeatMs = Math.max(1, Math.floor(visibilityTimeoutMs / 3));
      heartbeat = startHeartbeat({
        intervalMs: heartbeatMs,
        held: renewable,
        extend: (ids, signal) => group.extend(consumer, ids, { signal }),
        onExtended: (ids) => emit({ type: 'extended', ids }),
        onLost: markLost,
        onCancelled: markCancelled,
        onError: (error) => report(error, { during: 'extend' }),
        timers,
      });
      emit({ type: 'ready', consumer, visibilityTimeoutMs, heartbeatMs });
      loop = pollLoop();
    }
    // A fatal failure stops the worker as stop() would.
    await Promise.race([stopRequested, loop]);
    requestStop();
    emit({ type: 'stopping' });
    await loop;

    for (const entry of buffer.splice(0)) {
      entry.state = 'nacking';
      nack(entry.message.id, 0, 'unstarted');
    }
    const runningNow = [...held.values()].filter((entry) => entry.state === 'running');
    if (runningNow.length > 0) {
      const graceOver = new AbortController();
      await Promise.race([
        Promise.all(runningNow.map((entry) => entry.settled)),
        sleep(graceMs, graceOver.signal),
      ]);
      graceOver.abort();
      for (const entry of [...held.values()]) {
        if (entry.state !== 'running') continue;
        entry.abandoned = true;
        if (entry.lost) {
          release(entry.message.id, 'running');
          continue;
        }
        entry.state = 'nacking';
        entry.controller.abort(new ShutdownError(`still running after the ${graceMs} ms shutdown grace`));
        nack(entry.message.id, 0, 'abandoned');
      }
    }
    await settleAll();
    heartbeat?.stop();
    if (abortedPoll) await releaseOrphans();
  };

  const finished = lifecycle().then(
    () => {
      emit(fatal === undefined ? { type: 'stopped' } : { type: 'stopped', error: fatal });
    },
    (error: unknown) => {
      // A bug in this file, not a failed call: still settle, and say what happened.
      fatal ??= error;
      heartbeat?.stop();
      emit({ type: 'stopped', error });
    },
  );
  const done = finished.then(() => {
    if (fatal !== undefined) throw fatal;
  });
  // Unawaited `done` must not become an unhandled rejection; awaiting it still sees the error.
  done.catch(() => undefined);

  const stop = () => {
    requestStop();
    return finished;
  };
  if (options.signal !== undefined) {
    if (options.signal.aborted) void stop();
    else options.signal.addEventListener('abort', () => void stop(), { once: true });
  }

  return {
    consumer,
    stop,
    done,
    stats: () => ({ ...counters, running, held: held.size }),
  };
}
