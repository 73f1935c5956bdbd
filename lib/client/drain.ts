/**
 * `drain`: work a group for a fixed time, then stop as `Worker.stop` does. For cron invocations
 * on Workers and Deno Deploy, where no process lives between runs: each invocation takes what it
 * can within its budget and leaves nothing leased behind.
 */
import { CALL_RULES } from '../queue/rules.ts';
import { systemTimers } from './timers.ts';
import { createWorker, type Handler, type WorkerGroup, type WorkerOptions } from './worker.ts';

export interface DrainOptions extends WorkerOptions {
  /** How long to fetch and start messages, in ms; running handlers then get `shutdownGraceMs`. */
  budgetMs: number;
  /**
   * Stop as soon as a poll comes back empty and nothing is in hand, instead of waiting out the
   * budget (polls then default to no wait).
   */
  stopWhenEmpty?: boolean;
}

export interface DrainReport {
  /** Handlers that finished, either way. */
  processed: number;
  acked: number;
  /** Handlers that threw (their messages were nacked for a retry). */
  failed: number;
  /** Fetched but not started before the budget ran out: given back at once. */
  returned: number;
  /** Messages whose lease was lost while held. */
  lost: number;
  /** What ended it. */
  stoppedBy: 'budget' | 'empty' | 'signal';
  durationMs: number;
}

/**
 * Runs a worker for `budgetMs` and reports what it did. Rejects only when the worker could not
 * work at all (no such group, a refused token): the error of `Worker.done`.
 * @example
 * export default {
 *   async scheduled(_event, env, ctx) {
 *     const group = createQueueClient({ url: env.QUEUE_URL, token: env.QUEUE_TOKEN }).queue('emails').group('senders');
 *     ctx.waitUntil(group.drain(sendEmail, { budgetMs: 20_000, concurrency: 10 }));
 *   },
 * };
 */
export async function runDrain(
  group: WorkerGroup,
  handler: Handler,
  options: DrainOptions,
): Promise<DrainReport> {
  const { budgetMs, stopWhenEmpty, ...workerOptions } = options;
  if (!Number.isInteger(budgetMs) || budgetMs < 0)
    throw new RangeError('budgetMs must be a non-negative integer');
  const timers = workerOptions.timers ?? systemTimers;
  const started = timers.now();
  let stoppedBy: DrainReport['stoppedBy'] = 'budget';
  const userEvent = workerOptions.onEvent;
  const worker = createWorker(group, handler, {
    ...workerOptions,
    // A poll longer than the whole budget would only be aborted; one that is to end the run when
    // it comes back empty should not wait first.
    waitMs: Math.min(
      workerOptions.waitMs ?? (stopWhenEmpty === true ? 0 : 5000),
      Math.max(budgetMs, CALL_RULES.waitMs.min),
    ),
    onEvent: (event) => {
      if (stopWhenEmpty === true && event.type === 'fetched' && event.ids.length === 0) {
        if (worker.stats().held === 0) {
          stoppedBy = 'empty';
          void worker.stop();
        }
      }
      userEvent?.(event);
    },
  });
  const timer = timers.setTimeout(() => void worker.stop(), budgetMs);
  const onAbort = () => {
    stoppedBy = 'signal';
  };
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    await worker.done;
  } finally {
    timers.clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  }
  const stats = worker.stats();
  return {
    processed: stats.succeeded + stats.failed,
    acked: stats.acked,
    failed: stats.failed,
    returned: stats.returned,
    lost: stats.lost,
    stoppedBy,
    durationMs: Math.round(timers.now() - started),
  };
}
