/**
 * The one seam between the SQS actions and the queue: every queue-level operation the SQS API
 * needs, in the queue's terms. lib/sqs/queue-port.ts implements it over today's QueueService;
 * what that cannot do exactly (listed in docs/sqs-queue-needs.md) is answered there as
 * UnsupportedOperation or done in two steps, and plugs in here once the queue offers it, without
 * touching the actions.
 */
import type { Message, MessageInput, QueueConfig, MoveTask as QueueMoveTask } from '../queue/types.ts';

/** The consumer group every SQS queue is read through (docs/sqs.md). */
export const SQS_GROUP = 'sqs';

/**
 * SQS queue attributes that have no native config field (DelaySeconds, ReceiveMessageWaitTimeSeconds,
 * MaximumMessageSize, ContentBasedDeduplication, RedrivePolicy, …), its tags and timestamps.
 */
export interface QueueMeta {
  /** Seconds since the epoch; absent where the backend does not keep it. */
  createdAt?: number;
  lastModifiedAt?: number;
  /** Stored attributes by SQS name, as SQS shows them; one absent takes its default. */
  attributes: Record<string, string>;
  tags: Record<string, string>;
}

/** Changes to a queue's metadata: a value sets, null removes (back to the default). */
export interface MetaPatch {
  attributes?: Record<string, string | null>;
  tags?: Record<string, string | null>;
}

export interface QueueState {
  config: QueueConfig;
  meta: QueueMeta;
}

export interface QueueCounts {
  /** Deliverable now (not yet received, or back after their visibility timeout). */
  visible: number;
  /** Received and neither deleted nor back yet. */
  notVisible: number;
  delayed: number;
}

export interface ReceiveOptions {
  /** 1-10. */
  count: number;
  /** How long to wait for the first message (ms, 0-20,000). */
  waitMs: number;
  /** Visibility timeout of these deliveries (ms); the queue's own without it. */
  visibilityMs?: number;
  /**
   * ReceiveRequestAttemptId, with the caller's access key: a retry by the same caller while the
   * deliveries are still held as received answers the same deliveries (same receipt handles).
   */
  attempt?: { id: string; accessKeyId: string };
  /** Aborts a long poll (client gone, request budget spent). */
  signal?: AbortSignal;
}

export interface Received {
  /** The consumer the messages were delivered to: the holder in their receipt handles. */
  holder: string;
  messages: Message[];
}

/** A delivery a receipt handle names. */
export interface DeliveryRef {
  id: string;
  holder: string;
  deliveries: number;
}

/**
 * What became of one delivery: `done`; `stale` (the message is held by a later delivery, so the
 * handle no longer acts on it); `gone` (not in flight: deleted, dead-lettered, or never delivered).
 */
export type Settled = 'done' | 'stale' | 'gone';

/** A message move task as the actions render it: the queue's (QueueService.startMove) without the
 * group, which is always the SQS group. */
export type MoveTask = Omit<QueueMoveTask, 'group'>;

export interface SqsQueuePort {
  /**
   * False while the backend keeps no queue metadata (phase 1): every queue then has the default
   * of each metadata attribute, and an action that needs only those need not read the queue.
   */
  readonly keepsMetadata: boolean;
  /**
   * Creates the queue with `config` and `meta` (and its consumer group) unless it exists; an
   * existing one keeps its config and metadata (it gets the group) and is answered as `existing`.
   */
  createQueue(
    queue: string,
    config: Partial<QueueConfig>,
    meta: MetaPatch,
  ): Promise<{ existing: QueueState | null }>;
  /** Null when the queue does not exist. */
  readQueue(queue: string): Promise<QueueState | null>;
  updateQueue(queue: string, config: Partial<QueueConfig>, meta: MetaPatch): Promise<void>;
  listQueues(): Promise<string[]>;
  /** False when it did not exist. */
  deleteQueue(queue: string): Promise<boolean>;
  /** Drops every message not yet deleted (deliverable, in flight, delayed). */
  purgeQueue(queue: string): Promise<void>;
  counts(queue: string): Promise<QueueCounts>;
  /** Native ids in input order (a duplicate answers the first message's id); QueueDoesNotExist when missing. */
  send(queue: string, messages: MessageInput[]): Promise<string[]>;
  receive(queue: string, options: ReceiveOptions): Promise<Received>;
  /** Deletes each delivery still held by its holder. */
  deleteMessages(queue: string, refs: DeliveryRef[]): Promise<Settled[]>;
  /** Makes each delivery still held by its holder visible again `timeoutMs` from now. */
  changeVisibility(queue: string, changes: (DeliveryRef & { timeoutMs: number })[]): Promise<Settled[]>;
  /** Queues whose RedrivePolicy names `queue` as their dead-letter queue. */
  deadLetterSources(queue: string): Promise<string[]>;
  /** Moves a dead-letter queue's messages to `destination`, or each back to its source queue. */
  startMove(
    source: string,
    destination: string | undefined,
    maxPerSecond: number | undefined,
  ): Promise<MoveTask>;
  listMoves(source: string, max: number): Promise<MoveTask[]>;
  cancelMove(handle: string): Promise<MoveTask>;
}
