/**
 * The API's request and answer bodies as plain TypeScript types: what the client publishes (its
 * `.d.ts` needs no zod) and what lib/api/schemas.ts is checked against at compile time, so a field
 * added to a schema and not here (or here and not there) fails `npm run typecheck`. Optional
 * fields carry `| undefined` because that is what zod's inference gives them.
 */
import type { QueueConfig, RateLimit } from '../queue/rules.ts';

export type { QueueConfig, RateLimit };

/** The config fields to change; the rest keep their values. */
/** A message body: any JSON value, so anything but undefined (zod's type of a body it requires). */
export type Body = NonNullable<unknown> | null;

export type QueueConfigPatch = { [K in keyof QueueConfig]?: QueueConfig[K] | undefined };

/** A message to produce: `body`, and optionally a dedupId, delay, TTL, attributes, partition or group key. */
export interface MessageInput {
  body: Body;
  /** String values; the name __proto__ is reserved. */
  attributes?: Record<string, string> | undefined;
  delayMs?: number | undefined;
  /** Not delivered once this many ms passed since enqueue (default: the queue's messageTtlMs). */
  ttlMs?: number | undefined;
  /** A repeat within the queue's dedup window answers the first message's id and adds nothing. */
  dedupId?: string | undefined;
  partitionKey?: string | undefined;
  /** Ordered message groups: one key's messages are delivered in order (also the partition key). */
  groupKey?: string | undefined;
}

export interface ProduceRequest {
  messages: MessageInput[];
}

export interface ProduceResult {
  ids: string[];
}

/** A message as delivered: id, JSON body, attributes, delivery count, enqueue time. */
export interface Message {
  id: string;
  body: unknown;
  attributes: Record<string, string>;
  deliveries: number;
  enqueuedAt: number;
  /** Consumed messages: when the group first got it (ms), kept until it is acked. */
  firstDeliveredAt?: number | undefined;
  groupKey?: string | undefined;
  fields?: Record<string, string> | undefined;
}

export interface MessageList {
  messages: Message[];
}

export interface BrowseRange {
  start?: string | undefined;
  end?: string | undefined;
  count?: number | undefined;
}

export interface GroupStats {
  name: string;
  paused: boolean;
  pending: number;
  lag: number | null;
  consumers: number;
  oldestPendingAgeMs: number | null;
  lastDeliveredId: string;
  keyedWaiting: number;
  waitingKeys: number;
  oldestWaitingKey: { groupKey: string; id: string; ageMs: number } | null;
  rateLimitUsed: number;
  rateLimitThrottled: boolean;
  throttledKeys: number;
}

export interface QueueStats {
  name: string;
  partitions: number;
  paused: boolean;
  length: number;
  delayed: number;
  deadLetters: number;
  groups: GroupStats[];
}

export interface QueueList {
  queues: QueueStats[];
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

/** A page of the queue list: at most `limit` queues (default and most 1000), by name, after `cursor`. */
export interface ListQueuesOptions {
  limit?: number | undefined;
  cursor?: string | undefined;
}

export interface Deleted {
  deleted: true;
}

export interface QueuePaused {
  queue: string;
  paused: boolean;
}

export interface GroupPaused {
  queue: string;
  group: string;
  paused: boolean;
}

/** `start`: "0" for the whole backlog, "$" (the default) for new messages only, or an id to start after. */
export interface GroupCreateOptions {
  start?: string | undefined;
}

export interface GroupCreated {
  queue: string;
  group: string;
  created: boolean;
}

/**
 * consume's body: the consumer, up to `count` messages (default 10), a long poll of `waitMs`
 * (default 0), a receive `attemptId` (a retry of it answers the same messages), the messages' own
 * `leaseMs`, and `maxBytes`, the answer's bound (default 8 MiB).
 */
export interface ConsumeOptions {
  consumer: string;
  count?: number | undefined;
  waitMs?: number | undefined;
  attemptId?: string | undefined;
  leaseMs?: number | undefined;
  maxBytes?: number | undefined;
}

/** A result of an acked message, for the next queue: a message and the id it is a result of. */
export interface AckProducedMessage extends MessageInput {
  /** One of the ids acked; may be left out when one id is acked. */
  from?: string | undefined;
}

/** Ack-and-produce: the acked ids' results, for `queue`, in the same step. */
export interface AckProduce {
  queue: string;
  messages: AckProducedMessage[];
}

export interface AckRequest {
  ids: string[];
  /** Ack only the messages this consumer holds; without it, whoever holds them. */
  consumer?: string | undefined;
  produce?: AckProduce | undefined;
}

export type AckOutcome = 'acked' | 'held-by-other' | 'not-pending';

export interface AckResult {
  acked: number;
  /** With produce: per id, in order. */
  outcomes?: AckOutcome[] | undefined;
  /** With produce: per result, its id in the target queue, or null when its id was not acked. */
  produced?: (string | null)[] | undefined;
}

export interface NackRequest {
  ids: string[];
  /** Without it, the queue's retry backoff gives the delay. */
  delayMs?: number | undefined;
  /** Give back only the messages this consumer holds (a stale nack is a no-op); without it, any. */
  consumer?: string | undefined;
}

export interface NackResult {
  requeued: number;
}

export interface ExtendRequest {
  consumer: string;
  ids: string[];
}

export interface ExtendResult {
  extended: string[];
  lost: string[];
  cancelled: string[];
}

export interface CancelResult {
  id: string;
  alreadyCancelled: boolean;
  inFlight: number;
}

export interface ReclaimOptions {
  consumer: string;
  minIdleMs: number;
  count?: number | undefined;
  cursor?: string | undefined;
}

export interface ReclaimResult {
  cursor: string;
  messages: Message[];
  deleted: string[];
}

/** The pending list's query as values (numbers, not the query string's text). */
export interface PendingRangeOptions {
  consumer?: string | undefined;
  minIdleMs?: number | undefined;
  start?: string | undefined;
  end?: string | undefined;
  count?: number | undefined;
}

export interface PendingSummary {
  pending: number;
  minId: string | null;
  maxId: string | null;
  consumers: { name: string; pending: number }[];
}

export interface PendingEntry {
  id: string;
  consumer: string;
  idleMs: number;
  deliveries: number;
  /** `leased`: held by `consumer`; `retrying`: nacked, redelivered from `eligibleAt` on. */
  state: 'leased' | 'retrying';
  eligibleAt: number;
}

export interface PendingEntries {
  entries: PendingEntry[];
}

export interface DlqListOptions {
  count?: number | undefined;
  cursor?: string | undefined;
}

export interface DeadLetter {
  id: string;
  body: unknown;
  attributes: Record<string, string>;
  enqueuedAt: number;
  groupKey?: string | undefined;
  fields?: Record<string, string> | undefined;
  deadLetteredFrom: string;
  group: string;
  deliveries: number;
  reason: string;
  deadLetteredAt: number;
}

export interface DeadLetterPage {
  deadLetters: DeadLetter[];
  cursor: string | null;
}

export interface MessageGroupState {
  group: string;
  state: 'waiting' | 'blocked' | 'pending' | 'acked' | 'dead-lettered';
  blockedBy?: string | undefined;
  consumer?: string | undefined;
  deliveries?: number | undefined;
  pendingState?: 'leased' | 'retrying' | undefined;
  eligibleAt?: number | undefined;
  deadLetterId?: string | undefined;
}

/** One message by id and where it is: delayed, in the stream (per group), or dead-lettered. */
export interface MessageLookup {
  id: string;
  state: 'delayed' | 'stream' | 'dead-lettered' | 'cancelled';
  body: unknown;
  attributes: Record<string, string>;
  enqueuedAt: number;
  groupKey?: string | undefined;
  fields?: Record<string, string> | undefined;
  deliverAt?: number | undefined;
  cancelledAt?: number | undefined;
  groups: MessageGroupState[];
  deadLetters: DeadLetter[];
}

export type RedriveSelection = { ids: string[] } | { all: true };

export interface RedriveResult {
  redriven: number;
}

export interface PurgeResult {
  purged: number;
}

export interface SweepOptions {
  budget?: number | undefined;
  timeBudgetMs?: number | undefined;
}

export interface SweepReport {
  scheduled: number;
  catchUps: number;
  deadLettered: number;
  promoted: number;
  deletedReferences: number;
  consumersRemoved: number;
  trimmed: number;
  /** Queues found deleted (also during this sweep): skipped. */
  deletedQueues: number;
  complete: boolean;
}

/** The message a schedule enqueues at each occurrence. */
export interface ScheduleMessage {
  body: Body;
  attributes?: Record<string, string> | undefined;
  dedupId?: string | undefined;
  ttlMs?: number | undefined;
}

export interface ScheduleInput {
  /** A 5-field cron expression. */
  cron: string;
  /** The IANA time zone the expression is read in (default UTC). */
  timezone?: string | undefined;
  message: ScheduleMessage;
}

export interface Schedule {
  name: string;
  cron: string;
  timezone: string;
  message: {
    body: unknown;
    attributes?: Record<string, string> | undefined;
    dedupId?: string | undefined;
    ttlMs?: number | undefined;
  };
  lastFiredAt: number;
  nextRunAt: number | null;
}

export interface ScheduleList {
  schedules: Schedule[];
}

export interface HealthReport {
  status: 'ok';
  redis: 'up';
}

/** The body of every error answer. */
export interface ErrorEnvelopeBody {
  error: { code: string; message: string; details?: unknown };
}
