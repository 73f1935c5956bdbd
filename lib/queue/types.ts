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
  /**
   * Consumed messages: when it was first delivered to this group (ms), kept from that delivery
   * until it is acked, across redeliveries and reclaims. Absent for a message whose first delivery
   * predates this record (delivered by an older release and still pending).
   */
  firstDeliveredAt?: number;
  /** The message's groupKey, when it was produced with one. */
  groupKey?: string;
  /** Present for entries written to the stream by other clients: their raw fields. */
  fields?: Record<string, string>;
}

/** Options of ack. */
export interface AckOptions {
  /** Ack only the entries this consumer holds. */
  consumer?: string;
  /** Answer each id's outcome too. */
  outcomes?: boolean;
  /**
   * Ack-and-produce: the acked ids' results, sent to `queue` in the same step (see
   * lib/queue/ops/ack-produce.ts). The answer then carries each id's outcome and each result's id.
   */
  produce?: AckProduce;
}

/** A result of an acked message, for the next queue. */
export interface AckProducedMessage extends MessageInput {
  /**
   * The id (one of the ack's ids) this is a result of; may be left out when the ack names one id.
   * Only the results of ids this call acks are produced.
   */
  from?: string;
}

/** What an ack-and-produce sends on: to an existing queue (which may be the same queue). */
export interface AckProduce {
  queue: string;
  /** 1-1000 results, as produce takes messages (plus `from`). */
  messages: AckProducedMessage[];
}

export interface AckProduced {
  acked: number;
  /** One per id, in the order given. */
  outcomes: AckOutcome[];
  /**
   * One per result, in the order given: its id in the target queue (the first message's id when
   * its dedupId was seen within the target's dedup window), or null when it was not produced
   * because this call did not ack its id (held by another consumer, or not pending).
   */
  produced: (string | null)[];
}

/**
 * What happened to each id of an ack: `acked`; `held-by-other`: pending, held by another consumer
 * than the one named, so left as it is; `not-pending`: not in the group's pending list (acked
 * before, never delivered, unknown).
 */
export type AckOutcome = 'acked' | 'held-by-other' | 'not-pending';

export interface AckOutcomes {
  acked: number;
  /** One per id, in the order given. */
  outcomes: AckOutcome[];
}

/** What a consume may ask beyond its count (docs/api.md, "Consume"). */
export interface ConsumeOptions {
  /**
   * A receive attempt (1-128 printable ASCII characters): retried by the same consumer while
   * every message it delivered is still held as delivered (not acked, nacked, extended or taken
   * over, lease not ended), it answers the same messages with the same delivery counts, their
   * leases renewed from the retry, and leases nothing new; otherwise it consumes as usual. On a partitioned queue each partition keeps
   * its own record, and the partitions are tried in an order the attemptId gives.
   */
  attemptId?: string;
  /** The delivered messages' lease (0 to 12 h) instead of the queue's visibilityTimeoutMs. */
  leaseMs?: number;
  /**
   * The answer's bound in bytes (default 8 MiB, at most 32 MiB): stops leasing before a message
   * that would pass it; the first message always goes. Counted as each message's stored fields
   * plus 160 bytes.
   */
  maxBytes?: number;
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
  /**
   * Deliveries to the group in the current window of the queue's rateLimit, over all partitions
   * (0 without a rateLimit).
   */
  rateLimitUsed: number;
  /**
   * The rateLimit held back deliveries in the current window: a consume asked for more than the
   * window had left (on one partition at least, each holding its share of the limit).
   */
  rateLimitThrottled: boolean;
  /** Group keys the keyRateLimit holds back until the current key window ends (0 without one). */
  throttledKeys: number;
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

/**
 * A queue's metadata (issue 28): string maps of attributes and tags that the queue keeps for its
 * users (the SQS API stores the SQS attributes without a native config field there) and never
 * reads itself, and when the queue was created and last changed.
 */
export interface QueueMeta {
  attributes: Record<string, string>;
  tags: Record<string, string>;
  /** When the queue was created (ms since the epoch). */
  createdAt: number;
  /** The last configure that changed a config field or an attribute (ms); createdAt until then. */
  lastModifiedAt: number;
}

/** Changes to a queue's metadata: a string sets an entry, null removes it. */
export interface QueueMetaPatch {
  attributes?: Record<string, string | null>;
  tags?: Record<string, string | null>;
}

/** A queue's config with its metadata (describeQueue, createQueue). */
export interface QueueDescription {
  config: QueueConfig;
  meta: QueueMeta;
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

/** What a message move task is doing (startMove): as SQS's ListMessageMoveTasks shows it. */
export type MoveTaskStatus = 'RUNNING' | 'COMPLETED' | 'CANCELLING' | 'CANCELLED' | 'FAILED';

/**
 * A message move task (startMove): moves the messages a consumer group of `source` can take now
 * into `destination`, or each back to the queue it was dead-lettered from (its `dlq:source`).
 */
export interface MoveTask {
  /** Opaque; names the source queue too (cancelMove takes only this). */
  handle: string;
  status: MoveTaskStatus;
  source: string;
  /** The group the messages are taken through (and removed from). */
  group: string;
  /** Absent: each message back to its `dlq:source` queue. */
  destination?: string;
  /** At most this many messages a second, on average since the start. */
  maxPerSecond?: number;
  moved: number;
  /** The group's deliverable messages when the task started (approximate). */
  toMove?: number;
  failureReason?: string;
  /** ms since the epoch. */
  startedAt: number;
}

export interface MoveOptions {
  /** The consumer group of the source the messages are taken through. */
  group: string;
  destination?: string;
  /** 1-500. */
  maxPerSecond?: number;
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
  /** Queues found deleted (also while this sweep visited them): skipped, their names dropped. */
  deletedQueues: number;
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
 * dead letters), growing `partitions` (see docs/queue-design.md, "Partitions") and the message move
tasks (startMove reads the queue's stats and writes its record, then moves a first step: a
consume, a produce and an ack per 10 messages, and a record update; listMoves one, cancelMove two
or three).
 */
export interface QueueService {
  /** With `meta`, the queue's metadata changes in the same round trip. */
  configure(
    queue: string,
    patch: Partial<QueueConfig>,
    options?: { meta?: QueueMetaPatch },
  ): Promise<QueueConfig>;
  /**
   * Creates the queue with this config and metadata only if it does not exist (in one round trip
   * on partition 0, so creations racing each other make it once); `created` is false and the
   * existing queue is answered, unchanged, otherwise.
   */
  createQueue(
    queue: string,
    patch: Partial<QueueConfig>,
    options?: { meta?: QueueMetaPatch },
  ): Promise<QueueDescription & { created: boolean }>;
  /** Null when the queue is not registered. */
  getConfig(queue: string): Promise<QueueConfig | null>;
  /** The config and metadata; null when the queue does not exist. */
  describeQueue(queue: string): Promise<QueueDescription | null>;
  listQueues(): Promise<string[]>;
  /** Removes the queue and all its keys; false when it did not exist. */
  deleteQueue(queue: string): Promise<boolean>;

  /**
   * Ids in input order; all-or-nothing. Registers the queue with default config when new; with
   * `mustExist`, a missing queue is QUEUE_NOT_FOUND instead and nothing is written (same script).
   */
  produce(queue: string, messages: MessageInput[], options?: { mustExist?: boolean }): Promise<string[]>;
  browse(queue: string, options: { start?: string; end?: string; count?: number }): Promise<Message[]>;

  /** `start` is "0" (whole backlog), "$" (new messages only) or a stream id. */
  createGroup(queue: string, group: string, start: string): Promise<{ created: boolean }>;
  deleteGroup(queue: string, group: string): Promise<boolean>;
  /**
   * Drops every message the group has not acked: the group starts over at the stream's end (no
   * pending entries, consumers or key lines) and, when it is the queue's only group, the delayed
   * messages go too. Other groups keep their view of the stream. One round trip per partition;
   * answers how many (approximate when Redis cannot tell the group's lag).
   */
  purge(queue: string, group: string): Promise<number>;

  consume(
    queue: string,
    group: string,
    consumer: string,
    count: number,
    options?: ConsumeOptions,
  ): Promise<Message[]>;
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
    options?: ConsumeOptions,
  ): Promise<{ messages: Message[]; watch: WatchPoint | null }>;
  /**
   * Waits at a watch point until work may have arrived, it is due, or `until` (service clock);
   * the due time and deadline are timed with `pause` (real timers by default).
   */
  waitForWork(watch: WatchPoint, until: number, signal?: AbortSignal, pause?: Pause): Promise<WaitOutcome>;
  /**
   * Acks what the group holds of `ids`; answers how many. With `consumer`, only the entries that
   * consumer holds (a stale holder's ack changes nothing); without, whoever holds them. With
   * `outcomes: true`, also each id's outcome in input order. With `produce`, the acked ids' results
   * go to the next queue in the same step (ack-and-produce): see AckProduced.
   */
  ack(
    queue: string,
    group: string,
    ids: string[],
    options: AckOptions & { produce: AckProduce },
  ): Promise<AckProduced>;
  ack(
    queue: string,
    group: string,
    ids: string[],
    options?: AckOptions & { outcomes?: false },
  ): Promise<number>;
  ack(
    queue: string,
    group: string,
    ids: string[],
    options: AckOptions & { outcomes: true },
  ): Promise<AckOutcomes>;
  /**
   * Without delayMs the queue's retry backoff (retryBackoff) gives the delay. With `consumer`, only
   * the entries that consumer holds are given back (a stale nack is a no-op).
   */
  nack(
    queue: string,
    group: string,
    ids: string[],
    delayMs?: number,
    options?: { consumer?: string },
  ): Promise<number>;
  /**
   * Renews the leases `consumer` holds for a visibility timeout, or with `leaseMs` sets them to end
   * leaseMs from now (0: deliverable at once; at most 12 h), also where the lease ended or the
   * message was nacked (leased again). The delivery count does not change.
   */
  extend(
    queue: string,
    group: string,
    consumer: string,
    ids: string[],
    options?: { leaseMs?: number },
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
  /** Removes dead letters by id (skipping ids that are not dead letters); answers how many. */
  deleteDeadLetters(queue: string, ids: string[]): Promise<number>;
  /**
   * The queues whose deadLetterQueue is `queue`, sorted: read from every queue's config (one
   * round trip per queue in the registry).
   */
  deadLetterSources(queue: string): Promise<string[]>;
  purgeDeadLetters(queue: string): Promise<number>;
  /**
   * Starts a message move task on `source` (at most one active per queue: CONFLICT while one is)
   * and moves its first messages at once; the sweep moves the rest in budgets. Each message is
   * taken through `options.group`, produced into its destination with a dedupId made of its id,
   * then acked: a step cut off and repeated (within the destination's dedup window) adds nothing.
   * A message without a destination (no `destination`, no `dlq:source`) or a destination that
   * does not exist fails the task (FAILED, `failureReason`), the message left where it was.
   */
  startMove(source: string, options: MoveOptions): Promise<MoveTask>;
  /** The queue's most recent move tasks (the latest 10 are kept), newest first. */
  listMoves(source: string, max?: number): Promise<MoveTask[]>;
  /**
   * Cancels the active task `handle` names: CANCELLING, then CANCELLED once no step is moving;
   * what it moved stays moved. MOVE_TASK_NOT_FOUND for another handle.
   */
  cancelMove(handle: string): Promise<MoveTask>;

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
