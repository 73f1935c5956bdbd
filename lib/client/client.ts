/**
 * The typed HTTP client: one method per API route, grouped as the API is (client → queue →
 * group, and the queue's dead letters), answers typed by the API's own schemas. Each call knows
 * whether it is safe to repeat, so the transport retries only those (produce only when every
 * message has a dedupId). `group.work` and `group.drain` run handlers on top of it.
 */
import { type DrainOptions, type DrainReport, runDrain } from './drain.ts';
import { isApiError, type QueueApiError } from './errors.ts';
import { type RetryPolicy, resolveRetryPolicy } from './retry.ts';
import { createTransport, type FetchLike, type Transport } from './transport.ts';
import type {
  ConsumeOptions,
  DeadLetterPage,
  DlqListOptions,
  GroupCreateOptions,
  HealthReport,
  Message,
  MessageInput,
  PendingEntry,
  PendingRangeOptions,
  PendingSummary,
  QueueConfig,
  QueueConfigPatch,
  QueueStats,
  ReclaimOptions,
  ReclaimResult,
  RedriveSelection,
  SweepOptions,
  SweepReport,
} from './types.ts';
import { createWorker, type Handler, type Worker, type WorkerGroup, type WorkerOptions } from './worker.ts';

export interface QueueClientOptions {
  /** The API's base URL, e.g. https://queue.example.com. */
  url: string;
  /** A token from API_TOKENS (its scope decides which calls succeed). */
  token?: string;
  /** Defaults to the global fetch; pass a service binding's fetch on Workers. */
  fetch?: FetchLike;
  /**
   * Each attempt's time limit in ms (default 15 s, beyond the service's own 10 s request budget,
   * so its 503 arrives first); a long poll adds its waitMs.
   */
  timeoutMs?: number;
  /** Retries of safe calls on network errors, 429 and 503 (default 5 attempts within 30 s); false: none. */
  retry?: Partial<RetryPolicy> | false;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /** Told before each retry's wait: the failure, which retry comes (1-based) and the wait in ms. */
  onRetry?: (error: QueueApiError, retry: number, waitMs: number) => void;
}

/** What every call accepts besides its own arguments. */
export interface CallOptions {
  /** Aborts the call until its answer starts to arrive (and any wait between retries). */
  signal?: AbortSignal;
}

export interface QueueClient {
  queue(name: string): QueueHandle;
  /** Every queue with its stats. */
  queues(options?: CallOptions): Promise<QueueStats[]>;
  /** Runs the sweep now, as the cron does (admin). */
  sweep(options?: SweepOptions & CallOptions): Promise<SweepReport>;
  /** Whether the service and its Redis answer (GET /healthz, no token needed). */
  health(options?: CallOptions): Promise<HealthReport>;
}

export interface QueueHandle {
  readonly name: string;
  /** Creates the queue or changes its config; answers the whole config (admin). */
  configure(patch?: QueueConfigPatch, options?: CallOptions): Promise<QueueConfig>;
  /** The whole config, defaults filled in (consume); QUEUE_NOT_FOUND when there is no such queue. */
  config(options?: CallOptions): Promise<QueueConfig>;
  /**
   * Ids in input order, all or nothing (1-1000 messages). Retried after a failure that may have
   * been applied only when every message has a dedupId.
   */
  produce(messages: MessageInput[], options?: CallOptions): Promise<string[]>;
  /** Entries between two ids, oldest first (admin). */
  browse(range?: { start?: string; end?: string; count?: number } & CallOptions): Promise<Message[]>;
  stats(options?: CallOptions): Promise<QueueStats>;
  /** Removes the queue and all its keys; false when it did not exist (admin). */
  delete(options?: CallOptions): Promise<boolean>;
  readonly dlq: DlqHandle;
  group(name: string): GroupHandle;
}

export interface DlqHandle {
  list(options?: DlqListOptions & CallOptions): Promise<DeadLetterPage>;
  /** Puts dead letters back as new messages; answers how many went back. */
  redrive(selection: string[] | { all: true }, options?: CallOptions): Promise<number>;
  /** Deletes every dead letter; answers how many. */
  purge(options?: CallOptions): Promise<number>;
}

export interface GroupHandle {
  readonly queue: string;
  readonly name: string;
  /** Creates the group (default start "$": new messages only); false when it existed (unchanged). */
  create(options?: GroupCreateOptions & CallOptions): Promise<boolean>;
  /** Removes the group; false when it did not exist. */
  delete(options?: CallOptions): Promise<boolean>;
  /** Leases up to `count` messages (default 10), long-polling up to `waitMs` (default 0). */
  consume(options: ConsumeOptions & CallOptions): Promise<Message[]>;
  /** Answers how many were acked now (repeats and unknown ids count 0). */
  ack(ids: string[], options?: CallOptions): Promise<number>;
  /** Gives messages back for redelivery after `delayMs` (default 0); answers how many. */
  nack(ids: string[], options?: { delayMs?: number } & CallOptions): Promise<number>;
  /** Renews the leases `consumer` still holds; the rest are `lost`. */
  extend(
    consumer: string,
    ids: string[],
    options?: CallOptions,
  ): Promise<{ extended: string[]; lost: string[] }>;
  /** Takes over messages idle at least `minIdleMs` (XAUTOCLAIM); pass `cursor` back until "0-0". */
  reclaim(options: ReclaimOptions & CallOptions): Promise<ReclaimResult>;
  /** The pending summary: count, id range, per consumer counts. */
  pending(): Promise<PendingSummary>;
  /** The pending entries in a range (default all, 100 at most), optionally of one consumer. */
  pending(range: PendingRangeOptions & CallOptions): Promise<PendingEntry[]>;
  /**
   * Runs `handler` on every message the group delivers until stopped: long polls, at most
   * `concurrency` handlers at once, renews leases while handlers run, acks on success, nacks on a
   * throw. Handlers must be idempotent: delivery is at least once.
   * @example
   * const worker = group.work(async (message, { signal }) => { await ship(message.body, { signal }); });
   * process.on('SIGTERM', () => void worker.stop());
   */
  work(handler: Handler, options?: WorkerOptions): Worker;
  /** Works the group for `budgetMs`, then stops as `Worker.stop` does: for a cron invocation. */
  drain(handler: Handler, options: DrainOptions): Promise<DrainReport>;
}

const segment = encodeURIComponent;

const signalOf = (options: CallOptions | undefined) =>
  options?.signal === undefined ? {} : { signal: options.signal };

/**
 * @example
 * const client = createQueueClient({ url: 'https://queue.example.com', token: env.QUEUE_TOKEN });
 * const ids = await client.queue('orders').produce([{ body: { sku: 42 }, dedupId: 'order-42' }]);
 */
export function createQueueClient(options: QueueClientOptions): QueueClient {
  const transport: Transport = createTransport({
    url: options.url,
    ...(options.token === undefined ? {} : { token: options.token }),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    ...(options.headers === undefined ? {} : { headers: options.headers }),
    ...(options.onRetry === undefined ? {} : { onRetry: options.onRetry }),
    timeoutMs: options.timeoutMs ?? 15_000,
    retry: resolveRetryPolicy(options.retry),
  });

  function group(queue: string, name: string, readConfig: QueueHandle['config']): GroupHandle {
    const base = `/v1/queues/${segment(queue)}/groups/${segment(name)}`;
    const pendingRange = async (range: PendingRangeOptions & CallOptions): Promise<PendingEntry[]> => {
      const { signal: _signal, ...query } = range;
      // Any range field makes the route answer entries; start makes it so even for {}.
      const answer = await transport.call<{ entries: PendingEntry[] }>({
        method: 'GET',
        path: `${base}/pending`,
        query: { start: '-', ...query },
        safe: true,
        ...signalOf(range),
      });
      return answer.entries;
    };
    function pending(): Promise<PendingSummary>;
    function pending(range: PendingRangeOptions & CallOptions): Promise<PendingEntry[]>;
    function pending(range?: PendingRangeOptions & CallOptions): Promise<PendingSummary | PendingEntry[]> {
      if (range !== undefined) return pendingRange(range);
      return transport.call<PendingSummary>({ method: 'GET', path: `${base}/pending`, safe: true });
    }

    const handle: GroupHandle = {
      queue,
      name,
      async create(createOptions) {
        const answer = await transport.call<{ created: boolean }>({
          method: 'PUT',
          path: base,
          body: { start: createOptions?.start ?? '$' },
          safe: true,
          ...signalOf(createOptions),
        });
        return answer.created;
      },
      async delete(callOptions) {
        try {
          await transport.call({ method: 'DELETE', path: base, safe: false, ...signalOf(callOptions) });
          return true;
        } catch (error) {
          if (isApiError(error, 'GROUP_NOT_FOUND')) return false;
          throw error;
        }
      },
      async consume(consumeOptions) {
        const { signal: _signal, ...body } = consumeOptions;
        const answer = await transport.call<{ messages: Message[] }>({
          method: 'POST',
          path: `${base}/consume`,
          body,
          safe: true,
          serverWaitMs: body.waitMs ?? 0,
          ...signalOf(consumeOptions),
        });
        return answer.messages;
      },
      async ack(ids, callOptions) {
        const answer = await transport.call<{ acked: number }>({
          method: 'POST',
          path: `${base}/ack`,
          body: { ids },
          safe: true,
          ...signalOf(callOptions),
        });
        return answer.acked;
      },
      async nack(ids, nackOptions) {
        const answer = await transport.call<{ requeued: number }>({
          method: 'POST',
          path: `${base}/nack`,
          body: nackOptions?.delayMs === undefined ? { ids } : { ids, delayMs: nackOptions.delayMs },
          safe: true,
          ...signalOf(nackOptions),
        });
        return answer.requeued;
      },
      extend(consumer, ids, callOptions) {
        return transport.call<{ extended: string[]; lost: string[] }>({
          method: 'POST',
          path: `${base}/extend`,
          body: { consumer, ids },
          safe: true,
          ...signalOf(callOptions),
        });
      },
      reclaim(reclaimOptions) {
        const { signal: _signal, ...body } = reclaimOptions;
        return transport.call<ReclaimResult>({
          method: 'POST',
          path: `${base}/reclaim`,
          body,
          safe: true,
          ...signalOf(reclaimOptions),
        });
      },
      pending,
      work(handler, workerOptions) {
        return createWorker(workerGroup, handler, workerOptions);
      },
      drain(handler, drainOptions) {
        return runDrain(workerGroup, handler, drainOptions);
      },
    };
    const workerGroup: WorkerGroup = {
      queue,
      name,
      consume: handle.consume,
      ack: handle.ack,
      nack: handle.nack,
      extend: handle.extend,
      pending: pendingRange,
      queueConfig: readConfig,
    };
    return handle;
  }

  function queue(name: string): QueueHandle {
    const base = `/v1/queues/${segment(name)}`;
    const config: QueueHandle['config'] = (callOptions) =>
      transport.call<QueueConfig>({
        method: 'GET',
        path: `${base}/config`,
        safe: true,
        ...signalOf(callOptions),
      });
    return {
      name,
      configure(patch, callOptions) {
        return transport.call<QueueConfig>({
          method: 'PUT',
          path: base,
          body: patch ?? {},
          safe: true,
          ...signalOf(callOptions),
        });
      },
      config,
      async produce(messages, callOptions) {
        const answer = await transport.call<{ ids: string[] }>({
          method: 'POST',
          path: `${base}/messages`,
          body: { messages },
          safe: messages.length > 0 && messages.every((message) => message.dedupId !== undefined),
          unsafeHint: 'give every message a dedupId to make produce safe to retry',
          ...signalOf(callOptions),
        });
        return answer.ids;
      },
      async browse(range) {
        const { signal: _signal, ...query } = range ?? {};
        const answer = await transport.call<{ messages: Message[] }>({
          method: 'GET',
          path: `${base}/messages`,
          query,
          safe: true,
          ...signalOf(range),
        });
        return answer.messages;
      },
      stats(callOptions) {
        return transport.call<QueueStats>({
          method: 'GET',
          path: base,
          safe: true,
          ...signalOf(callOptions),
        });
      },
      async delete(callOptions) {
        try {
          await transport.call({ method: 'DELETE', path: base, safe: false, ...signalOf(callOptions) });
          return true;
        } catch (error) {
          if (isApiError(error, 'QUEUE_NOT_FOUND')) return false;
          throw error;
        }
      },
      dlq: {
        list(listOptions) {
          const { signal: _signal, ...query } = listOptions ?? {};
          return transport.call<DeadLetterPage>({
            method: 'GET',
            path: `${base}/dlq`,
            query,
            safe: true,
            ...signalOf(listOptions),
          });
        },
        async redrive(selection, callOptions) {
          const body: RedriveSelection = Array.isArray(selection) ? { ids: selection } : { all: true };
          const answer = await transport.call<{ redriven: number }>({
            method: 'POST',
            path: `${base}/dlq/redrive`,
            body,
            safe: false,
            ...signalOf(callOptions),
          });
          return answer.redriven;
        },
        async purge(callOptions) {
          const answer = await transport.call<{ purged: number }>({
            method: 'DELETE',
            path: `${base}/dlq`,
            safe: false,
            ...signalOf(callOptions),
          });
          return answer.purged;
        },
      },
      group: (groupName) => group(name, groupName, config),
    };
  }

  return {
    queue,
    async queues(callOptions) {
      const answer = await transport.call<{ queues: QueueStats[] }>({
        method: 'GET',
        path: '/v1/queues',
        safe: true,
        ...signalOf(callOptions),
      });
      return answer.queues;
    },
    sweep(sweepOptions) {
      const { signal: _signal, ...body } = sweepOptions ?? {};
      return transport.call<SweepReport>({
        method: 'POST',
        path: '/v1/sweep',
        body,
        safe: true,
        ...signalOf(sweepOptions),
      });
    },
    health(callOptions) {
      return transport.call<HealthReport>({
        method: 'GET',
        path: '/healthz',
        safe: true,
        ...signalOf(callOptions),
      });
    },
  };
}
