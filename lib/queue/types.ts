/**
 * The queue's public types: what the HTTP API, the runtimes and users' code program against.
 * The implementation (scripts, keys, adapters) lives beside this file; only these shapes are a
 * contract.
 */

/** Per-queue settings: each field with its bounds and default is in lib/queue/rules.ts. */
export type { QueueConfig } from './rules.ts';

import type { QueueConfig } from './rules.ts';
import type { Pause, WaitOutcome, WatchPoint } from './watch.ts';

export interface MessageInput {
  /** Any JSON value. */
  body: unknown;
  attributes?: Record<string, string>;
  /** Not visible to consumers before this many ms from now. */
  delayMs?: number;
  /**
   * Not delivered (first time or again) once this many ms passed since enqueue: dead-lettered
   * with reason `expired` instead. Without it the queue's messageTtlMs applies.
   */
  ttlMs?: number;
  dedupId?: string;
  /**
   * Messages with the same key land in the same partition, so they keep their order there (a
   * queue that grows re-places a share of the keys, see docs/queue-design.md). Without it a
   * message goes where its dedupId hashes to, else to the partition this produce call rotates to.
   */
  partitionKey?: string;
  /**
   * Ordered message groups: within each consumer group, a message with this key is delivered
   * only once no earlier message of the key is in flight (at most maxInFlightPerKey of a key at
   * once, 1 by default), in produce order, and keys take turns (round robin) so a busy key cannot
   * starve the others. The key is also the message's partition key, so a message takes groupKey
   * or partitionKey, not both.
   */
  groupKey?: string;
}

export interface Message {
  /**
   * Opaque to clients: the Redis stream id for a message in partition 0, `<ms>-<seq>-<p>` for
   * partition p. Ack, nack, extend and redrive take it back as it is.
   */
  id: string;
  /** The JSON body; for entries written by other Redis clients, null (see `fields`). */
  body: unknown;
  attributes: Record<string, string>;
  /** How many times this message has been delivered, this delivery included. */
  deliveries: number;
  /** When it was produced (ms since the epoch); for foreign entries, the id's time part. */
  enqueuedAt: number;
  /** The message's groupKey, when it was produced with one. */
  groupKey?: string;
  /** Present for entries written to the stream by other clients: their raw fields. */
  fields?: Record<string, string>;
}

export interface DeadLetter extends Omit<Message, 'deliveries'> {
  /** The id the message had in the queue's stream. */
  deadLetteredFrom: string;
  group: string;
  deliveries: number;
  reason: string;
  deadLetteredAt: number;
}

/** Where one group stands with a message in the stream (getMessage). */
export interface MessageGroupState {
  group: string;
  /**
   * `waiting`: not delivered to the group yet (for a grouped message: the next of its key to go);
   * `blocked`: a grouped message waiting behind an earlier message of its key (`blockedBy`);
   * `pending`: delivered and not acked; `acked`: done (or never to be delivered: a group created
   * after it); `dead-lettered`: moved to the DLQ.
   */
  state: 'waiting' | 'blocked' | 'pending' | 'acked' | 'dead-lettered';
  /** Blocked: the id of its key's head, the earliest message of the key the group has not finished. */
  blockedBy?: string;
  /** Pending: the consumer that holds it. */
  consumer?: string;
  /** Pending: deliveries so far. */
  deliveries?: number;
  /** Pending: `leased` until eligibleAt (its lease expiry), or `retrying` from eligibleAt on. */
  pendingState?: 'leased' | 'retrying';
  eligibleAt?: number;
  /** Dead-lettered: the id of its dead letter. */
  deadLetterId?: string;
}

/** What cancelMessage did. */
export interface CancelResult {
  id: string;
  /** It was cancelled before (cancel is idempotent); nothing changed. */
  alreadyCancelled: boolean;
  /** How many groups held it in flight when it was cancelled (their holders learn it from extend). */
  inFlight: number;
}

/** A message looked up by id (getMessage). */
export interface MessageLookup {
  /** The id asked for. */
  id: string;
  /**
   * `delayed`: waiting for its delay (deliverAt); `stream`: in the stream (see groups);
   * `dead-lettered`: no longer in the stream but in the DLQ (see deadLetters), or the id is a dead
   * letter's own; `cancelled`: cancelled (cancelMessage) at cancelledAt, never delivered again.
   */
  state: 'delayed' | 'stream' | 'dead-lettered' | 'cancelled';
  body: unknown;
  attributes: Record<string, string>;
  enqueuedAt: number;
  /** Present for entries written by other clients: their raw fields. */
  fields?: Record<string, string>;
  /** Delayed: when it is due. */
  deliverAt?: number;
  /** Cancelled: when it was cancelled. */
  cancelledAt?: number;
  /** The message's groupKey, when it was produced with one. */
  groupKey?: string;
  groups: MessageGroupState[];
  deadLetters: DeadLetter[];
}

export interface GroupStats {
  name: string;
  /** The group is paused (pauseGroup): consume delivers nothing to it. */
  paused: boolean;
  pending: number;
  /** Entries not yet delivered to the group; null when Redis cannot tell (after deletions). */
  lag: number | null;
  consumers: number;
  /** Age of the longest-held pending message in ms; null when nothing is pending. */
  oldestPendingAgeMs: number | null;
  lastDeliveredId: string;
  /**
   * Grouped messages (produced with a groupKey) the group has taken into their key's line and not
   * delivered yet: waiting for their key's turn or blocked behind an earlier message of the key.
   * They are not in `lag` (which counts entries the group has not read at all).
   */
  keyedWaiting: number;
  /** How many group keys have waiting messages. */
  waitingKeys: number;
  /** The key whose next waiting message is the oldest, with that message; null when none waits. */
  oldestWaitingKey: { groupKey: string; id: string; ageMs: number } | null;
}

export interface QueueStats {
  name: string;
  /** How many partitions the queue is spread over (1 unless configured). */
  partitions: number;
  /** The queue is paused (pauseQueue): consume delivers nothing from it to any group. */
  paused: boolean;
  length: number;
  delayed: number;
  deadLetters: number;
  groups: GroupStats[];
}

export interface PendingSummary {
  pending: number;
  minId: string | null;
  maxId: string | null;
  consumers: { name: string; pending: number }[];
}

export interface PendingEntry {
  id: string;
  /** The consumer that holds it (a nacked message keeps its last holder until redelivered). */
  consumer: string;
  /** Since its last delivery or lease extension. */
  idleMs: number;
  deliveries: number;
  /** `leased`: being worked on; `retrying`: nacked, waiting for its redelivery time. */
  state: 'leased' | 'retrying';
  /** When it can be delivered again (ms since the epoch): its lease expiry, or its retry time. */
  eligibleAt: number;
}

export interface ReclaimResult {
  /** Pass back to continue; "0-0" when the whole PEL has been scanned. */
  cursor: string;
  messages: Message[];
  /** Ids that were pending but whose entries no longer exist; removed from the PEL. */
  deleted: string[];
}

/** A recurring schedule as createSchedule takes it. */
export interface ScheduleInput {
  /** A 5-field cron expression (minute hour day-of-month month day-of-week). */
  cron: string;
  /** An IANA time zone the expression is read in; default UTC. */
  timezone?: string;
  message: { body: unknown; attributes?: Record<string, string>; dedupId?: string; ttlMs?: number };
}

/** A stored schedule. */
export interface Schedule {
  name: string;
  cron: string;
  timezone: string;
  message: { body: unknown; attributes?: Record<string, string>; dedupId?: string; ttlMs?: number };
  /** The last occurrence fired (ms), or when the schedule was created or replaced. */
  lastFiredAt: number;
  /** The next occurrence (ms); null when the expression fires no more. */
  nextRunAt: number | null;
}

export interface SweepReport {
  /** Messages schedules enqueued (one per schedule and occurrence). */
  scheduled: number;
  /** Of those, how many stood for several missed occurrences (after downtime: one, not a flood). */
  catchUps: number;
  deadLettered: number;
  promoted: number;
  deletedReferences: number;
  consumersRemoved: number;
  trimmed: number;
  /** False when the budget ran out before every queue was visited; the next call resumes. */
  complete: boolean;
}

export interface SweepOptions {
  /** Upper bound on the work units (entries examined) in this call. */
  budget?: number;
  /** Optional wall-clock budget in ms (the cron passes what is left of its invocation). */
  timeBudgetMs?: number;
  /**
   * A scheduled sweep (the Node interval, the Workers cron): a queue where a sweep found nothing to
   * do is skipped until this long after (issue 18), so an idle registry costs one command. Without
   * it every queue is visited (an explicit sweep).
   */
  revisitMs?: number;
}

/**
 * The operations of the queue. Every method is one atomic Redis round trip per partition it
 * touches (one partition unless the queue is configured with more), except: the first produce,
 * configure or createGroup of a queue (three: it registers the queue, plus its other partitions),
 * deleteQueue (four), sweep (two per queue visited plus two; a scheduled one, with `revisitMs`,
 * one when every queue is idle, else three plus two per queue visited), redrive of everything (one per 1,000
 * dead letters) and growing `partitions` (see docs/queue-design.md, "Partitions").
 */
export interface QueueService {
  configure(queue: string, patch: Partial<QueueConfig>): Promise<QueueConfig>;
  /** Null when the queue is not registered. */
  getConfig(queue: string): Promise<QueueConfig | null>;
  listQueues(): Promise<string[]>;
  /** Removes the queue and all its keys; false when it did not exist. */
  deleteQueue(queue: string): Promise<boolean>;

  /** Ids in input order; all-or-nothing. Registers the queue with default config when new. */
  produce(queue: string, messages: MessageInput[]): Promise<string[]>;
  browse(queue: string, options: { start?: string; end?: string; count?: number }): Promise<Message[]>;

  /** `start` is "0" (whole backlog), "$" (new messages only) or a stream id. */
  createGroup(queue: string, group: string, start: string): Promise<{ created: boolean }>;
  deleteGroup(queue: string, group: string): Promise<boolean>;

  consume(queue: string, group: string, consumer: string, count: number): Promise<Message[]>;
  /**
   * consume for a long poll: when nothing came, also where to wait for more (null: poll instead).
   * May answer without a round trip while another waiter of the group in this process holds an
   * unfired watch (lib/queue/watch.ts).
   */
  consumeOrWatch(
    queue: string,
    group: string,
    consumer: string,
    count: number,
  ): Promise<{ messages: Message[]; watch: WatchPoint | null }>;
  /**
   * Waits at a watch point until work may have arrived, it is due, or `until` (service clock);
   * the due time and deadline are timed with `pause` (real timers by default).
   */
  waitForWork(watch: WatchPoint, until: number, signal?: AbortSignal, pause?: Pause): Promise<WaitOutcome>;
  ack(queue: string, group: string, ids: string[]): Promise<number>;
  /** Without delayMs the queue's retry backoff (retryBackoff) gives the delay. */
  nack(queue: string, group: string, ids: string[], delayMs?: number): Promise<number>;
  extend(
    queue: string,
    group: string,
    consumer: string,
    ids: string[],
  ): Promise<{ extended: string[]; lost: string[]; cancelled: string[] }>;
  reclaim(
    queue: string,
    group: string,
    consumer: string,
    options: { minIdleMs: number; count?: number; cursor?: string },
  ): Promise<ReclaimResult>;
  pendingSummary(queue: string, group: string): Promise<PendingSummary>;
  pendingRange(
    queue: string,
    group: string,
    options: { start: string; end: string; count: number; consumer?: string; minIdleMs?: number },
  ): Promise<PendingEntry[]>;

  listDeadLetters(
    queue: string,
    options: { count?: number; cursor?: string },
  ): Promise<{ deadLetters: DeadLetter[]; cursor: string | null }>;
  redrive(queue: string, selection: { ids: string[] } | { all: true }): Promise<number>;
  purgeDeadLetters(queue: string): Promise<number>;

  stats(queue: string): Promise<QueueStats>;
  sweep(options?: SweepOptions): Promise<SweepReport>;

  /**
   * While a queue is paused, consume delivers nothing from it (a long poll waits and answers
   * empty); produce, ack, nack, extend and the sweep go on. QUEUE_NOT_FOUND for a queue that
   * does not exist.
   */
  /**
   * Recurring schedules (on the queue's partition 0): the sweep enqueues each due occurrence once,
   * also with sweeps racing; after downtime, one for all that were missed. `created` is false
   * when it replaced a schedule of that name.
   */
  putSchedule(
    queue: string,
    name: string,
    input: ScheduleInput,
  ): Promise<{ schedule: Schedule; created: boolean }>;
  listSchedules(queue: string): Promise<Schedule[]>;
  /** False when the queue has no schedule of that name. */
  deleteSchedule(queue: string, name: string): Promise<boolean>;
  pauseQueue(queue: string): Promise<void>;
  /**
   * One message by id (a message id, a delayed token, or a dead letter's id) and its state, in
   * one round trip; null when the queue never had it or it was trimmed. QUEUE_NOT_FOUND when the
   * queue does not exist.
   */
  getMessage(queue: string, id: string): Promise<MessageLookup | null>;
  /**
   * Cancels one message (a message id or a delayed token) for every group, in one round trip: a
   * waiting or delayed one is never delivered; one in flight is dropped at its lease expiry and
   * its holders learn it from extend (`cancelled`). Null when the queue never had it (or it is
   * done: acked by every group, dead-lettered or trimmed). See lib/queue/ops/cancel.ts.
   */
  cancelMessage(queue: string, id: string): Promise<CancelResult | null>;
  resumeQueue(queue: string): Promise<void>;
  /** The same for one group (GROUP_NOT_FOUND when it does not exist); other groups go on. */
  pauseGroup(queue: string, group: string): Promise<void>;
  resumeGroup(queue: string, group: string): Promise<void>;
  /** Resolves when Redis answers a script; rejects with the QueueError any call would get. */
  ping(): Promise<void>;
}
