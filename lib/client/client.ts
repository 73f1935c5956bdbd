/**
 * The typed HTTP client: one method per API operation, grouped as the API is (client → queue →
 * group, and the queue's dead letters and schedules). Methods, paths and answer types come from
 * the route table the API itself is built from (lib/api/operations.ts), never spelled here. Each
 * call knows whether it is safe to repeat, so the transport retries only those (produce only when
 * every message has a dedupId). `group.work` and `group.drain` run handlers on top of it.
 */
import type { OperationAnswer, OperationId } from '../api/operations.ts';
import { type DrainOptions, type DrainReport, runDrain } from './drain.ts';
import { isApiError, type QueueApiError, type QueueApiErrorCode } from './errors.ts';
import { callOperation, type OperationCall } from './operation.ts';
import { type AckAndProduceResult, type DeliveredMessage, delivered } from './outputs.ts';
import { type RetryPolicy, resolveRetryPolicy } from './retry.ts';
import { createTransport, type FetchLike, type Transport } from './transport.ts';
import type {
  AckProduce,
  CancelResult,
  ConsumeOptions,
  DeadLetterPage,
  DlqListOptions,
  GroupCreateOptions,
  GroupPaused,
  HealthReport,
  Message,
  MessageInput,
  MessageLookup,
  PendingEntry,
  PendingRangeOptions,
  PendingSummary,
  QueueConfig,
  QueueConfigPatch,
  QueuePaused,
  QueueStats,
  ReclaimOptions,
  ReclaimResult,
  Schedule,
  ScheduleInput,
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
  /**
   * Asked before each retry the policy allows; false ends the call with that error. A command line
   * may give up at once on a refused connection (`error.code === 'NETWORK_ERROR' &&
   * !error.mayHaveBeenApplied`), where a worker would rather wait for the service to come back.
   */
  shouldRetry?: (error: QueueApiError) => boolean;
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
  /** One message by id (or a delayed-<n> token, or a dead letter id) and where it is (admin). */
  message(id: string, options?: CallOptions): Promise<MessageLookup>;
  /**
   * Cancels one message (an id or a delayed-<n> token) for every group: a waiting or delayed one is
   * never delivered, one in flight is not delivered again and its worker's signal aborts at its next
   * heartbeat (produce). Idempotent; MESSAGE_NOT_FOUND for an id the queue does not have.
   */
  cancelMessage(id: string, options?: CallOptions): Promise<CancelResult>;
  stats(options?: CallOptions): Promise<QueueStats>;
  /** Removes the queue and all its keys; false when it did not exist (admin). */
  delete(options?: CallOptions): Promise<boolean>;
  /** Stops delivery to every group until `resume`; produce, ack and the sweep go on (admin). */
  pause(options?: CallOptions): Promise<QueuePaused>;
  resume(options?: CallOptions): Promise<QueuePaused>;
  readonly dlq: DlqHandle;
  readonly schedules: ScheduleHandle;
  group(name: string): GroupHandle;
}

export interface DlqHandle {
  list(options?: DlqListOptions & CallOptions): Promise<DeadLetterPage>;
  /** Puts dead letters back as new messages; answers how many went back. */
  redrive(selection: string[] | { all: true }, options?: CallOptions): Promise<number>;
  /** Deletes every dead letter; answers how many. */
  purge(options?: CallOptions): Promise<number>;
}

/** Recurring schedules: the sweep enqueues each one's message at every occurrence (admin). */
export interface ScheduleHandle {
  /** Creates the schedule `name`, or replaces it (it then starts afresh). */
  set(name: string, schedule: ScheduleInput, options?: CallOptions): Promise<Schedule>;
  list(options?: CallOptions): Promise<Schedule[]>;
  /** Removes the schedule; false when there was none of that name. */
  delete(name: string, options?: CallOptions): Promise<boolean>;
}

export interface GroupHandle {
  readonly queue: string;
  readonly name: string;
  /** Creates the group (default start "$": new messages only); false when it existed (unchanged). */
  create(options?: GroupCreateOptions & CallOptions): Promise<boolean>;
  /** Removes the group; false when it did not exist. */
  delete(options?: CallOptions): Promise<boolean>;
  /** Stops delivery to this group until `resume`; other groups go on (admin). */
  pause(options?: CallOptions): Promise<GroupPaused>;
  resume(options?: CallOptions): Promise<GroupPaused>;
  /** Leases up to `count` messages (default 10), long-polling up to `waitMs` (default 0). */
  consume(options: ConsumeOptions & CallOptions): Promise<DeliveredMessage[]>;
  /**
   * Answers how many were acked now (repeats and unknown ids count 0; no ids: 0, nothing sent).
   * With `consumer`, only what that consumer holds (an ack after its lease moved on changes nothing).
   */
  ack(ids: string[], options?: { consumer?: string } & CallOptions): Promise<number>;
  /**
   * Ack-and-produce: acks `ids` and sends the acked ones' results to `produce.queue` in the same
   * step (a result names the id it comes from in `from` when more than one id is acked). Safe to
   * repeat: see DeliveredMessage.ackAndProduce. Needs a token with the consume and produce scopes.
   */
  ackAndProduce(
    ids: string[],
    produce: AckProduce,
    options?: { consumer?: string } & CallOptions,
  ): Promise<AckAndProduceResult>;
  /**
   * Gives messages back for redelivery after `delayMs` (default 0); answers how many (no ids: 0,
   * nothing sent). With `consumer`, only what that consumer holds (a stale nack is a no-op).
   */
  nack(ids: string[], options?: { delayMs?: number; consumer?: string } & CallOptions): Promise<number>;
  /**
   * Renews the leases `consumer` still holds; the rest are `lost`, or `cancelled` (cancelMessage:
   * stop working on them and ack them).
   */
  extend(
    consumer: string,
    ids: string[],
    options?: CallOptions,
  ): Promise<{ extended: string[]; lost: string[]; cancelled: string[] }>;
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

const signalOf = (options: CallOptions | undefined) =>
  options?.signal === undefined ? {} : { signal: options.signal };

/** The call's own fields, without the signal, which travels beside them. */
function withoutSignal<T extends CallOptions>(
  options: T | undefined,
): Omit<T, 'signal'> | Record<never, never> {
  if (options === undefined) return {};
  const { signal: _signal, ...rest } = options;
  return rest;
}

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
    ...(options.shouldRetry === undefined ? {} : { shouldRetry: options.shouldRetry }),
    timeoutMs: options.timeoutMs ?? 15_000,
    retry: resolveRetryPolicy(options.retry),
  });
  const call = <K extends OperationId>(id: K, spec: OperationCall<K>): Promise<OperationAnswer<K>> =>
    callOperation(transport, id, spec);

  /** A delete that answers false when there was nothing to delete (`missing`). */
  const deleted = async (attempt: Promise<unknown>, missing: QueueApiErrorCode): Promise<boolean> => {
    try {
      await attempt;
      return true;
    } catch (error) {
      if (isApiError(error, missing)) return false;
      throw error;
    }
  };

  function group(queue: string, name: string, readConfig: QueueHandle['config']): GroupHandle {
    const params = { queue, group: name };
    const pendingRange = async (range: PendingRangeOptions & CallOptions): Promise<PendingEntry[]> => {
      // Any range field makes the route answer entries; start makes it so even for {}.
      const answer = await call('getPending', {
        params,
        query: { start: '-', ...withoutSignal(range) },
        safe: true,
        ...signalOf(range),
      });
      return 'entries' in answer ? answer.entries : [];
    };
    function pending(): Promise<PendingSummary>;
    function pending(range: PendingRangeOptions & CallOptions): Promise<PendingEntry[]>;
    function pending(range?: PendingRangeOptions & CallOptions): Promise<PendingSummary | PendingEntry[]> {
      if (range !== undefined) return pendingRange(range);
      return call('getPending', { params, safe: true }) as Promise<PendingSummary>;
    }

    const handle: GroupHandle = {
      queue,
      name,
      async create(createOptions) {
        const answer = await call('createGroup', {
          params,
          body: { start: createOptions?.start ?? '$' },
          safe: true,
          ...signalOf(createOptions),
        });
        return answer.created;
      },
      delete: (callOptions) =>
        deleted(call('deleteGroup', { params, safe: false, ...signalOf(callOptions) }), 'GROUP_NOT_FOUND'),
      pause: (callOptions) => call('pauseGroup', { params, safe: true, ...signalOf(callOptions) }),
      resume: (callOptions) => call('resumeGroup', { params, safe: true, ...signalOf(callOptions) }),
      async consume(consumeOptions) {
        // A fresh receive attempt per call, the same on the transport's retries: a retry whose
        // first try ran but lost its answer gets those messages again instead of leasing more.
        const body = {
          ...(withoutSignal(consumeOptions) as ConsumeOptions),
          attemptId: consumeOptions.attemptId ?? crypto.randomUUID(),
        };
        const answer = await call('consumeMessages', {
          params,
          body,
          safe: true,
          serverWaitMs: body.waitMs ?? 0,
          ...signalOf(consumeOptions),
        });
        const consumer = body.consumer;
        return answer.messages.map((message) =>
          delivered(message, (target, messages, settleOptions) =>
            handle.ackAndProduce([message.id], { queue: target, messages }, { consumer, ...settleOptions }),
          ),
        );
      },
      async ackAndProduce(ids, produce, callOptions) {
        const consumer = callOptions?.consumer;
        const answer = await call('ackMessages', {
          params,
          body: { ids, ...(consumer === undefined ? {} : { consumer }), produce },
          // Safe to repeat: the results carry dedupIds derived from their message.
          safe: true,
          ...signalOf(callOptions),
        });
        return {
          acked: answer.acked,
          outcomes: answer.outcomes ?? [],
          produced: answer.produced ?? [],
        };
      },
      async ack(ids, callOptions) {
        if (ids.length === 0) return 0;
        const consumer = callOptions?.consumer;
        const answer = await call('ackMessages', {
          params,
          body: consumer === undefined ? { ids } : { ids, consumer },
          safe: true,
          ...signalOf(callOptions),
        });
        return answer.acked;
      },
      async nack(ids, nackOptions) {
        if (ids.length === 0) return 0;
        const answer = await call('nackMessages', {
          params,
          body: {
            ids,
            ...(nackOptions?.delayMs === undefined ? {} : { delayMs: nackOptions.delayMs }),
            ...(nackOptions?.consumer === undefined ? {} : { consumer: nackOptions.consumer }),
          },
          safe: true,
          ...signalOf(nackOptions),
        });
        return answer.requeued;
      },
      async extend(consumer, ids, callOptions) {
        if (ids.length === 0) return { extended: [], lost: [], cancelled: [] };
        const answer = await call('extendLeases', {
          params,
          body: { consumer, ids },
          safe: true,
          ...signalOf(callOptions),
        });
        // A service from before cancelMessage answers no `cancelled`.
        return { ...answer, cancelled: answer.cancelled ?? [] };
      },
      reclaim: (reclaimOptions) =>
        call('reclaimMessages', {
          params,
          body: withoutSignal(reclaimOptions) as ReclaimOptions,
          safe: true,
          ...signalOf(reclaimOptions),
        }),
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
      ackAndProduce: handle.ackAndProduce,
      nack: handle.nack,
      extend: handle.extend,
      pending: pendingRange,
      queueConfig: readConfig,
    };
    return handle;
  }

  function queue(name: string): QueueHandle {
    const params = { queue: name };
    const config: QueueHandle['config'] = (callOptions) =>
      call('getQueueConfig', { params, safe: true, ...signalOf(callOptions) });
    return {
      name,
      configure: (patch, callOptions) =>
        call('configureQueue', { params, body: patch ?? {}, safe: true, ...signalOf(callOptions) }),
      config,
      async produce(messages, callOptions) {
        const answer = await call('produceMessages', {
          params,
          body: { messages },
          safe: messages.length > 0 && messages.every((message) => message.dedupId !== undefined),
          unsafeHint: 'give every message a dedupId to make produce safe to retry',
          ...signalOf(callOptions),
        });
        return answer.ids;
      },
      async browse(range) {
        const answer = await call('browseMessages', {
          params,
          query: withoutSignal(range),
          safe: true,
          ...signalOf(range),
        });
        return answer.messages;
      },
      message: (id, callOptions) =>
        call('getMessage', { params: { queue: name, id }, safe: true, ...signalOf(callOptions) }),
      cancelMessage: (id, callOptions) =>
        call('cancelMessage', { params: { queue: name, id }, safe: true, ...signalOf(callOptions) }),
      stats: (callOptions) => call('getQueueStats', { params, safe: true, ...signalOf(callOptions) }),
      delete: (callOptions) =>
        deleted(call('deleteQueue', { params, safe: false, ...signalOf(callOptions) }), 'QUEUE_NOT_FOUND'),
      pause: (callOptions) => call('pauseQueue', { params, safe: true, ...signalOf(callOptions) }),
      resume: (callOptions) => call('resumeQueue', { params, safe: true, ...signalOf(callOptions) }),
      dlq: {
        list: (listOptions) =>
          call('listDeadLetters', {
            params,
            query: withoutSignal(listOptions),
            safe: true,
            ...signalOf(listOptions),
          }),
        async redrive(selection, callOptions) {
          if (Array.isArray(selection) && selection.length === 0) return 0;
          const answer = await call('redriveDeadLetters', {
            params,
            body: Array.isArray(selection) ? { ids: selection } : { all: true },
            safe: false,
            ...signalOf(callOptions),
          });
          return answer.redriven;
        },
        async purge(callOptions) {
          const answer = await call('purgeDeadLetters', { params, safe: false, ...signalOf(callOptions) });
          return answer.purged;
        },
      },
      schedules: {
        set: (scheduleName, schedule, callOptions) =>
          call('createSchedule', {
            params: { queue: name, name: scheduleName },
            body: schedule,
            safe: true,
            ...signalOf(callOptions),
          }),
        async list(callOptions) {
          const answer = await call('listSchedules', { params, safe: true, ...signalOf(callOptions) });
          return answer.schedules;
        },
        delete: (scheduleName, callOptions) =>
          deleted(
            call('deleteSchedule', {
              params: { queue: name, name: scheduleName },
              safe: false,
              ...signalOf(callOptions),
            }),
            'SCHEDULE_NOT_FOUND',
          ),
      },
      group: (groupName) => group(name, groupName, config),
    };
  }

  return {
    queue,
    async queues(callOptions) {
      // Every page, in name order.
      const all: QueueStats[] = [];
      let cursor: string | null = null;
      do {
        const answer: OperationAnswer<'listQueues'> = await call('listQueues', {
          params: {},
          query: cursor === null ? {} : { cursor },
          safe: true,
          ...signalOf(callOptions),
        });
        all.push(...answer.queues);
        cursor = answer.nextCursor;
      } while (cursor !== null);
      return all;
    },
    sweep: (sweepOptions) =>
      call('runSweep', {
        params: {},
        body: withoutSignal(sweepOptions),
        safe: true,
        ...signalOf(sweepOptions),
      }),
    health: (callOptions) => call('getHealth', { params: {}, safe: true, ...signalOf(callOptions) }),
  };
}
