/**
 * The zod schemas of the API: they validate every request and describe every response, and the
 * OpenAPI document is generated from them. One source, so the docs cannot drift from the checks.
 */
import { z } from '@hono/zod-openapi';

const namePattern = /^[A-Za-z0-9._-]{1,100}$/;
/** A full stream id, `ms-seq`. */
const idPattern = /^\d{1,20}-\d{1,20}$/;
/** A range bound: `-`, `+`, an id, or an exclusive `(id`. */
const boundPattern = /^(-|\+|\(?\d{1,20}(-\d{1,20})?)$/;

export const MAX_BATCH = 1000;
export const MAX_WAIT_MS = 20_000;
const DAY_MS = 86_400_000;

const name = (what: string) =>
  z.string().regex(namePattern, `${what} must be 1-100 characters of A-Z a-z 0-9 . _ -`);

export const QueueName = name('queue name').openapi({ example: 'orders' });
export const GroupName = name('group name').openapi({ example: 'workers' });
export const ConsumerName = name('consumer name').openapi({ example: 'worker-1' });
export const StreamId = z
  .string()
  .regex(idPattern, 'must be a stream id such as 1700000000000-0')
  .openapi({ example: '1700000000000-0' });
const RangeBound = z.string().regex(boundPattern, 'must be -, +, a stream id or (id for exclusive');
const Ids = z.array(StreamId).min(1).max(MAX_BATCH);

/** Query numbers arrive as text; only plain decimal digits are numbers here. */
const queryInt = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,15}$/, 'must be a non-negative integer')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

export const QueueParams = z.object({
  queue: QueueName.openapi({ param: { name: 'queue', in: 'path' } }),
});
export const GroupParams = QueueParams.extend({
  group: GroupName.openapi({ param: { name: 'group', in: 'path' } }),
});

export const QueueConfigSchema = z
  .object({
    visibilityTimeoutMs: z
      .number()
      .int()
      .min(1)
      .max(12 * 3_600_000),
    maxDeliveries: z.number().int().min(1).max(1000),
    dedupWindowMs: z
      .number()
      .int()
      .min(0)
      .max(7 * DAY_MS),
    retentionMs: z
      .number()
      .int()
      .min(0)
      .max(365 * DAY_MS),
    consumerIdleMs: z
      .number()
      .int()
      .min(1)
      .max(365 * DAY_MS),
    maxInFlightPerConsumer: z.number().int().min(1).max(100_000),
  })
  .openapi('QueueConfig');

export const QueueConfigPatch = QueueConfigSchema.partial().strict().openapi('QueueConfigPatch');

const Attributes = z.record(z.string().max(256), z.string()).openapi({ example: { tenant: 'acme' } });

export const MessageInputSchema = z
  .object({
    body: z
      .unknown()
      .refine((value) => value !== undefined, 'body is required')
      .openapi({ description: 'Any JSON value', example: { orderId: 42 } }),
    attributes: Attributes.optional(),
    delayMs: z
      .number()
      .int()
      .min(0)
      .max(365 * DAY_MS)
      .optional(),
    dedupId: z.string().min(1).max(256).optional(),
  })
  .strict()
  .openapi('MessageInput');

export const ProduceBody = z
  .object({ messages: z.array(MessageInputSchema).min(1).max(MAX_BATCH) })
  .strict()
  .openapi('ProduceRequest');
export const ProduceResult = z.object({ ids: z.array(z.string()) }).openapi('ProduceResult');

export const MessageSchema = z
  .object({
    id: z.string(),
    body: z.unknown(),
    attributes: z.record(z.string(), z.string()),
    deliveries: z.number().int(),
    enqueuedAt: z.number().int(),
    fields: z.record(z.string(), z.string()).optional(),
  })
  .openapi('Message');
export const MessageList = z.object({ messages: z.array(MessageSchema) }).openapi('MessageList');

export const BrowseQuery = z.object({
  start: RangeBound.optional(),
  end: RangeBound.optional(),
  count: queryInt(1, MAX_BATCH).optional(),
});

export const GroupStatsSchema = z
  .object({
    name: z.string(),
    pending: z.number().int(),
    lag: z.number().int().nullable(),
    consumers: z.number().int(),
    oldestPendingAgeMs: z.number().nullable(),
    lastDeliveredId: z.string(),
  })
  .openapi('GroupStats');
export const QueueStatsSchema = z
  .object({
    name: z.string(),
    length: z.number().int(),
    delayed: z.number().int(),
    deadLetters: z.number().int(),
    groups: z.array(GroupStatsSchema),
  })
  .openapi('QueueStats');
export const QueueList = z.object({ queues: z.array(QueueStatsSchema) }).openapi('QueueList');
export const Deleted = z.object({ deleted: z.literal(true) }).openapi('Deleted');

export const GroupCreateBody = z
  .object({
    start: z
      .union([z.literal('0'), z.literal('$'), StreamId])
      .default('$')
      .openapi({ description: '"0" for the whole backlog, "$" for new messages only, or an id' }),
  })
  .strict()
  .openapi('GroupCreateRequest');
export const GroupCreated = z
  .object({ queue: z.string(), group: z.string(), created: z.boolean() })
  .openapi('GroupCreated');

export const ConsumeBody = z
  .object({
    consumer: ConsumerName,
    count: z.number().int().min(1).max(MAX_BATCH).default(10),
    waitMs: z
      .number()
      .int()
      .min(0)
      .max(MAX_WAIT_MS)
      .default(0)
      .openapi({ description: 'Long poll: wait up to this long for a message before answering' }),
  })
  .strict()
  .openapi('ConsumeRequest');

export const AckBody = z.object({ ids: Ids }).strict().openapi('AckRequest');
export const AckResult = z.object({ acked: z.number().int() }).openapi('AckResult');
export const NackBody = z
  .object({
    ids: Ids,
    delayMs: z
      .number()
      .int()
      .min(0)
      .max(365 * DAY_MS)
      .default(0),
  })
  .strict()
  .openapi('NackRequest');
export const NackResult = z.object({ requeued: z.number().int() }).openapi('NackResult');
export const ExtendBody = z.object({ consumer: ConsumerName, ids: Ids }).strict().openapi('ExtendRequest');
export const ExtendResult = z
  .object({ extended: z.array(z.string()), lost: z.array(z.string()) })
  .openapi('ExtendResult');
export const ReclaimBody = z
  .object({
    consumer: ConsumerName,
    minIdleMs: z
      .number()
      .int()
      .min(0)
      .max(365 * DAY_MS),
    count: z.number().int().min(1).max(MAX_BATCH).optional(),
    cursor: StreamId.optional(),
  })
  .strict()
  .openapi('ReclaimRequest');
export const ReclaimResultSchema = z
  .object({ cursor: z.string(), messages: z.array(MessageSchema), deleted: z.array(z.string()) })
  .openapi('ReclaimResult');

export const PendingQuery = z.object({
  consumer: ConsumerName.optional(),
  minIdleMs: queryInt(0, 365 * DAY_MS).optional(),
  start: RangeBound.optional(),
  end: RangeBound.optional(),
  count: queryInt(1, MAX_BATCH).optional(),
});
export const PendingSummarySchema = z
  .object({
    pending: z.number().int(),
    minId: z.string().nullable(),
    maxId: z.string().nullable(),
    consumers: z.array(z.object({ name: z.string(), pending: z.number().int() })),
  })
  .openapi('PendingSummary');
export const PendingEntries = z
  .object({
    entries: z.array(
      z.object({
        id: z.string(),
        consumer: z.string(),
        idleMs: z.number(),
        deliveries: z.number().int(),
      }),
    ),
  })
  .openapi('PendingEntries');

export const DlqQuery = z.object({
  count: queryInt(1, MAX_BATCH).optional(),
  cursor: StreamId.optional(),
});
export const DeadLetterSchema = z
  .object({
    id: z.string(),
    body: z.unknown(),
    attributes: z.record(z.string(), z.string()),
    enqueuedAt: z.number().int(),
    fields: z.record(z.string(), z.string()).optional(),
    deadLetteredFrom: z.string(),
    group: z.string(),
    deliveries: z.number().int(),
    reason: z.string(),
    deadLetteredAt: z.number().int(),
  })
  .openapi('DeadLetter');
export const DeadLetterList = z
  .object({ deadLetters: z.array(DeadLetterSchema), cursor: z.string().nullable() })
  .openapi('DeadLetterList');
export const RedriveBody = z
  .union([z.object({ ids: Ids }).strict(), z.object({ all: z.literal(true) }).strict()])
  .openapi('RedriveRequest');
export const RedriveResult = z.object({ redriven: z.number().int() }).openapi('RedriveResult');
export const PurgeResult = z.object({ purged: z.number().int() }).openapi('PurgeResult');

export const SweepBody = z
  .object({
    budget: z.number().int().min(1).max(1_000_000).optional(),
    timeBudgetMs: z.number().int().min(1).max(60_000).optional(),
  })
  .strict()
  .openapi('SweepRequest');
export const SweepReportSchema = z
  .object({
    deadLettered: z.number().int(),
    promoted: z.number().int(),
    deletedReferences: z.number().int(),
    consumersRemoved: z.number().int(),
    trimmed: z.number().int(),
    complete: z.boolean(),
  })
  .openapi('SweepReport');

export const Health = z.object({ status: z.literal('ok'), redis: z.literal('up') }).openapi('Health');

export const ErrorEnvelopeSchema = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: 'INVALID_ARGUMENT' }),
      message: z.string(),
      details: z.unknown().optional(),
    }),
  })
  .openapi('Error');
